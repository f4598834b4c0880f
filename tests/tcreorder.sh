#!/bin/sh
# tcreorder: methods, permutation files both ways, /permutation composed with
# an earlier one, reports in text, TSV and JSON, and every refusal.
. "${top_srcdir:-.}/tests/lib.sh"
TCREORDER=$TOOLS/tcreorder
TCCONV=$TOOLS/tcconv

# is_perm FILE N: FILE holds each of 0..N-1 exactly once
is_perm() { [ "$(sort -n "$1" | awk '$1 != NR - 1 { bad = 1 } END { print NR, bad + 0 }')" = "$2 0" ]; }

# Row lengths 1 3 0 3 2: degree gives 1 3 4 0 2 (ties in original order),
# ascending 2 0 4 1 3.
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 4 9\n1 1\n2 1\n2 2\n2 3\n4 2\n4 3\n4 4\n5 1\n5 4\n' > "$T/deg.mtx"
"$TCREORDER" -q --method degree --perm-out "$T/deg.txt" "$T/deg.mtx"
is "$(tr '\n' ' ' < "$T/deg.txt")" "1 3 4 0 2 " "degree: longest rows first, ties in original order"
"$TCREORDER" -q --method degree --param ascending=1 --perm-out "$T/asc.txt" "$T/deg.mtx"
is "$(tr '\n' ' ' < "$T/asc.txt")" "2 0 4 1 3 " "degree ascending=1: shortest first"
"$TCREORDER" -q --method degree --perm-out "$T/deg-o2n.txt" --perm-convention old2new "$T/deg.mtx"
is "$(tr '\n' ' ' < "$T/deg-o2n.txt")" "3 0 4 1 2 " "--perm-convention old2new writes the inverse"

# A banded matrix (half-bandwidth 2) with rows and columns scrambled alike.
awk 'BEGIN { srand(3); n = 2000
             for (i = 0; i < n; i++) p[i] = i
             for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = p[i]; p[i] = p[j]; p[j] = t }
             m = 0
             for (i = 0; i < n; i++) for (j = i - 2; j <= i + 2; j++) if (j >= 0 && j < n) m++
             print "%%MatrixMarket matrix coordinate real general"; print n, n, m
             for (i = 0; i < n; i++) for (j = i - 2; j <= i + 2; j++)
                 if (j >= 0 && j < n) print p[i] + 1, p[j] + 1, i + j + 1 }' > "$T/band.mtx"
"$TCREORDER" --method rcm --tsv -o "$T/rcm.tcf.h5" --perm-out "$T/rcm.txt" "$T/band.mtx" > "$T/rcm.tsv"
ok $? "rcm with -o, --perm-out and --tsv"
is "$(head -n 1 "$T/rcm.tsv")" "$(printf 'file\tsection\tkey\tvalue')" "TSV report header: the file first, as tcstat's"
before=$(tsv_value tc16x8 blocks_before "$T/rcm.tsv"); after=$(tsv_value tc16x8 blocks_after "$T/rcm.tsv")
# 125 windows of 16 rows spanning at most 20 columns: 3 blocks each
ok $(( ! (after <= 375 && before > 3 * after) )) "rcm: 16x8 TC blocks $before -> $after (at most 375)"
is "$(tsv_value reorder method "$T/rcm.tsv") $(tsv_value reorder rows "$T/rcm.tsv")" "rcm 2000" "report names method and rows"
awk -v b="$(tsv_value tc16x8 nnz_per_tcb_before "$T/rcm.tsv")" -v a="$(tsv_value tc16x8 nnz_per_tcb_after "$T/rcm.tsv")" \
    'BEGIN { exit !(a > 3 * b && b > 0) }'
ok $? "rcm: mean nnz per TC block rises"
is_perm "$T/rcm.txt" 2000; ok $? "--perm-out: a permutation of 0..1999"
h5dump -d /permutation/row_new_to_old -y -w 0 "$T/rcm.tcf.h5" |
    awk '/DATA \{/ { on = 1; next } on && /\}/ { on = 0 } on' | tr ',' '\n' | tr -d ' ' |
    grep -v '^$' > "$T/h5perm.txt"
