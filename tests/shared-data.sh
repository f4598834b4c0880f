#!/bin/sh
# Every real matrix of the shared collection: .mtx.gz -> .tcf.h5 -> .mtx ->
# .tcf.h5 gives the same container, and the sizes match the MANIFEST.
. "${top_srcdir:-.}/tests/lib.sh"
D=${TC_SHARED_DATA:-}
[ -n "$D" ] && [ -f "$D/MANIFEST.tsv" ] || skip_all "no shared matrix collection (set TC_SHARED_DATA; looked in '${D:-unset}')"
TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat

tail -n +2 "$D/MANIFEST.tsv" | while IFS='	' read -r name rows cols stored full rest; do
    m=$D/$name.mtx.gz
    [ -f "$m" ] || { skip "$name: not in $D"; continue; }
    "$TCCONV" -q "$m" -o "$T/a.tcf.h5" &&
        "$TCCONV" -q "$T/a.tcf.h5" -o "$T/a.mtx" &&
        "$TCCONV" -q "$T/a.mtx" -o "$T/b.tcf.h5" &&
        h5diff --exclude-path /provenance "$T/a.tcf.h5" "$T/b.tcf.h5" >/dev/null
    ok $? "$name: round trip through .tcf.h5 and .mtx"
    got=$("$TCSTAT" --tsv "$T/a.tcf.h5" | awk -F'\t' '$2 == "matrix" && ($3 == "rows" || $3 == "cols" || $3 == "nnz") { printf "%s ", $4 }')
    is "$got" "$rows $cols $full " "$name: rows, cols and nonzeros as in the MANIFEST"
    rm -f "$T/a.tcf.h5" "$T/a.mtx" "$T/b.tcf.h5"
done > "$T/results"
cat "$T/results"
_n=$(grep -c '^\(not \)\?ok' "$T/results")
_failed=$(grep -c '^not ok' "$T/results")
done_testing
