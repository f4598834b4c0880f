#!/bin/sh
# floor.sh: the cost of a small SpMM's shape before any multiply (bench/floor.cu:
# an empty kernel, a copy of B into C, the same with dependent loads, and the
# gather of the rows of B that rstile's TC blocks name), timed as tcmul times
# kernels, for matrices in their stored order (the wjaccard order of a
# tcreorder output). Two steps, since the GPU machine has no h5dump:
#
#   bench/floor.sh extract DIR MATRIX.tcf.h5...
#       (host) h5dump's raw /matrix/indptr and /matrix/indices of each
#       matrix into DIR/NAME.indptr, DIR/NAME.indices, its rows in DIR/NAME.rows
#   bench/floor.sh run [-o OUT.tsv] DIR
#       (GPU) builds DIR/floor from bench/floor.cu with nvcc (sm_90, sm_80)
#       when it is missing, runs it on every matrix of DIR and appends one
#       row per kernel: device, date, commit, matrix, rows, kernel, thread
#       blocks, threads per block, median_us, p10_us, p90_us, command
#
# OUT defaults to bench/results/floor.tsv; COMMIT overrides the commit
# recorded (default: git's HEAD, "-dirty" with local changes).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
usage() {
    echo "usage: bench/floor.sh extract DIR MATRIX.tcf.h5... | run [-o OUT.tsv] DIR" >&2
    exit 2
}
[ $# -ge 2 ] || usage
mode=$1
shift
case $mode in
extract)
    dir=$1
    shift
    [ $# -ge 1 ] || usage
    mkdir -p "$dir"
    for m in "$@"; do
        name=$(basename "$m" .tcf.h5)
        h5dump -b LE -d /matrix/indptr -o "$dir/$name.indptr" "$m" > /dev/null
        h5dump -b LE -d /matrix/indices -o "$dir/$name.indices" "$m" > /dev/null
        h5dump -H -d /matrix/indptr "$m" |
            sed -n 's/.*DATASPACE *SIMPLE *{ *( *\([0-9]*\) *).*/\1/p' |
            awk '{ print $1 - 1 }' > "$dir/$name.rows"
        [ -s "$dir/$name.rows" ] || { echo "floor.sh: $m: no /matrix/indptr" >&2; exit 1; }
    done
    ;;
run)
    out=$here/bench/results/floor.tsv
    if [ "$1" = -o ]; then
        [ $# -ge 3 ] || usage
        out=$2
        shift 2
    fi
    dir=$1
    [ -x "$dir/floor" ] ||
        nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 \
            -gencode arch=compute_80,code=sm_80 -o "$dir/floor" "$here/bench/floor.cu"
    [ -s "$out" ] || printf 'device\tdate\tcommit\tmatrix\trows\tkernel\tblocks\tthreads\tmedian_us\tp10_us\tp90_us\tcommand\n' > "$out"
    device=$(bench_device)
    commit=$(bench_commit)
    for r in "$dir"/*.rows; do
        name=$(basename "$r" .rows)
        rows=$(cat "$r")
        cmd="floor $name.indptr $name.indices $rows"
        "$dir/floor" "$dir/$name.indptr" "$dir/$name.indices" "$rows" |
            awk -F '\t' -v OFS='\t' -v d="$device" -v t="$(bench_date)" -v c="$commit" \
                -v m="$name" -v n="$rows" -v cmd="$cmd" '{ print d, t, c, m, n, $0, cmd }' >> "$out"
    done
    ;;
*) usage ;;
esac