cmp -s "$T/h5perm.txt" "$T/rcm.txt"; ok $? "/permutation/row_new_to_old is the --perm-out file"
h5dump -a /permutation/method "$T/rcm.tcf.h5" | grep -q '"rcm"'; ok $? "/permutation method attribute"
h5dump -a /permutation/bipartite "$T/rcm.tcf.h5" | grep -q '(0): 0'; ok $? "/permutation records the default parameter"
h5dump -a /provenance/source "$T/rcm.tcf.h5" | grep -q "band.mtx"; ok $? "provenance names the source"

# --apply reproduces the run, in either convention.
"$TCREORDER" -q --apply "$T/rcm.txt" -o "$T/applied.tcf.h5" "$T/band.mtx" &&
    h5diff "$T/rcm.tcf.h5" "$T/applied.tcf.h5" /matrix /matrix > /dev/null
ok $? "--apply of the --perm-out file gives the same /matrix"
"$TCREORDER" -q --method rcm --perm-out "$T/o2n.txt" --perm-convention old2new "$T/band.mtx" &&
    "$TCREORDER" -q --apply "$T/o2n.txt" --perm-convention old2new -o "$T/applied2.tcf.h5" "$T/band.mtx" &&
    h5diff "$T/rcm.tcf.h5" "$T/applied2.tcf.h5" /matrix /matrix > /dev/null
ok $? "old2new files read back as old2new"
"$TCREORDER" --method rcm --tsv "$T/band.mtx" | grep -v seconds | cmp -s - "$(grep -v seconds "$T/rcm.tsv" > "$T/r2.tsv"; echo "$T/r2.tsv")"
ok $? "deterministic report (but for seconds)"
"$TCREORDER" -q --method rcm -o "$T/rcm2.tcf.h5" "$T/band.mtx" &&
    h5diff --exclude-path /provenance "$T/rcm.tcf.h5" "$T/rcm2.tcf.h5" > /dev/null
ok $? "deterministic .tcf.h5"

# --symmetric: P*A*P^T brings the scrambled band back to bandwidth 2.
"$TCREORDER" -q --method rcm --symmetric -o "$T/sym.tcf.h5" "$T/band.mtx"; ok $? "rcm --symmetric"
is "$("$TOOLS/tcstat" --tsv "$T/sym.tcf.h5" | awk -F'\t' '$3 == "bandwidth" { print $4 }')" 2 \
    "rcm --symmetric: bandwidth back to 2"
h5dump -d /permutation/col_new_to_old -y -w 0 "$T/sym.tcf.h5" | sed -n 's/^ *\([0-9, ]*\)$/\1/p' | tr -d ' \n' |
    tr ',' '\n' > "$T/colperm.txt"
h5dump -d /permutation/row_new_to_old -y -w 0 "$T/sym.tcf.h5" | sed -n 's/^ *\([0-9, ]*\)$/\1/p' | tr -d ' \n' |
    tr ',' '\n' > "$T/rowperm.txt"
cmp -s "$T/colperm.txt" "$T/rowperm.txt" && [ -s "$T/colperm.txt" ]
ok $? "--symmetric stores the same column permutation"
"$TCCONV" --original-order "$T/sym.tcf.h5" -o "$T/sym-back.mtx" && "$TCCONV" "$T/band.mtx" --to mtx -o "$T/band-plain.mtx" &&
    cmp -s "$T/sym-back.mtx" "$T/band-plain.mtx"
ok $? "--original-order undoes rows and columns"
printf '%%%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 1\n' > "$T/wide.mtx"
run_fails 2 "tcreorder: $T/wide.mtx: --symmetric needs a square matrix, not 2 x 3" \
    "--symmetric refuses a rectangular matrix" -- "$TCREORDER" --method rcm --symmetric "$T/wide.mtx" -o "$T/w.tcf.h5"

