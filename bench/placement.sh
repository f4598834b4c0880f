#!/bin/sh
# placement.sh: how far apart two timings of one kernel on one matrix can
# be, on the GPU (bench/placement.c says what it times). Writes
# results/placement.tsv: device, date, commit, matrix, n, variant,
# first_ms, second_ms (a second upload of the same matrix), first_again_ms
# (the first upload timed again), second_vs_first, first_again_vs_first,
# command. bench/NOTES.md ("Same-kernel comparisons") reads it.
#
#   bench/placement.sh [-o OUT.tsv] [-n "32 64 128 256"] [MATRIX.mtx.gz...]
#
# Matrices default to every .mtx.gz of $TC_SHARED_DATA (else ../shared/data
# beside the tree); PLACEMENT names the driver (default: the build tree's
# bench/placement); WARMUP, ITERS and ROUNDS (10, 100, 5: bench/auto.sh's
# and tc_plan_bench's) the timing; COMMIT overrides the commit recorded.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/placement.tsv
bench_options "$out" "32 64 128 256" "$@"
shift "$bench_shift"
out=$bench_out ns=$bench_ns
if [ $# -eq 0 ]; then
    data=${TC_SHARED_DATA:-$here/../shared/data}
    set -- "$data"/*.mtx.gz
fi
drv=$(bench_program PLACEMENT placement)
w=${WARMUP:-10} i=${ITERS:-100} r=${ROUNDS:-5}
device=$(bench_device)
commit=$(bench_commit)
printf 'device\tdate\tcommit\tmatrix\tn\tvariant\tfirst_ms\tsecond_ms\tfirst_again_ms\tsecond_vs_first\tfirst_again_vs_first\tcommand\n' > "$out"
rc=0
for m in "$@"; do
    cmd="placement -w $w -i $i -r $r $(basename "$m") $ns"
    # shellcheck disable=SC2086 # ns is a list
    bench_rows "$out" "$cmd" "$drv" -w "$w" -i "$i" -r "$r" "$m" $ns || rc=1
done
exit $rc
