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
#     --bench), and the Python layer's cost per call (A @ X less the raw
#     call, microseconds; the target is at most 10).
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

# json FILE KEY: one value of a one-line JSON object ("-" when absent).
json() {
    "$py" -c 'import json, sys
v = json.load(open(sys.argv[1])).get(sys.argv[2], "-")
print(("%.6g" % v) if isinstance(v, float) else v)' "$1" "$2" 2>/dev/null || echo -
}

status=0
printf 'device\tdate\tcommit\tcommand\tmatrix\tn\tepoch_ms_torch\tepoch_ms_tcsparse\tloss_rel_diff\tloss_tolerance\tloss_agree\tmm_ms_torch\tmm_ms_tcsparse_python\tmm_ms_tcsparse_raw\tmm_ms_tc_plan_bench\tpython_overhead_us\tplan\n' \
    > "$tmp/rows.tsv"
for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    name=${name%.tcf.h5}
    for n in $ns; do
        gcn="python/examples/gcn.py --json --device $device --epochs $epochs --hidden $n"
        mm="bench/python-spmm.py --device $device -n $n --iters $iters --warmup $((iters / 10 + 1))"
        # shellcheck disable=SC2086 # the commands are word lists
        if ! "$py" "$here/"$gcn "$m" > "$tmp/gcn.json" 2> "$tmp/gcn.err"; then
            if grep -q "a square adjacency matrix was expected" "$tmp/gcn.err"; then
                : > "$tmp/gcn.json"
            else
                echo "$0: $name, n=$n: gcn.py failed: $(tail -n 1 "$tmp/gcn.err")" >&2
                status=1
            fi
        fi
        # shellcheck disable=SC2086
        if ! "$py" "$here/"$mm "$m" > "$tmp/mm.json" 2> "$tmp/mm.err"; then
            echo "$0: $name, n=$n: python-spmm.py failed: $(tail -n 1 "$tmp/mm.err")" >&2
            status=1
        fi
        where=$(json "$tmp/mm.json" device)
        [ "$where" = cpu ] && where=$(bench_host)
        printf '%s\t%s\t%s\t%s\t%s\t%s' "$where" "$date" "$commit" \
            "$gcn $(basename "$m") && $mm $(basename "$m")" "$name" "$n" >> "$tmp/rows.tsv"
        for k in epoch_ms_torch epoch_ms_tcsparse loss_rel_diff tolerance agree; do
            printf '\t%s' "$(json "$tmp/gcn.json" $k)"
        done >> "$tmp/rows.tsv"
        for k in torch_ms py_ms raw_ms c_bench_ms overhead_us plan; do
            printf '\t%s' "$(json "$tmp/mm.json" $k)"
        done >> "$tmp/rows.tsv"
        echo >> "$tmp/rows.tsv"
    done
done
mkdir -p "$(dirname "$out")"
cp "$tmp/rows.tsv" "$out"
echo "python.sh: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
