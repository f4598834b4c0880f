#!/bin/sh
# bench/band: the band matrix as Matrix Market and streamed into a .tcf.h5
# through tc_h5_write_rows (-o), which must hold the same matrix as tcconv
# makes of the Matrix Market one; -p, -z; usage errors.
. "${top_srcdir:-.}/tests/lib.sh"
BAND=$top_builddir/bench/band
TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat
command -v h5diff >/dev/null 2>&1 || skip_all "h5diff (hdf5-tools) not installed"

"$BAND" 1000 37 > "$T/a.mtx"; ok $? "Matrix Market on standard output"
"$TCCONV" "$T/a.mtx" -o "$T/a.tcf.h5"; ok $? "tcconv reads it"
"$BAND" -o "$T/b.tcf.h5" 1000 37; ok $? "-o streams a .tcf.h5"
"$TCSTAT" --tsv "$T/b.tcf.h5" > "$T/b.tsv"; ok $? "tcstat reads it"
is "$(awk -F'\t' '$2 == "matrix" && $3 == "nnz" { print $4 }' "$T/b.tsv")" 36658 \
    "nnz: 1000 rows of 37, less 18 x 19 / 2 at each corner"
for d in indices indptr; do
    h5diff "$T/a.tcf.h5" "$T/b.tcf.h5" /matrix/$d /matrix/$d >/dev/null
    ok $? "/matrix/$d: the same as tcconv's"
done
# Matrix Market keeps 6 decimals of the values
h5diff -d 6e-7 "$T/a.tcf.h5" "$T/b.tcf.h5" /matrix/data /matrix/data >/dev/null
ok $? "/matrix/data: within the 6 decimals Matrix Market keeps"

"$BAND" -p -z -o "$T/p.tcf.h5" 1000 37; ok $? "-p -z: pattern, compressed"
h5ls "$T/p.tcf.h5/matrix" | grep -q '^data '
ok $((! $?)) "pattern: no /matrix/data"
h5diff "$T/a.tcf.h5" "$T/p.tcf.h5" /matrix/indices /matrix/indices >/dev/null
ok $? "pattern: the same column indices"
is "$(h5dump -p -d /matrix/indices "$T/p.tcf.h5" | grep -c DEFLATE)" 1 "-z: deflated"

run_fails 2 "band: -p and -z need -o (Matrix Market output always has values)" \
    "-p without -o refused" -- "$BAND" -p 10 3
run_fails 2 "band: expected ORDER and WIDTH" "one operand refused" -- "$BAND" 10
run_fails 2 "band: cannot write HDF5 to standard output (it needs a seekable file)" \
    "-o - refused" -- "$BAND" -o - 10 3
run_fails 1 "band: $T/none/x.tcf.h5: cannot create: No such file or directory" \
    "an output in a missing directory refused" -- "$BAND" -o "$T/none/x.tcf.h5" 10 3
done_testing
