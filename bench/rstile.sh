#!/bin/sh
# rstile.sh: the rstile kernel (kernels/rstile.cu, RSH-SpMM) against
# cuSPARSE, in each matrix's own order and in wjaccard's. For every matrix
# it first runs
#   tcreorder -q -m wjaccard -o NAME.tcf.h5 NAME.mtx.gz
# then, for the original and the reordered matrix and every n,
#   tcmul --device gpu --format rstile --bench --verify --tsv --cols N --seed N A
# (rstile built from A with its default, automatic threshold and split; the
# fastest of its variants timed with CUDA events after warm-up over rotated
# operands; each of its two parts alone; cuSPARSE's fastest CSR algorithm on
# the same operands, in the same order) and collects one TSV row: the
# device, date, commit, matrix, order (original or wjaccard), shape, n, the
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
out=$here/bench/results/rstile.tsv
ns="32 64 128 256"
while getopts o:n: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [MATRIX.mtx.gz...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
tcreorder=${TCREORDER:-${top_builddir:-.}/tools/tcreorder}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/wj"

status=0
for m in "$@"; do
    name=$(basename "$m" .mtx.gz)
    "$tcreorder" -q -m wjaccard -o "$tmp/wj/$name.tcf.h5" "$m" ||
        { echo "rstile: $name: tcreorder failed" >&2; status=1; }
done

columns="
    rows=input.rows
    cols=input.cols
    nnz=input.nnz
    n=input.n
    median_ms=bench.median_ms
    gflops=bench.gflops
    cusparse_ms=baseline.median_ms
    cusparse_algorithm=baseline.variant
    speedup=baseline.speedup
    floor_fraction=bench.floor_fraction
    tc_nnz_share=parts.tc_block_nnz_share
    tc_time_share=parts.tc_block_time_share
    variant=run.variant
    tc_ms=variants.tc_ms
    tc_fly_ms=variants.tc-fly_ms
    cuda_ms=variants.cuda_ms
    rel_fro=verify.rel_fro
    verify=verify.result"
# (each sweep in a subshell: it sets its own EXIT trap)
(bench_tcmul_sweep rstile "$tmp/original.tsv" "$ns" "--format rstile" "$columns" "$@") ||
    status=1
(bench_tcmul_sweep rstile "$tmp/wjaccard.tsv" "$ns" "--format rstile" "$columns" \
    "$tmp"/wj/*.tcf.h5) || status=1

# One table: an order column after the matrix; the reordered rows' command
# starts with the tcreorder that made their input.
awk -F '\t' -v OFS='\t' '
    FNR == 1 { order = FILENAME ~ /wjaccard/ ? "wjaccard" : "original" }
    FNR == 1 && NR > 1 { next }
    {
        o = NR == 1 ? "order" : order
        if (order == "wjaccard" && NR > 1)
            $NF = "tcreorder -q -m wjaccard -o " $4 ".tcf.h5 " $4 ".mtx.gz && " $NF
        $4 = $4 OFS o
        print
    }' "$tmp/original.tsv" "$tmp/wjaccard.tsv" > "$tmp/all.tsv"
mkdir -p "$(dirname "$out")"
cp "$tmp/all.tsv" "$out"
echo "rstile: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
