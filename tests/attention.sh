#!/bin/sh
# tcmul --op attention and --op sddmm on the CPU (the float64 reference,
# lib/attention.c): a hand-computed case (a structural nonzero whose score
# is 0 is kept, a row without nonzeros gives zeros), operands from Matrix
# Market and HDF5 files, the output of a reordered matrix in the original
# order, the SDDMM written as .mtx and .tcf.h5, and every usage error. The
# GPU paths are tests/attention-gpu.sh.
. "${top_srcdir:-.}/tests/lib.sh"
TCMUL=${TCMUL:-$TOOLS/tcmul}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}
TCCONV=${TCCONV:-$TOOLS/tcconv}

# A = [x x . ; . . x ; . . .], d = 1, Q = (1, 0, 2), K = (0, 1, 5),
# V = (2, 4, 7), scale 1. Row 0: scores 0 and 1, O = (2 + 4e) / (1 + e);
# row 1: one score, 0 * 5 = 0, kept: O = 7; row 2: no nonzero: O = 0.
cat > "$T/a.mtx" <<'EOF'
%%MatrixMarket matrix coordinate pattern general
3 3 3
1 1
1 2
2 3
EOF
dense() {   # dense FILE VALUES...: a 3 x 1 Matrix Market array
    _f=$1; shift
    { echo '%%MatrixMarket matrix array real general'; echo 3 1; for _v; do echo "$_v"; done; } > "$_f"
}
dense "$T/q.mtx" 1 0 2
dense "$T/k.mtx" 0 1 5
dense "$T/v.mtx" 2 4 7

"$TCMUL" --device cpu --op attention --scale 1 "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" "$T/v.mtx" \
    -o "$T/o.mtx" 2> "$T/err"
ok $? "attention on the CPU, operands from Matrix Market files"
tail -n 3 "$T/o.mtx" | awk 'BEGIN { e = exp(1); want[1] = (2 + 4 * e) / (1 + e); want[2] = 7
                                    want[3] = 0 }
    { d = $1 - want[NR]; if (d < 0) d = -d; if (d > 1e-6 * (1 + want[NR])) bad = 1 }
    END { exit bad || NR != 3 }'
ok $? "attention: O = ((2 + 4e) / (1 + e), 7, 0): a zero score kept, an empty row zero"

"$TCMUL" --device cpu --op sddmm --scale 2 "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" -o "$T/s.mtx" \
    2> "$T/err"
ok $? "sddmm on the CPU, written as .mtx"
is "$(grep -v '^%' "$T/s.mtx" | tr '\n' ' ')" "3 3 3 1 1 0 1 2 2 2 3 0 " \
    "sddmm: S = 2 Q K^T at A's nonzeros, its zeros kept"

"$TCMUL" --device cpu --op sddmm --scale 2 "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" \
    -o "$T/s.tcf.h5" 2> "$T/err"
ok $? "sddmm written as .tcf.h5"
"$TCCONV" -q -o "$T/s2.mtx" "$T/s.tcf.h5"
is "$(grep -v '^%' "$T/s2.mtx" | tr '\n' ' ')" "3 3 3 1 1 0 1 2 2 2 3 0 " \
    "sddmm: the .tcf.h5 holds the same scores"

# The same operands from HDF5 datasets (tcmul's own dense output, 1 x I).
cat > "$T/one.mtx" <<'EOF'
%%MatrixMarket matrix coordinate real general
3 3 3
1 1 1
2 2 1
3 3 1
EOF
for x in q k v; do
    "$TCMUL" --device cpu "$T/one.mtx" -B "$T/$x.mtx" -o "$T/$x.h5:/$x" 2> "$T/err"
done
"$TCMUL" --device cpu --op attention --scale 1 "$T/a.mtx" "$T/q.h5:/q" "$T/k.h5:/k" \
    "$T/v.h5:/v" -o "$T/o.h5" 2> "$T/err"
ok $? "attention: operands from HDF5 datasets, O to /O of an HDF5 file"
"$TCMUL" --device cpu "$T/one.mtx" -B "$T/o.h5:/O" -o "$T/o2.mtx" 2> "$T/err"
cmp -s "$T/o.mtx" "$T/o2.mtx"
ok $? "attention: the HDF5 output holds the same O"

# A reordered matrix gives O in the original order: the same bits as the
# original (each row's sum runs over its nonzeros in the same order).
"$TCREORDER" -q -m tcbsort -o "$T/cora.tcf.h5" "$DATA/cora.mtx.gz"
"$TCMUL" --device cpu --op attention --dim 8 "$DATA/cora.mtx.gz" -o "$T/c1.mtx" 2> "$T/err"
"$TCMUL" --device cpu --op attention --dim 8 "$T/cora.tcf.h5" -o "$T/c2.mtx" 2> "$T/err"
cmp -s "$T/c1.mtx" "$T/c2.mtx"
ok $? "attention: a tcbsort-reordered cora gives the same O in the original order"
"$TCMUL" --device cpu --op sddmm --dim 8 "$DATA/cora.mtx.gz" -o "$T/s1.mtx" 2> "$T/err"
"$TCMUL" --device cpu --op sddmm --dim 8 "$T/cora.tcf.h5" -o "$T/s2.mtx" 2> "$T/err"
cmp -s "$T/s1.mtx" "$T/s2.mtx"
ok $? "sddmm: a tcbsort-reordered cora gives the same S in the original order"
"$TCMUL" --device cpu --op sddmm --dim 8 "$DATA/cora.mtx.gz" -o "$T/s1.mtx.gz" 2> "$T/err" &&
    gzip -dc "$T/s1.mtx.gz" | cmp -s - "$T/s1.mtx"
