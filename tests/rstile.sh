#!/bin/sh
# rstile.sh: what is particular to the rstile format through the tools
# (what every format does is formats.sh'): tcconv -f rstile -p, the
# datasets as HDF5's own tools see them (the paper's names and types, the
# bit order, the dummy column), files tampered with refused with the
# dataset named and no output left, tcstat -f rstile figures and Fig. 14's
# table, tcplot -f rstile pictures of the residual rows.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"

# t_rstile's example worked by hand: 20 x 20, value of (r, c) = 100 r + c
# (0-based). At threshold 2 rows 2, 16 and 17 (short, their columns in no
# other row of their window) go to the residual; window 0 keeps 13
# columns in 2 blocks, the second padded with 3 dummy columns; window 1
# (rows 16-19) is row 19 alone, 16 columns in 2 blocks. That is with
# min_density 0; at the default 8.5 window 1 (8 nonzeros per block) goes
# whole to the residual, row 19 with it.
{
    echo '%%MatrixMarket matrix coordinate real general'
    echo '20 20 37'
    for c in 0 1 2 3 4 5 6 7 8 9; do echo "1 $((c + 1)) $c"; done
    printf '%s\n' '2 2 101' '2 4 103' '3 12 211' '4 3 302' '4 13 312' '4 14 313' \
        '5 10 409' '5 15 414' '17 18 1617' '18 19 1718' '18 20 1719'
    for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo "20 $((c + 1)) $((1900 + c))"; done
} > "$T/hand.mtx"
fmt_big_pattern "$T/big.mtx" 11

"$TCCONV" -q -f rstile -p threshold=2,min_density=0 --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"
ok $? "tcconv -f rstile -p threshold=2,min_density=0"
"$TCCONV" -q -f rstile "$T/big.mtx" -o "$T/big.tcf.h5"; ok $? "tcconv -f rstile, pattern, defaults"

# --- the datasets, as h5dump shows them --------------------------------------
datasets() { fmt_datasets rstile "$1"; }
data() { fmt_data rstile "$1" "$2"; }
is "$(datasets "$T/hand.tcf.h5" | tr '\n' ';')" \
    "bitmap H5T_STD_U64LE 8;col_id H5T_STD_I32LE 32;res_col_id H5T_STD_I32LE 4;res_row_id H5T_STD_I32LE 3;res_row_offset H5T_STD_I64LE 4;res_values H5T_IEEE_F64LE 4;row_window_id H5T_STD_I32LE 2;row_window_offset H5T_STD_I64LE 3;values H5T_IEEE_F64LE 33;" \
    "h5dump: the paper's arrays, their types and lengths"
is "$(data "$T/hand.tcf.h5" row_window_id) | $(data "$T/hand.tcf.h5" row_window_offset)" \
    "0, 16 | 0, 2, 4" "row_window_id (first rows of the windows), row_window_offset"
# 0x04000aff: row 0 in columns 0-7, row 1 in 1 and 3, row 3 in 2;
# 0x120c000003: row 0 in 8 and 9, row 3 in 12 and 13, row 4 in 9 and 14;
# 0xff000000: row 19 (local row 3).
is "$(data "$T/hand.tcf.h5" bitmap)" \
    "67111679, 0, 77510737923, 0, 4278190080, 0, 4278190080, 0" \
    "bitmap: bit 8r + c of word r / 8 for local row r, local column c"
is "$(data "$T/hand.tcf.h5" col_id)" \
    "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15" \
    "col_id: compacted columns, the dummy column -1 after the last one of window 0"
is "$(data "$T/hand.tcf.h5" values)" \
    "0, 1, 2, 3, 4, 5, 6, 7, 101, 103, 302, 8, 9, 312, 313, 409, 414, 1900, 1901, 1902, 1903, 1904, 1905, 1906, 1907, 1908, 1909, 1910, 1911, 1912, 1913, 1914, 1915" \
    "values in bitmap order (row-major within a block)"
is "$(data "$T/hand.tcf.h5" res_row_id) | $(data "$T/hand.tcf.h5" res_row_offset) | $(data "$T/hand.tcf.h5" res_col_id)" \
    "2, 16, 17 | 0, 1, 2, 4 | 11, 17, 18, 19" "res_row_id, res_row_offset, res_col_id"
attrs() {
    for a in threshold split min_density resolved_threshold resolved_split has_values; do
        printf '%s=%s ' $a "$(h5dump -a "/formats/rstile/$a" "$1" | sed -n 's/^ *(0): //p')"
    done
}
is "$(attrs "$T/hand.tcf.h5")" "threshold=2 split=-1 min_density=0 resolved_threshold=2 resolved_split=32 has_values=1 " \
    "attributes: parameters as given, the values they resolved to"
is "$(datasets "$T/big.tcf.h5" | grep -c values)" 0 "pattern: no values, no res_values"

