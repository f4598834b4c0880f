#!/bin/sh
# bsb.sh: what is particular to the bsb format and the tcbsort reordering
# through the tools (what every format does is formats.sh'): tcconv -f bsb
# (binary and -p values=1), the datasets
# as HDF5's own tools see them (the paper's names, the bit order, the
# dummy column), files tampered with refused with the dataset named,
# tcstat -f bsb figures, tcreorder --method tcbsort (whole windows, the
# report's Table 7 deciles, the paper's own Github row on the real
# matrix).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"
TCREORDER=$TOOLS/tcreorder

# t_bsb's example worked by hand: 20 x 20, value of (r, c) = 100 r + c + 1
# (0-based) but (2, 5), an explicit zero. Window 0 has columns 0 1 3 5 7 8
# 10 12 | 19 (two blocks, the second with 7 dummy slots), window 1 (rows
# 16-19) columns 2 4.
{
    echo '%%MatrixMarket matrix coordinate real general'
    echo '20 20 13'
    printf '%s\n' '1 1 1' '1 4 4' '2 4 104' '3 6 0' '4 8 308' '5 9 409' '6 11 511' \
        '9 13 813' '10 2 902' '16 20 1520' '17 3 1603' '20 3 1903' '20 5 1905'
} > "$T/hand.mtx"

"$TCCONV" -q -f bsb --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"; ok $? "tcconv -f bsb"
"$TCCONV" -q -f bsb -p values=1 --no-compress "$T/hand.mtx" -o "$T/handv.tcf.h5"
ok $? "tcconv -f bsb -p values=1"

# --- the datasets, as h5dump shows them --------------------------------------
data() { fmt_data bsb "$1" "$2"; }
is "$(fmt_datasets bsb "$T/hand.tcf.h5" | tr '\n' ';')" \
    "bitmap H5T_STD_U64LE 6;sptd H5T_STD_I32LE 24;tro H5T_STD_I64LE 3;" \
    "binary: tro, sptd, bitmap, their types and lengths, no values"
is "$(fmt_datasets bsb "$T/handv.tcf.h5" | tr '\n' ';')" \
    "bitmap H5T_STD_U64LE 6;sptd H5T_STD_I32LE 24;tro H5T_STD_I64LE 3;values H5T_IEEE_F64LE 13;" \
    "values=1: and values"
is "$(data "$T/hand.tcf.h5" tro)" "0, 2, 3" "tro: the first block of each window"
is "$(data "$T/hand.tcf.h5" sptd)" \
    "0, 1, 3, 5, 7, 8, 10, 12, 19, -1, -1, -1, -1, -1, -1, -1, 2, 4, -1, -1, -1, -1, -1, -1" \
    "sptd: compacted columns, the dummy column -1 after the last of each window"
# block 0: (0,0) (0,3) (1,3) (2,5) (3,7) (4,8) (5,10) at bits 0 2 10 19 28 37
# 46 of word 0, (8,12) (9,1) at bits 7 9 of word 1; block 1: (15,19) at bit
# 56 of word 1; block 2: (16,2) (19,2) (19,4) at bits 0 24 25 of word 0.
is "$(data "$T/hand.tcf.h5" bitmap)" "70506452091909, 640, 0, 72057594037927936, 50331649, 0" \
    "bitmap: bit (r % 8) * 8 + c of word r / 8"
is "$(data "$T/handv.tcf.h5" values)" \
    "1, 4, 104, 0, 308, 409, 511, 813, 902, 1520, 1603, 1903, 1905" \
    "values in bitmap order, the explicit zero kept"
is "$(fmt_attrs bsb "$T/hand.tcf.h5" values has_values)$(fmt_attrs bsb "$T/handv.tcf.h5" values)" \
    "values=0 has_values=1 values=1 " "attributes: the parameter, has_values of /matrix"

# --- reading back -------------------------------------------------------------
figures() { "$TCSTAT" -f bsb --tsv "$1" > "$T/figures.tsv" && fmt_figures "$T/figures.tsv" format.bsb; }
is "$(figures "$T/hand.tcf.h5")" \
    "bytes=168 bytes_vs_csr=0.8936170213 values=0 windows=2 empty_windows=0 blocks=3 tcb_per_window_max=2 tcb_per_window_mean=1.5 nnz_per_tcb=4.333333333 fill=0.03385416667 dummy_columns=13 table3_bytes=152 table3_vs_csr=0.8260869565 " \
    "tcstat -f bsb: the stored format's figures"
is "$(figures "$T/handv.tcf.h5" | cut -d' ' -f1-3)" "bytes=252 bytes_vs_csr=1.340425532 values=1" \
    "tcstat -f bsb, values=1: float32 values and int64 offsets added"

