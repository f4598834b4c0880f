#!/bin/sh
# reorder.sh: what each row reordering does to the 16x8 tensor-core block
# count, and how long it takes, on this machine.
#
#   bench/reorder.sh [-o OUT.tsv] [-m "METHOD..."] [MATRIX.mtx[.gz]...]
#
# METHOD defaults to wjaccard (give several, e.g. -m "wjaccard jaccard rcm
# degree", for rows side by side); matrices default to every .mtx.gz of
# $TC_SHARED_DATA (else ../shared/data beside the source tree). For every
# matrix and method runs
#   tcreorder --method METHOD --tsv MATRIX
# ($TCREORDER, else the build tree's tools/tcreorder; on $TC_THREADS
# threads when set, else all CPUs) and appends to bench/results/reorder.tsv
# (or OUT.tsv) the columns
#   host date commit matrix method seconds blocks_before blocks_after
#   nnz_per_tcb_before nnz_per_tcb_after bcsr_blocks_before
#   bcsr_blocks_after kept_input command
# from tcreorder's report: seconds to compute the order (reading the
# matrix not included), 16x8 TC blocks of the 16-row windows with columns
# compacted per window before and after, mean nonzeros per block before
# and after, 16x16 BCSR blocks (aligned, SMaT's) before and after, and
# kept_input 1 when the method found no better order and returned the
# input's. The commit is git's HEAD, with "-dirty" when the
# tree has local changes, or $COMMIT (bench/lib.sh). Exits non-zero when
# a run failed (its row is not written).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/reorder.tsv
methods=wjaccard
while getopts o:m: opt; do
    case $opt in
    o) out=$OPTARG ;;
    m) methods=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-m \"METHOD...\"] [MATRIX...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
. "$here/bench/lib.sh"
tcreorder=${TCREORDER:-${top_builddir:-.}/tools/tcreorder}
if [ ! -x "$tcreorder" ]; then
    echo "$0: $tcreorder not found: run from the build directory after make, or set TCREORDER" >&2
    exit 1
fi
host=$(bench_host)
commit=$(bench_commit)
date=$(bench_date)
threads=${TC_THREADS:+TC_THREADS=$TC_THREADS }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
mkdir -p "$(dirname "$out")"
[ -f "$out" ] || printf 'host\tdate\tcommit\tmatrix\tmethod\tseconds\tblocks_before\tblocks_after\tnnz_per_tcb_before\tnnz_per_tcb_after\tbcsr_blocks_before\tbcsr_blocks_after\tkept_input\tcommand\n' >"$out"

status=0
for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    for method in $methods; do
        if ! "$tcreorder" -q --method "$method" --tsv "$m" >"$tmp"; then
            echo "$0: $name, $method failed" >&2
            status=1
            continue
        fi
        awk -F '\t' -v h="$host" -v d="$date" -v c="$commit" -v m="$name" -v me="$method" \
            -v cmd="${threads}tcreorder --method $method --tsv $name.mtx.gz" '
            NR > 1 { v[$2 "." $3] = $4 }
            END {
                printf "%s\t%s\t%s\t%s\t%s\t%.3f\t%d\t%d\t%.3f\t%.3f\t%d\t%d\t%s\t%s\n", h, d, c,
                       m, me, v["reorder.seconds"], v["tc16x8.blocks_before"],
                       v["tc16x8.blocks_after"], v["tc16x8.nnz_per_tcb_before"],
                       v["tc16x8.nnz_per_tcb_after"], v["bcsr16x16.blocks_before"],
                       v["bcsr16x16.blocks_after"], v["reorder.kept_input"], cmd
            }' "$tmp" | tee -a "$out"
    done
done
exit $status
