#!/bin/sh
# cpu.sh: the CPU path (tcmul --device cpu) against SciPy and
# SuiteSparse:GraphBLAS, each timed in the same run on the same matrix, B
# and machine.
#
#   bench/cpu.sh [-o OUT.tsv] [-n "N..."] [-t "THREADS..."] [-w WARMUP]
#                [-i ITERS] [MATRIX...]
#
# Matrices (.mtx[.gz] or .tcf.h5) default to every .mtx.gz of
# $TC_SHARED_DATA, else ../shared/data beside the tree; n defaults to
# "32 128", threads to "1 ALL" (ALL: every CPU, nproc); WARMUP 3 and ITERS
# 15 runs for every timing, whose median is reported. Each matrix is first
# converted to a .tcf.h5 in a temporary folder (tcconv), which all three
# read. Per matrix and n, SciPy (bench/scipy-spmm.py: float32 csr_matrix @
# C-contiguous float32 B, one thread whatever the machine) is timed once;
# then per thread count ours (tcmul --device cpu --bench --verify, $TCMUL
# else the build tree's) and GraphBLAS (bench/graphblas-spmm: GrB_mxm
# PLUS_TIMES_FP32 with a full B, GxB_NTHREADS; $GRAPHBLAS_SPMM else the
# build tree's, built when configure found GraphBLAS).
#
# Writes OUT (default bench/results/cpu.tsv) with one row per matrix, n and
# thread count, the columns
#   host date commit matrix nnz n threads ours_ms scipy_ms graphblas_ms
#   ours_vs_scipy ours_vs_graphblas load command
# where *_vs_* are the competitor's median over ours (above 1: ours is
# faster), load is the 1-minute load average when the row started (other
# work on the machine slows every figure of the row) and command holds
# the three commands. A competitor that is not there gives NA. Exits 1
# when a run failed (its row is still written).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/cpu.tsv
ns="32 128"
threads="1 ALL"
warmup=3
iters=15
while getopts o:n:t:w:i: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    t) threads=$OPTARG ;;
    w) warmup=$OPTARG ;;
    i) iters=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-t \"THREADS...\"] [-w WARMUP]" \
            "[-i ITERS] [MATRIX...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
tcmul=$(bench_tool TCMUL tcmul)
tcconv=$(bench_tool TCCONV tcconv)
graphblas=${GRAPHBLAS_SPMM:-${top_builddir:-.}/bench/graphblas-spmm}
if [ ! -x "$graphblas" ]; then
    echo "$0: $graphblas not built (configure did not find GraphBLAS): graphblas_ms NA" >&2
    graphblas=
fi
python=
for py in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c 'import scipy.sparse, h5py' 2>/dev/null; then
        python=$py
        break
    fi
done
[ -n "$python" ] || echo "$0: no python3 with SciPy and h5py: scipy_ms NA" >&2
scipy_spmm=$here/bench/scipy-spmm.py
host=$(bench_host)
commit=$(bench_commit)
all=$(nproc 2>/dev/null || echo 1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpu-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'host\tdate\tcommit\tmatrix\tnnz\tn\tthreads\tours_ms\tscipy_ms\tgraphblas_ms' > "$tmp/out"
printf '\tours_vs_scipy\tours_vs_graphblas\tload\tcommand\n' >> "$tmp/out"
status=0

# ratio A B: A / B with 3 decimals, NA when either is NA
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "NA" || b == "NA" || b <= 0) print "NA";
                                            else printf "%.3f\n", a / b }'; }

for m in "$@"; do
    file=$(basename "$m")
    name=${file%.gz}
    name=${name%.mtx}
    name=${name%.tcf.h5}
    h5=$tmp/$name.tcf.h5
    if ! "$tcconv" -q "$m" -o "$h5"; then
        echo "$0: $m: tcconv failed" >&2
        status=1
        continue
    fi
    for n in $ns; do
        scipy_ms=NA
        scipy_cmd="scipy: NA"
        if [ -n "$python" ]; then
            scipy_cmd="$python bench/scipy-spmm.py $name.tcf.h5 $n float32 $warmup $iters"
            if set -- $("$python" "$scipy_spmm" "$h5" "$n" float32 "$warmup" "$iters"); then
                scipy_ms=$1
            else
                echo "$0: $name, n=$n: scipy-spmm.py failed" >&2
                status=1
            fi
        fi
        for t in $threads; do
            [ "$t" = ALL ] && t=$all
            load=$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo NA)
            args="--device cpu --bench --verify --bandwidth 1 --warmup $warmup --iters $iters"
            args="$args --tsv --cols $n --threads $t"
            # shellcheck disable=SC2086 # args is a word list by design
            if ! "$tcmul" $args "$h5" > "$tmp/row"; then
                echo "$0: $name, n=$n, $t threads: tcmul failed" >&2
                status=1
            fi
            nnz=$(awk -F '\t' '$2 == "input" && $3 == "nnz" { print $4 }' "$tmp/row")
            ours_ms=$(awk -F '\t' '$2 == "bench" && $3 == "median_ms" { v = $4 }
                                   END { print v == "" ? "NA" : v }' "$tmp/row")
            gb_ms=NA
            gb_cmd="graphblas: NA"
            if [ -n "$graphblas" ]; then
                gb_cmd="bench/graphblas-spmm $name.tcf.h5 $n $t $warmup $iters"
                if set -- $("$graphblas" "$h5" "$n" "$t" "$warmup" "$iters"); then
                    gb_ms=$1
                else
                    echo "$0: $name, n=$n, $t threads: graphblas-spmm failed" >&2
                    status=1
                fi
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
                "$host" "$(bench_date)" "$commit" "$name" "${nnz:-NA}" "$n" "$t" "$ours_ms" \
                "$scipy_ms" "$gb_ms" "$(ratio "$scipy_ms" "$ours_ms")" \
                "$(ratio "$gb_ms" "$ours_ms")" "$load" \
                "tcconv -q $file -o $name.tcf.h5; tcmul $args $name.tcf.h5; $scipy_cmd; $gb_cmd" \
                | tee -a "$tmp/out"
        done
    done
done
mkdir -p "$(dirname "$out")"
cp "$tmp/out" "$out"
echo "$0: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
