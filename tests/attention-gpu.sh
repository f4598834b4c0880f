#!/bin/sh
# Sparse attention, SDDMM and bsb SpMM on the GPU (kernels/attention.cu,
# kernels/bsb.cu): every matrix of $TC_SHARED_DATA (the bundled ones when it
# is missing) with d = 16, 64, 128, in its own order and in tcbsort's, fused
# and unfused, checked against the float64 reference; the SDDMM of both
# paths; Q and K scaled by 30 (large scores must not overflow); rows with
# no nonzero; inputs beyond fp16 refused; bsb SpMM on awkward shapes.
# Skipped where there is no CUDA device. TCMUL, TCREORDER may name the
# tools to run (a bundle on a GPU machine without the build tree).
. "${top_srcdir:-.}/tests/lib.sh"
DEVICE=gpu
. "$top_srcdir/tests/tcmul-common.sh"

data=$(gpu_test_matrices)

for m in "$data"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$TCREORDER" -q -m tcbsort -o "$T/$name.tcb.tcf.h5" "$m"
    ok $? "$name: reordered by tcbsort"
    for d in 16 64 128; do
        verify_passes "attention: $name, d=$d" "$m" --op attention --dim "$d" --seed "$d"
        diag "attention $name d=$d: rel_fro $(figure verify rel_fro), warps $(figure run warps)"
        verify_passes "attention: $name in tcbsort order, d=$d" "$T/$name.tcb.tcf.h5" \
            --op attention --dim "$d" --seed "$d"
    done
    verify_passes "attention --path unfused: $name, d=64" "$m" --op attention --path unfused \
        --dim 64
    verify_passes "sddmm: $name, d=64" "$m" --op sddmm --dim 64
    verify_passes "sddmm --path unfused: $name, d=32" "$m" --op sddmm --path unfused --dim 32
    rm -f "$T/$name.tcb.tcf.h5"
done

# Q and K of entries up to 30 (the test matrix 30 I times random operands):
# scores up to 900 d / sqrt(d), far past exp's range, must not overflow.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"; print 2708, 2708, 2708
             for (i = 1; i <= 2708; i++) print i, i, 30 }' > "$T/thirty.mtx"
for op in Q K V; do
    "$TCMUL" --device cpu "$T/thirty.mtx" --cols 64 --seed "$(printf %d "'$op")" \
        -o "$T/$op.h5:/$op" 2> "$T/gen.err"
    ok $? "operand $op of entries up to 30 written"
done
verify_passes "attention: Q, K, V scaled by 30 (cora, d=64)" "$DATA/cora.mtx.gz" \
    --op attention "$T/Q.h5:/Q" "$T/K.h5:/K" "$T/V.h5:/V"
verify_passes "attention: scale 900 (cora, d=64)" "$DATA/cora.mtx.gz" --op attention --dim 64 \
    --scale 900

# A row with no nonzero gives zeros, not NaN; d beyond a kernel width
# (d = 100 runs at 128) and tiny (d = 1).
gen_tall "$T/tall.mtx"
gen_empty "$T/empty.mtx"
verify_passes "attention: 70000 rows with empty ones, d=7" "$T/tall.mtx" --op attention --dim 7
"$TCMUL" --device gpu --op attention --dim 8 "$T/tall.mtx" -o "$T/o.mtx" 2> "$T/o.err"
ok $? "attention: the output of a matrix with empty rows is written"
awk 'NR > 2 && $1 != $1 + 0 { bad = 1 } END { exit bad }' "$T/o.mtx"
ok $? "attention: no NaN in the output of a matrix with empty rows"
verify_passes "attention: no nonzeros" "$T/empty.mtx" --op attention --dim 16
verify_passes "attention: d=100 (padded to 128)" "$DATA/cora.mtx.gz" --op attention --dim 100
verify_passes "attention: d=1" "$DATA/cora.mtx.gz" --op attention --dim 1
verify_passes "attention: d=256" "$DATA/cora.mtx.gz" --op attention --dim 256

