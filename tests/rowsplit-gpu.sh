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
# nonzeros among rows of 3; half (B in fp16) at several n, checked at fp16's
# tolerance, left out by --accuracy fp32 and refused there when forced;
# lockstep-half (a warp's items side by side) at n = 4-264 on pieces
# only, pieces among whole rows and rows longest first;
# rows stored longest first (order=1) at several seg and n, every variant,
# giving the C bytes of the matrix's own order (each row summed in the
# same order either way) into the caller's rows; an Inf in B's row 0 at n
# where some lanes are past n (they gather and add too, into sums never
# stored): exactly the rows using column 0 not finite; half on a matrix
# that leaves most columns unused (only the rows of B it names converted),
# NaN in the others; half on a matrix whose fp16 rows of B overflow L2
# (the hubs first, the others gathered evict-first); vec4-prefetch (B
# asked of L2 first, each thread block its share) giving vec4's C bit for
# bit where B is 4 bytes past 16-byte alignment too (t_plan_gpu), over
# several panels, and refused where B is past a quarter of L2.
# Skipped where there is no CUDA device. TCMUL and TCCONV may name the
# tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

"$TCCONV" -q -f rowsplit -p seg=2,rowcost=1 "$DATA/bcsstk13.mtx.gz" -o "$T/seg2.tcf.h5"
"$TCCONV" -q -f rowsplit -p seg=8 "$DATA/cora.mtx.gz" -o "$T/seg8.tcf.h5"
for n in 1 4 32 33 128 256 264; do
    verify_passes "seg=2 (every nonzero a piece), n=$n" "$T/seg2.tcf.h5" --format rowsplit --cols "$n"
    verify_passes "seg=8, n=$n" "$T/seg8.tcf.h5" --format rowsplit --cols "$n"
done
for v in vec4 scalar vec4-prefetch half lockstep-half; do
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

# order=1: rows longest first, each stored into its own row of C
for seg in 2 8 128; do
    p=seg=$seg,order=1
    [ "$seg" -gt 2 ] || p=$p,rowcost=1     # every nonzero a piece
    "$TCCONV" -q -f rowsplit -p "$p" "$DATA/cora.mtx.gz" -o "$T/long$seg.tcf.h5"
    for n in 1 32 33 264; do
        verify_passes "order=1, seg=$seg, n=$n" "$T/long$seg.tcf.h5" --format rowsplit --cols "$n"
    done
done
"$TCCONV" -q -f rowsplit -p seg=8,order=0 "$DATA/cora.mtx.gz" -o "$T/given8.tcf.h5"
for v in vec4 scalar vec4-prefetch half lockstep-half; do
    "$TCMUL" --device gpu --format rowsplit --variant "$v" --cols 128 "$T/given8.tcf.h5" \
        -o "$T/c0.mtx" &&
        "$TCMUL" --device gpu --format rowsplit --variant "$v" --cols 128 "$T/long8.tcf.h5" \
            -o "$T/c1.mtx" &&
        cmp -s "$T/c0.mtx" "$T/c1.mtx"
    ok $? "$v, seg=8, n=128: order=1 gives the C of order=0, bit for bit"
done

# lockstep: items side by side in a warp, G = 32 / lanes of them (n = 4:
# 32 a warp, 12: 8, 36: 2, 132 and 264: 1 over two and three panels);
# every nonzero a piece, pieces among whole rows, rows longest first
for n in 4 12 36 132 264; do
    for f in seg2 seg8 long8 long2; do
        verify_passes "lockstep-half, $f, n=$n" "$T/$f.tcf.h5" --format rowsplit \
            --variant lockstep-half --cols "$n"
    done
done

gen_longrow "$T/long.mtx"
verify_passes "a row of 5000 among rows of 3, n=32" "$T/long.mtx" --format rowsplit --cols 32
verify_passes "a row of 5000 among rows of 3, scalar, n=7" "$T/long.mtx" --format rowsplit \
    --variant scalar --cols 7
verify_passes "a row of 5000 among rows of 3, lockstep-half, n=32" "$T/long.mtx" \
    --format rowsplit --variant lockstep-half --cols 32

# half: B in fp16, checked at fp16's tolerance; n not a multiple of 8
# (its fp16 rows padded to 8) and past one panel
for n in 4 12 32 132 264; do
    verify_passes "half, seg=8, n=$n" "$T/seg8.tcf.h5" --format rowsplit --variant half --cols "$n"
done
verify_passes "half, seg=2 (every nonzero a piece), n=36" "$T/seg2.tcf.h5" --format rowsplit \
    --variant half --cols 36
is "$(figure plan precision)" fp16 "half runs at fp16, and the plan says so"
verify_passes "tuned under --accuracy fp32" "$T/seg8.tcf.h5" --format rowsplit --bench \
    --iters 5 --accuracy fp32 --cols 32
is "$(figure variants half_ms) $(figure plan precision)" "inexact fp32" \
    "--accuracy fp32: half left out of the tuning (inexact), the plan fp32"
run_fails 2 "tcmul: rowsplit variant half (fp16): exceeds the fp32 accuracy asked for" \
    "half forced under --accuracy fp32 is refused with the reason" -- \
    "$TCMUL" --device gpu --format rowsplit --variant half --accuracy fp32 --verify --cols 32 \
    "$T/seg8.tcf.h5"
run_fails 1 "tcmul: rowsplit kernel half: needs n a multiple of 4 (8-byte pieces of fp16 rows of B), n is 33" \
    "half forced at n=33 is refused with the reason" -- \
    "$TCMUL" --device gpu --format rowsplit --variant half --verify --cols 33 "$T/seg8.tcf.h5"

