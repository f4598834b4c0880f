#!/usr/bin/env bash
# compute-sanitizer.sh: every GPU kernel of tcmul under NVIDIA's
# compute-sanitizer (issue 8: "memcheck and racecheck report nothing for
# every kernel on the ../shared/data matrices at N = 7 and 128, and the
# attention kernel at d = 64").
#
#   bench/compute-sanitizer.sh [-o OUT.tsv] [-t "TOOL..."] [-f "FORMAT..."]
#                              [-a "OP..."] [-c "CASE..."] [-j JOBS] [-T SECONDS]
#                              [-r DONE.tsv] [MATRIX...]
#
# For each TOOL (default "memcheck racecheck"), matrix (default every
# .mtx.gz of $TC_SHARED_DATA, else ../shared/data) and case, runs
#   compute-sanitizer --tool TOOL --error-exitcode 99 \
#       tcmul --device gpu CASE --verify --warmup 0 --iters 1 MATRIX
# where the cases are every FORMAT (default: every format with a GPU
# kernel, csr, i.e. cuSPARSE, included) at --cols 7 and --cols 128, and
# each OP (default "attention sddmm"; "" for none) as --op OP --dim 64,
# and each CASE of -c (tcmul options joined by commas, e.g.
# --op=attention,--dim=64,--variant=w8: a case too slow to check whole
# split into its variants, each its own run). A run taking more than
# SECONDS (default 300) is stopped and recorded with exit 124. --warmup 0
# --iters 1 makes the variant tuning run every variant of a kernel once,
# so each variant is checked, not only the one kept; the run then verifies
# its result. JOBS (default 8) runs go at once, shared round-robin among
# the machine's GPUs (unless CUDA_VISIBLE_DEVICES is set: then all on what
# it names). racecheck is bound by the GPU, not the host: more GPUs speed
# it up, more runs per GPU do not. Each matrix is first converted once
# (tcconv, all formats) so that the runs spend their time in the checked
# code.
#
# -r DONE.tsv resumes an earlier table (it may be OUT.tsv itself): its rows
# of runs that passed (errors 0, exit 0) are kept in OUT.tsv, with their
# own date and commit, and those runs are not repeated (nor the variants
# of a case that passed whole); only the matrices with a run left are
# converted. A grid too slow for one sitting (racecheck) is so finished
# over several.
#
# Writes bench/results/compute-sanitizer.tsv (or OUT.tsv), one row per run
# as each ends (so that a run cut short keeps what was checked), sorted at
# the end:
#   device date commit tool matrix case errors exit seconds command
# errors is the sanitizer's count (memcheck's ERROR SUMMARY; racecheck's
# errors plus warnings), exit tcmul's status under
# it (99: the sanitizer found something), seconds the run's wall time
# ("-" in rows from before it was recorded). Exits non-zero when any run
# reported an error or failed. Programs: $TCMUL, $TCCONV, else the build
# tree's tools/; compute-sanitizer from $COMPUTE_SANITIZER or the PATH.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/compute-sanitizer.tsv
tools="memcheck racecheck"
jobs=8
limit=300
formats="csr brp rstile bcsr hrpb bsb rowsplit"
ops="attention sddmm"
resume=
extra=
while getopts o:t:f:a:c:j:T:r: opt; do
    case $opt in
    o) out=$OPTARG ;;
    t) tools=$OPTARG ;;
    f) formats=$OPTARG ;;
    a) ops=$OPTARG ;;
    c) extra=$OPTARG ;;
    j) jobs=$OPTARG ;;
    T) limit=$OPTARG ;;
    r) resume=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-t \"TOOL...\"] [-f \"FORMAT...\"] [-a \"OP...\"] [-c \"CASE...\"] [-j JOBS] [-T SECONDS] [-r DONE.tsv] [MATRIX...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
. "$here/bench/lib.sh"
tcmul=$(bench_tool TCMUL tcmul)
tcconv=$(bench_tool TCCONV tcconv)
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer ||
    echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$cs" ] || { echo "$0: compute-sanitizer not found: set COMPUTE_SANITIZER" >&2; exit 1; }
commit=$(bench_commit)
date=$(bench_date)
device=$(bench_device)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The passed runs of DONE.tsv, read before OUT.tsv (maybe the same file)
# is started.
: > "$work/passed"
if [ -n "$resume" ]; then
    [ -r "$resume" ] || { echo "$0: -r $resume: cannot read it" >&2; exit 1; }
    awk -F'\t' -v OFS='\t' 'NR > 1 && $7 == "0" && $8 == "0" {
        if (NF == 9) { $10 = $9; $9 = "-" } print }' "$resume" > "$work/passed"
