#!/bin/sh
# brp.sh: the brp kernel (kernels/brp.cu, BRP-SpMM) against cuSPARSE.
# For every matrix and every n, runs
#   tcmul --device gpu --no-plan-cache --format brp --bench --verify --tsv --cols N --seed N MATRIX
# (brp built from A with the paper's parameters, the fastest of its variants
# timed with CUDA events after warm-up over rotated operands; then each of
# its two parts alone; then cuSPARSE's fastest CSR algorithm on the same
# operands) and collects one TSV row: the device, date, commit, matrix, its
# shape, n, the brp median and GFLOP/s, the cuSPARSE median and algorithm,
# the speedup, the fraction of the memory-traffic floor, the TC Block part's
# share of the nonzeros and of the time (each part timed alone: the share is
# of the two medians summed), the variant chosen and every variant's median,
# the verification figure, and the exact command.
#
#   bench/brp.sh [-o OUT.tsv] [-n "32 64 128 256"] [MATRIX...]
#
# Matrices default to every .mtx.gz of $TC_SHARED_DATA (else ../shared/data
# beside the source tree). TCMUL names the tcmul to run (default: the build
# tree's, from $top_builddir or the current directory); COMMIT overrides the
# commit recorded (default: git's HEAD, "-dirty" with local changes).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
bench_tcmul_sweep brp "$here/bench/results/brp.tsv" "32 64 128 256" "--format brp" "$BENCH_SPMM_COLUMNS
    floor_fraction=bench.floor_fraction
    tc_nnz_share=parts.tc_block_nnz_share
    tc_time_share=parts.tc_block_time_share
    variant=run.variant
    tc_item_ms=variants.tc-item_ms
    tc_item8_ms=variants.tc-item8_ms
    tc_item_long_ms=variants.tc-item-long_ms
    tc_item8_long_ms=variants.tc-item8-long_ms
    cuda_ms=variants.cuda_ms
    $BENCH_CHECK_COLUMNS" "$@"
