#!/bin/sh
# The rowsplit kernel (kernels/rowsplit.cu) on the GPU through tcmul, what
# is particular to it (every variant on the awkward shapes and the real
# matrices is t_formats_gpu's; an Inf in B and --bench are
# formats-gpu.sh's): rows split into many pieces (seg=2 and 8) summed
# through the workspace at n = 1, 4, 32, 33, 128, 256 and 264 (several
# panels of columns, each with its own counters) and after many timed runs
# (counters back to 0 after each); the same C bytes from two runs
# (pieces added in piece order, whichever finished first); vec4 refused at
# an n that is not a multiple of 4, with the reason; a row of 5000
# nonzeros among rows of 3.
# Skipped where there is no CUDA device. TCMUL and TCCONV may name the
# tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

"$TCCONV" -q -f rowsplit -p seg=2 "$DATA/bcsstk13.mtx.gz" -o "$T/seg2.tcf.h5"
"$TCCONV" -q -f rowsplit -p seg=8 "$DATA/cora.mtx.gz" -o "$T/seg8.tcf.h5"
for n in 1 4 32 33 128 256 264; do
    verify_passes "seg=2 (every nonzero a piece), n=$n" "$T/seg2.tcf.h5" --format rowsplit --cols "$n"
    verify_passes "seg=8, n=$n" "$T/seg8.tcf.h5" --format rowsplit --cols "$n"
done
for v in vec4 scalar; do
    verify_passes "$v, seg=2, n=128: the last of 200 timed runs" "$T/seg2.tcf.h5" \
        --format rowsplit --variant "$v" --cols 128 --bench --iters 200
done

# Matrix Market arrays (every float32 to 9 digits, which round-trips) and
# cmp: the GPU machine need not have HDF5's tools
"$TCMUL" --device gpu --format rowsplit --cols 128 "$T/seg2.tcf.h5" -o "$T/c1.mtx" &&
    "$TCMUL" --device gpu --format rowsplit --cols 128 "$T/seg2.tcf.h5" -o "$T/c2.mtx" &&
    cmp -s "$T/c1.mtx" "$T/c2.mtx"
ok $? "seg=2: two runs give the same C, bit for bit"

run_fails 1 "tcmul: rowsplit kernel vec4: needs n a multiple of 4 (float4 rows of B), n is 33" \
    "vec4 forced at n=33 is refused with the reason" -- \
    "$TCMUL" --device gpu --format rowsplit --variant vec4 --verify --cols 33 "$T/seg8.tcf.h5"

gen_longrow "$T/long.mtx"
verify_passes "a row of 5000 among rows of 3, n=32" "$T/long.mtx" --format rowsplit --cols 32
verify_passes "a row of 5000 among rows of 3, scalar, n=7" "$T/long.mtx" --format rowsplit \
    --variant scalar --cols 7

done_testing