# --variant fixes the warps per thread block instead of measuring them:
# each count runs, checked, and is the one reported; 8 warps at d = 256
# would need more shared memory than a block may have and are refused.
for w in 1 2 4 8; do
    verify_passes "attention --variant w$w: cora, d=64" "$DATA/cora.mtx.gz" --op attention \
        --dim 64 --variant "w$w"
    [ "$(figure run warps)" = "$w" ]
    ok $? "attention --variant w$w: run.warps is $w"
    verify_passes "sddmm --variant w$w: cora, d=32" "$DATA/cora.mtx.gz" --op sddmm --dim 32 \
        --variant "w$w"
done
run_fails 1 "tcmul: attention: 8 warps per thread block need 274432 bytes of shared memory at d = 256, more than 200 KB" \
    "attention --variant w8 at d=256 is refused" -- \
    "$TCMUL" --device gpu --op attention --dim 256 --variant w8 "$DATA/cora.mtx.gz" --verify

# Operands beyond fp16 are refused by the fused path, named.
awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print 3, 2
             for (i = 0; i < 6; i++) print (i == 4 ? 1e6 : 0.5) }' > "$T/big.mtx"
awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print 3, 2
             for (i = 0; i < 6; i++) print 0.5 }' > "$T/half.mtx"
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 3, 3, 5
             print 1, 1; print 1, 2; print 2, 3; print 3, 1; print 3, 3 }' > "$T/a3.mtx"
run_fails 1 "tcmul: $T/big.mtx: K[1][1] = 1e+06: the fused kernel takes fp16 operands (finite, |x| <= 65504); the unfused path computes in fp32" \
    "an operand beyond fp16 is refused, named" -- \
    "$TCMUL" --device gpu --op attention "$T/a3.mtx" "$T/half.mtx" "$T/big.mtx" "$T/big.mtx" \
    --verify
verify_passes "attention --path unfused takes an operand beyond fp16" "$T/a3.mtx" \
    --op attention --path unfused "$T/big.mtx" "$T/big.mtx" "$T/big.mtx"

# The hand-computed case of tests/attention.sh on the GPU: a structural
# nonzero whose score is exactly 0 is kept (O row 1 = V row 2 = 7), a row
# without nonzeros gives 0.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 3, 3, 3
             print 1, 1; print 1, 2; print 2, 3 }' > "$T/hand.mtx"
for x in "q 1 0 2" "k 0 1 5" "v 2 4 7"; do
    set -- $x
    printf '%%%%MatrixMarket matrix array real general\n3 1\n%s\n%s\n%s\n' "$2" "$3" "$4" \
        > "$T/$1.mtx"
done
"$TCMUL" --device gpu --op attention --scale 1 "$T/hand.mtx" "$T/q.mtx" "$T/k.mtx" "$T/v.mtx" \
    -o "$T/hand-o.mtx" 2> "$T/err"
ok $? "attention on the GPU: the hand-computed case runs"
tail -n 3 "$T/hand-o.mtx" | awk 'BEGIN { e = exp(1); want[1] = (2 + 4 * e) / (1 + e)
                                         want[2] = 7; want[3] = 0 }
    { d = $1 - want[NR]; if (d < 0) d = -d; if (d > 1e-2 * (1 + want[NR])) bad = 1 }
    END { exit bad || NR != 3 }'
ok $? "attention on the GPU: O = ((2 + 4e) / (1 + e), 7, 0) within fp16"

# bsb SpMM: real matrices with values beyond fp16 (bcsstk13), tails of n,
# a 5000-nonzero row, many rows, no nonzeros.
gen_longrow "$T/longrow.mtx"
for m in "$DATA/cora.mtx.gz" "$DATA/bcsstk13.mtx.gz" "$DATA/rajat01.mtx.gz"; do
    name=$(basename "$m" .mtx.gz)
    for n in 1 7 32 64 100 257; do
        verify_passes "bsb SpMM: $name, n=$n" "$m" --format bsb --cols "$n" --seed "$n"
    done
done
verify_passes "bsb SpMM: a 5000-nonzero row, n=33" "$T/longrow.mtx" --format bsb --cols 33
verify_passes "bsb SpMM: 70000 rows with empty ones, n=7" "$T/tall.mtx" --format bsb --cols 7
verify_passes "bsb SpMM: no nonzeros" "$T/empty.mtx" --format bsb --cols 4

done_testing