# A second reordering composes: /permutation still maps to the original.
"$TCCONV" "$T/band.mtx" -o "$T/band.tcf.h5"
"$TCREORDER" -q --method degree -o "$T/both.tcf.h5" "$T/rcm.tcf.h5"; ok $? "reorder a reordered .tcf.h5"
h5dump -a /permutation/method "$T/both.tcf.h5" | grep -q '"rcm+degree"'; ok $? "method records both steps"
"$TCCONV" --original-order "$T/both.tcf.h5" -o "$T/back.mtx" && "$TCCONV" "$T/band.tcf.h5" -o "$T/orig.mtx" &&
    cmp -s "$T/back.mtx" "$T/orig.mtx"
ok $? "undoing the composed /permutation gives the original matrix"

# Reports: JSON, text on stdout, or on stderr when the permutation is there.
"$TCREORDER" --method rcm --json "$DATA/rajat01.mtx.gz" > "$T/r.json" && python3 -m json.tool "$T/r.json" > /dev/null
ok $? "--json is valid JSON"
is "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); d=a[0]["report"]; print(len(a), a[0]["file"] == sys.argv[2], d["reorder"]["method"], d["reorder"]["rows"], d["tc16x8"]["blocks_after"] > 0)' "$T/r.json" "$DATA/rajat01.mtx.gz")" \
    "1 True rcm 6833 True" "JSON: an array of one {file, report}, as tcstat's; sections hold the figures"
run_fails 2 "tcreorder: --tsv and --json exclude each other: give one" "--tsv with --json" -- \
    "$TCREORDER" --method rcm --json --tsv "$DATA/rajat01.mtx.gz"
"$TCREORDER" --method degree "$DATA/cora.mtx.gz" > "$T/text.out" 2> "$T/text.err"
grep -q '^  blocks_after ' "$T/text.out" && [ ! -s "$T/text.err" ]; ok $? "text report on stdout"
"$TCREORDER" --method degree --perm-out - "$DATA/cora.mtx.gz" > "$T/p.out" 2> "$T/p.err"
is_perm "$T/p.out" 2708 && grep -q '^  blocks_after ' "$T/p.err"
ok $? "--perm-out -: permutation on stdout, report on stderr"
"$TCREORDER" -q --method degree "$DATA/cora.mtx.gz" > "$T/q.out"; is "$(wc -c < "$T/q.out")" "0" "-q: no text report"
ls "$T" > "$T/before.ls"
"$TCREORDER" -q --method rcm "$DATA/1138_bus.mtx.gz"; ls "$T" | cmp -s - "$T/before.ls"
ok $? "neither -o nor --perm-out: report only, no file written"
awk 'BEGIN { srand(5); print "%%MatrixMarket matrix coordinate pattern general"; print 70001, 300, 200000
             for (k = 0; k < 200000; k++) print 1 + int(rand() * 70001), 1 + int(rand() * 300) }' > "$T/tall.mtx"
"$TCREORDER" -q --method rcm --perm-out "$T/tall.txt" "$T/tall.mtx" && is_perm "$T/tall.txt" 70001
ok $? "rcm on a 70001 x 300 matrix (bipartite graph)"
"$TCREORDER" --list-methods > "$T/list.txt" && grep -q '^degree ' "$T/list.txt" && grep -q '^rcm ' "$T/list.txt" &&
    grep -q 'bipartite=0' "$T/list.txt"
ok $? "--list-methods lists methods and parameters"
"$TCREORDER" --help | grep -q '^Usage: tcreorder'; ok $? "--help"
is "$("$TCREORDER" --version)" "tcreorder (tcsparse) 0.1.0" "--version"

# The NAME:VALUE pairs whose attribute /permutation/NAME of FILE does not
# hold VALUE, each as "NAME missing".
missing_attrs() {
    _f=$1
    shift
    for kv in "$@"; do
        h5dump -a "/permutation/${kv%%:*}" "$_f" | grep -q "(0): ${kv#*:}\$" ||
            echo "${kv%%:*} missing"
    done
}

