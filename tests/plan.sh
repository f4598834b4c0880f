#!/bin/sh
# Plans on the CPU (tcmul over the plan API): the effort levels, a forced
# order whose permutation is applied and undone, plan files written,
# reused without tuning and reported stale with the reason, the cache,
# and bad plan files refused with the file and line.
. "${top_srcdir:-.}/tests/lib.sh"
TCMUL=$TOOLS/tcmul
A=$DATA/1138_bus.mtx.gz
fig() { tsv_value "$1" "$2" "$3"; }
mul() { "$TCMUL" --device cpu --verify --tsv "$@"; }

# Effort levels: estimate times nothing; measure times the given order;
# patient every reordering too.
mul "$A" --cols 4 --effort estimate > "$T/e.tsv"
is "$(fig plan effort "$T/e.tsv") $(fig plan ms "$T/e.tsv") $(fig plan tune_s "$T/e.tsv")" \
    "estimate -1 0" "--effort estimate: nothing timed"
is "$(fig plan plan_file "$T/e.tsv")" "" "... and nothing stored"
mul "$A" --cols 4 > "$T/d.tsv"
is "$(fig plan effort "$T/d.tsv")" estimate "a one-off product plans at the estimate level"
mul "$A" --cols 4 --effort measure > "$T/m.tsv"
awk -v ms="$(fig plan ms "$T/m.tsv")" -v t="$(fig plan tune_s "$T/m.tsv")" \
    'BEGIN { exit !(ms > 0 && t > 0) }'
ok $? "--effort measure: the chosen path timed, its tuning time counted"
is "$(fig candidates 1.order "$T/m.tsv") $(fig candidates 2.order "$T/m.tsv")" "given " \
    "... in the given order alone"
mul "$A" --cols 4 --effort patient > "$T/p.tsv"
is "$(fig verify result "$T/p.tsv")" pass "--effort patient: --verify passes"
methods=$("$TOOLS/tcreorder" --list-methods | grep -c '^[a-z]')
is "$(grep -c '	candidates	[0-9]*\.ms	' "$T/p.tsv")" $((methods + 1)) \
    "... every reordering timed besides the given order ($methods methods)"
awk -v r="$(fig plan reorder_s "$T/p.tsv")" 'BEGIN { exit !(r > 0) }'
ok $? "... its reordering time counted"
is "$(fig candidates 1.ms "$T/p.tsv")" "$(fig plan ms "$T/p.tsv")" "... the fastest chosen"

# A forced order: rows permuted for the kernel and back, so C is the given
# order's bit for bit (each row sums its nonzeros in the same order).
"$TCMUL" --device cpu "$A" --cols 5 -o "$T/C.mtx" --no-plan-cache
"$TCMUL" --device cpu "$A" --cols 5 --order rcm -o "$T/C.rcm.mtx" --no-plan-cache &&
    cmp -s "$T/C.mtx" "$T/C.rcm.mtx"
ok $? "--order rcm: C in the caller's row order, the same as the given order's"
mul "$A" --cols 5 --order rcm > "$T/o.tsv"
is "$(fig plan order "$T/o.tsv") $(fig verify result "$T/o.tsv")" "rcm pass" \
    "... the report names the order"

# Plan files: written, reused without tuning, stale when the key differs.
P=$T/a.plan
mul "$A" --cols 6 --plan "$P" > "$T/1.tsv"
is "$(head -n 1 "$P")" "tcsparse-plan 2" "--plan FILE writes a plan file"
is "$(grep -c '^format_params	$' "$P")" 1 "... with the format's defaults: format_params empty"
is "$(fig plan reused "$T/1.tsv") $(fig plan plan_file "$T/1.tsv")" "no $P" \
    "... the report says where"
is "$(fig plan effort "$T/1.tsv")" measure "... planned at the measure level"
mul "$A" --cols 6 --plan "$P" > "$T/2.tsv"
is "$(fig plan reused "$T/2.tsv") $(fig plan tune_s "$T/2.tsv") $(fig plan stale "$T/2.tsv")" \
    "yes 0 " "the second run reuses it: nothing tuned"