# --- tampered files -----------------------------------------------------------
# tampered FILE NAME DATASET OFFSET BYTES MESSAGE: tcstat refuses a copy of
# FILE with BYTES written into DATASET (tcstat reads a format without parts
# back; tcplot only reads those with parts).
tampered() {
    cp "$1" "$T/bad.tcf.h5"
    fmt_patch bsb "$T/bad.tcf.h5" "$3" "$4" "$5"
    run_fails 1 "tcstat: $T/bad.tcf.h5: /formats/bsb$6" "tcstat refuses $2" \
        -- "$TCSTAT" -f bsb "$T/bad.tcf.h5"
}
tampered "$T/hand.tcf.h5" "tro[0] = 1" tro 0 '\001' "/tro[0]: 1, expected 0"
tampered "$T/hand.tcf.h5" "sptd[3] = 20" sptd 12 '\024' \
    "/sptd[3]: column 20 is out of range (20 columns)"
tampered "$T/hand.tcf.h5" "sptd[18] = 5, a real column in a dummy slot" sptd 72 '\005\000\000\000' \
    "/bitmap: block 2 has no nonzero in column 5 (local column 2)"
tampered "$T/hand.tcf.h5" "a bit into a dummy column" bitmap 31 '\003' \
    "/bitmap: block 1 has a nonzero in its dummy column 1"
tampered "$T/hand.tcf.h5" "a bit moved to row 20, past the matrix" bitmap 36 '\001' \
    "/bitmap: block 2 has bits in rows past the 20 rows of the matrix"
tampered "$T/handv.tcf.h5" "a value changed" values 0 '\001' ": does not encode /matrix (row 0 differs)"

# --- tcbsort ------------------------------------------------------------------
"$TCREORDER" --list-methods | grep -q '^tcbsort '; ok $? "tcreorder --list-methods names tcbsort"
# 40 rows: window 0 (rows 0-15) 1 block, window 1 (16-31) 3 blocks, the
# partial window 2 (32-39) 4 blocks: windows 1 0, then 2 in place.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 40, 64, 57
             print 1, 1
             for (c = 0; c < 24; c++) print 17 + c % 16, c + 1
             for (c = 0; c < 32; c++) print 33 + c % 8, c + 1 }' > "$T/win.mtx"
"$TCREORDER" --method tcbsort --tsv --perm-out "$T/win.txt" -o "$T/win.tcf.h5" "$T/win.mtx" \
    > "$T/win.tsv"; ok $? "tcreorder --method tcbsort"
is "$(seq 16 31 | tr '\n' ' ')$(seq 0 15 | tr '\n' ' ')$(seq 32 39 | tr '\n' ' ')" \
    "$(tr '\n' ' ' < "$T/win.txt")" "whole windows by decreasing blocks, the partial one last"
value() { tsv_value tc16x8 "$1" "$2"; }
is "$(value tcb_per_window_p0_before "$T/win.tsv") $(value tcb_per_window_p50_before "$T/win.tsv") $(value tcb_per_window_p100_before "$T/win.tsv") $(value blocks_after "$T/win.tsv")" \
    "1 3 4 8" "report: Table 7 deciles (min, median, max) and the blocks, unchanged"
"$TCCONV" -q -f bsb "$T/win.tcf.h5" -o "$T/winb.tcf.h5" && is "$(data "$T/winb.tcf.h5" tro)" \
    "0, 3, 4, 8" "the reordered file's bsb: windows of 3, 1 and 4 blocks"
D=${TC_SHARED_DATA:-}
if [ -n "$D" ] && [ -f "$D/musae_github.mtx.gz" ]; then
    "$TCREORDER" --method tcbsort --tsv "$D/musae_github.mtx.gz" > "$T/gh.tsv"
    deciles() { for p in 0 10 20 30 40 50 60 70 80 90 100; do printf '%s ' "$(value tcb_per_window_p${p}_$1 "$T/gh.tsv")"; done; }
    is "$(deciles before)| $(deciles after)" \
        "2 13 16 18 20 23 25 29 34 46 1191 | 2 13 16 18 20 23 25 29 34 46 1191 " \
        "musae_github: the deciles of 003 Table 7's Github row, the same after tcbsort"
    is "$(value tcb_per_window_cv_before "$T/gh.tsv")" "1.341932506" "musae_github: CV 1.34 (003 Table 6)"
else
    skip "no musae_github in the shared collection (TC_SHARED_DATA)"
    skip "no musae_github in the shared collection (TC_SHARED_DATA)"
fi

done_testing