# A check that the report TSV's 16x8 TC blocks fell under 70%, named WHAT.
blocks_under_70() {
    _before=$(tsv_value tc16x8 blocks_before "$1"); _after=$(tsv_value tc16x8 blocks_after "$1")
    ok $(( ! (_after * 10 < _before * 7) )) "$2: 16x8 TC blocks $_before -> $_after (under 70%)"
}

# wjaccard: parameters recorded, the same order on any thread count, the
# input order kept (and said) when nothing beats it, its refusals.
"$TCREORDER" --method wjaccard --param k=4,cap=32,rounds=2,floor=0.1 --tsv -o "$T/wj.tcf.h5" \
    --perm-out "$T/wj.txt" "$DATA/cora.mtx.gz" > "$T/wj.tsv"
ok $? "wjaccard with every parameter set"
is "$(missing_attrs "$T/wj.tcf.h5" k:4 cap:32 rounds:2 floor:0.1)" "" \
    "/permutation records k, cap, rounds and floor"
is_perm "$T/wj.txt" 2708; ok $? "wjaccard: a permutation of cora's 2708 rows"
blocks_under_70 "$T/wj.tsv" "wjaccard on cora"
is "$(tsv_value reorder kept_input "$T/wj.tsv")" 0 "  ... its own order, not the input's"
awk 'BEGIN { srand(11); print "%%MatrixMarket matrix coordinate pattern general"; print 6000, 3000, 30000
             for (k = 0; k < 30000; k++) print 1 + int(rand() * 6000), 1 + int(rand() * 3000) }' > "$T/rand.mtx"
TC_THREADS=1 "$TCREORDER" -q --method wjaccard --perm-out "$T/wj1.txt" "$T/rand.mtx" &&
    TC_THREADS=3 "$TCREORDER" -q --method wjaccard --perm-out "$T/wj3.txt" "$T/rand.mtx" &&
    cmp -s "$T/wj1.txt" "$T/wj3.txt" && ! seq 0 5999 | cmp -s - "$T/wj1.txt"
ok $? "wjaccard: the same order, not the input's, on 1 and 3 threads (6000 rows)"
TC_THREADS=1 "$TCREORDER" -q -t 3 --method wjaccard --perm-out "$T/wj-t3.txt" "$T/rand.mtx" &&
    cmp -s "$T/wj1.txt" "$T/wj-t3.txt"
ok $? "  ... and with -t 3 (over \$TC_THREADS)"

# hmatch from the command line: its parameters recorded, a 3-D stencil's
# blocks cut by 30% at least, the same order on 1 and 3 threads.
"$top_builddir/bench/gen" stencil 12 27 > "$T/st27.mtx" &&
    "$TCREORDER" --method hmatch --param cap=64,budget=4096,levels=6 --tsv -o "$T/hm.tcf.h5" \
        --perm-out "$T/hm.txt" "$T/st27.mtx" > "$T/hm.tsv"
ok $? "hmatch with every parameter set, on the 27-point stencil of 12^3"
is "$(missing_attrs "$T/hm.tcf.h5" cap:64 budget:4096 levels:6)" "" \
    "/permutation records cap, budget and levels"
is_perm "$T/hm.txt" 1728; ok $? "hmatch: a permutation of the stencil's 1728 rows"
blocks_under_70 "$T/hm.tsv" "hmatch on the stencil"
TC_THREADS=1 "$TCREORDER" -q --method hmatch --perm-out "$T/hm1.txt" "$T/rand.mtx" &&
    TC_THREADS=3 "$TCREORDER" -q --method hmatch --perm-out "$T/hm3.txt" "$T/rand.mtx" &&
    cmp -s "$T/hm1.txt" "$T/hm3.txt"
ok $? "hmatch: the same order on 1 and 3 threads (6000 rows)"
run_fails 2 "tcreorder: --param: hmatch: levels=3 is out of range [4, 31]" "hmatch levels=3 refused" -- \
    "$TCREORDER" -q --method hmatch --param levels=3 "$T/st27.mtx"
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 40, 40, 40
             for (i = 1; i <= 40; i++) print i, i }' > "$T/diag.mtx"
