#!/bin/sh
# rowsplit.sh: the CUDA-core rowsplit kernel (kernels/rowsplit.cu) against
# cuSPARSE on the low-density graph classes of issue 29, where tensor-core
# blocks are too sparse to pay: dense random directed graphs and power-law
# user-item (bipartite) graphs of 1 to 10 million nonzeros.
#
#   bench/rowsplit.sh [-o OUT.tsv] [-n "32 128"] [-s "64"] [-r "0 1"] [MATRIX...]
#
# Without MATRIX operands it generates (bench/gen, seed 1, .tcf.h5)
#   random 14000 132                 1.85M nonzeros, 132 a row
#   random 100000 50                 5.0M
#   bipartite 71000 20000 26         1.6M, Pareto user degrees, Zipf items
#   bipartite 500000 100000 22       10.0M
# and converts each with `tcconv -f rowsplit -p seg=S` for every segment
# cost S of -s (a list sweeps it: what seg trades is in man/tcf.h5.5); the
# word `default`, which is -s's default, converts without -p, so that the
# format picks seg from the matrix (its seg column then says `default`);
# likewise for every row order of -r (tcconv -p order=O: 0 the matrix's,
# 1 longest rows first; `default`, -r's default, lets the format choose;
# the order column).
# MATRIX operands (.mtx[.gz] or .tcf.h5) replace the generated ones. For every converted matrix and n of -n runs
#   tcmul --device gpu --no-plan-cache --format rowsplit --bench --verify --tsv --cols N --seed N A
# (the fastest variant timed with CUDA events after warm-up over rotated
# operands; cuSPARSE's fastest CSR algorithm on the same operands, in the
# same run) and writes one TSV row (bench/lib.sh's columns, then seg, order, the
# variant chosen and each variant's median: vec4, scalar, half,
# lockstep_half, vec4_prefetch; "-" in the rows from before each) to OUT (default
# bench/results/rowsplit.tsv). TCMUL, TCCONV and GEN name the programs to
# run (default: the build tree's); COMMIT overrides the commit.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"
out=$here/bench/results/rowsplit.tsv
ns="32 128"
segs=default
orders=default
while getopts o:n:s:r: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    s) segs=$OPTARG ;;
    r) orders=$OPTARG ;;
    *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-s \"SEG...\"] [-r \"ORDER...\"] [MATRIX...]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
tcconv=$(bench_tool TCCONV tcconv)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/conv"
status=0

# conv_params SEG ORDER: tcconv's -p for them ("default" ones left out).
conv_params() {
    _p=
    [ "$1" = default ] || _p="seg=$1"
    [ "$2" = default ] || _p="${_p:+$_p,}order=$2"
    echo ${_p:+-p $_p}
}

# The generated classes: NAME is the kind and its operands joined by '-'.
if [ $# -eq 0 ]; then
    gen=$(bench_program GEN gen)
    for spec in "random 14000 132" "random 100000 50" "bipartite 71000 20000 26" \
                "bipartite 500000 100000 22"; do
        # shellcheck disable=SC2086 # spec is the kind and its operands
        "$gen" -q -o "$tmp/src/$(echo $spec | tr ' ' -).tcf.h5" $spec ||
            { echo "rowsplit: gen $spec failed" >&2; status=1; }
    done
    set -- "$tmp"/src/*.tcf.h5
fi

for m in "$@"; do
    name=$(basename "$m")
    name=${name%.gz}
    name=${name%.mtx}
    name=${name%.tcf.h5}
    for s in $segs; do
        for o in $orders; do
            p=$(conv_params "$s" "$o")
            # the conversion's name, its options and the file converted, for
            # the rows' commands
            printf '%s\t%s\t%s\n' "$name-seg$s-order$o" "$p" "$(basename "$m")" \
                >> "$tmp/conversions.tsv"
            # shellcheck disable=SC2086 # p is the option and its value, or nothing
            "$tcconv" -q -f rowsplit $p -o "$tmp/conv/$name-seg$s-order$o.tcf.h5" "$m" ||
                { echo "rowsplit: $name: tcconv $p failed" >&2; status=1; }
        done
    done
done

columns="$BENCH_SPMM_COLUMNS
    floor_fraction=bench.floor_fraction
    variant=run.variant
    vec4_ms=variants.vec4_ms
    scalar_ms=variants.scalar_ms
    half_ms=variants.half_ms
    lockstep_half_ms=variants.lockstep-half_ms
    vec4_prefetch_ms=variants.vec4-prefetch_ms
    $BENCH_CHECK_COLUMNS"
(bench_tcmul_sweep rowsplit "$tmp/all.tsv" "$ns" "--format rowsplit" "$columns" \
    "$tmp"/conv/*.tcf.h5) || status=1

# Split "NAME-segS-orderO" into the matrix, a seg and an order column; the
# command starts with how the matrix was made (gen), then its conversion
# (conversions.tsv).
awk -F '\t' -v OFS='\t' '
    FNR == NR { opts[$1] = $2; src[$1] = $3; next }
    FNR == 1 { $4 = $4 OFS "seg" OFS "order"; print; next }
    {
        conv = $4
        o = $4; sub(/.*-order/, "", o); sub(/-order([0-9]+|default)$/, "", $4)
        s = $4; sub(/.*-seg/, "", s); sub(/-seg([0-9]+|default)$/, "", $4)
        made = $4; gsub(/-/, " ", made)
        $NF = (made ~ /^(random|bipartite) / ? "gen -o " $4 ".tcf.h5 " made " && " : "") \
              "tcconv -f rowsplit " (opts[conv] == "" ? "" : opts[conv] " ") "-o " conv \
              ".tcf.h5 " src[conv] " && " $NF
        $4 = $4 OFS s OFS o
        print
    }' "$tmp/conversions.tsv" "$tmp/all.tsv" > "$tmp/out.tsv"
mkdir -p "$(dirname "$out")"
cp "$tmp/out.tsv" "$out"
echo "rowsplit: $(($(wc -l < "$out") - 1)) rows in $out" >&2
exit $status
