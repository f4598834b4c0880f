#!/bin/sh
# tcconv-auto.sh: `tcconv -f auto` (tcconv(1), tcf.h5(5)): it builds the
# format the planner's model ranks first in the stored order, the one
# `tcstat --advise` ranks first among the given order's candidates, and
# records the choice as /formats attributes that h5dump and tcstat read
# back; alone or in a list, for a pattern and an empty matrix, with --cols
# and --accuracy; the same file (bytes) from any run and thread count.
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat

command -v h5dump >/dev/null 2>&1 || skip_all "h5dump not installed (Debian: hdf5-tools)"

# The value of attribute $2 of file $1 as h5dump prints it, without the
# "(0): " prefix and the quotes of a string.
attr() {
    h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): //p' | sed 's/^"\(.*\)"$/\1/'
}
# The members of /formats of file $1, one line, in name order.
members() {
    h5ls "$1/formats" 2>/dev/null | awk '{ printf "%s%s", sep, $1; sep = " " }'
}
# tcstat --advise --tsv's value of key $3 for what tcconv -f auto picks:
# the first candidate in the given order of file $1, ranked for n = $2
# (extra options in $4), that is cuSPARSE or predicted at least 1.2x
# (TC_MODEL_ESTIMATE_MARGIN).
advised() {
    "$TCSTAT" --advise --tsv --cols "$2" ${4:-} "$1" | awk -F '\t' -v key="$3" '
        $2 ~ /^advice\./ { v[$2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; s[++n] = $2 } }
        END { for (i = 1; i <= n; i++)
                  if (v[s[i], "order"] == "given" &&
                      (v[s[i], "format"] == "csr" || v[s[i], "predicted_speedup"] >= 1.2)) {
                      print v[s[i], key]; exit } }'
}

# A matrix of dense 16 x 8 blocks down the diagonal (what tensor cores are
# for: the model ranks a tensor-core format first), a random scattered one,
# a pattern matrix and an empty one.
awk 'BEGIN { print "%%MatrixMarket matrix coordinate real general"
             n = 0; for (b = 0; b < 64; b++) for (i = 1; i <= 16; i++) for (j = 1; j <= 8; j++) n++
             print 1024, 1024, n
             for (b = 0; b < 64; b++) for (i = 1; i <= 16; i++) for (j = 1; j <= 8; j++)
                 print b * 16 + i, b * 16 + j, (i * 7 + j) % 5 + 1 }' > "$T/blocks.mtx"
awk 'BEGIN { srand(3); print "%%MatrixMarket matrix coordinate real general"; print 2000, 2000, 6000
             for (k = 0; k < 6000; k++) print int(rand() * 2000) + 1, int(rand() * 2000) + 1, rand() }' \
    > "$T/scatter.mtx"
awk 'BEGIN { for (i = 1; i <= 512; i++) for (d = 0; d < 8 && i + d <= 512; d++) e[++n] = (i + d) " " i
             print "%%MatrixMarket matrix coordinate pattern symmetric"; print 512, 512, n
             for (k = 1; k <= n; k++) print e[k] }' > "$T/pattern.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n7 5 0\n' > "$T/empty.mtx"

# --- -f auto alone: the model's pick, built and recorded ----------------------
"$TCCONV" -f auto "$T/blocks.mtx" -o "$T/blocks.tcf.h5"
ok $? "-f auto converts"
want=$(advised "$T/blocks.tcf.h5" 32 format)
got=$(attr "$T/blocks.tcf.h5" /formats/auto_format)
is "$got" "$want" "auto_format is tcstat --advise's first candidate in the given order"
case $want in
csr|"") ok 1 "dense blocks: the model ranks a tensor-core format first (got '$want')" ;;
*) ok 0 "dense blocks: the model ranks a tensor-core format first ($want)" ;;
esac
is "$(members "$T/blocks.tcf.h5")" "$want" "... and it is the one format stored"
is "$(attr "$T/blocks.tcf.h5" /formats/auto_n)" 32 "auto_n: --cols's default, tcstat --advise's"
is "$(attr "$T/blocks.tcf.h5" /formats/auto_accuracy)" any "auto_accuracy any"
is "$(attr "$T/blocks.tcf.h5" /formats/auto_model)" \
    "$("$TCSTAT" --advise --tsv "$T/blocks.tcf.h5" | awk -F '\t' '$3 == "model" { print $4 }')" \
    "auto_model: the model's coefficients' source, as tcstat --advise names it"
