#!/bin/sh
# tcstat --advise: the model's ranking in text, TSV and JSON, the same for
# .mtx, .mtx.gz and .tcf.h5 (a reordered one advised in its stored order);
# a pattern matrix, an empty one, a 1x1, rows past 65535; --cols and
# --accuracy; usage errors.
. "${top_srcdir:-.}/tests/lib.sh"
TCSTAT=$TOOLS/tcstat
TCCONV=$TOOLS/tcconv
TCREORDER=$TOOLS/tcreorder

# A 40x40 real matrix: a band of width 3 and a dense row.
awk 'BEGIN { n = 0
    for (i = 1; i <= 40; i++) for (j = i - 1; j <= i + 1; j++) if (j >= 1 && j <= 40) e[n++] = i " " j " " (i + j) / 7
    for (j = 1; j <= 40; j += 2) if (j < 19 || j > 21) e[n++] = 20 " " j " 1.5"
    print "%%MatrixMarket matrix coordinate real general"; print 40, 40, n
    for (k = 0; k < n; k++) print e[k] }' > "$T/a.mtx"
formats=$("$TOOLS/tcconv" --list-formats | awk '/^[^ ]/ { print $1 }' | sort | tr '\n' ' ')

"$TCSTAT" --advise --tsv "$T/a.mtx" > "$T/a.tsv"; ok $? "--advise --tsv runs"
is "$(head -n 1 "$T/a.tsv")" "$(printf 'file\tsection\tkey\tvalue')" "TSV: the tools' header"
is "$(tsv_value advice n "$T/a.tsv") $(tsv_value advice accuracy "$T/a.tsv")" "32 any" \
    "n defaults to 32, any accuracy"
count=$(tsv_value advice candidates "$T/a.tsv")
is "$(awk -F'\t' '$2 ~ /^advice\.[0-9]+$/ && $3 == "format"' "$T/a.tsv" | wc -l | tr -d ' ')" "$count" \
    "one advice.R section per candidate"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "format" { print $4 }' "$T/a.tsv" | sort -u | tr '\n' ' ')" \
    "$formats" "every registered format is a candidate"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "predicted_speedup" { print $4 }' "$T/a.tsv" |
      sort -g -r -c 2>&1 && echo sorted)" "sorted" "ranked best first"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "format" && $4 == "csr" { s = $2 }
      $2 == s && $3 == "predicted_speedup" { print $4 }' "$T/a.tsv")" "1" "cuSPARSE (csr) at 1"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "reason" && $4 == ""' "$T/a.tsv" | wc -l | tr -d ' ')" "0" \
    "every candidate has a reason"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "order" && $4 != "given" { print $4 }' "$T/a.tsv" | sort -u | head -n 1)" \
    "wjaccard" "the model also tries wjaccard"
is "$(tsv_value features.given nnz "$T/a.tsv") $(tsv_value features.given rows "$T/a.tsv")" \
    "$(sed -n 2p "$T/a.mtx" | awk '{ print $3, $1 }')" "the features it predicted from"

"$TCSTAT" --advise "$T/a.mtx" > "$T/a.txt"; ok $? "--advise (text) runs"
is "$(grep -c '^ *[0-9][0-9]*  ' "$T/a.txt")" "$count" "text: one table line per candidate"
grep -q '^rank  order  *format  *speedup  reason$' "$T/a.txt"; ok $? "text: the table's heading"
first=$(awk -F'\t' '$2 == "advice.1" && $3 == "format" { print $4 }' "$T/a.tsv")
is "$(awk '$1 == 1 { print $3 }' "$T/a.txt")" "$first" "text: the same first choice as TSV"
is "$(awk '$1 ~ /^[0-9]+$/ { print index($0, $5) }' "$T/a.txt" | sort -u | wc -l | tr -d ' ')" "1" \
    "text: the reasons start in one column"

"$TCSTAT" --advise --json "$T/a.mtx" > "$T/a.json"; ok $? "--advise --json runs"
is "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]["report"]
print(r["advice"]["candidates"], r["advice.1"]["format"], sorted(r["features.given"]) == sorted(["rows","nnz","blocks","nnz_per_block","blocks_per_window_cv","row_length_cv","synergy_alpha"]))' "$T/a.json")" \
    "$count $first True" "JSON: the same ranking and features"

# .mtx.gz and .tcf.h5: the same advice; a reordered .tcf.h5 is advised in
# its stored order, which is then "given".
gzip -c "$T/a.mtx" > "$T/a.mtx.gz"
"$TCCONV" -q "$T/a.mtx" -o "$T/a.tcf.h5"
cut -f 2- "$T/a.tsv" > "$T/a-advice.tsv"
"$TCSTAT" --advise --tsv "$T/a.mtx.gz" | cut -f 2- | cmp -s - "$T/a-advice.tsv"; ok $? ".mtx.gz: the same advice"
"$TCSTAT" --advise --tsv "$T/a.tcf.h5" | cut -f 2- | cmp -s - "$T/a-advice.tsv"; ok $? ".tcf.h5: the same advice"
"$TCREORDER" -q -m wjaccard -o "$T/r.tcf.h5" "$T/a.mtx"
"$TCSTAT" --advise --tsv "$T/r.tcf.h5" > "$T/r.tsv"; ok $? "a reordered .tcf.h5 is advised"
is "$(tsv_value features.given blocks "$T/r.tsv")" "$(tsv_value features.wjaccard blocks "$T/a.tsv")" \
    "a reordered .tcf.h5: its stored order is the given one"

