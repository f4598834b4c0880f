#!/bin/sh
# bcsr.sh: the bcsr kernel (kernels/bcsr.cu, SMaT) against cuSPARSE, (a) on
# the real matrices in their own order and in jaccard's, (b) on SMaT's
# synthetic band matrices (Section VI-C) against cuBLAS dense GEMM too.
#
#   bench/bcsr.sh [-o OUT.tsv] [-n "32 128"] [-b "8 16 32 64 128 256"]
#                 [-w "64 128 ... 16384"] [-r ORDER] [MATRIX.mtx.gz...]
#
# (a) For every matrix (default: every .mtx.gz of $TC_SHARED_DATA, else
# ../shared/data beside the source tree) it first runs
#   tcreorder -q -m jaccard -o NAME.tcf.h5 NAME.mtx.gz
# then, for the original and the reordered matrix and every n of -n,
#   tcmul --device gpu --no-plan-cache --format bcsr --bench --verify --tsv --cols N --seed N A
# (bcsr built with 16 x 16 blocks; the fastest variant timed with CUDA
# events after warm-up over rotated operands; cuSPARSE's fastest CSR
# algorithm on the same operands, in the same run).
# (b) For every width of -w, the ORDER x ORDER band matrix of that width
# (bench/gen band ORDER WIDTH; ORDER 8192 by default, so that the widths run
# from 99.2% zeros to a dense matrix) and every n of -b,
#   tcmul --device gpu --no-plan-cache --format bcsr --dense --bench --verify --tsv ...
# which also times cuBLAS GEMM (fp16, fp32 accumulation) on the matrix
# stored densely.
# One TSV row per run: device, date, commit, matrix, order (original,
# jaccard or band), shape and nonzeros, n, the bcsr median and GFLOP/s,
# cuSPARSE's median, algorithm and the speedup over it, cuBLAS's median and
# the speedup over it (band rows), the fraction of the memory-traffic
# floor, the variant chosen and each variant's median, the verification
# figure, and the exact commands. TCMUL, TCREORDER and GEN name the
# programs to run (default: the build tree's); COMMIT overrides the commit.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/bcsr.tsv
ns="32 128"
band_ns="8 16 32 64 128 256"
widths="64 128 256 512 1024 2048 4096 8192 16384"
order=8192
while getopts o:n:b:w:r: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    b) band_ns=$OPTARG ;;
    w) widths=$OPTARG ;;
    r) order=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-b \"N...\"] [-w \"WIDTH...\"] [-r ORDER] [MATRIX...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
gen=$(bench_program GEN gen)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

columns="$BENCH_SPMM_COLUMNS
    dense_ms=dense.median_ms
    dense_speedup=dense.speedup
    floor_fraction=bench.floor_fraction
    variant=run.variant
    tc_ms=variants.tc_ms
    cuda_ms=variants.cuda_ms
    $BENCH_CHECK_COLUMNS"
status=0
(bench_reordered_sweep bcsr jaccard "$tmp/real.tsv" "$ns" "--format bcsr" "$columns" "$@") ||
    status=1

mkdir "$tmp/band"
for w in $widths; do
    "$gen" band "$order" "$w" > "$tmp/band/band-$order-w$w.mtx" ||
        { echo "bcsr: band $order $w failed" >&2; status=1; }
done
(bench_tcmul_sweep bcsr "$tmp/band.tsv" "$band_ns" "--format bcsr --dense" "$columns" \
    "$tmp"/band/*.mtx) || status=1

# The band rows get order "band" and a command that starts with the
# generator.
awk -F '\t' -v OFS='\t' -v order="$order" '
    FNR == 1 && NR > 1 { band = 1; next }
    band {
        w = $4; sub(/.*-w/, "", w)
        $NF = "gen band " order " " w " > " $4 ".mtx && " $NF
        $4 = $4 OFS "band"
    }
    { print }' "$tmp/real.tsv" "$tmp/band.tsv" > "$tmp/all.tsv"
mkdir -p "$(dirname "$out")"
cp "$tmp/all.tsv" "$out"
echo "bcsr: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