sp=$(attr "$T/blocks.tcf.h5" /formats/auto_predicted_speedup)
awk -v a="$sp" -v b="$(advised "$T/blocks.tcf.h5" 32 predicted_speedup)" \
    'BEGIN { exit !(a >= 1.2 && (a - b) / b < 1e-5 && (b - a) / b < 1e-5) }'
ok $? "auto_predicted_speedup $sp: at least the margin 1.2, the advice's (to h5dump's 6 digits)"
h5dump -H -a /formats/auto_predicted_speedup "$T/blocks.tcf.h5" | grep -q H5T_IEEE_F64LE
ok $? "auto_predicted_speedup is float64"
h5dump -H -a /formats/auto_n "$T/blocks.tcf.h5" | grep -q H5T_STD_I64LE
ok $? "auto_n is int64"
for a in auto_format auto_accuracy auto_model; do
    h5dump -H -a /formats/$a "$T/blocks.tcf.h5" | grep -q 'CSET H5T_CSET_UTF8'
    ok $? "$a is a UTF-8 string, as every string of the file (tcf.h5(5), Strings)"
done

# tcstat shows the recorded choice; a file without one has no such section
"$TCSTAT" --tsv "$T/blocks.tcf.h5" > "$T/stat.tsv"
is "$(awk -F '\t' '$2 == "auto" { printf "%s=%s;", $3, $4 }' "$T/stat.tsv" | cut -d';' -f1-3)" \
    "format=$want;n=32;accuracy=any" "tcstat: the auto section"
"$TCCONV" "$T/blocks.mtx" -o "$T/plain.tcf.h5" || exit 1
is "$("$TCSTAT" --tsv "$T/plain.tcf.h5" | awk -F '\t' '$2 == "auto"' | wc -l)" 0 \
    "tcstat: no auto section for a file written without -f auto"
is "$(attr "$T/plain.tcf.h5" /formats/auto_format)" "" "... nor attributes"

# --- in a list, with --cols ---------------------------------------------------
"$TCCONV" -f csr,auto,bcsr --cols 128 "$T/blocks.mtx" -o "$T/list.tcf.h5"
ok $? "-f csr,auto,bcsr --cols 128"
want128=$(advised "$T/list.tcf.h5" 128 format)
is "$(attr "$T/list.tcf.h5" /formats/auto_format)" "$want128" "auto_format for n = 128"
is "$(attr "$T/list.tcf.h5" /formats/auto_n)" 128 "auto_n 128"
is "$(members "$T/list.tcf.h5")" \
    "$(printf '%s\n' bcsr "$want128" | grep -v '^csr$' | sort -u | tr '\n' ' ' | sed 's/ $//')" \
    "bcsr and auto's pick stored (once if the same)"
# auto's pick named as well: built once, with the parameters given
"$TCCONV" -f "auto,$want" "$T/blocks.mtx" -o "$T/twice.tcf.h5"
ok $? "-f auto,$want: the pick named too is built once"
is "$(members "$T/twice.tcf.h5")" "$want" "... one $want group"

# --- --accuracy: fp32 leaves only cuSPARSE's fp32 ----------------------------
"$TCCONV" -f auto --accuracy fp32 "$T/blocks.mtx" -o "$T/fp32.tcf.h5"
ok $? "-f auto --accuracy fp32"
is "$(attr "$T/fp32.tcf.h5" /formats/auto_format)" \
    "$(advised "$T/fp32.tcf.h5" 32 format "--accuracy fp32")" \
    "auto_format: tcstat --advise --accuracy fp32's first"
is "$(attr "$T/fp32.tcf.h5" /formats/auto_accuracy)" fp32 "auto_accuracy fp32"

