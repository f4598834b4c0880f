#!/bin/sh
# brp.sh: what is particular to the brp format through the tools (what every
# format does is formats.sh'): tcconv -f brp -p, the datasets as HDF5's own
# tools see them (the paper's names and types), files tampered with refused
# with the dataset named and no output left, tcstat -f brp figures, a
# stored brp drawn with its own parameters.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"

# t_brp's example worked by hand: 11 x 12, value of (r, c) = 100 r + c
# (0-based), built with h=4, w=4, g=2: two groups (windows 0 and 2), eight
# residual nonzeros in rows 0 2 3 4 6 7.
cat > "$T/hand.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
11 12 24
1 2 1
1 6 5
1 10 9
2 1 100
2 2 101
2 8 107
3 6 205
3 12 211
4 2 301
4 3 302
4 12 311
5 4 403
7 1 600
7 9 608
8 5 704
8 11 710
10 1 900
10 2 901
10 3 902
10 4 903
10 5 904
10 6 905
10 7 906
10 8 907
EOF
fmt_big_pattern "$T/big.mtx" 11

"$TCCONV" -q -f brp -p h=4,w=4,g=2 --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"
ok $? "tcconv -f brp -p h=4,w=4,g=2"
"$TCCONV" -q -f brp "$T/big.mtx" -o "$T/big.tcf.h5"; ok $? "tcconv -f brp, pattern, defaults"

# --- the datasets, as h5dump shows them --------------------------------------
datasets() { fmt_datasets brp "$1"; }
is "$(datasets "$T/hand.tcf.h5" | tr '\n' ';')" \
    "group_window_id H5T_STD_I32LE 2;local_id H5T_STD_U8LE 16;old_col_id H5T_STD_I32LE 16;res_col_id H5T_STD_I32LE 8;res_row_id H5T_STD_I32LE 6;res_row_offset H5T_STD_I64LE 7;res_values H5T_IEEE_F64LE 8;values H5T_IEEE_F64LE 16;" \
    "h5dump: the paper's arrays, their types and lengths"
data() { fmt_data brp "$1" "$2"; }
is "$(data "$T/hand.tcf.h5" group_window_id)" "0, 2" "group_window_id"
is "$(data "$T/hand.tcf.h5" local_id)" "4, 1, 6, 15, 12, 1, 10, 7, 4, 5, 6, 7, 4, 5, 6, 7" \
    "local_id: row * w + i mod w, in column-major order"
is "$(data "$T/hand.tcf.h5" old_col_id)" "0, 1, 1, 1, 2, 5, 5, 7, 0, 1, 2, 3, 4, 5, 6, 7" \
    "old_col_id"
is "$(data "$T/hand.tcf.h5" res_row_id) | $(data "$T/hand.tcf.h5" res_row_offset) | $(data "$T/hand.tcf.h5" res_col_id)" \
    "0, 2, 3, 4, 6, 7 | 0, 1, 2, 3, 4, 6, 8 | 9, 11, 11, 3, 0, 8, 4, 10" \
    "res_row_id, res_row_offset, res_col_id"
attrs() {
    for a in h w f g has_values; do
        printf '%s=%s ' $a "$(h5dump -a "/formats/brp/$a" "$1" | sed -n 's/^ *(0): //p')"
    done
}
is "$(attrs "$T/hand.tcf.h5")" "h=4 w=4 f=1 g=2 has_values=1 " "attributes: parameters and has_values"
is "$(attrs "$T/big.tcf.h5")" "h=16 w=8 f=1 g=4 has_values=0 " "pattern: default parameters, has_values 0"
is "$(datasets "$T/big.tcf.h5" | grep -c values)" 0 "pattern: no values, no res_values"

# --- reading back: tcstat reads /formats/brp, checks that it decodes to
# /matrix, and reports the stored format's figures -----------------------------
"$TCSTAT" -f brp --tsv "$T/hand.tcf.h5" > "$T/hand.tsv"; ok $? "tcstat -f brp reads the file"
is "$(fmt_figures "$T/hand.tsv" format.brp)" \
    "bytes=296 bytes_vs_csr=1.233333333 groups=2 tc_nnz=16 tc_share=0.6666666667 residual_nnz=8 residual_rows=6 windows=3 windows_with_groups=2 " \
    "tcstat -f brp: the stored format's figures (h=4, w=4, g=2)"
"$TCSTAT" -f brp --tsv "$T/hand.mtx" > "$T/hand-mtx.tsv"
is "$(fmt_figures "$T/hand-mtx.tsv" format.brp 'groups|residual_nnz')" \
    "groups=0 residual_nnz=24 windows_with_groups=0 " \
    "tcstat -f brp on .mtx: built with the defaults (24 nonzeros, no group of 32)"
"$TCSTAT" -f brp --tsv "$T/big.tcf.h5" > "$T/big.tsv"; ok $? "tcstat -f brp reads the pattern file"
is "$(awk -F'\t' '$2 == "format.brp" && $3 == "tc_nnz" { print $4 % 32 }' "$T/big.tsv")" 0 \
    "TC part: whole groups of 32"

# --- tampered files -----------------------------------------------------------
tampered() { fmt_tampered brp "$T/hand.tcf.h5" "$@"; }
tampered "local_id[3] = 16" local_id 3 '\020' \
    "/local_id[3]: 16 is not below h*w = 16"
tampered "local_id[0] in local column 1" local_id 0 '\005' \
    "/local_id[0]: local column 1, expected 0 (one nonzero per local column, in order)"
tampered "group_window_id[1] = 3" group_window_id 4 '\003\000\000\000' \
    "/group_window_id[1]: window 3 is out of range (3 windows of 4 rows)"
tampered "old_col_id[2] = 12" old_col_id 8 '\014\000\000\000' \
    "/old_col_id[2]: column 12 is out of range (12 columns)"
tampered "res_row_id[0] = 11" res_row_id 0 '\013\000\000\000' \
    "/res_row_id[0]: row 11 is out of range (11 rows)"
tampered "res_row_offset[2] = 1" res_row_offset 16 '\001' \
    "/res_row_offset[2]: 1 after 1 (must increase, up to 8)"
tampered "res_col_id[0] = 7, before the TC part" res_col_id 0 '\007' \
    "/res_col_id[0]: column 7 row 0 comes before the last TC nonzero of window 0 (column 7) in column-major order"
tampered "a value changed" values 0 '\001' \
    ": does not encode /matrix (row 1 differs)"

# --- pictures -----------------------------------------------------------------
"$TCPLOT" -q -f brp -s 64 "$T/hand.tcf.h5" -o "$T/hand-stored.png" &&
    "$TCPLOT" -q -f brp -s 64 "$T/hand.mtx" -o "$T/hand-built.png"
cmp -s "$T/hand-stored.png" "$T/hand-built.png"
ok $((! $?)) "a stored format with h=4, g=2 is drawn as stored, not rebuilt with defaults"

done_testing
