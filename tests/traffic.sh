#!/bin/sh
# traffic.sh: tcstat's traffic model (section traffic.FORMAT) against a
# second, plain implementation of the same model in Python (an OrderedDict
# as the LRU, a dict of the window that last gathered each unit), on a
# random matrix whose B (3001 x 128 float32, 1.5 MB) overflows a 1 MiB L2:
# the bytes gathered and those read from DRAM agree exactly for each
# format's window shape (csr row by row, rstile and hrpb 16-row windows of
# single columns, bcsr 16-row windows of aligned 16-column units), with one
# window at a time and with 64 rows in flight; and with --b-half (B in
# fp16 after a conversion pass) for three of them, and rowsplit's pass,
# which converts only the rows of B the nonzeros name, and its L2 that
# keeps only the most used of them (the hubs).
. "${top_srcdir:-.}/tests/lib.sh"
TCSTAT=$TOOLS/tcstat
PY=$(python_with numpy scipy)
if [ -z "$PY" ]; then
    set_up_installs python3-scipy && { echo "not ok 1 - python3 with numpy and scipy"; exit 1; }
    skip_all "no python3 with numpy and scipy (setup.sh installs them)"
fi

# 5000 x 3001, 12 random columns a row, rows 100-115 dense in columns
# 0-999 (a window that gathers most of B), values irrelevant (pattern)
awk 'BEGIN { srand(11); print "%%MatrixMarket matrix coordinate pattern general"
    n = 0
    for (i = 1; i <= 5000; i++) {
        if (i > 100 && i <= 116) for (j = 1; j <= 1000; j++) e[n++] = i " " j
        else for (k = 0; k < 12; k++) e[n++] = i " " 1 + int(rand() * 3001)
    }
    print 5000, 3001, n
    for (k = 0; k < n; k++) print e[k] }' > "$T/a.mtx"

cat > "$T/model.py" <<'EOF'
import collections, sys
import scipy.io

