#!/bin/sh
# tcconv: round trips on the bundled matrices, stdout output, errors.
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=$TOOLS/tcconv

# Entries of a Matrix Market file as "i j value" sorted by (i, j), skipping
# the banner, comments and the size line; values compared as numbers by awk
# (an independent reader: not ours).
entries() {
    { case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; } |
        awk '/^%/ || NF == 0 { next } !seen++ { next } { print $1, $2, (NF > 2 ? $3 : 1) }' |
        sort -k1,1n -k2,2n
}
same_entries() {
    entries "$1" > "$T/a.txt"; entries "$2" > "$T/b.txt"
    awk 'NR == FNR { k[NR] = $1 " " $2; v[NR] = $3; n = NR; next }
         { if (k[FNR] != $1 " " $2 || v[FNR] + 0 != $3 + 0) bad = 1; m = FNR }
         END { exit (bad || n != m) }' "$T/a.txt" "$T/b.txt"
}

for m in "$DATA"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$TCCONV" "$m" -o "$T/$name.tcf.h5"; ok $? "$name: .mtx.gz -> .tcf.h5"
    "$TCCONV" "$T/$name.tcf.h5" -o "$T/$name.mtx"; ok $? "$name: .tcf.h5 -> .mtx"
    same_entries "$m" "$T/$name.mtx"; ok $? "$name: the .mtx written has the source's entries (compared by awk)"
    "$TCCONV" "$T/$name.mtx" -o "$T/$name.2.tcf.h5" &&
        h5diff --exclude-path /provenance "$T/$name.tcf.h5" "$T/$name.2.tcf.h5" >/dev/null
    ok $? "$name: .mtx -> .tcf.h5 -> .mtx -> .tcf.h5 gives the same container"
done

m=$DATA/1138_bus.mtx.gz
"$TCCONV" "$T/1138_bus.tcf.h5" > "$T/stdout.mtx" && cmp -s "$T/stdout.mtx" "$T/1138_bus.mtx"
ok $? "a .tcf.h5 without -o goes to standard output as Matrix Market"
"$TCCONV" --general "$T/1138_bus.tcf.h5" -o "$T/general.mtx" &&
    head -n 1 "$T/general.mtx" | grep -q 'coordinate real general' &&
    "$TCCONV" "$T/general.mtx" -o "$T/general.tcf.h5" &&
    (for d in indptr indices data; do
        h5diff "$T/general.tcf.h5" "$T/1138_bus.tcf.h5" /matrix/$d /matrix/$d >/dev/null || exit 1
    done)
ok $? "--general writes every entry under a general banner"
gzip -dc "$m" | "$TCCONV" - -o "$T/stdin.tcf.h5" &&
    h5diff --exclude-path /provenance "$T/stdin.tcf.h5" "$T/1138_bus.tcf.h5" >/dev/null
ok $? "Matrix Market from standard input"
cp "$T/1138_bus.tcf.h5" "$T/self.tcf.h5"
"$TCCONV" "$T/self.tcf.h5" -o "$T/self.tcf.h5" &&
    h5diff --exclude-path /provenance "$T/self.tcf.h5" "$T/1138_bus.tcf.h5" >/dev/null
ok $? "-o naming the input rewrites it safely"
"$TCCONV" --no-compress "$m" -o "$T/plain.tcf.h5" &&
    h5diff --exclude-path /provenance "$T/plain.tcf.h5" "$T/1138_bus.tcf.h5" >/dev/null
ok $? "--no-compress stores the same content"
"$TCCONV" --to mtx "$m" -o "$T/to.txt" && same_entries "$T/to.txt" "$m"
ok $? "--to mtx converts Matrix Market to Matrix Market"
# .mtx.gz: gzip-compressed Matrix Market (not HDF5 under that name), the
# same bytes as .mtx once decompressed, read back to the same container.
"$TCCONV" "$T/1138_bus.tcf.h5" -o "$T/back.mtx.gz" &&
    [ "$(od -An -tx1 -N2 "$T/back.mtx.gz" | tr -d ' ')" = 1f8b ] &&
    gzip -t "$T/back.mtx.gz" && gzip -dc "$T/back.mtx.gz" | cmp -s - "$T/1138_bus.mtx"
ok $? "-o FILE.mtx.gz writes gzip-compressed Matrix Market, the bytes of -o FILE.mtx"
"$TCCONV" "$T/back.mtx.gz" -o "$T/back-gz.tcf.h5" &&
    h5diff --exclude-path /provenance "$T/back-gz.tcf.h5" "$T/1138_bus.tcf.h5" >/dev/null
