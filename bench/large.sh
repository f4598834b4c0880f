#!/bin/sh
# large.sh: SpMM on matrices of 30M to 500M nonzeros (issue 29, "A
# large-matrix bench"): what building the formats and each reordering
# cost, and every GPU path's time, its fraction of the common floor, the
# DRAM bytes ncu counts and those the traffic model predicts.
#
#   bench/large.sh [-o OUT.tsv] [-n "N..."] [-m "MATRIX..."] [-f "PATH..."]
#                  [-r "ORDER..."] [-p PARAMS] [-d DIR] [--dry-run]
#
# MATRIX is bench/gen's KIND and operands joined by ':' (rmat:22:16 is
# `gen rmat 22 16`), named in the rows with '-' (rmat-22-16). The default
# list: R-MAT of 2^22 and 2^23 rows at edge factor 16 (Graph500), the
# 27-point stencil of a 120^3 grid (46M nonzeros), the 7-point one of
# 170^3 (34M) and a band matrix of 2.4M rows and 128 nonzeros a row (307M).
# N defaults to "32 128"; PATH to every format of `tcconv --list-formats`
# (csr is cuSPARSE itself); ORDER (the row orders to run: "original", the
# generated one, or a tcreorder method) to "original wjaccard jaccard".
# Any of the lists may be cut to fit a run into a time limit (a row took
# 50-90 s on an H100 at 34M-307M nonzeros: the defaults, about 200 rows,
# take about four hours). Files go to DIR (default $TMPDIR or /tmp;
# the band matrix takes about 20 GB) and are removed as each matrix ends.
#
# For every matrix: bench/gen writes it (-o, values in [-1, 1)); for each
# ORDER (tcreorder -m METHOD for a method), tcconv builds the
# formats into the file (with -p PARAMS, tcconv's format parameters, such
# as seg=64 for rowsplit's segments; each must belong to a PATH), and for
# every N and PATH
#   tcmul --device gpu --format PATH --order given --bench --verify --tsv
#         --cols N --seed N --no-plan-cache FILE
# times the path and cuSPARSE in the same run; `tcstat -f PATHS --cols N`
# (once for all paths; again with --b-half for a path whose chosen variant
# ran in fp16, which converts B first and gathers 2 bytes an element)
# gives the traffic model's prediction, and ncu the
# DRAM bytes of one
# product with the variant the bench chose (tcmul --variant V --verify, no
# --bench: the launches of the kernel alone, summed over its kernels, the
# last launch of each, after any trial run of the variant's selection; the
# plan's own launches around it, kernels/permute.cu's, are left out). Without ncu the column is "-" (said once on stderr).
# tcconv and tcreorder run under bench/measure (wall time, peak resident
# memory).
#
# Appends one row per matrix, order, N and PATH to
# bench/results/large.tsv (or OUT.tsv):
#   device date commit matrix order n path nnz variant median_ms
#   cusparse_ms speedup floor_fraction verify rel_fro dram_bytes
#   predicted_dram_bytes conv_s conv_peak_mb reorder_s reorder_peak_mb
#   command
# (reorder_* are "-" in the original order's rows; command is the whole recipe
# of the row). Exits 1 without a CUDA device, having written nothing, and
# non-zero when any run failed (its row is still written). --dry-run
# prints the commands instead of running them.
#
# Programs: $GEN and $MEASURE (the build tree's bench/), $TCCONV,
# $TCREORDER, $TCSTAT, $TCMUL (tools/), else from a bundle's bin/ with
# top_builddir set to the bundle (bench/lib.sh); $NCU (default: ncu).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/lib.sh"

usage() {
    echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [-m \"MATRIX...\"] [-f \"PATH...\"] [-r \"ORDER...\"] [-p PARAMS] [-d DIR] [--dry-run]" >&2
    exit 2
}
bad_usage() {
    echo "$0: $1" >&2
    usage
}

dry=0
for _a in "$@"; do
    shift
    case $_a in
    --dry-run) dry=1 ;;
    --*) bad_usage "unknown option '$_a'" ;;
    *) set -- "$@" "$_a" ;;
    esac