# half converts only the rows of B the nonzeros name where some columns
# are unused (kernels/rowsplit.cu, upload_used): on a 3000 x 9000 whose
# nonzeros use under a third of the columns, at n not a multiple of 8 (the
# fp16 rows padded) and past one panel, whole rows and pieces, and with
# NaN in every row of B that no nonzero names (never converted, never
# gathered: C finite, as the float64 reference)
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print 3000, 9000, 15000
    for (i = 1; i <= 3000; i++) for (k = 0; k < 5; k++)
        printf "%d %d %.4f\n", i, 1 + (i * 37 + k * 1013) % 2900 * 3, ((i * 7919 + k * 104729) % 2001 - 1000) / 1000.0 }' \
    > "$T/sparsecols.mtx"
"$TCCONV" -q -f rowsplit -p seg=4 "$T/sparsecols.mtx" -o "$T/sparsecols4.tcf.h5"
for n in 4 12 36 132; do
    for v in half lockstep-half; do
        verify_passes "$v, a third of the columns used, n=$n" "$T/sparsecols.mtx" \
            --format rowsplit --variant "$v" --cols "$n"
    done
    verify_passes "half, a third of the columns used, seg=4 (pieces), n=$n" \
        "$T/sparsecols4.tcf.h5" --format rowsplit --variant half --cols "$n"
done
awk '!/^%/ && ++n > 1 { used[$2] = 1 }
    END { print "%%MatrixMarket matrix array real general"; print 9000, 12
        for (j = 0; j < 12; j++) for (i = 1; i <= 9000; i++) print (i in used ? (i % 7) / 7 - 0.5 : "nan") }' \
    "$T/sparsecols.mtx" > "$T/Bnan.mtx"
for v in half lockstep-half; do
    verify_passes "$v: NaN in the rows of B no nonzero names, --verify passes" \
        "$T/sparsecols.mtx" -B "$T/Bnan.mtx" --format rowsplit --variant "$v"
    "$TCMUL" --device gpu --format rowsplit --variant "$v" "$T/sparsecols.mtx" -B "$T/Bnan.mtx" \
        -o "$T/Cnan.mtx" &&
        ! awk '!/^%/ && ++n > 1' "$T/Cnan.mtx" | grep -qi 'nan\|inf'
    ok $? "$v: NaN in the rows of B no nonzero names: C all finite"
done

# half's copy of B hubs first (upload_used): on a 20000 x 400000 whose
# columns are drawn as a cube of a uniform (a few hubs, most columns used
# once or twice, some never) B16 at n = 128 is 300,000-odd rows of 256
# bytes, more than any GPU's L2: the rows past its share gathered
# evict-first, all of it remapped; whole rows, pieces (seg=16) and rows
# longest first, at n = 128 and at 8 (B16 within the share, remapped for
# the unused columns)
awk 'BEGIN { srand(7); print "%%MatrixMarket matrix coordinate real general"
    print 20000, 400000, 1200000
    for (i = 1; i <= 20000; i++) for (k = 0; k < 60; k++) { u = rand()
        printf "%d %d %.3f\n", i, 1 + int(400000 * u * u * u), rand() - 0.5 } }' > "$T/hubs.mtx"
"$TCCONV" -q "$T/hubs.mtx" -o "$T/hubs.tcf.h5"
"$TCCONV" -q -f rowsplit -p seg=16,order=1 "$T/hubs.mtx" -o "$T/hubs16.tcf.h5"
for n in 8 128; do
    for v in half lockstep-half; do
        verify_passes "$v, hubs of 400000 columns, n=$n" "$T/hubs.tcf.h5" --format rowsplit \
            --variant "$v" --cols "$n"
        verify_passes "$v, hubs of 400000 columns, seg=16, order=1, n=$n" "$T/hubs16.tcf.h5" \
            --format rowsplit --variant "$v" --cols "$n"
    done
done

# vec4-prefetch: vec4's kernel after the prefetch, so vec4's C bit for
# bit, at one panel and at three (n = 264: every thread block of both
# grid dimensions takes a share of B); refused where B, 400000 x 128
# floats, is past a quarter of any GPU's L2
for n in 32 264; do
    "$TCMUL" --device gpu --format rowsplit --variant vec4 --cols "$n" "$T/given8.tcf.h5" \
        -o "$T/c0.mtx" &&
        "$TCMUL" --device gpu --format rowsplit --variant vec4-prefetch --cols "$n" \
            "$T/given8.tcf.h5" -o "$T/c1.mtx" &&
        cmp -s "$T/c0.mtx" "$T/c1.mtx"
    ok $? "vec4-prefetch, n=$n: vec4's C, bit for bit"
done
"$TCMUL" --device gpu --format rowsplit --variant vec4-prefetch --verify --cols 128 \
    "$T/hubs.tcf.h5" > "$T/.out" 2> "$T/.err"
rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$T/.out" ] &&
    grep -q '^tcmul: rowsplit kernel vec4-prefetch: B (204800000 bytes) is more than a quarter of the L2 ([0-9]* bytes), where its prefetched lines would not stay until their gathers$' "$T/.err"
st=$?
ok $st "vec4-prefetch forced where B is past a quarter of L2: exit 1, the reason"
[ $st -eq 0 ] || diag "exit $rc: $(head -n 1 "$T/.err")"

# lanes past n: at n = 36 vec4 takes 16 lanes, 9 inside n, and scalar a
# second panel of 32 lanes, 4 inside n; at 264 vec4's third panel of 128
# columns has 2 lanes inside n and scalar's ninth 8
for n in 36 264; do
    for v in vec4 scalar vec4-prefetch; do
        INF_COLS=$n inf_row0 "$DATA/rajat01.mtx.gz" --format rowsplit --variant "$v"
    done
done

done_testing