"$TCREORDER" --method wjaccard --tsv --perm-out "$T/diag.txt" "$T/diag.mtx" > "$T/diag.tsv" 2> "$T/diag.err"
is "$(tsv_value reorder kept_input "$T/diag.tsv") $(tr '\n' ' ' < "$T/diag.txt" | cut -d' ' -f1-5)" "1 0 1 2 3 4" \
    "wjaccard on a diagonal (no row shares a column): the input order kept"
is "$(cat "$T/diag.err")" "tcreorder: warning: wjaccard: kept the original order: the order found gives 5 16x8 TC blocks, the original 5" \
    "  ... with a warning"
"$TCREORDER" -q --method wjaccard --tsv "$T/diag.mtx" 2> "$T/diag-q.err" > /dev/null
is "$(wc -c < "$T/diag-q.err")" 0 "  ... but not with -q"
# wjaccard on real matrices of the shared collection, when present: the
# largest two, and two rectangular ones.
for name in gupta2 fb100_Cornell5 TF18 lp_nug30; do
    m=${TC_SHARED_DATA:-}/$name.mtx.gz
    [ -f "$m" ] || { skip "$name: no shared matrix collection (TC_SHARED_DATA)"; continue; }
    rows=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$TC_SHARED_DATA/MANIFEST.tsv")
    "$TCREORDER" --method wjaccard --tsv --perm-out "$T/real.txt" "$m" > "$T/real.tsv" 2> /dev/null &&
        is_perm "$T/real.txt" "$rows"
    ok $? "wjaccard on $name: a permutation of its $rows rows"
    before=$(tsv_value tc16x8 blocks_before "$T/real.tsv"); after=$(tsv_value tc16x8 blocks_after "$T/real.tsv")
    ok $(( ! (after <= before) )) "  ... 16x8 TC blocks $before -> $after"
done
run_fails 2 "tcreorder: --param: wjaccard: k=0 is out of range [1, 64]" "wjaccard: k out of range" -- \
    "$TCREORDER" --method wjaccard --param k=0 "$T/diag.mtx"
run_fails 2 "tcreorder: --param: wjaccard: cap=1.5 must be a whole number" "wjaccard: cap not whole" -- \
    "$TCREORDER" --method wjaccard --param cap=1.5 "$T/diag.mtx"
run_fails 2 "tcreorder: --param: wjaccard: floor=2 is out of range [0, 1]" "wjaccard: floor out of range" -- \
    "$TCREORDER" --method wjaccard --param floor=2 "$T/diag.mtx"
run_fails 2 "tcreorder: --param: wjaccard has no parameter 'bipartite'" "wjaccard: another method's parameter" -- \
    "$TCREORDER" --method wjaccard --param bipartite=1 "$T/diag.mtx"

# Refusals: message, exit status, clean stdout, no output left behind.
m=$T/deg.mtx
run_fails 1 "tcreorder: $T/none.mtx: cannot open: No such file or directory" "missing input" -- \
    "$TCREORDER" --method rcm -o "$T/x.tcf.h5" "$T/none.mtx"
printf '0\n1\n1\n3\n4\n' > "$T/dup.txt"
run_fails 1 "tcreorder: $T/dup.txt: index 1 appears twice (entries 1 and 2): not a permutation" \
    "--apply: not a bijection" -- "$TCREORDER" --apply "$T/dup.txt" -o "$T/x.tcf.h5" "$m"
printf '0\n1\n2\n' > "$T/short.txt"
run_fails 1 "tcreorder: $T/short.txt: 3 indices, expected 5 (one per row)" "--apply: wrong length" -- \
    "$TCREORDER" --apply "$T/short.txt" -o "$T/x.tcf.h5" "$m"
printf '# order\n0\nfour\n' > "$T/nan.txt"
run_fails 1 "tcreorder: $T/nan.txt:3: expected one 0-based index, found 'four'" \
    "--apply: not a number, with its line" -- "$TCREORDER" --apply "$T/nan.txt" -o "$T/x.tcf.h5" "$m"
