# bench/lib.sh: what every bench/*.sh records about a run, so that each row
# of bench/results/ says where and from what it came. Source it after
# setting $here to the source tree.

# The commit measured: $COMMIT when set (the GPU machine gets a copy of the
# tree without .git), else git's short HEAD, with "-dirty" when files other
# than the recorded results differ from it.
bench_commit() {
    if [ -n "${COMMIT:-}" ]; then
        echo "$COMMIT"
        return
    fi
    _c=$(git -C "$here" rev-parse --short HEAD 2>/dev/null) || { echo uncommitted; return; }
    if [ -n "$(git -C "$here" status --porcelain -- . ':!bench/results' 2>/dev/null)" ]; then
        _c=$_c-dirty
    fi
    echo "$_c"
}

# "AMD EPYC (2 CPUs)": the CPU model and how many there are.
bench_host() {
    _h=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    echo "${_h:-$(uname -m)} ($(nproc) CPUs)"
}

bench_date() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# bench_program VAR NAME: the path of the driver bench/NAME ($VAR when set,
# else the build tree's), or a message and exit 1 when it is not built.
bench_program() { _bench_built "$1" bench "$2"; }

# bench_tool VAR NAME: the same for the tool tools/NAME.
bench_tool() { _bench_built "$1" tools "$2"; }

# A bundle (top_builddir=.gpu) holds the tools and the bench programs in
# bin/ instead of the build tree's tools/ and bench/.
_bench_built() {
    eval "_v=\${$1:-}"
    _p=${_v:-${top_builddir:-.}/$2/$3}
    [ -n "$_v" ] || [ -x "$_p" ] || [ ! -x "${top_builddir:-.}/bin/$3" ] ||
        _p=${top_builddir:-.}/bin/$3
    if [ ! -x "$_p" ]; then
        echo "$0: $_p not found: run from the build directory after make, or set $1" >&2
        exit 1
    fi
    echo "$_p"
}

# The GPU's name ("NVIDIA H200"), else the host's (bench_host) where
# nvidia-smi is missing.
bench_device() {
    _d=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
    echo "${_d:-$(bench_host)}"
}

# The columns every SpMM table starts with (the shape, n, the kernel's
# median and GFLOP/s, cuSPARSE's median, algorithm and the speedup over
# it) and ends with (the verification), as bench_tcmul_sweep's COLUMNS.
BENCH_SPMM_COLUMNS="
    rows=input.rows
    cols=input.cols
    nnz=input.nnz
    n=input.n
    median_ms=bench.median_ms
    gflops=bench.gflops
    cusparse_ms=baseline.median_ms
    cusparse_algorithm=baseline.variant
    speedup=baseline.speedup"
BENCH_CHECK_COLUMNS="
    rel_fro=verify.rel_fro
    verify=verify.result"

# bench_column_names COLUMNS: the headers of COLUMNS ("header=section.key"
# words), tab-separated; bench_column_keys COLUMNS: their "section.key"s.
bench_column_names() {
    _sep=
    for _c in $1; do
        printf '%s%s' "$_sep" "${_c%%=*}"
        _sep=$(printf '\t')
    done
}
bench_column_keys() {
    for _c in $1; do
        printf '%s ' "${_c#*=}"
    done
}

# bench_report_values REPORT KEYS: the values of KEYS ("section.key"
# words) in REPORT (tcmul's or tcstat's --tsv report of one input),
# tab-separated, empty where the report has none.
bench_report_values() {
    awk -F '\t' -v keys="$2" '
        NR > 1 { v[$2 "." $3] = $4 }
        END {
            nk = split(keys, k, " ")
            for (i = 1; i <= nk; i++)
                printf "%s%s", (i > 1 ? "\t" : ""), v[k[i]]
            printf "\n"
        }' "$1"
}

