#!/bin/sh
# bcsr.sh: what is particular to the bcsr format through the tools (what
# every format does is formats.sh'): tcconv -f bcsr in both block shapes,
# the datasets as HDF5's own tools see them (the paper's names, our types
# and bit order), files tampered with refused with the dataset named,
# tcstat -f bcsr figures.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"

# t_bcsr's example worked by hand: 20 x 40, value of (r, c) = 100 r + c + 1
# (0-based) but (3, 5), an explicit zero. 16 x 16 blocks: block row 0 holds
# block columns 0 1 2, block row 1 (rows 16-19) holds 0 1.
fmt_hand_20x40 "$T/hand.mtx"

"$TCCONV" -q -f bcsr --no-compress "$T/hand.mtx" -o "$T/hand.tcf.h5"; ok $? "tcconv -f bcsr"
"$TCCONV" -q -f bcsr -p w=8 --no-compress "$T/hand.mtx" -o "$T/hand8.tcf.h5"
ok $? "tcconv -f bcsr -p w=8"

# --- the datasets, as h5dump shows them --------------------------------------
is "$(fmt_datasets bcsr "$T/hand.tcf.h5" | tr '\n' ';')" \
    "bitmap H5T_STD_U64LE 20;colIdx H5T_STD_I32LE 5;rowPtr H5T_STD_I64LE 3;values H5T_IEEE_F64LE 1280;" \
    "h5dump, 16x16: rowPtr, colIdx, values (h*w per block), bitmap (4 words per block)"
is "$(fmt_datasets bcsr "$T/hand8.tcf.h5" | tr '\n' ';')" \
    "bitmap H5T_STD_U64LE 10;colIdx H5T_STD_I32LE 5;rowPtr H5T_STD_I64LE 3;values H5T_IEEE_F64LE 640;" \
    "h5dump, 16x8: 128 values and 2 bitmap words per block"
is "$(fmt_data bcsr "$T/hand.tcf.h5" rowPtr) | $(fmt_data bcsr "$T/hand.tcf.h5" colIdx)" \
    "0, 3, 5 | 0, 1, 2, 0, 1" "16x16: rowPtr and colIdx (block columns)"
is "$(fmt_data bcsr "$T/hand8.tcf.h5" colIdx)" "0, 2, 4, 0, 2" "16x8: colIdx in block columns of 8"
# block 0: (0,0) bit 0 and (3,5) bit 53 of word 0; block 2: (15,7) bit 247,
# bit 55 of word 3
is "$(fmt_data bcsr "$T/hand.tcf.h5" bitmap | cut -d' ' -f1-4,12)" \
    "9007199254740993, 0, 0, 0, 36028797018963968," \
    "bitmap: bit r*w + c, 64 to a word, low bit first"
is "$(h5dump -d /formats/bcsr/values -s 0 -c 1 "$T/hand.tcf.h5" | sed -n 's/^ *(0): //p') $(h5dump -d /formats/bcsr/values -s 759 -c 1 "$T/hand.tcf.h5" | sed -n 's/^ *(759): //p')" \
    "1 1540" "values: row-major inside a block, block after block"
attrs() { fmt_attrs bcsr "$1" h w has_values; }
is "$(attrs "$T/hand.tcf.h5")" "h=16 w=16 has_values=1 " "attributes: h=16 w=16 by default"
is "$(attrs "$T/hand8.tcf.h5")" "h=16 w=8 has_values=1 " "attributes: w=8"

# --- reading back --------------------------------------------------------------
"$TCSTAT" -f bcsr --tsv "$T/hand.tcf.h5" > "$T/hand.tsv"; ok $? "tcstat -f bcsr reads the file"
is "$(fmt_figures "$T/hand.tsv" format.bcsr)" \
    "bytes=2604 bytes_vs_csr=19.72727273 blocks=5 blocks_min=1 block_rows=2 empty_block_rows=0 blocks_per_block_row_mean=2.5 blocks_per_block_row_sd=0.5 blocks_per_block_row_max=3 fill=0.0046875 " \
    "tcstat -f bcsr: the paper's figures"
"$TCSTAT" -f bcsr --tsv "$T/hand8.tcf.h5" > "$T/hand8.tsv"
is "$(fmt_figures "$T/hand8.tsv" format.bcsr '^(blocks|fill|bytes)$')" \
    "bytes=2604 blocks=5 fill=0.009375 " "tcstat -f bcsr, stored 16x8: its own figures (float values)"
run_fails 2 "tcconv: bcsr: w=12 is not a block width of the kernels (16 for FP16 m16n8k16, 8 for TF32 m16n8k8)" \
    "tcconv -f bcsr -p w=12: refused" -- "$TCCONV" -f bcsr -p w=12 "$T/hand.mtx" -o "$T/w12.tcf.h5"
[ ! -e "$T/w12.tcf.h5" ]; ok $? "  and leaves no file"

# --- tampered files -----------------------------------------------------------
# tampered NAME DATASET OFFSET BYTES MESSAGE: tcstat refuses a copy of
# hand.tcf.h5 with BYTES written into DATASET (tcstat is the tool that
# reads a format without parts back).
tampered() {
    cp "$T/hand.tcf.h5" "$T/bad.tcf.h5"
    fmt_patch bcsr "$T/bad.tcf.h5" "$2" "$3" "$4"
    run_fails 1 "tcstat: $T/bad.tcf.h5: /formats/bcsr$5" "tcstat refuses $1" \
        -- "$TCSTAT" -f bcsr "$T/bad.tcf.h5"
}
tampered "colIdx[2] = 3" colIdx 8 '\003' \
    "/colIdx[2]: block column 3 is out of range (3 block columns of 16)"
tampered "colIdx[1] = 0" colIdx 4 '\000' \
    "/colIdx[1]: block column 0 after 0 in block row 0 (must be strictly increasing)"
tampered "rowPtr[1] = 6" rowPtr 8 '\006' \
    "/rowPtr[1]: 6 after 0 (must not decrease, up to 5)"
tampered "bitmap of block 1 cleared" bitmap 32 '\000' \
    "/bitmap: block 1 has no nonzero (only nonzero blocks are stored)"
tampered "a bit in column 40" bitmap 64 '\000\001' \
    "/bitmap: block 2 (block row 0, block column 2) has bits outside the 20x40 matrix"
tampered "a padding value" values 16 '\000\000\000\000\000\000\360\077' \
    "/values[2]: 1 in padding (bit clear), expected 0"
tampered "a value changed" values 0 '\000\000\000\000\000\000\000\100' \
    ": does not encode /matrix (row 0 differs)"

done_testing
