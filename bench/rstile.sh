#!/bin/sh
# rstile.sh: the rstile kernel (kernels/rstile.cu, RSH-SpMM) against
# cuSPARSE, in each matrix's own order and in wjaccard's ($ORDER's when
# set: another tcreorder method, such as hmatch). For every matrix it
# first runs
#   tcreorder -q -m wjaccard -o NAME.tcf.h5 NAME.mtx.gz
# then, for the original and the reordered matrix and every n,
#   tcmul --device gpu --no-plan-cache --format rstile --bench --verify --tsv --cols N --seed N A
# (rstile built from A with its default, automatic threshold and split; the
# fastest of its variants timed with CUDA events after warm-up over rotated
# operands; each of its two parts alone; cuSPARSE's fastest CSR algorithm on
# the same operands, in the same order) and collects one TSV row: the
# device, date, commit, matrix, order (original or the method), shape, n, the
# rstile median and GFLOP/s, the cuSPARSE median and algorithm, the speedup,
# the fraction of the memory-traffic floor, the TC part's share of the
# nonzeros and of the time, the variant chosen and every variant's median,
# the verification figure, and the exact commands.
#
#   bench/rstile.sh [-o OUT.tsv] [-n "32 64 128 256"] [MATRIX.mtx.gz...]
#
# Matrices default to every .mtx.gz of $TC_SHARED_DATA (else ../shared/data
# beside the source tree). TCMUL and TCREORDER name the tools to run
# (default: the build tree's, from $top_builddir or the current directory);
# COMMIT overrides the commit recorded.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
columns="$BENCH_SPMM_COLUMNS
    floor_fraction=bench.floor_fraction
    tc_nnz_share=parts.tc_block_nnz_share
    tc_time_share=parts.tc_block_time_share
    variant=run.variant
    tc_ms=variants.tc_ms
    tc_fly_ms=variants.tc-fly_ms
    tc_f32_ms=variants.tc-f32_ms
    tc_item_ms=variants.tc-item_ms
    tc_item8_ms=variants.tc-item8_ms
    cuda_ms=variants.cuda_ms
    $BENCH_CHECK_COLUMNS"
bench_reordered_sweep rstile "${ORDER:-wjaccard}" "$here/bench/results/rstile.tsv" "32 64 128 256" \
    "--format rstile" "$columns" "$@"
