#!/bin/sh
# The hrpb kernel (kernels/hrpb.cu, cuTeSpMM) on the GPU through tcmul,
# what is particular to it (every variant on the awkward shapes and the
# real matrices is t_formats_gpu's): a panel of 5120 nonzeros among light
# ones, which Section 5's rule splits into virtual panels, for each
# variant (the wide ones at n = 33, 100 and 512: one, two and eight warps
# of 64 columns), with panels of 16 and of 32 rows (TM = 32: two brick rows a
# block, the last panel of 200 rows 8 rows short); TM = 32 on a real
# matrix, with an Inf in B (the "cuda" variant's own walk of both brick
# rows); TK other than 16 refused with the reason. An Inf in B and --bench
# at the default TM are formats-gpu.sh's. Skipped where there is no CUDA
# device. TCMUL and TCCONV may name the tools to run (a bundle on a GPU
# machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

# gen_heavy_panel FILE: 200 x 6000; rows 1-16 (the first panel) hold 320
# nonzeros each, one per column of 1..5120 (a zero value every seventh),
# the other rows 3 each. The first panel has 320 blocks, the 12 others 3:
# num_loads = 320 / (355 / 13) = 11.7, and the device holds all 13 panels'
# thread blocks at once (num_waves < 0.1), so the panel runs as 80 virtual
# panels of 4 blocks that add into C with atomics.
gen_heavy_panel() {
    awk 'BEGIN {
        print "%%MatrixMarket matrix coordinate real general"
        print 200, 6000, 16 * 320 + 184 * 3
        for (i = 1; i <= 16; i++)
            for (j = 0; j < 320; j++)
                printf "%d %d %.2f\n", i, 16 * j + i, (j % 7 - 3) / 4
        for (i = 17; i <= 200; i++)
            for (j = 1; j <= 3; j++)
                printf "%d %d %.2f\n", i, (29 * i + 1031 * j) % 6000 + 1, j - 2.5
    }' > "$1"
}

# Each variant on the heavy panel, with tails of N (33: two warps, the
# second with one column; 100: a partial n-tile in the fourth warp; 512).
gen_heavy_panel "$T/heavy.mtx"
"$TCCONV" -q -f hrpb -p TM=32 "$T/heavy.mtx" -o "$T/heavy32.tcf.h5"
for v in tc-wide tc tc-wide-sync tc-team-sync tc-team tc-sync cuda; do
    for n in 33 100 512; do
        verify_passes "hrpb --variant $v: a panel of 320 blocks (virtual panels), n=$n" \
            "$T/heavy.mtx" --format hrpb --variant "$v" --cols "$n"
        verify_passes "hrpb TM=32 --variant $v: the same panel in 32 rows, n=$n" \
            "$T/heavy32.tcf.h5" --format hrpb --variant "$v" --cols "$n"
    done
done

run_fails 2 "tcmul: --variant nope: the hrpb kernel's variants are tc-wide, tc, tc-wide-sync, tc-team-sync, tc-team, tc-sync, cuda" \
    "an unknown variant is named with the kernel's" -- \
    "$TCMUL" --device gpu --format hrpb --variant nope --verify "$DATA/cora.mtx.gz" --cols 4

# the wide variants (a warp per 64 columns) past n = 32 only
run_fails 1 "tcmul: hrpb kernel tc-wide: needs n > 32 (a warp takes 64 columns), n is 32" \
    "tc-wide forced at n=32 is refused with the reason" -- \
    "$TCMUL" --device gpu --format hrpb --variant tc-wide --verify --cols 32 "$DATA/cora.mtx.gz"

# TM = 32 on real matrices: tuned, and with an Inf in B
for m in cora bcsstk13; do
    "$TCCONV" -q -f hrpb -p TM=32 "$DATA/$m.mtx.gz" -o "$T/$m-32.tcf.h5"
    for n in 32 128; do
        verify_passes "hrpb TM=32: $m, n=$n, tuned" "$T/$m-32.tcf.h5" --format hrpb --cols "$n" \
            --bench --iters 5
    done
done
"$TCCONV" -q -f hrpb -p TM=32 "$DATA/rajat01.mtx.gz" -o "$T/rajat01-32.tcf.h5"
INF_INPUT=$T/rajat01-32.tcf.h5 inf_row0 "$DATA/rajat01.mtx.gz" --format hrpb

# TK = 8: the kernel is written for the paper's TK = 16 and says so.
"$TCCONV" -q -f hrpb -p TK=8 "$DATA/cora.mtx.gz" -o "$T/tk8.tcf.h5"
run_fails 1 "tcmul: hrpb kernel: needs TM = 16 or 32 and TK = 16 (the paper's), the matrix has TM = 16, TK = 8 (convert with -p TM=16,TK=16)" \
    "hrpb TK=8: refused with the reason" -- \
    "$TCMUL" --device gpu --format hrpb --verify --cols 4 "$T/tk8.tcf.h5"

done_testing
