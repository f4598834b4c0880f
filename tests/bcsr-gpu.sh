#!/bin/sh
# The bcsr kernel (kernels/bcsr.cu) on the GPU through tcmul, what is
# particular to it (every variant on the awkward shapes and the real
# matrices is t_formats_gpu's): every matrix of $TC_SHARED_DATA (the
# bundled ones when it is missing) reordered by jaccard at n = 1, 7, 8, 32,
# 128, 256, 257 (C compared in the original order); 16 x 8 blocks (tc
# refuses them, cuda runs); values beyond fp16's range. An Inf in B and
# --bench are formats-gpu.sh's.
# Skipped where there is no CUDA device. TCMUL, TCCONV and TCREORDER may
# name the tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

verify_reordered bcsr jaccard 1 7 8 32 128 256 257

run_fails 2 "tcmul: --variant nope: the bcsr kernel's variants are tc, cuda" \
    "an unknown variant is named with the kernel's" -- \
    "$TCMUL" --device gpu --format bcsr --variant nope --verify "$DATA/cora.mtx.gz" --cols 4

# 16 x 8 blocks: tc needs 16 x 16 and says so; the fastest runnable
# variant, cuda, multiplies them.
"$TCCONV" -q -f bcsr -p w=8 "$DATA/cora.mtx.gz" -o "$T/w8.tcf.h5"
verify_passes "bcsr 16x8: the fastest runnable variant, n=32" "$T/w8.tcf.h5" --format bcsr \
    --cols 32
is "$(figure run variant)" cuda "bcsr 16x8: cuda runs"
run_fails 1 "tcmul: bcsr kernel tc: needs 16 x 16 blocks (mma.m16n8k16), the matrix has 16 x 8 (convert with -p w=16)" \
    "bcsr 16x8: tc forced is refused with the reason" -- \
    "$TCMUL" --device gpu --format bcsr --variant tc --verify --cols 4 "$T/w8.tcf.h5"

# Values far outside fp16's range (bcsstk13 reaches 1e10 and more): the per
# row scaling keeps them; tc forced.
verify_passes "bcsr --variant tc: values beyond fp16's range, n=64" "$DATA/bcsstk13.mtx.gz" \
    --format bcsr --variant tc --cols 64

done_testing