# --- scattered, pattern and empty matrices -----------------------------------
for m in scatter pattern empty; do
    "$TCCONV" -f auto "$T/$m.mtx" -o "$T/$m.tcf.h5"
    ok $? "$m: -f auto converts"
    w=$(advised "$T/$m.tcf.h5" 32 format)
    is "$(attr "$T/$m.tcf.h5" /formats/auto_format)" "$w" "$m: auto_format $w, the advice's"
done
is "$(attr "$T/pattern.tcf.h5" /matrix/field)" pattern "the pattern matrix stays a pattern"
is "$(attr "$T/empty.tcf.h5" /formats/auto_format)" csr \
    "empty matrix: nothing for tensor cores, csr"
is "$(attr "$T/empty.tcf.h5" /formats/auto_predicted_speedup)" 1 "... predicted 1"
is "$(members "$T/empty.tcf.h5")" "" "... and /formats holds the attributes alone"
"$TCCONV" "$T/empty.tcf.h5" -o "$T/empty-back.mtx"
ok $? "a file with attributes alone in /formats reads back"
is "$(sed -n 2p "$T/empty-back.mtx")" "7 5 0" "... the same empty matrix"

# --- rewriting: the choice is made again, or dropped ---------------------------
"$TCCONV" -f auto --cols 256 "$T/blocks.tcf.h5" -o "$T/blocks.tcf.h5"
ok $? "a .tcf.h5 updated in place with -f auto --cols 256"
is "$(attr "$T/blocks.tcf.h5" /formats/auto_n)" 256 "... the choice made again, for n = 256"
"$TCCONV" -f bcsr "$T/blocks.tcf.h5" -o "$T/rebuilt.tcf.h5"
ok $? "rewritten without -f auto"
is "$(attr "$T/rebuilt.tcf.h5" /formats/auto_format)" "" "... the old choice is not kept"

# --- deterministic: the same bytes from two runs and any thread count --------
mkdir "$T/a" "$T/b"
(cd "$T/a" && TC_THREADS=1 SOURCE_DATE_EPOCH=1700000000 "$TCCONV" -f auto ../scatter.mtx -o out.tcf.h5) &&
    (cd "$T/b" && TC_THREADS=2 SOURCE_DATE_EPOCH=1700000000 "$TCCONV" -f auto ../scatter.mtx -o out.tcf.h5) &&
    cmp -s "$T/a/out.tcf.h5" "$T/b/out.tcf.h5"
ok $? "scatter: byte-identical with 1 and 2 threads"
(cd "$T/a" && TC_THREADS=2 "$TCCONV" -f auto ../blocks.mtx -o blocks.tcf.h5) &&
    (cd "$T/b" && TC_THREADS=1 "$TCCONV" -f auto ../blocks.mtx -o blocks.tcf.h5) &&
    h5diff --exclude-path /provenance "$T/a/blocks.tcf.h5" "$T/b/blocks.tcf.h5" >/dev/null
ok $? "blocks: 2 and 1 threads agree outside /provenance (h5diff: data and attributes, exactly)"

# --- usage errors --------------------------------------------------------------
run_fails 2 "tcconv: --cols: 0 is out of range [1, 2147483647]" "--cols 0" -- \
    "$TCCONV" -f auto --cols 0 "$T/blocks.mtx" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: --cols: 'many' is not a whole number" "--cols many" -- \
    "$TCCONV" -f auto --cols many "$T/blocks.mtx" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: --cols: only with -f auto" "--cols without -f auto" -- \
    "$TCCONV" --cols 64 "$T/blocks.mtx" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: --accuracy: expected fp32, tf32 or fp16, found 'fp8'" "--accuracy fp8" -- \
    "$TCCONV" -f auto --accuracy fp8 "$T/blocks.mtx" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: --format: bad format list 'auto,'" "-f auto, (an empty entry)" -- \
    "$TCCONV" -f auto, "$T/blocks.mtx" -o "$T/x.tcf.h5"
test ! -e "$T/x.tcf.h5"
ok $? "no output written by a usage error"

done_testing
