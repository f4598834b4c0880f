#!/bin/sh
# floor.sh: the cost of a small SpMM's shape before any multiply, for matrices
# in their stored order (the wjaccard order of a tcreorder output). For every
# matrix it runs
#   floor MATRIX
# (bench/floor.cu, built with the tree when CUDA is: an empty kernel, a copy
# of B into C, the same with dependent loads, and the gather of the rows of B
# that rstile's TC blocks name, at n = 32, timed by tc_gpu_time as tcmul
# times kernels) and appends one row per kernel: device, date, commit,
# matrix, kernel, thread blocks, threads per block, median_us, p10_us,
# p90_us, and the exact command.
#
#   bench/floor.sh [-o OUT.tsv] MATRIX...
#
# OUT defaults to bench/results/floor.tsv. FLOOR names the program to run
# (default: the build tree's bench/floor, from $top_builddir or the current
# directory); COMMIT overrides the commit recorded (default: git's HEAD,
# "-dirty" with local changes).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/floor.tsv
if [ "${1:-}" = -o ]; then
    [ $# -ge 2 ] || { echo "usage: bench/floor.sh [-o OUT.tsv] MATRIX..." >&2; exit 2; }
    out=$2
    shift 2
fi
[ $# -ge 1 ] || { echo "usage: bench/floor.sh [-o OUT.tsv] MATRIX..." >&2; exit 2; }
floor=$(bench_program FLOOR floor)
[ -s "$out" ] ||
    printf 'device\tdate\tcommit\tmatrix\tkernel\tblocks\tthreads\tmedian_us\tp10_us\tp90_us\tcommand\n' > "$out"
trap 'rm -f "$out.part"' EXIT
device=$(bench_device)
commit=$(bench_commit)
for m in "$@"; do
    name=$(basename "$m")
    name=${name%%.*}
    "$floor" "$m" > "$out.part"
    awk -F '\t' -v OFS='\t' -v d="$device" -v t="$(bench_date)" -v c="$commit" -v m="$name" \
        -v cmd="floor $(basename "$m")" '{ print d, t, c, m, $0, cmd }' "$out.part" >> "$out"
done
