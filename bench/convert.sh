#!/bin/sh
# convert.sh: how fast the CPU builds a tensor-core format from CSR
# (tc_fmt_build alone: the matrix is read first and not timed), on one
# thread and on all of them.
#
#   bench/convert.sh [-o OUT.tsv] [-f FORMAT] [MATRIX.mtx[.gz]...]
#
# FORMAT defaults to brp (target of issue 3: >= 50 million nonzeros per
# second per core); matrices default to gupta2 and fb100_Cornell5 of
# $TC_SHARED_DATA (else ../shared/data beside the source tree).
# bench/convert (built with the tree; CONVERT names another) times the
# best of 7 builds with $TC_THREADS threads, each build into fresh memory,
# as a tool converting one file gets it. Appends to
# bench/results/convert.tsv (or OUT.tsv) the columns
#   date commit host matrix nnz threads seconds Mnnz/s command
# where nnz counts the stored nonzeros (symmetric files expanded) and
# Mnnz/s is nnz / seconds / 10^6 (per core: divide by threads). The
# commit is git's HEAD, with "-dirty" when the tree has local
# changes.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bench/results/convert.tsv
format=brp
while getopts o:f: opt; do
    case $opt in
    o) out=$OPTARG ;;
    f) format=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-f FORMAT] [MATRIX...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
data=${TC_SHARED_DATA:-$here/../shared/data}
[ $# -gt 0 ] || set -- "$data/gupta2.mtx.gz" "$data/fb100_Cornell5.mtx.gz"
. "$here/bench/lib.sh"
convert=$(bench_program CONVERT convert)
commit=$(bench_commit)
host=$(bench_host)
cpus=$(nproc)
date=$(bench_date)
[ -f "$out" ] || printf 'date\tcommit\thost\tmatrix\tnnz\tthreads\tseconds\tMnnz/s\tcommand\n' >"$out"

for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    for threads in 1 $cpus; do
        set -- $(TC_THREADS=$threads "$convert" "$format" "$m" 7)
        awk -v d="$date" -v c="$commit" -v h="$host" -v m="$name" -v n="$1" -v t="$threads" \
            -v s="$2" -v cmd="TC_THREADS=$threads bench/convert $format $name.mtx.gz 7" 'BEGIN {
            printf "%s\t%s\t%s\t%s\t%d\t%d\t%.6f\t%.1f\t%s\n", d, c, h, m, n, t, s,
                   n / s / 1e6, cmd }' | tee -a "$out"
        [ "$cpus" -gt 1 ] || break
    done
done
