#!/bin/sh
# attention.sh: sparse attention O = softmax(Q K^T / sqrt(d) masked by A) V
# on the GPU, the fused bsb kernel (kernels/attention.cu, Fused3S) against
# the unfused cuSPARSE pipeline (cusparseSDDMM, a row-softmax kernel,
# cusparseSpMM) on the same operands, in the same run. For every matrix
# (default: every .mtx.gz of $TC_SHARED_DATA, else ../shared/data beside the
# source tree), in its own order and in tcbsort's (whole 16-row windows by
# decreasing TCB count), and every d of -n it runs
#   tcmul --device gpu --op attention --bench --verify --tsv --dim D --seed D A
# (random Q, K, V; both paths timed with CUDA events after warm-up, operand
# sets rotated so that they are not timed from L2; the fused path checked
# against the float64 reference) and writes one TSV row: device, date,
# commit, matrix, order, shape, d, both medians, the speedup, the fused
# GFLOP/s (4 nnz d / median), the fused kernel's warps per thread block,
# the peak device bytes of each path (operands included), the verification
# figure, and the exact command.
#
#   bench/attention.sh [-o OUT.tsv] [-n "64 128"] [MATRIX.mtx.gz...]
#
# TCMUL and TCREORDER name the tools to run (default: the build tree's);
# COMMIT overrides the commit recorded.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
columns="
    rows=input.rows
    cols=input.cols
    nnz=input.nnz
    d=input.d
    fused_ms=bench.fused_ms
    unfused_ms=bench.unfused_ms
    speedup=bench.speedup
    fused_gflops=bench.fused_gflops
    warps=run.warps
    fused_peak_bytes=memory.fused_peak_bytes
    unfused_peak_bytes=memory.unfused_peak_bytes
    $BENCH_CHECK_COLUMNS"
BENCH_SIZE_OPT=--dim
bench_reordered_sweep attention tcbsort "$here/bench/results/attention.tsv" "64 128" \
    "--op attention" "$columns" "$@"