a = scipy.io.mmread(sys.argv[1]).tocsr()
a.sum_duplicates()
a.sort_indices()
n, window, unit, l2, inflight, elem, hubs = (int(x) for x in sys.argv[2:9])
rows, cols = a.shape
units = (cols + unit - 1) // unit
unit_bytes = unit * n * elem
last_bytes = (cols - (units - 1) * unit) * n * elem
capacity = min(l2 // unit_bytes, units)
at_once = max(inflight // window, 1)
# hubs (rowsplit's half): the LRU holds only the most used columns (ties
# by index), as many as it can; the others only windows in flight share
uses = a.getnnz(axis=0)
order = sorted((j for j in range(cols) if uses[j]), key=lambda j: (-uses[j], j))
hub = set(order[:capacity]) if hubs else None
lru = collections.OrderedDict()
last = {}
gathered = missed = 0
for w in range((rows + window - 1) // window):
    seen = set()
    for k in range(a.indptr[w * window], a.indptr[min(rows, (w + 1) * window)]):
        u = a.indices[k] // unit
        if u in seen:
            continue
        seen.add(u)
        size = last_bytes if u == units - 1 else unit_bytes
        gathered += size
        if u not in lru and (u not in last or w - last[u] >= at_once):
            missed += size
        last[u] = w
        if capacity and (hub is None or u in hub):
            lru[u] = True
            lru.move_to_end(u)
            if len(lru) > capacity:
                lru.popitem(last=False)
print(gathered, missed)
EOF

for inflight in 1 64; do
    "$TCSTAT" -f csr,rstile,hrpb,bcsr --cols 128 --l2 1 --inflight $inflight --tsv "$T/a.mtx" \
        > "$T/t.tsv"
    ok $? "tcstat -f csr,rstile,hrpb,bcsr --cols 128 --l2 1 --inflight $inflight"
    for f in csr rstile hrpb bcsr; do
        shape="$(tsv_value traffic.$f window_rows "$T/t.tsv") $(tsv_value traffic.$f col_unit "$T/t.tsv")"
        # shellcheck disable=SC2086 # shape is two numbers
        want=$("$PY" "$T/model.py" "$T/a.mtx" 128 $shape 1048576 $inflight 4 0)
        is "$(tsv_value traffic.$f b_gathered_bytes "$T/t.tsv") $(tsv_value traffic.$f b_bytes "$T/t.tsv")" \
            "$want" "  $f (windows of $shape), $inflight rows in flight: as the Python model"
    done
done
# The case is one where L2 matters: B overflows it and is read more than once.
awk -v b="$(tsv_value traffic.csr b_bytes "$T/t.tsv")" 'BEGIN { exit !(b > 3001 * 512) }'
ok $? "B is read more than once from DRAM: the LRU's evictions are exercised"

# --b-half: B gathered at 2 bytes an element (750 KB, inside the 1 MiB
# L2), after a conversion that reads it in float32 and writes it in fp16
"$TCSTAT" -f csr,rstile,bcsr --cols 128 --l2 1 --inflight 64 --b-half --tsv "$T/a.mtx" \
    > "$T/h.tsv"
ok $? "tcstat -f csr,rstile,bcsr --cols 128 --l2 1 --inflight 64 --b-half"
for f in csr rstile bcsr; do
    shape="$(tsv_value traffic.$f window_rows "$T/h.tsv") $(tsv_value traffic.$f col_unit "$T/h.tsv")"
    # shellcheck disable=SC2086 # shape is two numbers
    want=$("$PY" "$T/model.py" "$T/a.mtx" 128 $shape 1048576 64 2 0)
    is "$(tsv_value traffic.$f b_gathered_bytes "$T/h.tsv") $(tsv_value traffic.$f b_bytes "$T/h.tsv")" \
        "$want" "  $f in fp16: as the Python model"
    is "$(tsv_value traffic.$f b_convert_bytes "$T/h.tsv")" $((3001 * 128 * 6)) \
        "  $f: the conversion, 3001 x 128 read in float32 and written in fp16"
    is "$(tsv_value traffic.$f dram_bytes "$T/h.tsv")" \
        "$(($(tsv_value traffic.$f a_bytes "$T/h.tsv") + 3001 * 128 * 6 + $(tsv_value traffic.$f b_bytes "$T/h.tsv") + 5000 * 128 * 4))" \
        "  $f: dram_bytes = A + conversion + B + C (float32)"
done
# rowsplit's kernel gathers only the rows of B the nonzeros name, and its
# fp16 pass converts only those: on a 300 x 4000 whose nonzeros use a
# subset of the columns (counted by scipy), rowsplit's conversion is that
# many rows, rstile's (blocks with padded columns) all 4000
awk 'BEGIN { print "%%MatrixMarket matrix coordinate pattern general"; print 300, 4000, 900
    for (i = 1; i <= 300; i++) for (k = 0; k < 3; k++) print i, 1 + (i * 37 + k * 1013) % 4000 }' \
    > "$T/b.mtx"
used=$("$PY" -c "import scipy.io; a = scipy.io.mmread('$T/b.mtx').tocsc(); print((a.getnnz(axis=0) > 0).sum())")
"$TCSTAT" -f rowsplit,rstile --cols 64 --b-half --tsv "$T/b.mtx" > "$T/u.tsv"
ok $? "tcstat -f rowsplit,rstile --cols 64 --b-half on a matrix using $used of 4000 columns"
is "$(tsv_value traffic.rowsplit b_convert_bytes "$T/u.tsv")" $((used * 64 * 6)) \
    "  rowsplit: the conversion of the $used rows of B the nonzeros name"
is "$(tsv_value traffic.rstile b_convert_bytes "$T/u.tsv")" $((4000 * 64 * 6)) \
    "  rstile: the conversion of all 4000 rows"
# rowsplit's half keeps the hubs' rows of B in L2 and gathers the others
# evict-first: at n = 256 fp16 B (1.5 MB) overflows the 1 MiB L2, and the
# 16 dense rows make columns 0-999 the hubs; the bytes as the Python model
# with hubs, which differs from the plain LRU's here
"$TCSTAT" -f rowsplit --cols 256 --l2 1 --inflight 64 --b-half --tsv "$T/a.mtx" > "$T/r.tsv"
ok $? "tcstat -f rowsplit --cols 256 --l2 1 --inflight 64 --b-half"
shape="$(tsv_value traffic.rowsplit window_rows "$T/r.tsv") $(tsv_value traffic.rowsplit col_unit "$T/r.tsv")"
# shellcheck disable=SC2086 # shape is two numbers
want=$("$PY" "$T/model.py" "$T/a.mtx" 256 $shape 1048576 64 2 1)
is "$(tsv_value traffic.rowsplit b_gathered_bytes "$T/r.tsv") $(tsv_value traffic.rowsplit b_bytes "$T/r.tsv")" \
    "$want" "  rowsplit in fp16, the hubs alone in L2: as the Python model"
# shellcheck disable=SC2086 # shape is two numbers
plain=$("$PY" "$T/model.py" "$T/a.mtx" 256 $shape 1048576 64 2 0)
[ "$plain" != "$want" ]
ok $? "  the hubs change the bytes here (plain LRU: $plain; hubs: $want)"
"$TCSTAT" --b-half "$T/a.mtx" > /dev/null 2> "$T/err"
is "$? $(head -n 1 "$T/err")" "2 tcstat: --b-half: only with --format" "--b-half without --format: usage error"
done_testing