ok $? "sddmm: -o S.mtx.gz writes the same coordinate file gzip-compressed"

# Usage errors (exit 2) and bad operands (exit 1).
usage_fails() {   # usage_fails MESSAGE NAME ARGS...
    _umsg=$1 _uname=$2; shift 2
    run_fails 2 "tcmul: $_umsg" "$_uname" -- "$TCMUL" --device cpu "$@"
}
usage_fails "--op: expected spmm, attention or sddmm, found 'softmax'" "an unknown --op" \
    --op softmax "$T/a.mtx" --dim 2 -o "$T/x.h5"
usage_fails "--op attention takes A and 3 operand files (Q K V), found 2" \
    "attention with two operand files" --op attention "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" \
    -o "$T/x.h5"
usage_fails "--op sddmm takes A and 2 operand files (Q K), found 3" \
    "sddmm with three operand files" --op sddmm "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" "$T/v.mtx" \
    -o "$T/x.mtx"
usage_fails "--op attention: give Q, K and V as files after A, or --dim d for random ones" \
    "attention without operands" --op attention "$T/a.mtx" -o "$T/x.h5"
usage_fails "--op attention: give either the operand files or --dim, not both" \
    "attention with files and --dim" --op attention "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" \
    "$T/v.mtx" --dim 4 -o "$T/x.h5"
usage_fails "--op attention: -B, --cols and --dense belong to --op spmm" \
    "attention with --cols" --op attention "$T/a.mtx" --dim 4 --cols 4 -o "$T/x.h5"
usage_fails "--variant w3: --op attention's variants are the fused kernel's warps per thread block: w1, w2, w4, w8" \
    "attention with an unknown --variant" --op attention "$T/a.mtx" --dim 4 --variant w3 \
    -o "$T/x.h5"
usage_fails "--variant tc: --op sddmm's variants are the fused kernel's warps per thread block: w1, w2, w4, w8" \
    "sddmm with an SpMM variant" --op sddmm "$T/a.mtx" --dim 4 --variant tc -o "$T/x.mtx"
usage_fails "--variant w2: --op attention's variants are the fused kernel's warps per thread block: w1, w2, w4, w8" \
    "--variant with the unfused path" --op attention "$T/a.mtx" --dim 4 --variant w2 \
    --path unfused -o "$T/x.h5"
usage_fails "--op attention runs from the bsb format, not 'rstile'" \
    "attention with another format" --op attention --format rstile "$T/a.mtx" --dim 4 \
    -o "$T/x.h5"
usage_fails "--output $T/x.h5: cannot write '.h5': it writes a sparse matrix: .tcf.h5 (a name ending in .tcf.h5) or Matrix Market (.mtx, .mtx.gz)" \
    "sddmm to a dense file" --op sddmm "$T/a.mtx" --dim 4 -o "$T/x.h5"
usage_fails "--dim, --scale and --path belong to --op attention and sddmm" \
    "spmm with --dim" "$T/a.mtx" --cols 4 --dim 4 -o "$T/x.h5"
usage_fails "--path: expected fused or unfused, found 'both'" "an unknown --path" \
    --op attention "$T/a.mtx" --dim 4 --path both -o "$T/x.h5"
usage_fails "--op attention: --bench, --verify, --path and --variant are about the GPU paths; the CPU computes the float64 reference itself" \
    "attention --verify on the CPU" --op attention "$T/a.mtx" --dim 4 --verify
usage_fails "--op sddmm: --bench, --verify, --path and --variant are about the GPU paths; the CPU computes the float64 reference itself" \
    "sddmm --variant on the CPU" --op sddmm "$T/a.mtx" --dim 4 --variant w1 \
    -o "$T/x.mtx"
usage_fails "--output $T/q.mtx would overwrite the input $T/q.mtx" "-o naming an operand" \
    --op attention "$T/a.mtx" "$T/q.mtx" "$T/k.mtx" "$T/v.mtx" -o "$T/q.mtx"
cat > "$T/q2.mtx" <<'EOF'
%%MatrixMarket matrix array real general
2 1
1
2
EOF
run_fails 1 "tcmul: $T/q2.mtx: Q has 2 rows, but A ($T/a.mtx) has 3 rows" \
    "Q of the wrong height, named" -- \
    "$TCMUL" --device cpu --op attention "$T/a.mtx" "$T/q2.mtx" "$T/k.mtx" "$T/v.mtx" \
    -o "$T/x.h5"
cat > "$T/k2.mtx" <<'EOF'
%%MatrixMarket matrix array real general
3 2
1
2
3
4
5
6
EOF
run_fails 1 "tcmul: $T/k2.mtx: K has 2 columns, but Q has 1" "K of another width, named" -- \
    "$TCMUL" --device cpu --op attention "$T/a.mtx" "$T/q.mtx" "$T/k2.mtx" "$T/v.mtx" \
    -o "$T/x.h5"
test ! -e "$T/x.h5"
ok $? "no output file after a refused run"

done_testing
