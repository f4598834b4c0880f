#!/bin/sh
# brp.sh: the brp kernel (kernels/brp.cu, BRP-SpMM) against cuSPARSE.
# For every matrix and every n, runs
#   tcmul --device gpu --format brp --bench --verify --tsv --cols N --seed N MATRIX
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
out=$here/bench/results/brp.tsv
ns="32 64 128 256"
while getopts o:n: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [MATRIX...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
tcmul=${TCMUL:-${top_builddir:-.}/tools/tcmul}
if [ $# -eq 0 ]; then
    set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
fi
. "$here/bench/lib.sh"
COMMIT=$(bench_commit)
date=$(bench_date)
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.row"' EXIT

mkdir -p "$(dirname "$out")"
printf 'device\tdate\tcommit\tmatrix\trows\tcols\tnnz\tn\tmedian_ms\tgflops\tcusparse_ms\tcusparse_algorithm\tspeedup\tfloor_fraction\ttc_nnz_share\ttc_time_share\tvariant\ttc_ms\ttc_wide_ms\ttc_window_ms\tcuda_ms\trel_fro\tverify\tcommand\n' \
    > "$tmp"
status=0
for m in "$@"; do
    name=$(basename "$m" .mtx.gz)
    for n in $ns; do
        cmd="tcmul --device gpu --format brp --bench --verify --tsv --cols $n --seed $n $name.mtx.gz"
        if ! "$tcmul" --device gpu --format brp --bench --verify --tsv --cols "$n" --seed "$n" "$m" \
                > "$tmp.row"; then
            echo "brp: $name, n=$n failed" >&2
            status=1
        fi
        # one row from the section/key/value report
        awk -F '\t' -v dev_date="$date" -v commit="$COMMIT" -v name="$name" -v cmd="$cmd" '
            NR > 1 { v[$1 "." $2] = $3 }
            END {
                printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
                    v["run.device"], dev_date, commit, name, v["input.rows"], v["input.cols"],
                    v["input.nnz"], v["input.n"], v["bench.median_ms"], v["bench.gflops"],
                    v["baseline.median_ms"], v["baseline.variant"], v["baseline.speedup"],
                    v["bench.floor_fraction"], v["parts.tc_block_nnz_share"],
                    v["parts.tc_block_time_share"], v["run.variant"], v["variants.tc_ms"],
                    v["variants.tc-wide_ms"], v["variants.tc-window_ms"], v["variants.cuda_ms"],
                    v["verify.rel_fro"], v["verify.result"], cmd
            }' "$tmp.row" >> "$tmp"
    done
done
cp "$tmp" "$out"
echo "brp: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
