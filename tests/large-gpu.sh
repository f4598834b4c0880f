#!/bin/sh
# large-gpu.sh: bench/large.sh on a GPU, on small generated matrices (a
# band and an R-MAT, n = 8 and 32, cuSPARSE and rstile, the own order and
# wjaccard's): every row verified, timed against cuSPARSE, a fraction of
# the common floor, the traffic model's bytes; ncu's DRAM bytes where ncu
# is installed (else "-"). Skipped where there is no CUDA device. The tools
# are the build tree's, or a bundle's bin/ (bench/lib.sh), or those TCMUL,
# TCCONV, ... name; from a bundle in .gpu/:
#   LD_LIBRARY_PATH=$PWD/.gpu/lib top_srcdir=$PWD top_builddir=$PWD/.gpu \
#       sh tests/large-gpu.sh
. "${top_srcdir:-.}/tests/lib.sh"
BENCH=$top_srcdir/bench/large.sh
tcmul=${TCMUL:-$TOOLS/tcmul}
[ -x "$tcmul" ] || tcmul=$top_builddir/bin/tcmul
"$tcmul" --list-devices > /dev/null 2>&1 || skip_all "no CUDA device"
export top_builddir
mkdir "$T/work"

"$BENCH" -o "$T/large.tsv" -m "band:3000:24 rmat:12:8" -n "8 32" -f "csr rstile" -r "original wjaccard" \
    -d "$T/work" > "$T/out" 2> "$T/err"
rc=$?
ok $rc "bench/large.sh on band 3000 x 24 and R-MAT 2^12 (n = 8, 32; csr, rstile; wjaccard)"
[ $rc -eq 0 ] || diag "$(tail -n 20 "$T/err")"
is "$(($(wc -l < "$T/large.tsv") - 1))" 16 "16 rows: 2 matrices x 2 orders x 2 n x 2 paths"
col() { head -n 1 "$T/large.tsv" | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
awk -F '\t' -v v="$(col verify)" -v m="$(col median_ms)" -v c="$(col cusparse_ms)" \
    -v s="$(col speedup)" -v f="$(col floor_fraction)" -v p="$(col predicted_dram_bytes)" '
    NR > 1 && !($v == "pass" && $m > 0 && $c > 0 && $s > 0 && $f > 0 && $f < 1.5 && $p > 0) {
        print "row " NR - 1 ": " $0; bad = 1 }
    END { exit bad }' "$T/large.tsv" > "$T/bad"
ok $? "every row: verified, timed, cuSPARSE timed, a fraction of the floor, a prediction"
[ -s "$T/bad" ] && diag "$(cat "$T/bad")"
if command -v "${NCU:-ncu}" > /dev/null; then
    awk -F '\t' -v d="$(col dram_bytes)" 'NR > 1 && !($d > 0) { bad = 1 } END { exit bad }' \
        "$T/large.tsv"
    ok $? "ncu: DRAM bytes in every row"
    diag "$(awk -F '\t' -v d="$(col dram_bytes)" -v p="$(col predicted_dram_bytes)" \
        'NR > 1 { printf "%s %s %s n=%s: ncu %s, model %s\n", $4, $5, $7, $6, $d, $p }' "$T/large.tsv")"
else
    skip "ncu is not installed: dram_bytes is '-'"
fi
done_testing