done
out=$here/bench/results/large.tsv
ns="32 128"
matrices="rmat:22:16 rmat:23:16 stencil:120:27 stencil:170:7 band:2400000:128"
paths=
paths_given=0
orders="original wjaccard jaccard"
dir=${TMPDIR:-/tmp}
params=
while getopts o:n:m:f:r:p:d: opt; do
    case $opt in
    o) out=$OPTARG ;;
    n) ns=$OPTARG ;;
    m) matrices=$OPTARG ;;
    f) paths=$OPTARG paths_given=1 ;;
    r) orders=$OPTARG ;;
    p) params=$OPTARG ;;
    d) dir=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || bad_usage "unexpected operand '$1' (matrices are given with -m)"

gen=$(bench_program GEN gen)
measure=$(bench_program MEASURE measure)
tcconv=$(bench_tool TCCONV tcconv)
tcreorder=$(bench_tool TCREORDER tcreorder)
tcstat=$(bench_tool TCSTAT tcstat)
tcmul=$(bench_tool TCMUL tcmul)
ncu=${NCU:-ncu}

# Every argument checked before anything runs.
[ -n "$ns" ] || bad_usage "-n: no column count given"
for n in $ns; do
    case $n in
    '' | *[!0-9]* | 0*) bad_usage "-n: '$n' is not a positive whole number" ;;
    esac
done
formats=$("$tcconv" --list-formats | awk '/^[^ ]/ { print $1 }')
[ "$paths_given" -eq 1 ] || paths=$formats
[ -n "$paths" ] || bad_usage "-f: no path given"
for p in $paths; do
    echo "$formats" | grep -qx "$p" ||
        bad_usage "-f: unknown path '$p' (known: $(echo "$formats" | paste -sd ' ' -))"
