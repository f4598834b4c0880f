#!/bin/sh
# cpu-bench.sh: bench/cpu.sh, quickly, on one small matrix, so that the
# script that writes bench/results/cpu.tsv cannot rot: its rows and columns,
# its figures, and its errors.
. "${top_srcdir:-.}/tests/lib.sh"
BENCH=$top_srcdir/bench/cpu.sh
export top_builddir
A=$DATA/cora.mtx.gz

"$BENCH" -o "$T/cpu.tsv" -n "7 32" -t "1 2" -w 0 -i 1 -r 2 "$A" > "$T/out" 2> "$T/err"
ok $? "bench/cpu.sh runs on cora (n = 7 and 32, 1 and 2 threads, 2 rounds)"
is "$(head -n 1 "$T/cpu.tsv")" "$(printf 'host\tdate\tcommit\tmatrix\tnnz\tn\tthreads\tours_ms\tscipy_ms\tgraphblas_ms\tours_vs_scipy\tours_vs_graphblas\tload\tcommand')" \
    "the header"
is "$(awk -F '\t' 'NR > 1 { print $4, $5, $6, $7 }' "$T/cpu.tsv" | tr '\n' ,)" \
    "cora 13264 7 1,cora 13264 7 2,cora 13264 32 1,cora 13264 32 2," \
    "one row per n and thread count, with cora's nonzeros"
is "$(tail -n +2 "$T/cpu.tsv")" "$(cat "$T/out")" "the rows are also on standard output"

# Each figure: ours a positive time; a competitor a positive time whose
# ratio is its time over ours, or NA with an NA ratio when it is missing.
bad=$(awk -F '\t' 'NR > 1 {
    if (!($8 > 0)) print "ours_ms " $8
    for (c = 9; c <= 10; c++) {
        r = $(c + 2)
        if ($c == "NA" ? r != "NA" : !($c > 0) || (r - $c / $8) ^ 2 > 1e-3 * (r + 1) ^ 2)
            print "column " c ": " $c " ratio " r
    }
    if ($14 !~ /^tcconv -q cora.mtx.gz -o cora.tcf.h5; 2 rounds of: tcmul --device cpu --bench --verify .* --cols [0-9]+ --threads [12] cora.tcf.h5; /)
        print "command " $14
}' "$T/cpu.tsv")
is "$bad" "" "times positive, ratios their quotients, commands recorded"
if grep -q "graphblas_ms NA" "$T/err"; then
    skip "GraphBLAS not built (libgraphblas-dev)"
else
    is "$(awk -F '\t' 'NR > 1 && $10 == "NA"' "$T/cpu.tsv")" "" "GraphBLAS timed on every row"
fi
if grep -q "scipy_ms NA" "$T/err"; then
    skip "no python3 with SciPy and h5py"
else
    is "$(awk -F '\t' 'NR > 1 && $9 == "NA"' "$T/cpu.tsv")" "" "SciPy timed on every row"
fi

"$BENCH" -x > "$T/out" 2> "$T/err"
is "$?" 2 "an unknown option is bad usage (exit 2)"
printf 'not a matrix\n' > "$T/junk.mtx"
"$BENCH" -o "$T/junk.tsv" -w 0 -i 1 "$T/junk.mtx" > "$T/out" 2> "$T/err"
is "$?" 1 "an unreadable matrix fails the run (exit 1)"
grep -q "junk.mtx: tcconv failed" "$T/err"
ok $? "and says which matrix"
done_testing
