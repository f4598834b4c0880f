#!/bin/sh
# rowsplit.sh: what is particular to the rowsplit format through the tools
# (what every format does is formats.sh'): tcconv -f rowsplit -p seg=N,rowcost=K,
# the datasets as HDF5's own tools see them, tcstat -f rowsplit figures,
# files tampered with refused with the dataset named, a segment cost out
# of range refused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"

# t_rowsplit's example worked by hand: 6 x 8, value of (r, c) = 10 r + c + 1
# (0-based); row 0 holds columns 0-4, row 2 column 7, row 3 columns 1 and
# 6, row 5 column 2. At seg=4 and rowcost=1 in the matrix's order
# (order=0) row 0 (cost 6) is split into pieces of 2 and 3 nonzeros; rows
# 1-2, 3-4 and 5 are packed. Longest first (order=1) the rows are stored
# as 0 3 2 5 1 4.
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '6 8 9' '1 1 1' '1 2 2' '1 3 3' \
    '1 4 4' '1 5 5' '3 8 28' '4 2 32' '4 7 37' '6 3 53' > "$T/hand.mtx"
"$TCCONV" -q -f rowsplit -p seg=4,order=0,rowcost=1 --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"
ok $? "tcconv -f rowsplit -p seg=4,order=0,rowcost=1"

# --- the datasets, as h5dump shows them --------------------------------------
is "$(fmt_datasets rowsplit "$T/hand.tcf.h5" | tr '\n' ';')" \
    "col_id H5T_STD_I32LE 9;row_ptr H5T_STD_I64LE 7;seg_row H5T_STD_I32LE 5;seg_start H5T_STD_I64LE 6;values H5T_IEEE_F64LE 9;" \
    "h5dump: the CSR arrays and the segments"
is "$(fmt_data rowsplit "$T/hand.tcf.h5" seg_row) | $(fmt_data rowsplit "$T/hand.tcf.h5" seg_start)" \
    "0, 0, 1, 3, 5 | 0, 2, 5, 6, 8, 9" "seg_row: row 0 twice (split); seg_start: the pieces 0-1, 2-4"
is "$(fmt_data rowsplit "$T/hand.tcf.h5" row_ptr)" "0, 5, 5, 6, 8, 8, 9" "row_ptr: the matrix's"
is "$(fmt_attrs rowsplit "$T/hand.tcf.h5" seg order rowcost has_values)" \
    "seg=4 order=0 rowcost=1 has_values=1 " "attributes: seg, order, rowcost"
"$TCCONV" -q -f rowsplit -p seg=4,order=1,rowcost=1 --no-compress "$T/hand.mtx" -o "$T/long.tcf.h5"
is "$(fmt_data rowsplit "$T/long.tcf.h5" row_order) | $(fmt_data rowsplit "$T/long.tcf.h5" row_ptr)" \
    "0, 3, 2, 5, 1, 4 | 0, 5, 7, 8, 9, 9, 9" "order=1: row_order, and row_ptr of the rows so stored"
is "$(fmt_data rowsplit "$T/long.tcf.h5" seg_row) | $(fmt_data rowsplit "$T/long.tcf.h5" seg_start)" \
    "0, 0, 1, 2, 4 | 0, 2, 5, 7, 9, 9" "order=1: the segments of the stored rows"

# --- reading back --------------------------------------------------------------
"$TCSTAT" -f rowsplit --tsv "$T/hand.tcf.h5" > "$T/hand.tsv"; ok $? "tcstat -f rowsplit reads the file"
is "$(fmt_figures "$T/hand.tsv" format.rowsplit)" \
    "bytes=328 bytes_vs_csr=3.28 segments=5 split_rows=1 pieces=2 cost_mean=3.2 cost_max=4 fill=0.8 " \
    "tcstat -f rowsplit: segments, split rows, costs (bytes: 7*8 + 9*8 + 5*40)"
"$TCCONV" -q -f rowsplit "$T/hand.mtx" -o "$T/default.tcf.h5"
is "$(fmt_attrs rowsplit "$T/default.tcf.h5" seg order rowcost) $(fmt_data rowsplit "$T/default.tcf.h5" seg_row)" \
    "seg=5 order=1 rowcost=2  0, 0, 1, 2, 3, 5" \
    "defaults: rowcost=2, seg=5 (1.3 x the mean cost of a row, 3.5, a matrix this small), its cut; order=1 (row lengths' variation 1.1)"
run_fails 2 "tcconv: rowsplit: seg=1 is out of range [2, 65536]" "tcconv -p seg=1: refused" \
    -- "$TCCONV" -f rowsplit -p seg=1 "$T/hand.mtx" -o "$T/seg1.tcf.h5"
[ ! -e "$T/seg1.tcf.h5" ]; ok $? "  and leaves no file"
run_fails 2 "tcconv: rowsplit: order=2 is out of range [0, 1]" "tcconv -p order=2: refused" \
    -- "$TCCONV" -f rowsplit -p order=2 "$T/hand.mtx" -o "$T/order2.tcf.h5"
run_fails 2 "tcconv: rowsplit: seg=3 must be more than rowcost=3 (a piece of a split row costs its row and a nonzero at least)" \
    "tcconv -p seg=3,rowcost=3: refused" \
    -- "$TCCONV" -f rowsplit -p seg=3,rowcost=3 "$T/hand.mtx" -o "$T/seg3.tcf.h5"
[ ! -e "$T/seg3.tcf.h5" ]; ok $? "  and leaves no file"

# --- tampered files (tcstat reads them; tcplot draws only formats with parts) --
fmt_tampered_stat rowsplit "$T/hand.tcf.h5" "seg_row[2] = 2 (row 1 in no segment)" seg_row 8 '\002' \
    "/seg_row[1]: row 0 is split, so the next segment must start at row 1, not 2"
fmt_tampered_stat rowsplit "$T/hand.tcf.h5" "seg_start[3] = 4" seg_start 24 '\004' \
    "/seg_start[3]: 4 after 5 (must not decrease)"
fmt_tampered_stat rowsplit "$T/hand.tcf.h5" "seg_start[2] = 4 (a piece's nonzero in rows 1-2)" \
    seg_start 16 '\004' "/seg_start[2]: nonzeros 4 .. 6 for rows 1 .. 2, expected 5 .. 6"
"$TCSTAT" -f rowsplit "$T/long.tcf.h5" > /dev/null; ok $? "tcstat reads the order=1 file"
fmt_tampered_stat rowsplit "$T/long.tcf.h5" "row_order[1] = 2 (row 2 twice)" row_order 4 '\002' \
    "/row_order: index 2 appears twice (entries 1 and 2): not a permutation"
cp "$T/long.tcf.h5" "$T/swapped.tcf.h5"
fmt_patch rowsplit "$T/swapped.tcf.h5" row_order 8 '\005'
fmt_patch rowsplit "$T/swapped.tcf.h5" row_order 12 '\002'
run_fails 1 "tcstat: $T/swapped.tcf.h5: /formats/rowsplit: does not encode /matrix (row 2 differs)" \
    "tcstat refuses row_order with rows 2 and 5 swapped (a permutation, the wrong one)" \
    -- "$TCSTAT" -f rowsplit "$T/swapped.tcf.h5"

done_testing
