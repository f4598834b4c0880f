#!/bin/sh
# edgelist-read.sh: how fast tcsparse reads an edge list, side by side with
# the same matrix as Matrix Market (the anchor the issue sets: "at Matrix
# Market's speed"), on this machine.
#
#   bench/edgelist-read.sh [-o OUT.tsv] [MATRIX.mtx.gz...]
#
# Matrices default to gupta2 (the largest of the shared collection) and
# cont-201 of $TC_SHARED_DATA (else ../shared/data beside the source tree).
# Each is written by tcconv as plain Matrix Market (--general: every
# entry, as an edge list lists them) and as a tab-separated edge list with
# weights, into a temporary directory, so that both hold the same entries
# and are read from the page cache; bench/kind-read (built with the tree)
# times tc_matrix_read of each, best of 5 wall times, single-threaded.
# Appends to bench/results/edgelist-read.tsv (or OUT.tsv) the columns
#   date commit host matrix kind bytes seconds MB/s nnz/s
# MB are 10^6 bytes of text; nnz the stored nonzeros. The commit is git's
# HEAD, with "-dirty" when the tree has local changes (bench/lib.sh).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/edgelist-read.tsv
while getopts o: opt; do
    case $opt in
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [MATRIX.mtx.gz...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
. "$here/bench/lib.sh"
build=${TC_BUILD:-$here/_build}
data=${TC_SHARED_DATA:-$here/../shared/data}
[ $# -gt 0 ] || set -- "$data/gupta2.mtx.gz" "$data/cont-201.mtx.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$out" ] || printf 'date\tcommit\thost\tmatrix\tkind\tbytes\tseconds\tMB/s\tnnz/s\n' > "$out"
for m in "$@"; do
    name=$(basename "$m" .mtx.gz)
    "$build/tools/tcconv" -q --general "$m" -o "$tmp/$name.mtx"
    "$build/tools/tcconv" -q "$m" -o "$tmp/$name.tsv"
    for kind in mtx edgelist; do
        f=$tmp/$name.mtx
        [ $kind = mtx ] || f=$tmp/$name.tsv
        "$build/bench/kind-read" $kind "$f" |
            awk -F'\t' -v d="$(bench_date)" -v c="$(bench_commit)" -v h="$(bench_host)" \
                -v m="$name" -v k=$kind '{ printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.3g\n",
                    d, c, h, m, k, $1, $3, $1 / $3 / 1e6, $2 / $3 }' 
    done
done | tee -a "$out"