printf '0\n1\n9\n' > "$T/big.txt"
run_fails 1 "tcreorder: $T/big.txt:3: index 9 outside 0..4" "--apply: index out of range" -- \
    "$TCREORDER" --apply "$T/big.txt" -o "$T/x.tcf.h5" "$m"
test ! -e "$T/x.tcf.h5"; ok $? "no -o file after refused permutations"
echo previous > "$T/keep.tcf.h5"
"$TCREORDER" -q --apply "$T/dup.txt" -o "$T/keep.tcf.h5" "$m" 2> /dev/null
is "$(cat "$T/keep.tcf.h5")" "previous" "an existing -o file is untouched by a failed run"
"$TCREORDER" -q --method rcm -o "$T/y.tcf.h5" --perm-out /nonexistent-dir/p.txt "$m" 2> /dev/null
ok $(( $? != 1 )) "an unwritable --perm-out exits 1"
test ! -e "$T/y.tcf.h5"; ok $? "  ... and leaves no -o file either"
echo previous > "$T/keep.txt"
"$TCREORDER" -q --method rcm -o /nonexistent-dir/y.tcf.h5 --perm-out "$T/keep.txt" "$m" 2> /dev/null
is "$(cat "$T/keep.txt")" "previous" "an unwritable -o leaves an existing --perm-out file untouched"
is "$(ls -A "$T" | grep -v '^\.out$' | grep -v '^\.err$' | grep -c '^\.')" "0" "no temporary file left behind"
"$TCREORDER" --bogus "$m" > "$T/.out" 2> "$T/.err"
ok $(( $? != 2 )) "an unknown option exits 2"
grep -q "unrecognized option '--bogus'" "$T/.err" && [ ! -s "$T/.out" ] &&
    [ "$(tail -n 1 "$T/.err")" = "Try 'tcreorder --help' for more information." ]
ok $? "  ... naming it, with a pointer to --help, nothing on stdout"
run_fails 2 "tcreorder: --method: unknown method 'metis' (--list-methods lists them)" "unknown method" -- \
    "$TCREORDER" --method metis "$m"
run_fails 2 "tcreorder: give exactly one of --method and --apply" "neither method nor --apply" -- \
    "$TCREORDER" "$m"
run_fails 2 "tcreorder: give exactly one of --method and --apply" "both method and --apply" -- \
    "$TCREORDER" --method rcm --apply "$T/deg.txt" "$m"
run_fails 2 "tcreorder: --param goes with --method, not --apply" "--param with --apply" -- \
    "$TCREORDER" --apply "$T/deg.txt" --param ascending=1 "$m"
run_fails 2 "tcreorder: --param: rcm has no parameter 'ascending'" "a parameter of another method" -- \
    "$TCREORDER" --method rcm --param ascending=1 "$m"
run_fails 2 "tcreorder: --param: degree: ascending=2 is out of range [0, 1]" "a parameter out of range" -- \
    "$TCREORDER" --method degree --param ascending=2 "$m"
run_fails 2 "tcreorder: a .tcf.h5 cannot go to standard output: give -o FILE" "-o -" -- \
    "$TCREORDER" --method rcm -o - "$m"
run_fails 2 "tcreorder: --output and --perm-out name the same file '$T/z'" "-o and --perm-out alike" -- \
    "$TCREORDER" --method rcm -o "$T/z" --perm-out "$T/z" "$m"
run_fails 2 "tcreorder: --perm-out - and --json would share standard output" "--perm-out - with --json" -- \
    "$TCREORDER" --method rcm --perm-out - --json "$m"
run_fails 2 "tcreorder: --perm-convention: expected new2old or old2new, found 'rows'" "bad convention" -- \
    "$TCREORDER" --method rcm --perm-convention rows "$m"
run_fails 2 "tcreorder: no input file" "no input" -- "$TCREORDER" --method rcm
run_fails 2 "tcreorder: more than one input file" "two inputs" -- "$TCREORDER" --method rcm "$m" "$m"
test ! -e "$T/z"; ok $? "no output after usage errors"
done_testing
