#!/bin/sh
# scale.sh: a matrix past 2^31 nonzeros through every tool (issue 8,
# "Scale"): generated straight into a .tcf.h5, read by tcstat, converted to
# a tensor-core format by tcconv, multiplied on the GPU by tcmul with the
# full float64 verification and cuSPARSE (64-bit indices) in the same run.
#
#   bench/scale.sh [-o OUT.tsv] [-d DIR] [-r ORDER] [-w WIDTH] [-f FORMAT] [-n N]
#
# The matrix is bench/gen's pattern band matrix of ORDER rows and WIDTH
# nonzeros per row (default 2200000 x 1024: 2,252,537,856 nonzeros, 9 GB
# of column indices), written by tc_h5_write_rows in 16M-entry slabs. The
# files go to DIR (default $TMPDIR or /tmp; about 20 GB) and are removed at
# the end. FORMAT (default bsb: binary, so the GPU holds the 2.25 billion
# fp16 values of the pattern and int64 offsets into them) is what tcconv
# builds and tcmul multiplies, at N columns (default 32). Needs 128 GB of
# host memory for tcmul (CSR for the reference and cuSPARSE, the format,
# the reference itself) and a GPU with about 40 GB.
#
# Appends one row per step to bench/results/scale.tsv (or OUT.tsv):
#   device date commit step rows nnz seconds peak_rss_kib peak_gpu_mib
#   median_ms cusparse_ms rel_fro result command
# seconds and peak_rss_kib come from bench/measure (wall time, the
# process's largest resident set); peak_gpu_mib is the largest
# memory.used that nvidia-smi saw while the step ran, less what was in use
# before it (empty without nvidia-smi). median_ms, cusparse_ms and rel_fro
# are tcmul's (kernel median, cuSPARSE's median, relative Frobenius error
# against the float64 reference). Programs: $GEN, $MEASURE ($top_builddir
# or the build tree's bench/), $TCSTAT, $TCCONV, $TCMUL (tools/).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/scale.tsv
dir=${TMPDIR:-/tmp}
order=2200000 width=1024 format=bsb n=32
while getopts o:d:r:w:f:n: opt; do
    case $opt in
    o) out=$OPTARG ;;
    d) dir=$OPTARG ;;
    r) order=$OPTARG ;;
    w) width=$OPTARG ;;
    f) format=$OPTARG ;;
    n) n=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-d DIR] [-r ORDER] [-w WIDTH] [-f FORMAT] [-n N]" >&2
       exit 2 ;;
    esac
done
. "$here/bench/lib.sh"
gen=$(bench_program GEN gen)
measure=$(bench_program MEASURE measure)
tcstat=$(bench_tool TCSTAT tcstat)
tcconv=$(bench_tool TCCONV tcconv)
tcmul=$(bench_tool TCMUL tcmul)
commit=$(bench_commit)
device=$(bench_device)
work=$(mktemp -d "$dir/scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
m=$work/band.tcf.h5
mf=$work/band-$format.tcf.h5
[ -f "$out" ] || printf 'device\tdate\tcommit\tstep\trows\tnnz\tseconds\tpeak_rss_kib\tpeak_gpu_mib\tmedian_ms\tcusparse_ms\trel_fro\tresult\tcommand\n' >"$out"

gpu_used() {
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -n 1
}

# step NAME SHOWN-COMMAND COMMAND...: runs COMMAND under measure (stdout to
# $work/NAME.out) while sampling the GPU's memory, then appends its row.
# The report fields come from $work/NAME.out when it is tcmul's TSV.
step() {
    _name=$1 _shown=$2
    shift 2
    _base=$(gpu_used || true)
    if [ -n "$_base" ]; then
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 \
            >"$work/$_name.gpu" 2>/dev/null &
        _poll=$!
    fi
    _rc=0
    "$measure" "$work/$_name.m" "$@" >"$work/$_name.out" || _rc=$?
    [ -n "$_base" ] && kill "$_poll" 2>/dev/null && wait "$_poll" 2>/dev/null || true
    _gpu=
    [ -n "$_base" ] && _gpu=$(awk -v b="$_base" '$1 > p { p = $1 } END { print p - b }' "$work/$_name.gpu")
    _field() { awk -F'\t' -v s="$1" -v k="$2" '$2 == s && $3 == k { print $4 }' "$work/$_name.out"; }
    _nnz=$(_field input nnz)
    _res=$(_field verify result)
    [ -n "$_res" ] || { [ "$_rc" -eq 0 ] && _res=ok || _res="exit $_rc"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$device" "$(bench_date)" \
        "$commit" "$_name" "$order" "${_nnz:-$nnz}" "$(cut -f1 "$work/$_name.m")" \
        "$(cut -f2 "$work/$_name.m")" "$_gpu" "$(_field bench median_ms)" \
        "$(_field baseline median_ms)" "$(_field verify rel_fro)" "$_res" "$_shown" | tee -a "$out"
    return "$_rc"
}

nnz=$(awk -v n="$order" -v w="$width" 'BEGIN {
    for (i = 0; i < n; i++) { lo = i - int(w / 2); hi = i + w - int(w / 2);
        if (lo < 0) lo = 0; if (hi > n) hi = n; s += hi - lo } printf "%.0f", s }')
step generate "bench/gen -p -o band.tcf.h5 band $order $width" \
    "$gen" -p -o "$m" band "$order" "$width"
step tcstat "tcstat band.tcf.h5" "$tcstat" "$m"
grep -q "^  nnz  *$nnz " "$work/tcstat.out" || {
    echo "$0: tcstat did not report $nnz nonzeros" >&2
    exit 1
}
step tcconv "tcconv -f $format --no-compress band.tcf.h5 -o band-$format.tcf.h5" \
    "$tcconv" -f "$format" --no-compress "$m" -o "$mf"
step tcmul "tcmul --device gpu --format $format --cols $n --verify --bench --warmup 2 --iters 10 --tsv band-$format.tcf.h5" \
    "$tcmul" --device gpu --format "$format" --cols "$n" --verify --bench --warmup 2 --iters 10 \
    --tsv "$mf"
