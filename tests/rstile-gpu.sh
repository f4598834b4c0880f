#!/bin/sh
# The rstile kernel (kernels/rstile.cu) on the GPU through tcmul, what is
# particular to it (every variant on the awkward shapes and the real
# matrices is t_formats_gpu's): every matrix of $TC_SHARED_DATA (the
# bundled ones when it is missing) reordered by wjaccard at n = 1, 7, 32,
# 64, 128, 256, 257 (C compared in the original order); each variant on
# the shapes of its own paths (a band of 15000 valued blocks, windows sent
# whole to the residual, windows left empty, every window split); every
# residual threshold forced; the format read from a .tcf.h5; the parts of
# --bench. An Inf in B and the baseline of --bench are formats-gpu.sh's.
# Skipped where there is no CUDA device. TCMUL, TCCONV and TCREORDER may
# name the tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

verify_reordered rstile wjaccard 1 7 32 64 128 256 257

# The permutation is undone in C: the product of the reordered matrix,
# written out, equals the product of the original one (same B, same seed).
"$TCREORDER" -q -m wjaccard -o "$T/cora.wj.tcf.h5" "$DATA/cora.mtx.gz"
"$TCMUL" --device gpu --format rstile --variant cuda --cols 5 --seed 3 "$DATA/cora.mtx.gz" \
    -o "$T/c1.mtx"
"$TCMUL" --device gpu --format rstile --variant cuda --cols 5 --seed 3 "$T/cora.wj.tcf.h5" \
    -o "$T/c2.mtx"
awk 'NR == FNR { if (!/^%/) a[FNR] = $1; next }
     !/^%/ { d = $1 - a[FNR]; if (d < 0) d = -d; if (d > 1e-3) bad++ }
     END { exit bad > 0 }' "$T/c1.mtx" "$T/c2.mtx"
ok $? "rstile: C of the reordered matrix is C of the original, in the original order"

# Each variant on its own paths, with the tails of N (7: one partial
# n-tile; 36: a partial panel, n % 8 != 0, n % 4 == 0; 257: n % 4 != 0).
gen_longrow "$T/longrow.mtx"
gen_band "$T/band.mtx"
# 1600 rows: windows of rows of 20 to 30 nonzeros in columns no other row
# has (8 nonzeros per block: the matrix's blocks hold fewer than 8.5, so
# they go whole to the residual, rows past any threshold, as lp_nug30's),
# every 16th window of rows of 12 in 16 shared columns (TC blocks), and in
# window 2 a row of 65 (longer than a window sent whole may have: it stays
# in TC blocks).
awk 'BEGIN {
    n = 0
    for (i = 0; i < 1600; i++) {
        w = int(i / 16); len[i] = w % 16 == 1 ? 12 : i == 40 ? 65 : 20 + i % 11; n += len[i]
    }
    print "%%MatrixMarket matrix coordinate real general"
    print 1600, 110000, n
    for (i = 0; i < 1600; i++)
        for (j = 0; j < len[i]; j++)
            printf "%d %d %.4f\n", i + 1, (int(i / 16) % 16 == 1 ? int(i / 16) * 16 + (j * 5 + i) % 16 : i * 65 + j) + 1,
                   ((i * 7919 + j * 104729) % 2001 - 1000) / 1000.0
}' > "$T/unshared.mtx"
# 2005 rows in 126 windows: every third window of rows of 10 nonzeros in 16
# shared columns (TC blocks), the others empty but for one row of 1 nonzero
# in every other one; the last window 5 rows, empty. The empty windows'
# rows of C are written by the zero part, its thread blocks a group of
# ZERO_SEGS segments each (the last group partial), its rows masked where a
# row of the window is in the residual.
awk 'BEGIN {
    n = 0
    for (i = 0; i < 2005; i++) {
        w = int(i / 16); len[i] = w % 3 == 0 && i < 2000 ? 10 : w % 6 == 1 && i % 16 == 3 ? 1 : 0
        n += len[i]
    }
    print "%%MatrixMarket matrix coordinate real general"
    print 2005, 3000, n
    for (i = 0; i < 2005; i++)
        for (j = 0; j < len[i]; j++)
            printf "%d %d %.4f\n", i + 1, (len[i] == 1 ? 2000 + i % 1000 : int(i / 16) * 16 + (j * 3 + i) % 16) + 1,
                   ((i * 7919 + j * 104729) % 2001 - 1000) / 1000.0
}' > "$T/gappy.mtx"
variants="tc tc-fly tc-f32 tc-item tc-item8 cuda"
for v in $variants; do
    # past n = 32, with 16 TC blocks per SM or more, tc and tc-f32 take 64
    # columns per warp (and, past 64, runs of 8 blocks) and tc-fly 32 read
    # 16 bytes at a time (the pattern case: t_formats_gpu's 70001 rows)
    for n in 36 257; do
        verify_passes "rstile --variant $v: a band of 15000 valued blocks, n=$n" "$T/band.mtx" \
            --format rstile --variant "$v" --cols "$n" --seed "$n"
    done
    for n in 7 36 257; do
        verify_passes "rstile --variant $v: windows sent whole to the residual, n=$n" \
            "$T/unshared.mtx" --format rstile --variant "$v" --cols "$n" --seed "$n"
        verify_passes "rstile --variant $v: two windows in three empty, n=$n" \
            "$T/gappy.mtx" --format rstile --variant "$v" --cols "$n" --seed "$n"
    done
