#!/bin/sh
# hrpb.sh: what is particular to the hrpb format and the TCU-Synergy through
# the tools (what every format does is formats.sh'): tcconv -f hrpb in two
# panel shapes, the datasets as HDF5's own tools see them (the paper's
# names, our types, the packed bytes of a block), files tampered with
# refused with the dataset and byte named, tcstat's synergy section and
# tcstat -f hrpb agreeing on real matrices.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"

# t_hrpb's example worked by hand: 20 x 40, value of (r, c) = 100 r + c + 1
# (0-based) but (3, 5), an explicit zero. Panel 0: active columns 0 5 17
# 39, one brick with bits 0 (0,0), 2 (0,17), 13 (3,5) and 63 (15,39);
# panel 1 (rows 16-19): columns 0 16, bits 1 (16,16) and 12 (19,0).
fmt_hand_20x40 "$T/hand.mtx"

"$TCCONV" -q -f hrpb --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"; ok $? "tcconv -f hrpb"
"$TCCONV" -q -f hrpb -p TM=32 --no-compress "$T/hand.mtx" -o "$T/hand32.tcf.h5"
ok $? "tcconv -f hrpb -p TM=32"

# --- the datasets, as h5dump shows them --------------------------------------
is "$(fmt_datasets hrpb "$T/hand.tcf.h5" | tr '\n' ';')" \
    "activeCols H5T_STD_I32LE 32;blockedRowPtr H5T_STD_I64LE 3;packedBlocks H5T_STD_U8LE 64;sizePtr H5T_STD_I64LE 3;valuePtr H5T_STD_I64LE 3;values H5T_IEEE_F64LE 6;" \
    "h5dump: the paper's arrays (TK columns a block, a byte stream) and our float64 values"
is "$(fmt_data hrpb "$T/hand.tcf.h5" blockedRowPtr) | $(fmt_data hrpb "$T/hand.tcf.h5" sizePtr) | $(fmt_data hrpb "$T/hand.tcf.h5" valuePtr)" \
    "0, 1, 2 | 0, 32, 64 | 0, 4, 6" "blockedRowPtr, sizePtr (bytes), valuePtr"
is "$(fmt_data hrpb "$T/hand.tcf.h5" activeCols | cut -d' ' -f1-6,17-19)" \
    "0, 5, 17, 39, -1, -1, 0, 16, -1," "activeCols: compacted columns, -1 in the last block's spare slots"
# block 0: colPtr 0 1 1 1 1, rows 0, 2 zero bytes, pattern 1 + 4 + 2^13 + 2^63
# (little-endian), then float32 1 18 0 1540
is "$(fmt_data hrpb "$T/hand.tcf.h5" packedBlocks | cut -d' ' -f1-20)" \
    "0, 1, 1, 1, 1, 0, 0, 0, 5, 32, 0, 0, 0, 0, 0, 128, 0, 0, 128, 63," \
    "packedBlocks: colPtr, rows, padding, the pattern (bit r*4 + c), 1.0f"
is "$(fmt_data hrpb "$T/hand.tcf.h5" values)" "1, 18, 0, 1540, 1617, 1901" \
    "values: brick after brick, row-major inside a brick"
attrs() { fmt_attrs hrpb "$1" TM TK has_values; }
is "$(attrs "$T/hand.tcf.h5")" "TM=16 TK=16 has_values=1 " "attributes: TM=16 TK=16 by default"
is "$(attrs "$T/hand32.tcf.h5")" "TM=32 TK=16 has_values=1 " "attributes: TM=32"
# TM 32: one panel, colPtr 0 2 3 3 3, rows 0 1 0, three patterns, six values
is "$(fmt_data hrpb "$T/hand32.tcf.h5" blockedRowPtr) | $(fmt_data hrpb "$T/hand32.tcf.h5" packedBlocks | cut -d' ' -f1-8)" \
    "0, 1 | 0, 2, 3, 3, 3, 0, 1, 0," "TM=32: one panel, bricks in both brick rows"

# --- reading back --------------------------------------------------------------
"$TCSTAT" -f hrpb --tsv "$T/hand.tcf.h5" > "$T/hand.tsv"; ok $? "tcstat -f hrpb reads the file"
is "$(fmt_figures "$T/hand.tsv" format.hrpb)" \
    "bytes=240 bytes_vs_csr=1.818181818 panels=2 active_cols=6 blocks=2 bricks=2 beta=1 brick_density=0.046875 alpha=0.0625 oi=32 class=low empty_panels=0 blocks_per_panel_mean=1 blocks_per_panel_max=1 " \
    "tcstat -f hrpb: its figures"