mul "$A" --cols 7 --plan "$P" > "$T/3.tsv"
is "$(fig plan reused "$T/3.tsv")|$(fig plan stale "$T/3.tsv")" \
    "no|$P: planned for n = 6, now 7" "another n: stale, with the reason"
mul "$A" --cols 7 --plan "$P" > "$T/4.tsv"
is "$(fig plan reused "$T/4.tsv")" yes "... and replaced: the next run reuses the new plan"
mul "$DATA/cora.mtx.gz" --cols 7 --plan "$P" > "$T/5.tsv"
case $(fig plan stale "$T/5.tsv") in
"$P: the matrix changed (content hash "*", now "*")") good=0 ;;
*) good=1 ;;
esac
ok $good "another matrix: stale, the matrix changed"
gzip -dc "$A" | sed '$s/ [^ ]*$/ 7.5/' > "$T/A2.mtx"
mul "$A" --cols 7 --plan "$P" > /dev/null
mul "$T/A2.mtx" --cols 7 --plan "$P" > "$T/6.tsv"
case $(fig plan stale "$T/6.tsv") in
"$P: the matrix changed"*) good=0 ;;
*) good=1 ;;
esac
ok $good "one value changed: stale, the matrix changed"
mul "$A" --cols 7 --plan "$P" > /dev/null
sed 's/^device\t.*/device\tNVIDIA Z100/' "$P" > "$T/dev.plan"
mul "$A" --cols 7 --plan "$T/dev.plan" > "$T/7.tsv"
is "$(fig plan stale "$T/7.tsv")" "$T/dev.plan: planned for device 'NVIDIA Z100', this is 'cpu'" \
    "another device: stale"
# a path too long to leave room for the reason: its start gives way, never the reason
L=$T/$(printf 'd%.0s' $(seq 1 200))
mkdir "$L" && sed 's/^device\t.*/device\tNVIDIA Z100/' "$P" > "$L/dev.plan"
mul "$A" --cols 7 --plan "$L/dev.plan" > "$T/7l.tsv"
stale=$(fig plan stale "$T/7l.tsv")
case $stale in
"...d"*"d/dev.plan: planned for device 'NVIDIA Z100', this is 'cpu'") good=0 ;;
*) good=1 ;;
esac
ok $good "a stale plan at a long path: the path cut at its start, the reason whole"
[ $good -eq 0 ] || diag "stale: $stale"
is "${#stale}" 255 "... in all the room the report has"
sed 's/^version\t.*/version\t0.0.1/' "$P" > "$T/ver.plan"
mul "$A" --cols 7 --plan "$T/ver.plan" > "$T/8.tsv"
case $(fig plan stale "$T/8.tsv") in
"$T/ver.plan: made by tcsparse 0.0.1, this is "*) good=0 ;;
*) good=1 ;;
esac
ok $good "another library version: stale"
mul "$A" --cols 7 --plan "$P" --order rcm > "$T/9.tsv"
is "$(fig plan reused "$T/9.tsv")|$(fig plan stale "$T/9.tsv")" \
    "no|$P: chose csr rows in order given, not what the options force" \
    "a stored plan that the options contradict is stale"
mul "$A" --cols 7 --plan "$P" --order rcm > "$T/10.tsv"
is "$(fig plan reused "$T/10.tsv") $(fig plan order "$T/10.tsv") $(fig verify result "$T/10.tsv")" \
    "yes rcm pass" "a reused plan recomputes its reordering"

# The cache: timed plans go there by default, estimates do not.
C=$T/cache
TC_PLAN_CACHE=$C mul "$A" --cols 3 > /dev/null
test ! -d "$C"; ok $? "an estimate is not cached"
TC_PLAN_CACHE=$C mul "$A" --cols 3 --effort measure > "$T/c1.tsv"
is "$(ls "$C" | wc -l)" 1 "a measured plan is cached"
TC_PLAN_CACHE=$C mul "$A" --cols 3 --effort measure > "$T/c2.tsv"
is "$(fig plan reused "$T/c2.tsv") $(fig plan plan_file "$T/c2.tsv")" "yes $C/$(ls "$C")" \
    "... and reused from the cache"
