#!/bin/sh
# The bcsr kernel (kernels/bcsr.cu) on the GPU: every matrix of
# $TC_SHARED_DATA (the bundled ones when it is missing) at n = 1, 7, 8, 32,
# 128, 256, 257, in its own order and reordered by jaccard (C compared in
# the original order); each variant on its own with the tails of N; awkward
# shapes (a 5000-nonzero row, whose block row is split; more than 65535
# rows; no nonzeros); 16 x 8 blocks (tc refuses them, cuda runs); an Inf in
# row 0 of B; values beyond fp16's range; --bench against cuSPARSE.
# Skipped where there is no CUDA device. TCMUL, TCCONV and TCREORDER may
# name the tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"
TCCONV=${TCCONV:-$TOOLS/tcconv}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}

"$TCMUL" --list-devices > "$T/devices" 2>&1 || skip_all "no CUDA device"

data=$(gpu_test_matrices)

for m in "$data"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$TCREORDER" -q -m jaccard -o "$T/$name.jc.tcf.h5" "$m"
    ok $? "$name: reordered by jaccard"
    for n in 1 7 8 32 128 256 257; do
        verify_passes "bcsr: $name, n=$n" "$m" --format bcsr --cols "$n" --seed "$n" \
            --warmup 2 --iters 10
        diag "bcsr $name n=$n: rel_fro $(figure verify rel_fro), fastest $(figure run variant)"
        verify_passes "bcsr: $name reordered, n=$n" "$T/$name.jc.tcf.h5" --format bcsr \
            --cols "$n" --seed "$n" --warmup 2 --iters 10
    done
    rm -f "$T/$name.jc.tcf.h5"
done

# Each variant on its own, on matrices of different kinds (cora: 2708
# columns, so the last block column reaches past the matrix), with the tails
# of N (7: one partial n-tile; 12: 16 columns per warp; 36: a partial panel,
# n % 8 != 0; 257).
gen_longrow "$T/longrow.mtx"
gen_tall "$T/tall.mtx"
gen_empty "$T/empty.mtx"
for v in tc cuda; do
    for m in "$DATA/cora.mtx.gz" "$DATA/bcsstk13.mtx.gz" "$DATA/rajat01.mtx.gz"; do
        name=$(basename "$m" .mtx.gz)
        for n in 7 12 36 257; do
            verify_passes "bcsr: $name, --variant $v, n=$n" "$m" --format bcsr \
                --variant "$v" --cols "$n" --seed $((n + 1))
        done
    done
    verify_passes "bcsr --variant $v: a 5000-nonzero row (split block row), n=33" \
        "$T/longrow.mtx" --format bcsr --variant "$v" --cols 33
    verify_passes "bcsr --variant $v: 70000 rows with empty ones, n=7" "$T/tall.mtx" \
        --format bcsr --variant "$v" --cols 7
    verify_passes "bcsr --variant $v: a matrix without nonzeros" "$T/empty.mtx" \
        --format bcsr --variant "$v" --cols 4
done

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

# Inf in row 0 of B: tc multiplies the padding zeros of a block by it
# (kernels/bcsr.cu), so the choice of the fastest skips it and runs cuda.
inf_row0 "$DATA/rajat01.mtx.gz" --format bcsr
"$TCMUL" --device gpu --verify --tsv --format bcsr "$DATA/rajat01.mtx.gz" -B "$T/Binf.mtx" \
    > "$T/v.tsv"
is "$(figure variants tc_ms)" skipped "bcsr, B with an Inf: tc is skipped"
is "$(figure run variant)" cuda "bcsr, B with an Inf: cuda runs"

# Values far outside fp16's range (bcsstk13 reaches 1e10 and more): the per
# row scaling keeps them; tc forced.
verify_passes "bcsr --variant tc: values beyond fp16's range, n=64" "$DATA/bcsstk13.mtx.gz" \
    --format bcsr --variant tc --cols 64

verify_passes "bcsr --bench --verify" "$DATA/bcsstk13.mtx.gz" --format bcsr --cols 32 \
    --bench --iters 20
speedup=$(figure baseline speedup)
awk -v s="$speedup" 'BEGIN { exit !(s > 0) }'
ok $? "bcsr --bench: speedup over cuSPARSE ($speedup, $(figure baseline variant)) in the same run"

done_testing
