#!/bin/sh
# cusparse-baseline.sh: the table every GPU kernel is measured against.
# For every matrix and every n, runs
#   tcmul --device gpu --no-plan-cache --format csr --bench --verify --tsv --cols N --seed N MATRIX
# (cuSPARSE SpMM on CSR, fp32, the fastest of its CSR algorithms, timed with
# CUDA events after warm-up over rotated operands) and collects one TSV row:
# the device, date, commit, matrix, its shape, n, the fastest algorithm and
# every algorithm's median, the median ms, GFLOP/s, the fraction of the
# memory-traffic floor, the measured copy bandwidth, the verification
# figure, and the exact command.
#
#   bench/cusparse-baseline.sh [-o OUT.tsv] [-n "1 7 32 128 257"] [MATRIX...]
#
# Matrices default to every .mtx.gz of $TC_SHARED_DATA (else ../shared/data
# beside the source tree). TCMUL names the tcmul to run (default: the build
# tree's, from $top_builddir or the current directory); COMMIT overrides the
# commit recorded (default: git's HEAD, "-dirty" with local changes).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
bench_tcmul_sweep cusparse-baseline "$here/bench/results/cusparse-baseline.tsv" "1 7 32 128 257" "--format csr" "
    rows=input.rows
    cols=input.cols
    nnz=input.nnz
    n=input.n
    best_algorithm=run.variant
    median_ms=bench.median_ms
    gflops=bench.gflops
    floor_fraction=bench.floor_fraction
    bandwidth_gbs=bench.bandwidth_gbs
    default_ms=variants.default_ms
    alg1_ms=variants.alg1_ms
    alg2_ms=variants.alg2_ms
    alg3_ms=variants.alg3_ms
    rel_fro=verify.rel_fro
    verify=verify.result" "$@"
