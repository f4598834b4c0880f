#!/bin/sh
# auto.sh: the planner against cuSPARSE and against the oracle, on the GPU.
# For every matrix, one run of bench/auto (the public plan API; bench/auto.c
# says what it does) over every n:
#   auto [-w W -i I -e LEVELS] -c CANDIDATES MATRIX N...
# and one TSV row per (matrix, n, effort level that plans: estimate,
# measure, patient): device, date, commit, matrix, n, effort, the plan
# (order/format/variant/precision, the format as format:params where the
# plan chose settings, e.g. rowsplit:seg=64,order=1), auto_ms (the plan's whole product,
# timed after planning on fresh operands), cusparse_ms (cuSPARSE's fastest
# algorithm on the caller's matrix and the same operands, same run),
# oracle_ms and oracle_plan (the exhaustive plan: every kernel, variant and
# reordering, timed the same way in the same run), vs_cusparse
# (cusparse_ms / auto_ms), vs_oracle (oracle_ms / auto_ms), plan_seconds,
# payback_calls, verify (the float64 check of both plans' C), command.
# CANDIDATES (results/auto-candidates.tsv) gets every candidate the
# exhaustive plans timed: bench/model-fit.py refits the model from it.
#
#   bench/auto.sh [-o OUT.tsv] [-n "32 64 128 256"] [MATRIX.mtx.gz...]
#
# Matrices default to every .mtx.gz of $TC_SHARED_DATA (else ../shared/data
# beside the tree). AUTO names the driver (default: the build tree's
# bench/auto); WARMUP and ITERS (default 10 and 100) the timing; LEVELS
# (default estimate,measure,patient,exhaustive) the effort levels planned:
# without exhaustive there is no oracle (its columns "-") and CANDIDATES
# stays empty, for a run that must fit less GPU time (the oracle computes
# every reordering of every matrix); COMMIT overrides the commit recorded.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/auto.tsv
bench_options "$out" "32 64 128 256" "$@"
shift "$bench_shift"
out=$bench_out ns=$bench_ns
if [ $# -eq 0 ]; then
    data=${TC_SHARED_DATA:-$here/../shared/data}
    set -- "$data"/*.mtx.gz
fi
drv=$(bench_program AUTO auto)
warmup=${WARMUP:-10}
iters=${ITERS:-100}
levels=${LEVELS:-estimate,measure,patient,exhaustive}
cand=${out%.tsv}-candidates.tsv
device=$(bench_device)
commit=$(bench_commit)
printf 'device\tdate\tcommit\tmatrix\tn\teffort\tplan\tauto_ms\tcusparse_ms\toracle_ms\toracle_plan\tvs_cusparse\tvs_oracle\tplan_seconds\tpayback_calls\tverify\tcommand\n' > "$out"
printf 'matrix\tn\torder\tformat\tvariant\tms\tcusparse_ms\n' > "$cand"
rc=0
for m in "$@"; do
    cmd="auto -w $warmup -i $iters -e $levels -c $(basename "$cand") $(basename "$m") $ns"
    # shellcheck disable=SC2086 # ns is a list
    bench_rows "$out" "$cmd" "$drv" -w "$warmup" -i "$iters" -e "$levels" -c "$cand" "$m" $ns ||
        rc=1
done
exit $rc
