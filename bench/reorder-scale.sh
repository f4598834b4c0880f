#!/bin/sh
# reorder-scale.sh: time and peak memory of the row reorderings on a large
# power-law graph (issue 29, "Reordering at scale"), beside tcconv's for
# the same matrix (reading and writing it: the floor under any tool).
#
#   bench/reorder-scale.sh [-o OUT.tsv] [-d DIR] [-s SCALE] [-e EDGEFACTOR]
#                          [-t "THREADS..."] [-m "METHOD..."]
#
# The matrix is bench/gen's R-MAT (Graph500's a, b, c, d, labels shuffled)
# of 2^SCALE rows and EDGEFACTOR * 2^SCALE edges (default 22 and 16: 67M
# nonzeros, with values), written straight into a .tcf.h5 in DIR (default
# $TMPDIR or /tmp; about 12 bytes a nonzero for each of the matrix, the
# converted copy and the reordered one) and removed at the end. Then, for
# every THREADS (default: all CPUs), each under bench/measure:
#   tcconv -o conv.tcf.h5 rmat.tcf.h5
#   tcreorder -q -m METHOD -t THREADS --tsv -o METHOD.tcf.h5 rmat.tcf.h5
# for every METHOD (default "wjaccard jaccard"). Appends one row per step
# to bench/results/reorder-scale.tsv (or OUT.tsv):
#   host date commit matrix nnz step threads seconds cpu_seconds peak_mb
#   blocks_before blocks_after command
# host is the CPU model and count (bench_host); seconds the step's wall
# time, cpu_seconds its user and system time over all its threads (what
# to compare on a machine others load too), peak_mb its largest resident
# set (bench/measure's ru_maxrss),
# the whole tool: reading, the order, the report, writing; blocks before
# and after are tcreorder's 16x8 TC blocks (empty for tcconv). Programs:
# $GEN, $MEASURE (bench/), $TCSTAT (the nonzeros), $TCCONV, $TCREORDER
# (tools/), else the build tree's. Exits non-zero when a step failed (its row is still written).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/reorder-scale.tsv
dir=${TMPDIR:-/tmp}
scale=22 edgefactor=16 threads=$(nproc) methods="wjaccard jaccard"
usage() {
    echo "usage: $0 [-o OUT.tsv] [-d DIR] [-s SCALE] [-e EDGEFACTOR] [-t \"THREADS...\"]" \
         "[-m \"METHOD...\"]" >&2
    exit 2
}
while getopts o:d:s:e:t:m: opt; do
    case $opt in
    o) out=$OPTARG ;;
    d) dir=$OPTARG ;;
    s) scale=$OPTARG ;;
    e) edgefactor=$OPTARG ;;
    t) threads=$OPTARG ;;
    m) methods=$OPTARG ;;
    *) usage ;;
    esac
done
[ $OPTIND -gt $# ] || usage
. "$here/bench/lib.sh"
gen=$(bench_program GEN gen)
measure=$(bench_program MEASURE measure)
tcstat=$(bench_tool TCSTAT tcstat)
tcconv=$(bench_tool TCCONV tcconv)
tcreorder=$(bench_tool TCREORDER tcreorder)
host=$(bench_host)
commit=$(bench_commit)
work=$(mktemp -d "$dir/reorder-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
name=rmat-$scale-$edgefactor
m=$work/rmat.tcf.h5
mkdir -p "$(dirname "$out")"
[ -f "$out" ] || printf 'host\tdate\tcommit\tmatrix\tnnz\tstep\tthreads\tseconds\tcpu_seconds\tpeak_mb\tblocks_before\tblocks_after\tcommand\n' >"$out"

"$gen" -o "$m" rmat "$scale" "$edgefactor"
nnz=$("$tcstat" --tsv "$m" | awk -F'\t' '$2 == "matrix" && $3 == "nnz" { print $4 }')

# step NAME THREADS SHOWN-COMMAND COMMAND...: runs COMMAND under measure
# (stdout to $work/NAME.out) and appends its row.
status=0
step() {
    _name=$1 _threads=$2 _shown=$3
    shift 3
    rm -f "$work/$_name.m"
    "$measure" "$work/$_name.m" "$@" >"$work/$_name.out" || {
        echo "$0: $_shown failed" >&2
        status=1
    }
    _field() { awk -F'\t' -v k="$1" '$2 == "tc16x8" && $3 == k { print $4 }' "$work/$_name.out"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$host" "$(bench_date)" \
        "$commit" "$name" "$nnz" "$_name" "$_threads" "$(cut -f1 "$work/$_name.m")" \
        "$(cut -f4 "$work/$_name.m")" \
        "$(awk '{ printf "%.0f", $2 / 1024 }' "$work/$_name.m")" \
        "$(_field blocks_before)" "$(_field blocks_after)" "$_shown" | tee -a "$out"
}

for t in $threads; do
    TC_THREADS=$t step tcconv "$t" "TC_THREADS=$t tcconv -o conv.tcf.h5 $name.tcf.h5" \
        "$tcconv" -o "$work/conv.tcf.h5" "$m"
    rm -f "$work/conv.tcf.h5"
    for method in $methods; do
        step "$method" "$t" "tcreorder -q -m $method -t $t --tsv -o $method.tcf.h5 $name.tcf.h5" \
            "$tcreorder" -q -m "$method" -t "$t" --tsv -o "$work/$method.tcf.h5" "$m"
        rm -f "$work/$method.tcf.h5"
    done
done
exit $status
