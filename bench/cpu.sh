#!/bin/sh
# cpu.sh: the CPU path (tcmul --device cpu) against SciPy and
# SuiteSparse:GraphBLAS, each timed in the same run on the same matrix, B
# and machine.
#
#   bench/cpu.sh [-o OUT.tsv] [-n "N..."] [-t "THREADS..."] [-w WARMUP]
#                [-i ITERS] [-r ROUNDS] [MATRIX...]
#
# Matrices (.mtx[.gz] or .tcf.h5) default to every .mtx.gz of
# $TC_SHARED_DATA, else ../shared/data beside the tree; n defaults to
# "32 128", threads to "1 ALL" (ALL: every CPU, nproc). Each matrix is
# first converted to a .tcf.h5 in a temporary folder (tcconv), which all
# three read. The three are:
#   ours       tcmul --device cpu --bench --verify ($TCMUL, else the build
#              tree's), per thread count
#   SciPy      bench/scipy-spmm.py: float32 csr_matrix @ C-contiguous
#              float32 B, one thread whatever the machine (so timed once per
#              round and shared by the rows of every thread count)
#   GraphBLAS  bench/graphblas-spmm: GrB_mxm PLUS_TIMES_FP32 with a full B
#              on GxB_NTHREADS threads ($GRAPHBLAS_SPMM, else the build
#              tree's, built when configure found GraphBLAS)
# Every timing is the median of ITERS (default 5) runs after WARMUP
# (default 1); per matrix and n the three are timed in turn ROUNDS times
# (default 3), so that a burst of other work on the machine falls on all
# of them alike, and each figure is the median of its rounds.
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
warmup=1
iters=5
rounds=3
while getopts o:n:t:w:i:r: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    t) threads=$OPTARG ;;
    w) warmup=$OPTARG ;;
    i) iters=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-t \"THREADS...\"] [-w WARMUP]" \
            "[-i ITERS] [-r ROUNDS] [MATRIX...]" >&2
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

# ours N T / graphblas N T / scipy N: one timing (median of ITERS), or NA
ours() {
    # shellcheck disable=SC2086 # ours_args is a word list by design
    if ! "$tcmul" $ours_args --cols "$1" --threads "$2" "$h5" > "$tmp/row"; then
        echo "$0: $name, n=$1, $2 threads: tcmul failed" >&2
        echo 1 > "$tmp/failed"
    fi
    awk -F '\t' '$2 == "input" && $3 == "nnz" { print $4 > "'"$tmp/nnz"'" }
                  $2 == "bench" && $3 == "median_ms" { v = $4 }
                  END { print v == "" ? "NA" : v }' "$tmp/row"
}
graphblas() {
    [ -n "$graphblas" ] || { echo NA; return; }
    "$graphblas" "$h5" "$1" "$2" "$warmup" "$iters" > "$tmp/gb" ||
        { echo "$0: $name, n=$1, $2 threads: graphblas-spmm failed" >&2; echo 1 > "$tmp/failed"; }
    cut -f 1 "$tmp/gb" | grep . || echo NA
}
scipy() {
    [ -n "$python" ] || { echo NA; return; }
    "$python" "$scipy_spmm" "$h5" "$1" float32 "$warmup" "$iters" > "$tmp/sp" ||
        { echo "$0: $name, n=$1: scipy-spmm.py failed" >&2; echo 1 > "$tmp/failed"; }
    cut -f 1 "$tmp/sp" | grep . || echo NA
}
# median of the words given (NA when any is NA)
median() {
    printf '%s\n' "$@" | sort -g | awk '$1 == "NA" { na = 1 } { v[NR] = $1 }
        END { if (na || NR == 0) print "NA"
              else print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
threads_list=
for t in $threads; do
    [ "$t" = ALL ] && t=$all
    threads_list="$threads_list $t"
done
ours_args="--device cpu --bench --verify --bandwidth 1 --warmup $warmup --iters $iters --tsv"

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
    echo NA > "$tmp/nnz"
    for n in $ns; do
        load=$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo NA)
        sp_all=
        for t in $threads_list; do
            eval "ours_$t= gb_$t="
        done
        r=0
        while [ $r -lt "$rounds" ]; do
            sp_all="$sp_all $(scipy "$n")"
            for t in $threads_list; do
                eval "ours_$t=\"\$ours_$t $(ours "$n" "$t")\""
                eval "gb_$t=\"\$gb_$t $(graphblas "$n" "$t")\""
            done
            r=$((r + 1))
        done
        scipy_ms=$(median $sp_all)
        nnz=$(cat "$tmp/nnz")
        for t in $threads_list; do
            eval "ours_ms=\$(median \$ours_$t); gb_ms=\$(median \$gb_$t)"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
                "$host" "$(bench_date)" "$commit" "$name" "${nnz:-NA}" "$n" "$t" "$ours_ms" \
                "$scipy_ms" "$gb_ms" "$(ratio "$scipy_ms" "$ours_ms")" \
                "$(ratio "$gb_ms" "$ours_ms")" "$load" \
                "tcconv -q $file -o $name.tcf.h5; $rounds rounds of: tcmul $ours_args --cols $n --threads $t $name.tcf.h5; $python bench/scipy-spmm.py $name.tcf.h5 $n float32 $warmup $iters; bench/graphblas-spmm $name.tcf.h5 $n $t $warmup $iters" \
                | tee -a "$tmp/out"
        done
    done
done
[ -f "$tmp/failed" ] && status=1
mkdir -p "$(dirname "$out")"
cp "$tmp/out" "$out"
echo "$0: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