# Deterministic across thread counts.
TC_THREADS=1 "$TCSTAT" --advise --tsv "$T/a.mtx" | cmp -s - "$T/a.tsv" &&
    TC_THREADS=3 "$TCSTAT" --advise --tsv "$T/a.mtx" | cmp -s - "$T/a.tsv"
ok $? "the same advice on 1, 2 and 3 threads"

# --cols and --accuracy.
"$TCSTAT" --advise --cols 256 --tsv "$T/a.mtx" > "$T/c.tsv"
is "$(tsv_value advice n "$T/c.tsv")" "256" "--cols 256 advises for n = 256"
"$TCSTAT" --advise --accuracy fp32 --tsv "$T/a.mtx" > "$T/f.tsv"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "format" { print $4 }' "$T/f.tsv" | sort -u | tr '\n' ' ')" \
    "csr rowsplit " "--accuracy fp32: cuSPARSE and rowsplit, the fp32 paths, alone"
"$TCSTAT" --advise --accuracy tf32 --tsv "$T/a.mtx" > "$T/t.tsv"
is "$(awk -F'\t' '$2 ~ /^advice\./ && $3 == "precision" && $4 != "fp32" && $4 != "tf32"' "$T/t.tsv" | wc -l | tr -d ' ')" \
    "0" "--accuracy tf32: no fp16 path"

# A pattern matrix, an empty one, a 1x1, rows past 65535.
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 2\n4 3\n5 4\n' > "$T/p.mtx"
"$TCSTAT" --advise --tsv "$T/p.mtx" > "$T/p.tsv"; ok $? "a pattern matrix is advised"
is "$(tsv_value features.given nnz "$T/p.tsv")" "8" "a pattern matrix: symmetric entries expanded"
printf '%%%%MatrixMarket matrix coordinate real general\n7 3 0\n' > "$T/e.mtx"
"$TCSTAT" --advise --tsv "$T/e.mtx" > "$T/e.tsv"; ok $? "an empty matrix is advised"
is "$(tsv_value advice.1 format "$T/e.tsv")" "csr" "an empty matrix: cuSPARSE first"
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n' > "$T/one.mtx"
"$TCSTAT" --advise "$T/one.mtx" > "$T/one.txt"; ok $? "a 1x1 is advised"
# 0-based rows 0, 65535, 65536 and 70000: four 16-row windows (4095 ends
# at 65535, 4096 starts at 65536), one block each.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 70001, 70001, 4
    print 1, 1; print 65536, 2; print 65537, 70001; print 70001, 65536 }' > "$T/big.mtx"
"$TCSTAT" --advise --tsv "$T/big.mtx" > "$T/big.tsv"; ok $? "rows past 65535 are advised"
is "$(tsv_value features.given blocks "$T/big.tsv") $(tsv_value features.given rows "$T/big.tsv")" "4 70001" \
    "rows past 65535: every block counted"

# Usage errors (exit 2, stdout empty) and bad input (exit 1, naming it).
run_fails 2 "tcstat: --cols: 0 is out of range [1, 2147483647]" "--cols 0 is a usage error" -- \
    "$TCSTAT" --advise --cols 0 "$T/a.mtx"
run_fails 2 "tcstat: --cols: 'x' is not a whole number" "--cols x is a usage error" -- \
    "$TCSTAT" --advise --cols x "$T/a.mtx"
run_fails 2 "tcstat: --cols: only with --advise or --format" "--cols without --advise or --format" -- \
    "$TCSTAT" --cols 32 "$T/a.mtx"
run_fails 2 "tcstat: --accuracy: expected fp32, tf32 or fp16, found 'fp8'" "an unknown --accuracy" -- \
    "$TCSTAT" --advise --accuracy fp8 "$T/a.mtx"
run_fails 2 "tcstat: --advise: --format does not apply (the model ranks every format)" \
    "--advise with -f" -- "$TCSTAT" --advise -f rstile "$T/a.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n' > "$T/short.mtx"
"$TCSTAT" --advise -o "$T/keep.txt" "$T/a.mtx"
cp "$T/keep.txt" "$T/keep.before"
"$TCSTAT" --advise -o "$T/keep.txt" "$T/short.mtx" 2> "$T/short.err"; rc=$?
is "$rc" "1" "a truncated matrix: exit 1"
grep -q "short.mtx" "$T/short.err"; ok $? "a truncated matrix: the message names the file"
cmp -s "$T/keep.txt" "$T/keep.before"; ok $? "a failed run leaves -o's file as it was"

done_testing
