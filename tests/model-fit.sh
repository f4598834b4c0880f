#!/bin/sh
# bench/model-fit.py: on measurements made from a known log-linear law it
# recovers the law's coefficients into the header it writes, ranks as the
# law does (every first choice right), keeps a reordering that wins and
# drops one that never does; writes the prior of a format of PRIORS (rowsplit)
# while it is not measured and fits it once it is; leaves out a plan's
# settings (FORMAT:PARAMS); a measurement file without the columns it
# needs is refused, naming the file. Features come from a prepared cache,
# so no tool runs.
. "${top_srcdir:-.}/tests/lib.sh"
PY=$(python_with numpy)
[ -n "$PY" ] || skip_all "no python3 with numpy"
FIT=$top_srcdir/bench/model-fit.py

# 12 matrices in orders given, wjaccard (better blocks) and jaccard (the
# same figures as given), measured at n = 32, 128, 512 for rstile and hrpb.
"$PY" - "$T" <<'EOF'
import math, random, sys
t = sys.argv[1]
rnd = random.Random(7)
law = {"rstile": [0.3, 0.4, -0.05, 0.02, 0.5, -0.01, 0.03, -0.1],
       "hrpb": [0.6, 0.1, 0.04, -0.03, 0.9, 0.02, -0.05, 0.05]}
feats, meas = [], []
with open(t + "/MANIFEST.tsv", "w") as f:
    f.write("name\tnnz_full\n")
    for i in range(12):
        m = "m%02d" % i
        rows, nnz = rnd.randint(1000, 50000), rnd.randint(10**4, 10**6)
        f.write("%s\t%d\n" % (m, nnz))
        base = dict(rows=rows, nnz=nnz, blocks=0, nnz_per_block=rnd.uniform(4, 30),
                    blocks_per_window_cv=rnd.uniform(0.1, 3), row_length_cv=rnd.uniform(0, 4),
                    synergy_alpha=rnd.uniform(0.07, 0.4))
        wj = dict(base, nnz_per_block=base["nnz_per_block"] * 1.8,
                  synergy_alpha=min(base["synergy_alpha"] * 1.5, 1))
        for order, ft in (("given", base), ("wjaccard", wj), ("jaccard", base)):
            feats.append((m, order, ft))
            if order == "jaccard":
                continue
            for n in (32, 128, 512):
                x = [1, math.log(ft["nnz_per_block"]), ft["blocks_per_window_cv"],
                     ft["row_length_cv"], ft["synergy_alpha"], math.log2(n),
                     math.log10(nnz), math.log(nnz / rows)]
                for fmt, c in law.items():
                    s = math.exp(sum(a * b for a, b in zip(c, x)))
                    meas.append((m, n, order, fmt, 1 / s, 1.0))
keys = ["rows", "nnz", "blocks", "nnz_per_block", "blocks_per_window_cv", "row_length_cv",
        "synergy_alpha"]
with open(t + "/features.tsv", "w") as f:
    f.write("matrix\torder\t" + "\t".join(keys) + "\n")
    for m, order, ft in feats:
        f.write("%s\t%s\t%s\n" % (m, order, "\t".join("%.17g" % ft[k] for k in keys)))
with open(t + "/auto.tsv", "w") as f:
    f.write("matrix\tn\torder\tformat\tms\tcusparse_ms\n")
    for r in meas:
        f.write("%s\t%d\t%s\t%s\t%.17g\t%.17g\n" % r)
    for m, order, ft in feats[::3]:
        f.write("%s\t32\tgiven\tcsr\t1\t1\n" % m)
with open(t + "/law.txt", "w") as f:
    for fmt, c in sorted(law.items()):
        f.write("%s %s\n" % (fmt, " ".join("%.4f" % v for v in c)))
# what ESTIMATE runs with a model that ranks right: the best in the given
# order (the only one it ranks), where it is at least the margin 1.2 over
# cuSPARSE, else cuSPARSE (1)
best = {}
for m, n, order, fmt, ms, cus in meas:
    best[(m, n)] = max(best.get((m, n), 1.0), cus / ms if order == "given" else 1.0)
chosen = [b if b >= 1.2 else 1.0 for b in best.values()]
with open(t + "/estimate.txt", "w") as f:
    f.write("%.3f\n" % math.exp(sum(map(math.log, chosen)) / len(chosen)))
EOF

"$PY" "$FIT" --data "$T" --features "$T/features.tsv" --ridge 0 --header "$T/coef.h" \
    "$T/auto.tsv" > "$T/out.md"
ok $? "fits a long measurement file"
grep -q '^\*\*Leave one matrix out (12 matrices)\*\*$' "$T/out.md"; ok $? "leave one matrix out over the 12"
is "$(grep '^| all |' "$T/out.md" | sed -n '1p;3p' | cut -d'|' -f 4 | tr -d ' ' | tr '\n' ' ')" "100% 100% " \
    "measured on matrices it was not fitted on, every first choice right"
# within 1%: a matrix left out may have figures outside the range the
# others were fitted on, where predictions clamp (plan/model.c), so one
# choice among the given order's can be the second best (4.152 against
# 4.168); counting the reorderings, which ESTIMATE does not rank, gives 5.558
got=$(grep '^| all |' "$T/out.md" | sed -n '3p' | cut -d'|' -f 9 | tr -d ' ')
awk -v g="$got" -v w="$(cat "$T/estimate.txt")" 'BEGIN { exit !(g / w > 0.99 && g / w < 1.01) }'
ok $? "estimate over cuSPARSE ($got): the best in the given order where it passes the margin 1.2, else cuSPARSE's 1 ($(cat "$T/estimate.txt"))"
is "$(sed -n 's/^static const char \*const tc_model_orders\[\] = { \(.*\) };$/\1/p' "$T/coef.h")" \
    '"wjaccard", NULL' "the header keeps wjaccard, which wins, and drops jaccard, which never does"
