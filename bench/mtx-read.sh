#!/bin/sh
# mtx-read.sh: how fast tcsparse reads Matrix Market text, side by side with
# SciPy's scipy.io.mmread (the anchor; Debian: python3-scipy), on this machine.
#
#   bench/mtx-read.sh [-o OUT.tsv] [MATRIX.mtx[.gz]...]
#
# Matrices default to gupta2 and cont-201 of $TC_SHARED_DATA (else
# ../shared/data beside the source tree). Each is decompressed into a
# temporary directory first, so that the figures are for plain .mtx text
# read from the page cache. bench/mtx-read (built with the tree; MTX_READ
# names another) times tc_mtx_read, best of 5 wall times, and
# tc_csr_from_coo_sym alone on the same triplets (the file's entries: it
# adds the mirrors of a symmetric file); both are single-threaded.
# Appends to bench/results/mtx-read.tsv (or OUT.tsv) the columns
#   date commit host matrix bytes seconds MB/s nnz/s command
# with four rows per matrix, told apart by the start of the command column:
#   "tc_mtx_read:"      the whole read (parse, then CSR build)
#   "parse:"            the read minus tc_csr_from_coo_sym
#   "tc_csr_from_coo_sym:" the CSR build alone
#   "scipy X mmread:"   scipy.io.mmread(FILE).tocsr(), best of 5, by the
#                       first of $PYTHON, python3, /usr/bin/python3 that has
#                       SciPy (skipped with a note on stderr when none has)
# MB are 10^6 bytes of uncompressed text; nnz counts the entries the file
# lists (before symmetric expansion). The commit is git's HEAD, with
# "-dirty" when the tree has local changes (bench/lib.sh).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/mtx-read.tsv
while getopts o: opt; do
    case $opt in
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [MATRIX...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
data=${TC_SHARED_DATA:-$here/../shared/data}
[ $# -gt 0 ] || set -- "$data/gupta2.mtx.gz" "$data/cont-201.mtx.gz"
. "$here/bench/lib.sh"
reader=$(bench_program MTX_READ mtx-read)
commit=$(bench_commit)
host=$(bench_host)
date=$(bench_date)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtx-read.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -f "$out" ] || printf 'date\tcommit\thost\tmatrix\tbytes\tseconds\tMB/s\tnnz/s\tcommand\n' >"$out"

# row MATRIX BYTES ENTRIES SECONDS COMMAND
row() {
    awk -v d="$date" -v c="$commit" -v h="$host" -v m="$1" -v b="$2" -v n="$3" \
        -v s="$4" -v cmd="$5" 'BEGIN {
        printf "%s\t%s\t%s\t%s\t%d\t%.6f\t%.1f\t%.0f\t%s\n", d, c, h, m, b, s,
               b / s / 1e6, n / s, cmd }' | tee -a "$out"
}

python=
for py in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c 'import scipy.io' 2>/dev/null; then
        python=$py
        break
    fi
done
[ -n "$python" ] || echo "$0: SciPy not found (apt-get install python3-scipy): no anchor rows" >&2

scipy_read='
import sys, time
import scipy, scipy.io
best = float("inf")
for _ in range(5):
    t = time.perf_counter()
    scipy.io.mmread(sys.argv[1]).tocsr()
    best = min(best, time.perf_counter() - t)
print(best, scipy.__version__)
'

for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    f=$tmp/$name.mtx
    case $m in
    *.gz) gzip -dc "$m" >"$f" ;;
    *) cp "$m" "$f" ;;
    esac
    set -- $("$reader" "$f" 5)
    bytes=$1 entries=$2 total=$4 coo=$5
    parse=$(awk -v t="$total" -v c="$coo" 'BEGIN { printf "%.6f", t - c }')
    row "$name" "$bytes" "$entries" "$total" "tc_mtx_read: bench/mtx-read $name.mtx 5"
    row "$name" "$bytes" "$entries" "$parse" \
        "parse: bench/mtx-read $name.mtx 5 (tc_mtx_read minus tc_csr_from_coo_sym)"
    row "$name" "$bytes" "$entries" "$coo" \
        "tc_csr_from_coo_sym: bench/mtx-read $name.mtx 5 (on the file's $entries entries)"
    if [ -n "$python" ]; then
        set -- $("$python" -c "$scipy_read" "$f")
        row "$name" "$bytes" "$entries" "$1" \
            "scipy $2 mmread: $python -c 'scipy.io.mmread(\"$name.mtx\").tocsr()' (best of 5)"
    fi
done
