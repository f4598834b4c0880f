#!/bin/sh
# bench/python.sh: tcsparse from Python against PyTorch's own sparse multiply
# (issue 28). For every matrix and n, one row of bench/results/python.tsv:
#   - a two-layer GCN training epoch (python/examples/gcn.py, hidden width
#     n, seeded features and labels): the median epoch time with
#     torch.sparse.mm and with tcsparse, and whether their losses agree
#     within the plans' tolerance (non-square matrices: no graph, "-");
#   - the multiply alone (bench/python-spmm.py): torch.sparse.mm, tcsparse's
#     A @ X, the same plan's tc_plan_execute called straight through ctypes,
#     the library's own figure for the plan (tc_plan_bench, as tcmul
#     --bench), and the Python layer's cost per call (the fastest of 9
#     rounds of A @ X less the fastest of the raw call's, microseconds; the
#     target is at most 10).
# bench/python-rows.py measures a matrix's rows in one process; each row's
# command column has the two standalone commands for the same figures.
#
#   bench/python.sh [-o OUT.tsv] [-n "N..."] [-d cpu|cuda] [-e EPOCHS] [-i ITERS]
#                   [MATRIX...]
#
# Defaults: bench/results/python.tsv, n = 32 and 128, the GPU when PyTorch
# sees one, 10 epochs, 200 timed products per figure, every .mtx.gz of $TC_SHARED_DATA (else ../shared/data).
# The library: $TCSPARSE_LIBRARY, else the build tree's ($top_builddir, else
# _build); PYTHON names the interpreter (default python3). On the GPU machine,
# from a bundle in .gpu/ (tcsparse(7) of python/README.md):
#   LD_LIBRARY_PATH=$PWD/.gpu/lib TCSPARSE_LIBRARY=$PWD/.gpu/lib/libtcsparse.so.0 \
#       COMMIT=<commit> sh bench/python.sh
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/python.tsv
ns="32 128"
device=
epochs=10
iters=200
while getopts o:n:d:e:i: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    d) device=$OPTARG ;;
    e) epochs=$OPTARG ;;
    i) iters=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-d cpu|cuda] [-e EPOCHS] [-i ITERS] [MATRIX...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
py=${PYTHON:-python3}
TCSPARSE_LIBRARY=${TCSPARSE_LIBRARY:-${top_builddir:-$here/_build}/lib/.libs/libtcsparse.so.0}
PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
export TCSPARSE_LIBRARY PYTHONPATH
[ -n "$device" ] ||
    device=$("$py" -c 'import torch; print("cuda" if torch.cuda.is_available() else "cpu")') ||
    { echo "$0: $py cannot import torch" >&2; exit 1; }
commit=$(bench_commit)
date=$(bench_date)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# timed plans go to a scratch cache, so each run plans afresh
TC_PLAN_CACHE=$tmp/plans
export TC_PLAN_CACHE

status=0
printf 'device\tdate\tcommit\tcommand\tmatrix\tn\tepoch_ms_torch\tepoch_ms_tcsparse\tloss_rel_diff\tloss_tolerance\tloss_agree\tmm_ms_torch\tmm_ms_tcsparse_python\tmm_ms_tcsparse_raw\tmm_ms_tc_plan_bench\tpython_overhead_us\tplan\n' \
    > "$tmp/rows.tsv"
for m in "$@"; do
    # one process per matrix (bench/python-rows.py: PyTorch's import and
    # CUDA's start were most of each row's time)
    if ! "$py" "$here/bench/python-rows.py" --device "$device" --commit "$commit" \
        --date "$date" --host "$(bench_host)" -n "$ns" --epochs "$epochs" --iters "$iters" \
        "$m" >> "$tmp/rows.tsv" 2> "$tmp/err"; then
        echo "$0: $(basename "$m"): $(grep -v Warning "$tmp/err" | tail -n 1)" >&2
        status=1
    else
        echo "python.sh: $(basename "$m") done" >&2
    fi
done
mkdir -p "$(dirname "$out")"
cp "$tmp/rows.tsv" "$out"
echo "python.sh: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