TC_PLAN_CACHE=$C mul "$A" --cols 3 --effort measure --no-plan-cache > "$T/c3.tsv"
is "$(fig plan reused "$T/c3.tsv")" no "--no-plan-cache: not reused"
echo garbage > "$C/$(ls "$C")"
TC_PLAN_CACHE=$C mul "$A" --cols 3 --effort measure > "$T/c4.tsv"
is "$(fig plan reused "$T/c4.tsv")|$(fig plan stale "$T/c4.tsv")" \
    "no|$C/$(ls "$C"): $C/$(ls "$C"):1: not a tcsparse plan file (expected 'tcsparse-plan 2')" \
    "a garbled cache entry is stale, not an error"

# Bad plan files: an error naming the file and the line, status 1.
echo garbage > "$T/g.plan"
cp "$T/g.plan" "$T/g.before"
run_fails 1 "tcmul: $T/g.plan:1: not a tcsparse plan file (expected 'tcsparse-plan 2')" \
    "a plan file of garbage" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/g.plan"
sed '1s/ 2$/ 3/' "$P" > "$T/v3.plan"
run_fails 1 "tcmul: $T/v3.plan:1: plan file version '3', this library reads '2'" \
    "a plan file of another version" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/v3.plan"
# Version 1 had no format_params line: read as the format's defaults.
sed '1s/ 2$/ 1/; /^format_params	/d' "$P" > "$T/v1.plan"
mul "$A" --cols 7 --plan "$T/v1.plan" > "$T/v1.tsv"
is "$(fig plan reused "$T/v1.tsv") $(fig plan format_params "$T/v1.tsv")" "yes " \
    "a version 1 plan file (no format_params) is reused"
sed '/^format_params	/d' "$P" > "$T/nofp.plan"
run_fails 1 "tcmul: $T/nofp.plan:20: truncated: no 'format_params' line" \
    "version 2 without format_params" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/nofp.plan"
sed 's/^format_params	$/format_params	seg=64/' "$P" > "$T/fp.plan"
mul "$A" --cols 7 --plan "$T/fp.plan" > "$T/fp.tsv"
is "$(fig plan reused "$T/fp.tsv")|$(fig plan stale "$T/fp.tsv")" \
    "no|$T/fp.plan: format_params: csr has no parameter 'seg'" \
    "format_params the format does not take: stale, with the reason"
head -c 60 "$P" > "$T/cut.plan"
run_fails 1 "tcmul: $T/cut.plan:4: truncated: the line has no newline" \
    "a plan file cut inside a line" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/cut.plan"
head -n 5 "$P" > "$T/short.plan"
run_fails 1 "tcmul: $T/short.plan:6: truncated: no 'nnz' line" \
    "a plan file cut after a line" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/short.plan"
sed 's/^n\t7$/n\tseven/' "$P" > "$T/num.plan"
run_fails 1 "tcmul: $T/num.plan:7: n: expected a whole number >= 0, found 'seven'" \
    "a plan file with a bad number" -- "$TCMUL" --device cpu "$A" --cols 7 --verify --plan "$T/num.plan"
cmp -s "$T/g.plan" "$T/g.before"; ok $? "... the bad plan file is left as it was"

# Usage errors.
run_fails 2 "tcmul: --effort: expected estimate, measure, patient or exhaustive, found 'hard'" "--effort hard" -- \
    "$TCMUL" --device cpu "$A" --cols 3 --verify --effort hard
run_fails 2 "tcmul: --order: expected given, auto or a reordering method, found 'sideways'" \
    "--order sideways" -- "$TCMUL" --device cpu "$A" --cols 3 --verify --order sideways
run_fails 2 "tcmul: --accuracy: expected fp32, tf32 or fp16, found 'fp8'" "--accuracy fp8" -- \
    "$TCMUL" --device cpu "$A" --cols 3 --verify --accuracy fp8
run_fails 2 "tcmul: the CPU runs the csr format only, with no variants" "--device cpu -f brp" -- \
    "$TCMUL" --device cpu "$A" --cols 3 --verify -f brp
run_fails 2 "tcmul: --variant alg2: name the kernel's format with -f too" "--variant without -f" -- \
    "$TCMUL" "$A" --cols 3 --verify --variant alg2
done_testing