ok $? "a written .mtx.gz reads back to the same container"
"$TCCONV" --to mtx "$DATA/rajat01.mtx.gz" -o "$T/rajat01.gz" &&
    gzip -t "$T/rajat01.gz" && same_entries "$T/rajat01.gz" "$DATA/rajat01.mtx.gz"
ok $? "--to mtx -o FILE.gz: a file of many writer buffers, compressed whole"
"$TCCONV" -f all "$m" -o "$T/all.tcf.h5"; ok $? "-f all builds every format"
# "all" in a list is every format too: the error listed it as known
"$TCCONV" -t 1 -f brp,all "$m" -o "$T/all-list.tcf.h5" &&
    h5diff --exclude-path /provenance "$T/all.tcf.h5" "$T/all-list.tcf.h5" > /dev/null
ok $? "-f brp,all builds every format (with -t 1: the same file)"
"$TCCONV" --list-formats | grep -q '^csr '; ok $? "--list-formats lists csr"
"$TCCONV" --list-formats | grep -q '^ *threshold=-1  .* \[-1, 2147483647\]$'
ok $? "--list-formats gives a range's whole numbers in full, not as 2.14748e+09"
"$TCCONV" --help | grep -q '^Usage: tcconv'; ok $? "--help"
is "$("$TCCONV" --version)" "tcconv (tcsparse) 0.1.0" "--version"

# Errors: the message, the exit status, no output left behind.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n1 1 2.0\n' > "$T/dup.mtx"
"$TCCONV" "$T/dup.mtx" -o "$T/dup.tcf.h5"; ok $? "duplicates summed by default"
run_fails 1 "tcconv: $T/dup.mtx:4: duplicate entry (1, 1), first given at line 3" \
    "--duplicates error refuses a repeated entry" -- "$TCCONV" --duplicates error "$T/dup.mtx" -o "$T/dup2.tcf.h5"
test ! -e "$T/dup2.tcf.h5"; ok $? "no output after a refused input"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n' > "$T/short.mtx"
echo previous > "$T/keep.tcf.h5"
"$TCCONV" "$T/short.mtx" -o "$T/keep.tcf.h5" 2>/dev/null
ok $(( $? != 1 )) "a truncated file exits 1"
is "$(cat "$T/keep.tcf.h5")" "previous" "a failed run leaves the existing output untouched"
is "$(ls -A "$T" | grep -c '^\.keep')" "0" "no temporary file left behind"
run_fails 1 "tcconv: $T/none.mtx: cannot open: No such file or directory" "missing input" -- \
    "$TCCONV" "$T/none.mtx" -o "$T/x.tcf.h5"
run_fails 1 "tcconv: /nonexistent-dir/x.tcf.h5: cannot create: No such file or directory" \
    "unwritable output directory" -- "$TCCONV" "$m" -o /nonexistent-dir/x.tcf.h5
run_fails 2 "tcconv: --format: unknown format 'nope' (known: $(known_formats), all)" "unknown format" -- \
    "$TCCONV" -f nope "$m" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: a .tcf.h5 cannot go to standard output: give -o FILE" ".tcf.h5 to stdout refused" -- \
    "$TCCONV" --to tcf "$m"
run_fails 2 "tcconv: a Matrix Market input needs -o FILE (or --to KIND)" "no output named" -- \
    "$TCCONV" "$m"
run_fails 2 "tcconv: no input file" "no input" -- "$TCCONV"
run_fails 2 "tcconv: unrecognized option '--bogus'" "unknown long option" -- "$TCCONV" --bogus "$m"
run_fails 2 "tcconv: invalid option -- 'x'" "unknown short option" -- "$TCCONV" -x "$m"
run_fails 2 "tcconv: option '-o' requires an argument" "missing option argument" -- "$TCCONV" "$m" -o
run_fails 2 "tcconv: --to: unknown kind 'csv' (give one of: $(known_kinds write))" "bad --to" -- "$TCCONV" --to csv "$m"
# -t is --threads in every tool: the old short --to is told, not taken
run_fails 2 "tcconv: --threads: 'mtx' is not a whole number" "-t is --threads" -- \
    "$TCCONV" -t mtx "$m" -o "$T/x.mtx"
run_fails 2 "tcconv: --param: no format being built has a parameter 'h'" "parameter of no format" -- \
    "$TCCONV" -p h=16 "$m" -o "$T/x.tcf.h5"
test ! -e "$T/x.tcf.h5"; ok $? "no output after usage errors"
done_testing
