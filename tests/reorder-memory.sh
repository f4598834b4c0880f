#!/bin/sh
# The reorderings' memory at scale (bench/NOTES.md, "Reordering at scale"):
# on a power-law pattern (bench/gen's R-MAT, 2^17 rows, 1.9M nonzeros)
# and 32 threads, what wjaccard and jaccard hold beyond what tcreorder
# holds anyway (its peak with -m degree, which keeps only a rank per row:
# the matrix, its reordered copy, the report) stays under a few bytes a
# nonzero. Before the scale work (1b4ae8d) they held 85 (wjaccard: the
# inverted index alive to the end, a permuted copy of the pattern, a
# candidate map as long as the rows in every thread that met a hub row)
# and 47 (jaccard: an int64 union-find per entry of the index for each
# tau of its sweep, and an int64 table of where each entry sits); now
# about 8 and 2. The bounds sit between. And bench/reorder-scale.sh,
# which measures them at 10^8 nonzeros, cannot rot unseen: a small run
# writes its rows, a bad option exits 2.
. "${top_srcdir:-.}/tests/lib.sh"
GEN=$top_builddir/bench/gen
MEASURE=$top_builddir/bench/measure
TCREORDER=$TOOLS/tcreorder
# a run under valgrind measures valgrind
[ -z "${TC_RUN_WRAPPER:-}" ] || skip_all "peak memory is not the program's under $TC_RUN_WRAPPER"

"$GEN" -p -o "$T/rmat.tcf.h5" rmat 17 16; ok $? "bench/gen: R-MAT of 2^17 rows"
"$TOOLS/tcstat" --tsv "$T/rmat.tcf.h5" > "$T/stat.tsv"; ok $? "tcstat reads it"
nnz=$(tsv_value matrix nnz "$T/stat.tsv")

# peak METHOD [PARAMS]: tcreorder's peak resident set in KiB, 32 threads
peak() {
    rm -f "$T/m"
    "$MEASURE" "$T/m" "$TCREORDER" -q -m "$1" ${2:+-p "$2"} -t 32 -o "$T/out.tcf.h5" \
        "$T/rmat.tcf.h5" || return 1
    cut -f2 "$T/m"
}

floor=$(peak degree); ok $? "degree: the tool's own memory, $floor KiB"
# check METHOD PARAMS BOUND: METHOD's peak over the floor is at most
# BOUND bytes a nonzero
check() {
    kib=$(peak "$1" "$2"); ok $? "$1 ${2:+$2 }on 32 threads: $kib KiB"
    per=$(awk -v k="$kib" -v f="$floor" -v n="$nnz" 'BEGIN { printf "%.1f", (k - f) * 1024 / n }')
    # AddressSanitizer's shadow memory and redzones are in the peak too
    # (./check.sh --sanitize sets ASAN_OPTIONS): the tools still run under
    # it above, the bound is the uninstrumented build's to check
    if [ -n "${ASAN_OPTIONS:-}" ]; then
        skip "the peak under AddressSanitizer is not the program's"
        return
    fi
    # a peak that was not measured (an empty kib) fails, not "-nan <= bound"
    awk -v k="$kib" -v p="$per" -v b="$3" 'BEGIN { exit !(k ~ /^[0-9]+$/ && p + 0 <= b) }'
    ok $? "  ... $per bytes a nonzero over the tool's own, at most $3"
}
# budget=256: the candidate maps (32 threads of them) are small, as they
# would not be if they grew with the rows again
check wjaccard budget=256 24
check jaccard "" 16

# bench/reorder-scale.sh on 2^10 rows, 1 and 2 threads: a header and a row
# per step and thread count, the nonzeros tcstat counts, blocks from the
# reorderings only, never more after than before
( cd "$top_builddir" && "$top_srcdir/bench/reorder-scale.sh" -o "$T/scale.tsv" -d "$T" -s 10 \
    -e 8 -t "1 2" ) > /dev/null
ok $? "bench/reorder-scale.sh -s 10 -e 8 -t \"1 2\""
is "$(cut -f6,7 "$T/scale.tsv" | tr '\t\n' ': ')" \
    "step:threads tcconv:1 wjaccard:1 jaccard:1 tcconv:2 wjaccard:2 jaccard:2 " \
    "  ... one row per step and thread count"
"$GEN" -o "$T/small.tcf.h5" rmat 10 8 && "$TOOLS/tcstat" --tsv "$T/small.tcf.h5" > "$T/small.tsv"
is "$(awk -F'\t' 'NR > 1 { print $5 }' "$T/scale.tsv" | sort -u)" \
    "$(tsv_value matrix nnz "$T/small.tsv")" "  ... the matrix's nonzeros in every row"
awk -F'\t' 'NR > 1 && ($8 <= 0 || $9 <= 0 || $10 <= 0 || ($6 == "tcconv") != ($11 == "") ||
    ($6 != "tcconv" && $12 > $11)) { bad = 1 } END { exit bad }' "$T/scale.tsv"
ok $? "  ... seconds, CPU seconds, peak memory; blocks, before >= after, for the reorderings only"
"$top_srcdir/bench/reorder-scale.sh" -x 2> /dev/null
is $? 2 "bench/reorder-scale.sh with an unknown option: exit 2"
done_testing