done

# The tc-item variants' split windows leave their workspace zero for the
# next run: the last of 20 timed runs (a window of 5000 nonzeros cut into
# items) is right.
for v in tc-item tc-item8; do
    verify_passes "rstile --variant $v --bench --verify: split windows, run after run" \
        "$T/longrow.mtx" --format rstile --variant $v --cols 64 --bench --iters 20
done

run_fails 2 "tcmul: --variant nope: the rstile kernel's variants are tc, tc-fly, tc-f32, tc-item, tc-item8, cuda" \
    "an unknown variant is named with the kernel's" -- \
    "$TCMUL" --device gpu --format rstile --variant nope --verify "$DATA/cora.mtx.gz" --cols 4

# Every residual threshold, from nothing in the residual to most rows in it,
# and windows split into segments of one block: built by tcconv, read back.
for t in 0 1 2 4 8 64; do
    "$TCCONV" -q -f rstile -p threshold=$t "$DATA/rajat01.mtx.gz" -o "$T/r.tcf.h5"
    verify_passes "rstile, threshold=$t, n=32" "$T/r.tcf.h5" --format rstile --cols 32
done
# (one block per segment: tc, tc-fly and tc-f32 run one warp per thread
# block, which adds its fragments straight into C, two floats at once where
# n is even)
"$TCCONV" -q -f rstile -p split=1 "$DATA/bcsstk13.mtx.gz" -o "$T/s.tcf.h5"
for v in $variants; do
    for n in 40 41; do
        verify_passes "rstile, split=1 (every window split), --variant $v, n=$n" "$T/s.tcf.h5" \
            --format rstile --variant "$v" --cols "$n" --seed "$n"
    done
done

# Values far outside fp16's range (bcsstk13 reaches 1e10 and more): the per
# row scaling keeps them; tc forced.
verify_passes "rstile --variant tc: values beyond fp16's range, n=64" "$DATA/bcsstk13.mtx.gz" \
    --format rstile --variant tc --cols 64

# Timed runs: the parts are timed on their own.
verify_passes "rstile --bench --verify" "$DATA/bcsstk13.mtx.gz" --format rstile --cols 32 \
    --bench --iters 20
share=$(figure parts tc_block_nnz_share)
awk -v s="$share" -v t="$(figure parts tc_block_time_share)" \
    'BEGIN { exit !(s > 0 && s <= 1 && t > 0 && t <= 1) }'
ok $? "rstile --bench: TC part shares of nonzeros ($share) and of time"

done_testing
