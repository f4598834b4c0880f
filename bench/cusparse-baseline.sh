#!/bin/sh
# cusparse-baseline.sh: the table every GPU kernel is measured against.
# For every matrix and every n, runs
#   tcmul --device gpu --bench --verify --tsv --cols N --seed N MATRIX
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
out=$here/bench/results/cusparse-baseline.tsv
ns="1 7 32 128 257"
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
printf 'device\tdate\tcommit\tmatrix\trows\tcols\tnnz\tn\tbest_algorithm\tmedian_ms\tgflops\tfloor_fraction\tbandwidth_gbs\tdefault_ms\talg1_ms\talg2_ms\talg3_ms\trel_fro\tverify\tcommand\n' \
    > "$tmp"
status=0
for m in "$@"; do
    name=$(basename "$m" .mtx.gz)
    for n in $ns; do
        cmd="tcmul --device gpu --bench --verify --tsv --cols $n --seed $n $name.mtx.gz"
        if ! "$tcmul" --device gpu --bench --verify --tsv --cols "$n" --seed "$n" "$m" \
                > "$tmp.row"; then
            echo "cusparse-baseline: $name, n=$n failed" >&2
            status=1
        fi
        # one row from the section/key/value report
        awk -F '\t' -v dev_date="$date" -v commit="$COMMIT" -v name="$name" -v cmd="$cmd" '
            NR > 1 { v[$1 "." $2] = $3 }
            END {
                printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
                    v["run.device"], dev_date, commit, name, v["input.rows"], v["input.cols"],
                    v["input.nnz"], v["input.n"], v["run.variant"], v["bench.median_ms"],
                    v["bench.gflops"], v["bench.floor_fraction"], v["bench.bandwidth_gbs"],
                    v["variants.default_ms"], v["variants.alg1_ms"], v["variants.alg2_ms"],
                    v["variants.alg3_ms"], v["verify.rel_fro"], v["verify.result"], cmd
            }' "$tmp.row" >> "$tmp"
    done
done
cp "$tmp" "$out"
echo "cusparse-baseline: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