is "$(fmt_figures "$T/hand.tsv" synergy)" \
    "panels=2 active_cols=6 blocks=2 bricks=2 beta=1 brick_density=0.046875 alpha=0.0625 oi=32 class=low " \
    "tcstat: the synergy section, the same figures without the format"
"$TCSTAT" -f hrpb --tsv "$T/hand32.tcf.h5" > "$T/hand32.tsv"
is "$(tsv_value format.hrpb bricks "$T/hand32.tsv") $(tsv_value format.hrpb beta "$T/hand32.tsv") $(tsv_value format.hrpb alpha "$T/hand32.tsv")" \
    "3 1.5 0.04166666667" "tcstat -f hrpb, stored TM=32: its own figures (3 bricks, beta 1.5)"
"$TCSTAT" "$T/hand.mtx" > "$T/hand.txt"
grep -q '^  alpha  *0.0625  nnz / (16 \* columns of active bricks): TCU-Synergy (002 Sec. 6.4)$' "$T/hand.txt"
ok $? "tcstat text: alpha with its definition"
run_fails 2 "tcconv: hrpb: TM=24 is not a panel height of the kernel (16 or 32: whole bricks of 16 rows, the m of mma.m16n8k4)" \
    "tcconv -f hrpb -p TM=24: refused" -- "$TCCONV" -f hrpb -p TM=24 "$T/hand.mtx" -o "$T/tm24.tcf.h5"
[ ! -e "$T/tm24.tcf.h5" ]; ok $? "  and leaves no file"

# --- tampered files -----------------------------------------------------------
# tampered NAME DATASET OFFSET BYTES MESSAGE: tcstat refuses a copy of
# hand.tcf.h5 with BYTES written into DATASET (tcstat is the tool that
# reads a format without parts back). Block 0 is bytes 0-31 of
# packedBlocks: colPtr 0-4, rows 5, padding 6-7, pattern 8-15, values
# 16-31; block 1 starts at 32.
tampered() {
    cp "$T/hand.tcf.h5" "$T/bad.tcf.h5"
    fmt_patch hrpb "$T/bad.tcf.h5" "$2" "$3" "$4"
    run_fails 1 "tcstat: $T/bad.tcf.h5: /formats/hrpb$5" "tcstat refuses $1" \
        -- "$TCSTAT" -f hrpb "$T/bad.tcf.h5"
}
tampered "blockedRowPtr[1] = 3" blockedRowPtr 8 '\003' \
    "/blockedRowPtr[1]: 3 after 0 (must not decrease, up to 2)"
tampered "sizePtr[1] = 24" sizePtr 8 '\030' \
    "/sizePtr[1]: 24 after 0 (block 0 of 24 bytes: at least 16 and a multiple of 16)"
tampered "activeCols[1] = 40" activeCols 4 '\050' \
    "/activeCols[1]: column 40 is out of range (40 columns)"
tampered "a padding byte" packedBlocks 6 '\007' \
    "/packedBlocks[6]: 7 in the padding of block 0, expected 0"
tampered "a bit in row 20" packedBlocks 42 '\001' \
    "/packedBlocks[40]: patterns[0] of block 1 has a nonzero in row 20, outside the matrix (20 rows)"
tampered "a float32 value" packedBlocks 19 '\100' \
    "/packedBlocks[16]: float32 value 4 of block 0, expected 1 (values as float32)"
tampered "a float64 value" values 0 '\000\000\000\000\000\000\000\100' \
    "/packedBlocks[16]: float32 value 1 of block 0, expected 2 (values as float32)"

# --- real matrices: the synergy section and the format's figures agree -----------
keys='panels active_cols blocks bricks beta brick_density alpha oi class'
section() {   # section NAME TSV: "key=value " for the synergy keys of NAME
    for k in $keys; do printf '%s=%s ' "$k" "$(tsv_value "$1" "$k" "$2")"; done
}
for m in bcsstk13 cora rajat01; do
    "$TCCONV" -q -f hrpb "$DATA/$m.mtx.gz" -o "$T/$m.tcf.h5" &&
        "$TCSTAT" --tsv -f hrpb "$T/$m.tcf.h5" > "$T/$m.tsv"
    ok $? "$m: .mtx.gz -> .tcf.h5 with hrpb, read back and validated"
    is "$(section format.hrpb "$T/$m.tsv")" "$(section synergy "$T/$m.tsv")" \
        "$m: tcstat -f hrpb and the synergy section give the same figures"
done
is "$(tsv_value synergy class "$T/bcsstk13.tsv") $(tsv_value synergy class "$T/cora.tsv") $(tsv_value synergy class "$T/rajat01.tsv")" \
    "high low medium" "classes: bcsstk13 high (FEM), cora low (citation graph), rajat01 medium"

done_testing
