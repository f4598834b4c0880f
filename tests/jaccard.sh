#!/bin/sh
# jaccard.sh: tcreorder --method jaccard: a scrambled block structure
# recovered (counted by tcstat -f bcsr), the tau the sweep chose recorded
# in /permutation and the report, the same order on any thread count, and
# a matrix already in its best order kept as it is, said on standard error
# and in the report.
. "${top_srcdir:-.}/tests/lib.sh"
TCREORDER=$TOOLS/tcreorder
TCSTAT=$TOOLS/tcstat
command -v h5dump >/dev/null 2>&1 || skip_all "h5dump not installed (Debian: hdf5-tools)"

blocks() { "$TCSTAT" -f bcsr --tsv "$1" | awk -F'\t' '$2 == "format.bcsr" && $3 == "blocks" { print $4 }'; }
attr() { h5dump -a "/permutation/$1" "$2" | sed -n 's/^ *(0): //p'; }

# 400 groups of 16 rows, each row 5 random columns in its group's block of
# 16 columns, rows scrambled: 400 blocks of 16 x 16 in the group order.
awk 'BEGIN { srand(5); g = 400; n = 16 * g
             for (i = 0; i < n; i++) p[i] = i
             for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
             print "%%MatrixMarket matrix coordinate pattern general"; print n, n, 5 * n
             for (i = 0; i < n; i++) for (k = 0; k < 5; k++)
                 print p[i] + 1, 16 * int(i / 16) + int(rand() * 16) + 1 }' > "$T/groups.mtx"
"$TCREORDER" --method jaccard --tsv -o "$T/groups.tcf.h5" --perm-out "$T/groups.txt" \
    "$T/groups.mtx" > "$T/groups.tsv" 2> "$T/groups.err"
ok $? "jaccard with -o, --perm-out and --tsv"
"$TOOLS/tcconv" -q "$T/groups.mtx" -o "$T/groups-in.tcf.h5"
before=$(blocks "$T/groups-in.tcf.h5"); after=$(blocks "$T/groups.tcf.h5")
ok $(( ! (after <= 440 && before > 4 * after) )) "scrambled groups: 16x16 BCSR blocks $before -> $after (400 aligned)"
is "$(tsv_value reorder kept_input "$T/groups.tsv")|$(tsv_value reorder note "$T/groups.tsv")|$(cat "$T/groups.err")" \
    "0||" "a better order found: kept_input 0, no note, nothing on standard error"
tau=$(attr tau "$T/groups.tcf.h5")
case " 0.3 0.5 0.7 0.8 0.9 " in *" $tau "*) r=0 ;; *) r=1 ;; esac
ok $r "/permutation records the tau the sweep chose ($tau)"
is "$(attr h "$T/groups.tcf.h5") $(attr w "$T/groups.tcf.h5") $(attr candidates "$T/groups.tcf.h5")" \
    "16 16 1024" "/permutation records h, w and candidates"
"$TCREORDER" -q --method jaccard --param "tau=$tau" --perm-out "$T/again.txt" "$T/groups.mtx" &&
    cmp -s "$T/groups.txt" "$T/again.txt"
ok $? "--param tau=$tau repeats the sweep's order"
TC_THREADS=1 "$TCREORDER" -q --method jaccard --perm-out "$T/t1.txt" "$T/groups.mtx" &&
    TC_THREADS=3 "$TCREORDER" -q --method jaccard --perm-out "$T/t3.txt" "$T/groups.mtx" &&
    cmp -s "$T/t1.txt" "$T/t3.txt" && cmp -s "$T/t1.txt" "$T/groups.txt"
ok $? "the same order with 1 and 3 threads"

# A band of half-width 10: its aligned block rows (187 blocks) are the best
# the sweep finds, so the input order is kept, and said.
awk 'BEGIN { n = 1000; m = 0
             for (i = 0; i < n; i++) for (j = i - 10; j <= i + 10; j++) if (j >= 0 && j < n) m++
             print "%%MatrixMarket matrix coordinate pattern general"; print n, n, m
             for (i = 0; i < n; i++) for (j = i - 10; j <= i + 10; j++)
                 if (j >= 0 && j < n) print i + 1, j + 1 }' > "$T/band.mtx"
kept="kept the original order: no tau of 0.3 0.5 0.7 0.8 0.9 reduced the 16x16 BCSR block count (187; the best, tau=0.3, gives 187)"
"$TCREORDER" --method jaccard --tsv -o "$T/band.tcf.h5" --perm-out "$T/band.txt" "$T/band.mtx" \
    > "$T/band.tsv" 2> "$T/band.err"
ok $? "jaccard on a band"
is "$(cat "$T/band.err")" "tcreorder: warning: jaccard: $kept" "the input order kept: said on standard error"
is "$(tsv_value reorder kept_input "$T/band.tsv")|$(tsv_value reorder note "$T/band.tsv")" "1|$kept" \
    "  ... and in the TSV report"
is "$(awk '$1 != NR - 1 { bad = 1 } END { print NR, bad + 0 }' "$T/band.txt")" "1000 0" \
    "  ... the permutation is the identity"
is "$(blocks "$T/band.tcf.h5") $(attr tau "$T/band.tcf.h5")" "187 0" \
    "  ... 187 blocks still; tau recorded as 0 (none chosen)"
"$TCREORDER" --method jaccard --json "$T/band.mtx" > "$T/band.json" 2> /dev/null
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]["report"]["reorder"]; print(d["kept_input"], d["note"][:24])' "$T/band.json")" \
    "1 kept the original order:" "  ... and in the JSON report"
"$TCREORDER" --method jaccard "$T/band.mtx" > "$T/band.out" 2> /dev/null
grep -q "^  note .*kept the original order: no tau" "$T/band.out"; ok $? "  ... and in the text report"
"$TCREORDER" -q --method jaccard --perm-out "$T/q.txt" "$T/band.mtx" 2> "$T/q.err"
is "$(wc -c < "$T/q.err")" 0 "-q: no warning"
"$TCREORDER" --method jaccard --param tau=0.5 --tsv "$T/band.mtx" > "$T/worse.tsv" 2> "$T/worse.err"
is "$(cat "$T/worse.err")" \
    "tcreorder: warning: jaccard: tau=0.5 gives more 16x16 BCSR blocks than the original order (188 > 187)" \
    "tau=0.5 given: its worse order, said"
is "$(tsv_value reorder kept_input "$T/worse.tsv")" 0 "  ... kept_input 0"

run_fails 2 "tcreorder: --param: jaccard: tau=2 is out of range [0, 1]" "tau=2 refused" -- \
    "$TCREORDER" --method jaccard --param tau=2 "$T/band.mtx"
run_fails 2 "tcreorder: --param: jaccard has no parameter 'k'" "a parameter of wjaccard refused" -- \
    "$TCREORDER" --method jaccard --param k=3 "$T/band.mtx"
done_testing