fi
mkdir -p "$(dirname "$out")"
{ printf 'device\tdate\tcommit\ttool\tmatrix\tcase\terrors\texit\tseconds\tcommand\n'
  cat "$work/passed"; } > "$out"
# Rows in the order of the runs' ends; sorted once all are in.
sort_rows() {
    { head -n 1 "$out"; tail -n +2 "$out" | sort -t "$(printf '\t')" -k4,4 -k5,5 -k6,6; } \
        > "$work/sorted" && cat "$work/sorted" > "$out"
}

cases=
for f in $formats; do
    cases="$cases --format=$f,--cols=7 --format=$f,--cols=128"
done
for op in $ops; do
    cases="$cases --op=$op,--dim=64"
done
cases="$cases $extra"

# Returns once fewer than JOBS children started by it run.
running=0
wait_for_slot() {
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    running=$((running + 1))
}

# One line per run left: TOOL NAME CASE (the case's words joined by ",")
# MATRIX-FILE; then the matrices named there converted JOBS at a time.
mkdir "$work/m" "$work/runs"
for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    for t in $tools; do
        for c in $cases; do
            echo "$t $name $c $m"
        done
    done
done |
    awk -F'\t' 'FILENAME != "-" { gsub(/ /, ",", $6); passed[$4 " " $5 " " $6]; next }
                { split($0, w, " "); whole = w[3]; sub(/,--variant=[^,]*/, "", whole) }
                !((w[1] " " w[2] " " w[3]) in passed) && !((w[1] " " w[2] " " whole) in passed)' \
        "$work/passed" - > "$work/list"
while read -r t name c m; do
    echo "$name $m"
done < "$work/list" | sort -u -k1,1 > "$work/matrices"
while read -r name m; do
    wait_for_slot
    "$tcconv" -q -f all "$m" -o "$work/m/$name.tcf.h5" &
done < "$work/matrices"
wait
running=0

# run_gpu I: the CUDA_VISIBLE_DEVICES of the I-th run.
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    run_gpu() { echo "$CUDA_VISIBLE_DEVICES"; }
else
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    [ "$gpus" -gt 0 ] || gpus=1
    run_gpu() { echo $(($1 % gpus)); }
fi

# run TOOL NAME CASE GPU: one row into $out.
run() {
    _args=$(echo "$3" | tr ',' ' ')
    _id=$(echo "$1-$2-$3" | tr -c 'A-Za-z0-9_.\n-' '_')
    _rc=0
    _start=$(date +%s)
    # shellcheck disable=SC2086 # _args is a word list by design
    CUDA_VISIBLE_DEVICES=$4 timeout "$limit" "$cs" --tool "$1" --error-exitcode 99 \
        --print-limit 10 "$tcmul" --device gpu $_args --verify --warmup 0 --iters 1 -q \
        "$work/m/$2.tcf.h5" < /dev/null > "$work/runs/$_id.log" 2>&1 || _rc=$?
    _seconds=$(($(date +%s) - _start))
    # memcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY:
    # H hazards displayed (N errors, W warnings)", counted as N + W
    _errors=$(awk '/ERROR SUMMARY: [0-9]+ error/ { n = $(NF - 1) }
                   /RACECHECK SUMMARY:/ { s = $0; sub(/.*\(/, "", s); split(s, w, " ");
                                          n = w[1] + w[3] }
                   END { print n }' "$work/runs/$_id.log")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$device" "$date" "$commit" "$1" \
        "$2" "$_args" "${_errors:-?}" "$_rc" "$_seconds" \
        "compute-sanitizer --tool $1 --error-exitcode 99 tcmul --device gpu $_args --verify --warmup 0 --iters 1 $2.tcf.h5" \
        >> "$out"
    if [ "$_rc" -ne 0 ] || [ "${_errors:-?}" != 0 ]; then
        echo "== $1 $2 $_args: exit $_rc, errors ${_errors:-?}" >&2
        head -n 40 "$work/runs/$_id.log" >&2
    fi
}

i=0
while read -r t name c m; do
    wait_for_slot
    run "$t" "$name" "$c" "$(run_gpu $i)" &
    i=$((i + 1))
done < "$work/list"
wait
sort_rows

bad=$(awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != 0)' "$out" | wc -l)
echo "compute-sanitizer: $(($(wc -l < "$out") - 1)) runs, $bad with errors or failures, in $out" >&2
[ "$bad" -eq 0 ]