done
kinds=$("$gen" --help | awk '/Kinds:$/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
[ -n "$matrices" ] || bad_usage "-m: no matrix given"
for spec in $matrices; do
    echo "$spec" | grep -Eq '^[a-z]+(:[0-9.]+)+$' ||
        bad_usage "-m: '$spec' is not KIND:OPERAND[:OPERAND...] (e.g. rmat:22:16)"
    echo "$kinds" | grep -qx "${spec%%:*}" ||
        bad_usage "-m: unknown kind '${spec%%:*}' in '$spec' (known: $(echo "$kinds" | paste -sd ' ' -))"
done
orders_known=$({ echo original; "$tcreorder" --list-methods | awk '/^[^ ]/ { print $1 }'; } |
    paste -sd ' ' -)
[ -n "$orders" ] || bad_usage "-r: no order given"
for o in $orders; do
    echo "$orders_known" | tr ' ' '\n' | grep -qx "$o" ||
        bad_usage "-r: unknown order '$o' (known: $orders_known)"
done
# the formats tcconv stores (csr is the matrix itself), and all paths
paths_list=$(printf '%s\n' $paths | paste -sd , -)
built=$(printf '%s\n' $paths | grep -vx csr | paste -sd , -)

# tcmul's figures in each row, after device ... path.
REPORT_COLUMNS="nnz=input.nnz variant=run.variant median_ms=bench.median_ms
    cusparse_ms=baseline.median_ms speedup=baseline.speedup
    floor_fraction=bench.floor_fraction verify=verify.result rel_fro=verify.rel_fro"
report_keys=$(bench_column_keys "$REPORT_COLUMNS")

if [ "$dry" -eq 0 ]; then
    if ! devices=$("$tcmul" --list-devices 2>&1); then
        echo "$0: no CUDA device ($devices): nothing measured" >&2
        exit 1
    fi
    work=$(mktemp -d "${dir%/}/large.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    command -v "$ncu" > /dev/null ||
        echo "$0: $ncu not found: dram_bytes is '-' in every row" >&2
    device=$(bench_device)
    commit=$(bench_commit)
    [ -s "$out" ] || {
        mkdir -p "$(dirname "$out")"
        printf 'device\tdate\tcommit\tmatrix\torder\tn\tpath\t%s\tdram_bytes\tpredicted_dram_bytes\tconv_s\tconv_peak_mb\treorder_s\treorder_peak_mb\tcommand\n' \
            "$(bench_column_names "$REPORT_COLUMNS")" > "$out"
    }
else
    work=${dir%/}/large.XXXXXX
    echo "# VARIANT: the variant the bench run before it chose (run.variant)"
fi


# show CMD...: the command as a line of shell.
show() {
    for _w in "$@"; do
        printf '%s ' "$_w"
    done
    echo
}

# timed NAME CMD...: runs CMD under bench/measure; $secs and $peak_mb are
# its wall time and peak resident memory. --dry-run: prints CMD.
timed() {
    _tn=$1
    shift
    secs=- peak_mb=-
    if [ "$dry" -eq 1 ]; then
        show "$@"
        return 0
    fi
    rm -f "$work/$_tn.m"
    "$measure" "$work/$_tn.m" "$@" || return 1
    secs=$(cut -f 1 "$work/$_tn.m")
    peak_mb=$(awk -F '\t' '{ printf "%.0f", $2 / 1024 }' "$work/$_tn.m")
}

# dram FILE PATH N VARIANT: ncu's DRAM bytes (read + written) of one
# product of PATH's kernel with VARIANT, "-" where ncu is missing or fails.
dram() {
    # --verify: one product, checked on the CPU (no -o to write C to)
    _cmd="$tcmul --device gpu --format $2 --variant $4 --order given --verify --cols $3 --seed $3 $1"
    if [ "$dry" -eq 1 ]; then
        # shellcheck disable=SC2086 # _cmd is a word list by design
        show "$ncu" --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv \
            --print-units base $_cmd
        return 0
    fi
    command -v "$ncu" > /dev/null || { echo -; return 0; }
    # shellcheck disable=SC2086 # _cmd is a word list by design
    if ! "$ncu" --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base \
        $_cmd > "$work/ncu.csv" 2> "$work/ncu.err"; then
        echo "$0: ncu failed on $(basename "$1") $2 n=$3: $(tail -n 3 "$work/ncu.err")" >&2
        echo -
        return 0
    fi
    awk -F '","' '
        /^"ID"/ { for (i = 1; i <= NF; i++) { h = $i; gsub(/"/, "", h); col[h] = i }; next }
        /^"/ && col["Metric Value"] {
            id = $col["ID"]; gsub(/"/, "", id)
            name = $col["Kernel Name"]
            base = name; sub(/[<(].*/, "", base); sub(/.* /, "", base)
            # the plan moving rows of B and C and checking B, not the kernel
            if (base ~ /^(move_rows|gather_rows64|max_abs_kernel|find_beyond|hold_kernel)$/)
                next
            v = $col["Metric Value"]; gsub(/[",]/, "", v)
            bytes[id] += v
            if (!(name in last) || id + 0 > last[name] + 0)
                last[name] = id
        }
        END {
            for (k in last) { total += bytes[last[k]]; seen = 1 }
            if (seen) printf "%.0f\n", total; else print "-"
        }' "$work/ncu.csv"
}

# model FILE N [--b-half]: the traffic model of every path at N columns
# (tcstat; with --b-half, of kernels that gather B in fp16), into
# $work/model.tsv or $work/model-half.tsv (empty when tcstat failed).
model() {
    _to=$work/model${3:+-half}.tsv
    if [ "$dry" -eq 1 ]; then
        show "$tcstat" -q -f "$paths_list" --cols "$2" ${3:+"$3"} --tsv "$1"
        return 0
    fi
    "$tcstat" -q -f "$paths_list" --cols "$2" ${3:+"$3"} --tsv "$1" > "$_to" || {
        echo "$0: $(basename "$1") n=$2: tcstat${3:+ $3} failed" >&2
        : > "$_to"
        status=1
    }
}

status=0
for spec in $matrices; do
    name=$(echo "$spec" | tr : -)
    # shellcheck disable=SC2046 # the operands are words by design
    set -- $(echo "$spec" | tr : ' ')
    base=$work/$name.tcf.h5
    if [ "$dry" -eq 1 ]; then
        show "$gen" -q -o "$base" "$@"
    else
        echo "large.sh: $name: generating" >&2
        "$gen" -q -o "$base" "$@" || { echo "$0: $name: gen failed" >&2; status=1; continue; }
    fi
    recipe="gen -o $name.tcf.h5 $*"
    for order in $orders; do
        file=$base re_s=- re_mb=- step=$recipe
        if [ "$order" != original ]; then
            file=$work/$name-$order.tcf.h5
            timed "reorder-$order" "$tcreorder" -q -m "$order" --no-compress -o "$file" "$base" ||
                { echo "$0: $name: tcreorder -m $order failed" >&2; status=1; continue; }
            re_s=$secs re_mb=$peak_mb
            step="$step && tcreorder -q -m $order --no-compress -o $name-$order.tcf.h5 $name.tcf.h5"
        fi
        mfile=${file%.tcf.h5}-formats.tcf.h5
        conv_s=- conv_mb=-
        if [ -n "$built" ]; then
            timed "conv-$order" "$tcconv" -q -f "$built" ${params:+-p "$params"} --no-compress \
                "$file" -o "$mfile" ||
                { echo "$0: $name ($order): tcconv failed" >&2; status=1; continue; }
            conv_s=$secs conv_mb=$peak_mb
            step="$step && tcconv -q -f $built${params:+ -p $params} --no-compress $(basename "$file") -o $(basename "$mfile")"
        else
            mfile=$file
        fi
        for n in $ns; do
            model "$mfile" "$n"
            rm -f "$work/model-half.tsv"
            for p in $paths; do
                # --no-plan-cache: tuned afresh, as bench_tcmul_sweep's rows
                args="--device gpu --format $p --order given --bench --verify --tsv --cols $n --seed $n --no-plan-cache"
                if [ "$dry" -eq 1 ]; then
                    # shellcheck disable=SC2086 # args is a word list by design
                    show "$tcmul" $args "$mfile"
                    dram "$mfile" "$p" "$n" VARIANT
                    continue
                fi
                echo "large.sh: $name ($order), n=$n, $p" >&2
                # shellcheck disable=SC2086 # args is a word list by design
                "$tcmul" $args "$mfile" > "$work/report.tsv" ||
                    { echo "$0: $name ($order), n=$n, $p: tcmul failed" >&2; status=1; }
                variant=$(bench_report_values "$work/report.tsv" run.variant)
                dram_bytes=-
                [ -z "$variant" ] || dram_bytes=$(dram "$mfile" "$p" "$n" "$variant")
                model_tsv=$work/model.tsv
                if [ "$(bench_report_values "$work/report.tsv" run.precision)" = fp16 ]; then
                    [ -e "$work/model-half.tsv" ] || model "$mfile" "$n" --b-half
                    model_tsv=$work/model-half.tsv
                fi
                predicted_bytes=$(bench_report_values "$model_tsv" "traffic.$p.dram_bytes")
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
                    "$device" "$(bench_date)" "$commit" "$name" "$order" "$n" "$p" \
                    "$(bench_report_values "$work/report.tsv" "$report_keys")" \
                    "$dram_bytes" "${predicted_bytes:--}" "$conv_s" "$conv_mb" "$re_s" "$re_mb" \
                    "$step && tcmul $args $(basename "$mfile")" >> "$out"
            done
        done
        [ "$dry" -eq 1 ] || rm -f "$mfile" "$work/$name-$order.tcf.h5"
    done
    [ "$dry" -eq 1 ] || rm -f "$base"
done
[ "$dry" -eq 1 ] || echo "large.sh: rows appended to $out" >&2
exit $status
