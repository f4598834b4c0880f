#!/bin/sh
# auto-bench.sh: bench/auto.sh and bench/placement.sh and their drivers
# (which write bench/results/auto.tsv and placement.tsv on a GPU) cannot
# rot unseen: usage errors exit 2, a bad matrix exits 1 naming it, and
# without a GPU the drivers fail with the library's no-device message; on
# a GPU, one small matrix runs through every effort level with its C
# checked, and through the placement timings.
. "${top_srcdir:-.}/tests/lib.sh"
AUTO=$top_builddir/bench/auto
PLACEMENT=$top_builddir/bench/placement
[ -x "$AUTO" ] || skip_all "bench/auto is not built"
A=$DATA/1138_bus.mtx.gz

run_fails 2 "usage: auto [-w WARMUP] [-i ITERS] [-e LEVELS] [-c CANDIDATES.tsv] MATRIX N..." \
    "bench/auto without n" -- "$AUTO" "$A"
run_fails 2 "auto: bad n 'zero'" "bench/auto with a bad n" -- "$AUTO" "$A" zero
for bad in patient,fast "" ,; do
    run_fails 2 "auto: bad levels '$bad' (expected a comma list of estimate, measure, patient, exhaustive)" \
        "bench/auto -e '$bad'" -- "$AUTO" -e "$bad" "$A" 8
done
printf 'not a matrix\n' > "$T/bad.mtx"
"$AUTO" "$T/bad.mtx" 8 > /dev/null 2> "$T/err"
is "$? $(grep -c "bad.mtx" "$T/err")" "1 1" "a bad matrix: exit 1, the file named"
"$top_srcdir/bench/auto.sh" -x 2> /dev/null
is $? 2 "bench/auto.sh with an unknown option: exit 2"
run_fails 2 "usage: placement [-w WARMUP] [-i ITERS] [-r ROUNDS] MATRIX N..." \
    "bench/placement without n" -- "$PLACEMENT" "$A"
run_fails 2 "placement: bad rounds '0' (expected 1 to 64)" "bench/placement with 0 rounds" -- \
    "$PLACEMENT" -r 0 "$A" 8
"$PLACEMENT" "$T/bad.mtx" 8 > /dev/null 2> "$T/err"
is "$? $(grep -c "bad.mtx" "$T/err")" "1 1" "placement, a bad matrix: exit 1, the file named"

if "$TOOLS/tcmul" --list-devices > /dev/null 2>&1; then
    AUTO=$AUTO WARMUP=1 ITERS=5 "$top_srcdir/bench/auto.sh" -o "$T/auto.tsv" -n 8 "$A"
    ok $? "bench/auto.sh on 1138_bus at n = 8"
    is "$(awk -F '\t' 'NR > 1 { print $6, $16 }' "$T/auto.tsv" | tr '\n' ,)" \
        "estimate pass,measure pass,patient pass," "a row per effort level, each C checked"
    is "$(awk -F '\t' 'NR > 1 && $10 + 0 > 0 && $11 != "-" { n++ } END { print n + 0 }' \
        "$T/auto.tsv")" 3 "every row has the oracle's time and plan"
    AUTO=$AUTO WARMUP=1 ITERS=5 LEVELS=measure,patient "$top_srcdir/bench/auto.sh" \
        -o "$T/auto2.tsv" -n "8 9" "$A"
    ok $? "bench/auto.sh with LEVELS=measure,patient"
    is "$(awk -F '\t' 'NR > 1 { print $5, $6, $10, $11, $13, $16 }' "$T/auto2.tsv" | tr '\n' ,)" \
        "8 measure - - - pass,8 patient - - - pass,9 measure - - - pass,9 patient - - - pass," \
        "no exhaustive level: a row per level and n, the oracle's columns '-'"
    is "$(wc -l < "$T/auto2-candidates.tsv")" 1 "no exhaustive level: no candidates"
    PLACEMENT=$PLACEMENT WARMUP=1 ITERS=10 "$top_srcdir/bench/placement.sh" -o "$T/p.tsv" \
        -n "8 9" "$A"
    ok $? "bench/placement.sh on 1138_bus at n = 8, 9"
    is "$(awk -F '\t' 'NR > 1 && $10 > 0.5 && $10 < 2 && $11 > 0.5 && $11 < 2 { print $5 }' \
        "$T/p.tsv" | tr '\n' ,)" "8,9," "a row per n, both ratios near 1"
else
    for d in "$AUTO" "$PLACEMENT"; do
        "$d" "$A" 8 > /dev/null 2> "$T/err"
        rc=$?
        is "$rc $(grep -c 'no CUDA device' "$T/err")" "1 1" \
            "no GPU: $(basename "$d") exits 1 with the library's no-device message"
    done
fi
done_testing