# --- reading back -------------------------------------------------------------
"$TCSTAT" -f rstile --tsv "$T/hand.tcf.h5" > "$T/hand.tsv"; ok $? "tcstat -f rstile reads the file"
is "$(awk -F'\t' '$2 == "format.rstile" && $3 !~ /_t[0-9]$/ { printf "%s=%s ", $3, $4 }' "$T/hand.tsv")" \
    "bytes=472 bytes_vs_csr=1.242105263 threshold=2 min_density=0 split=32 windows=2 tc_windows=2 residual_windows=0 segments=2 split_windows=0 segment_blocks_max=2 blocks=4 tc_nnz=33 tc_share=0.8918918919 residual_rows=3 residual_nnz=4 residual_share=0.1081081081 nnz_per_tcb=8.25 nnz_per_window=16.5 " \
    "tcstat -f rstile: the stored format's figures"
"$TCCONV" -q -f rstile -p threshold=2 "$T/hand.mtx" -o "$T/hand8.tcf.h5" &&
    "$TCSTAT" -f rstile --tsv "$T/hand8.tcf.h5" > "$T/hand8.tsv"
ok $? "tcconv -f rstile -p threshold=2 (min_density 8.5), tcstat reads it"
is "$(fmt_figures "$T/hand8.tsv" format.rstile '^(min_density|tc_windows|residual_windows|blocks|residual_rows|residual_nnz)$')" \
    "min_density=8.5 tc_windows=1 residual_windows=1 blocks=2 residual_rows=4 residual_nnz=20 " \
    "min_density 8.5: window 1 (8 nonzeros per block) sent whole, row 19 of 16 with it; window 0 (8.5) kept"
is "$(data "$T/hand8.tcf.h5" res_row_id)" "2, 16, 17, 19" "  res_row_id"
is "$(awk -F'\t' '$2 == "format.rstile" && $3 ~ /^(nnz_per_tcb|residual_rows)_t/ { printf "%s ", $4 }' "$T/hand.tsv")" \
    "7.4 7 8.25 7.5 7.5 7.5 7.5 7.5 7.5 0 2 3 4 4 4 4 4 4 " \
    "Fig. 14's table: nonzeros per TC block and residual rows at thresholds 0..8"
"$TCSTAT" -f rstile "$T/hand.mtx" > "$T/hand.txt"
is "$(awk '$1 == "threshold" || $1 == "residual_share_t3" { printf "%s=%s ", $1, $2 }' "$T/hand.txt")" \
    "threshold=1 residual_share_t3=0.189189 " \
    "tcstat -f rstile on .mtx: the automatic threshold (2 would pass 10% of the nonzeros), the table as text"

# --- tampered files -----------------------------------------------------------
tampered() { fmt_tampered rstile "$T/hand.tcf.h5" "$@"; }
tampered "row_window_id[1] = 17" row_window_id 4 '\021' \
    "/row_window_id[1]: 17 is not the first row of a window (a multiple of 16 below 20)"
tampered "row_window_offset[1] = 0" row_window_offset 8 '\000' \
    "/row_window_offset[1]: 0 after 0 (a segment holds 1 to 32 blocks)"
tampered "col_id[3] = 20" col_id 12 '\024' \
    "/col_id[3]: column 20 is out of range (20 columns)"
tampered "col_id[13] = 15, a real column in a dummy slot" col_id 52 '\017\000\000\000' \
    "/bitmap[2]: column 15 (local column 5 of block 1) has no nonzero"
tampered "col_id[7] = -1, a dummy column inside a window" col_id 28 '\377\377\377\377' \
    "/col_id[7]: dummy column -1 outside the trailing slots of its window's last block"
tampered "a bit moved into a dummy column" bitmap 16 '\041' \
    "/bitmap[2]: a nonzero in dummy column 5 of block 1"
tampered "a bit moved to row 20, past the matrix" bitmap 51 '\376\001' \
    "/bitmap[6]: a nonzero in row 20, outside the matrix (20 rows)"
tampered "res_row_id[0] = 4, a TC row" res_row_id 0 '\004' \
    "/res_row_id[0]: row 4 also has nonzeros in the TC part"
tampered "res_col_id[0] = 20" res_col_id 0 '\024' \
    "/res_col_id[0]: column 20 is out of range (20 columns)"
tampered "a value changed" values 0 '\001' \
    ": does not encode /matrix (row 0 differs)"

# --- pictures -----------------------------------------------------------------
"$TCPLOT" -q -f rstile -s 64 "$T/hand.tcf.h5" -o "$T/hand-rs.png" && fmt_is_png "$T/hand-rs.png"
ok $? "tcplot -f rstile writes a PNG"
"$TCPLOT" -q -s 64 "$T/hand.mtx" -o "$T/hand-csr.png"
cmp -s "$T/hand-rs.png" "$T/hand-csr.png"
ok $((! $?)) "the residual rows change the colours of the spy plot"
"$TCPLOT" -q -f rstile -s 64 "$T/hand.mtx" -o "$T/hand-built.png"
cmp -s "$T/hand-rs.png" "$T/hand-built.png"
ok $((! $?)) "a stored format with threshold=2 is drawn as stored, not rebuilt with defaults"

done_testing