is "$(grep -c '^    { "[a-z]*", "fp16\|tf32", {' "$T/coef.h")" "2" "a row for each format, with its kernel's precision"
is "$("$PY" - "$T/coef.h" <<'EOF'
import re, sys
fitted = open(sys.argv[1]).read().split("tc_model_priors")[0]
for fmt, prec, c in re.findall(r'\{ "(\w+)", "(\w+)", \{ ([^}]*) \} \}', fitted):
    print(fmt, " ".join("%.4f" % float(v) for v in c.split(",")))
EOF
)" "$(cat "$T/law.txt")" "the header holds the law's coefficients"
grep -q "^#define TC_MODEL_FIT_SOURCE \"commit [0-9a-z]*, .*auto.tsv\"$" "$T/coef.h"
ok $? "the header names the commit and data it was fitted from"

priors() {
    sed -n '/tc_model_priors/,$s/^    { "\([a-z]*\)", "\([a-z0-9]*\)", { \([^}]*\) } },$/\1 \2 \3/p' "$1"
}
is "$(priors "$T/coef.h")" "rowsplit fp32 0, 0, 0, 0, 0, 0, 0, 0" \
    "a format of PRIORS not measured: its prior row, at parity, with its kernel's precision"
# the same measurements and rowsplit's, 1.3 times cuSPARSE everywhere
{ cat "$T/auto.tsv"; awk -F '\t' 'NR > 1 && $4 == "rstile" { OFS = "\t"; $4 = "rowsplit";
      $5 = $6 / 1.3; print }' "$T/auto.tsv"; } > "$T/auto-rowsplit.tsv"
"$PY" "$FIT" --data "$T" --features "$T/features.tsv" --ridge 0 --header "$T/coef-rs.h" \
    "$T/auto-rowsplit.tsv" > /dev/null
ok $? "fits rowsplit's measurements too"
is "$(priors "$T/coef-rs.h")" "" "a format of PRIORS measured: no prior row"
grep -q '^    { "rowsplit", "fp32", { 0.262364, ' "$T/coef-rs.h"
ok $? "... but a fitted one: ln 1.3 = 0.262364 as its intercept"

# a plan's settings among the candidates (auto.sh writes FORMAT:PARAMS), here
# ten times faster than the law: left out, the fit is the law's
{ cat "$T/auto.tsv"; awk -F '\t' 'NR > 1 && $4 == "hrpb" { OFS = "\t"; $4 = "hrpb:TM=32";
      $5 = $5 / 10; print }' "$T/auto.tsv"; } > "$T/auto-params.tsv"
"$PY" "$FIT" --data "$T" --features "$T/features.tsv" --ridge 0 --header "$T/coef-params.h" \
    "$T/auto-params.tsv" > /dev/null
ok $? "fits a file with plan settings among its candidates"
is "$(grep '^    { "' "$T/coef-params.h")" "$(grep '^    { "' "$T/coef.h")" \
    "... which it leaves out: the same rows as without them"

# What a timed plan stops timing by a refit (--timed-since): nothing against
# the same fit; against a fit that put four other formats first (ahead of
# rstile and hrpb, which this one alone knows), the third of them in every
# (matrix, class of orders, n): this fit ranks them last, past its first
# TOP_TIMED
"$PY" "$FIT" --data "$T" --features "$T/features.tsv" --ridge 0 --timed-since "$T/coef.h" \
    "$T/auto.tsv" > "$T/since.md"
grep -q "^Timed since .*coef.h (its first 3 against this fit's first [0-9]*, in each class of orders): 0 lost$" \
    "$T/since.md"
ok $? "--timed-since the same fit: nothing lost"
sed 's/^static const tc_model_row tc_model_rows\[\] = {$/&\
    { "fa", "fp16", { 5, 0, 0, 0, 0, 0, 0, 0 } },\
    { "fb", "fp16", { 5, 0, 0, 0, 0, 0, 0, 0 } },\
    { "fc", "fp16", { 5, 0, 0, 0, 0, 0, 0, 0 } },\
    { "fd", "fp16", { 5, 0, 0, 0, 0, 0, 0, 0 } },/' "$T/coef.h" > "$T/coef-other.h"
"$PY" "$FIT" --data "$T" --features "$T/features.tsv" --ridge 0 --timed-since "$T/coef-other.h" \
    "$T/auto.tsv" > "$T/since2.md"
is "$(sed -n 's/^Timed since .*: \([0-9]*\) lost$/\1/p' "$T/since2.md")" 72 \
    "--timed-since a fit with four other formats first: 72 (matrix, class of orders, n) lose one"
is "$(grep -c '^  m[0-9]*, \(given\|reorderings\), n = [0-9]*: .*\(given\|wjaccard\) fc$' "$T/since2.md")" 72 \
    "... each its third, fc, in the given order or after wjaccard"

printf 'matrix\tn\tformat\tms\n' > "$T/bad.tsv"
"$PY" "$FIT" --data "$T" --features "$T/features.tsv" "$T/bad.tsv" > /dev/null 2> "$T/bad.err"
rc=$?
is "$rc" "1" "a file without the needed columns: exit 1"
grep -q "bad.tsv: expected columns .*missing cusparse_ms, order$" "$T/bad.err"
ok $? "... naming the file and what it lacks"

done_testing