# bench_tcmul_sweep TAG OUT NS OPTIONS COLUMNS ARGS...: the GPU tables.
# Parses ARGS as a script's own command line ([-o OUT.tsv] [-n "N..."]
# [MATRIX...]; OUT and NS are the defaults; matrices (.mtx[.gz] or .tcf.h5,
# named in the rows without the suffix) default to every .mtx.gz of
# $TC_SHARED_DATA, else ../shared/data beside the tree). For
# every matrix and n runs
#   tcmul --device gpu --no-plan-cache OPTIONS --bench --verify --tsv --cols N --seed N MATRIX
# (--dim N instead of --cols N when $BENCH_SIZE_OPT is --dim: attention)
# ($TCMUL, else the build tree's tools/tcmul) and writes one TSV row: device,
# date, commit, matrix, then one column per COLUMNS word "header=section.key"
# (a figure of tcmul's report), then the exact command. Exits non-zero when
# any run failed (its row is still written, with what the report held).
# --no-plan-cache (SpMM: attention plans are not stored): a plan stored by
# an earlier run is reused untuned, and its row then lacks every variant's
# time (rstile.tsv at d0504f8: 220 of 256 rows, after an interrupted run
# had filled the cache).
bench_tcmul_sweep() {
    _tag=$1 _out=$2 _ns=$3 _opts=$4 _cols=$5
    shift 5
    bench_options "$_out" "$_ns" "$@"
    shift "$bench_shift"
    _out=$bench_out _ns=$bench_ns
    [ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
    _tcmul=${TCMUL:-${top_builddir:-.}/tools/tcmul}
    _sizeopt=${BENCH_SIZE_OPT:---cols}
    _fresh=--no-plan-cache
    [ "$_sizeopt" = --dim ] && _fresh=
    _commit=$(bench_commit)
    _date=$(bench_date)
    _tmp=$(mktemp)
    trap 'rm -f "$_tmp" "$_tmp.row"' EXIT
    _keys=$(bench_column_keys "$_cols")
    printf 'device\tdate\tcommit\tmatrix\t%s\tcommand\n' "$(bench_column_names "$_cols")" > "$_tmp"
    _status=0
    for _m in "$@"; do
        _file=$(basename "$_m")
        _name=${_file%.gz}
        _name=${_name%.mtx}
        _name=${_name%.tcf.h5}
        for _n in $_ns; do
            _args="--device gpu${_fresh:+ $_fresh}${_opts:+ $_opts} --bench --verify --tsv $_sizeopt $_n --seed $_n"
            # shellcheck disable=SC2086 # _args is a word list by design
            if ! "$_tcmul" $_args "$_m" > "$_tmp.row"; then
                echo "$_tag: $_name, n=$_n failed" >&2
                _status=1
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(bench_report_values "$_tmp.row" run.device)" \
                "$_date" "$_commit" "$_name" "$(bench_report_values "$_tmp.row" "$_keys")" \
                "tcmul $_args $_file" >> "$_tmp"
        done
    done
    mkdir -p "$(dirname "$_out")"
    cp "$_tmp" "$_out"
    echo "$_tag: $(($(wc -l < "$_out") - 1)) rows in $_out" >&2
    return $_status
}

# bench_reordered_sweep TAG METHOD OUT NS OPTIONS COLUMNS ARGS...: the GPU
# table of a kernel in each matrix's own order and in METHOD's. ARGS as for
# bench_tcmul_sweep. Every matrix is first reordered,
#   tcreorder -q -m METHOD -o NAME.tcf.h5 NAME.mtx.gz
# ($TCREORDER, else the build tree's tools/tcreorder), then both sets are
# swept and written as one table with an order column (original or METHOD)
# after the matrix; the reordered rows' command starts with the tcreorder
# that made their input.
bench_reordered_sweep() {
    _rtag=$1 _method=$2 _rout=$3 _rns=$4 _ropts=$5 _rcols=$6
    shift 6
    bench_options "$_rout" "$_rns" "$@"
    shift "$bench_shift"
    _rout=$bench_out _rns=$bench_ns
    [ $# -gt 0 ] || set -- "${TC_SHARED_DATA:-$here/../shared/data}"/*.mtx.gz
    _tcreorder=${TCREORDER:-${top_builddir:-.}/tools/tcreorder}
    _rtmp=$(mktemp -d)
    mkdir "$_rtmp/re"
    _rstatus=0
    for _m in "$@"; do
        _name=$(basename "$_m" .mtx.gz)
        "$_tcreorder" -q -m "$_method" -o "$_rtmp/re/$_name.tcf.h5" "$_m" ||
            { echo "$_rtag: $_name: tcreorder failed" >&2; _rstatus=1; }
    done
    # (each sweep in a subshell: it sets its own EXIT trap)
    (bench_tcmul_sweep "$_rtag" "$_rtmp/original.tsv" "$_rns" "$_ropts" "$_rcols" "$@") ||
        _rstatus=1
    (bench_tcmul_sweep "$_rtag" "$_rtmp/reordered.tsv" "$_rns" "$_ropts" "$_rcols" \
        "$_rtmp"/re/*.tcf.h5) || _rstatus=1
    awk -F '\t' -v OFS='\t' -v method="$_method" '
        FNR == 1 { order = FILENAME ~ /reordered/ ? method : "original" }
        FNR == 1 && NR > 1 { next }
        {
            o = NR == 1 ? "order" : order
            if (order == method && NR > 1)
                $NF = "tcreorder -q -m " method " -o " $4 ".tcf.h5 " $4 ".mtx.gz && " $NF
            $4 = $4 OFS o
            print
        }' "$_rtmp/original.tsv" "$_rtmp/reordered.tsv" > "$_rtmp/all.tsv"
    mkdir -p "$(dirname "$_rout")"
    cp "$_rtmp/all.tsv" "$_rout"
    rm -rf "$_rtmp"
    echo "$_rtag: $(($(wc -l < "$_rout") - 1)) rows in $_rout" >&2
    return $_rstatus
}

# bench_rows OUT CMD PROGRAM ARGS...: runs PROGRAM ARGS and appends each
# line it prints to OUT as a row "$device $date $commit LINE CMD" (tabs;
# $device and $commit set by the caller, the date taken when PROGRAM
# ends). Returns PROGRAM's status; the rows it printed are kept either way.
bench_rows() {
    _out=$1 _cmd=$2
    shift 2
    _rc=0
    "$@" > "$_out.part" || _rc=$?
    _date=$(bench_date)
    while IFS= read -r _row; do
        printf '%s\t%s\t%s\t%s\t%s\n' "$device" "$_date" "$commit" "$_row" "$_cmd" >> "$_out"
    done < "$_out.part"
    rm -f "$_out.part"
    return $_rc
}

# bench_options OUT NS "$@": the options of every script (and sweep) that
# takes MATRIX... operands: -o OUT.tsv and -n "N...", into $bench_out and
# $bench_ns (default OUT and NS); $bench_shift is how many arguments they
# took (the caller shifts them off). Any other option: usage, exit 2.
bench_options() {
    bench_out=$1 bench_ns=$2
    shift 2
    OPTIND=1
    while getopts o:n: _opt; do
        case $_opt in
        o) bench_out=$OPTARG ;;
        n) bench_ns=$OPTARG ;;
        *) echo "usage: $0 [-o OUT.tsv] [-n \"N...\"] [MATRIX...]" >&2; exit 2 ;;
        esac
    done
    bench_shift=$((OPTIND - 1))
}
