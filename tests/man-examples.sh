#!/bin/sh
# man-examples.sh: the EXAMPLES of every page in man/*.1 and man/*.5 run on
# the bundled matrices and do what they say, so that the pages stay true
# (the C program of libtcsparse.3 is tests/libexample.sh's).
#
# Each .nf/.fi or .EX/.EE block of a page's EXAMPLES is one example, run in
# that page's own folder after the ones before it (later examples use what
# earlier ones wrote):
# - lines that start with "$ " are a session: the commands run, and every
#   line of output the page shows must be in what they print ("{ ... }"
#   marks what the page leaves out);
# - a block with Python imports runs with a python3 that has h5py, numpy,
#   scipy and anndata (setup.sh installs them);
# - any other block is a shell script (bash -e). One that ends in
#   awk, jq, grep or sort prints lines for a reader or a script: it must
#   print some, none blank and none "null"; one over a folder (*.mtx.gz)
#   runs again in a folder of one matrix, where the shape of --tsv and
#   --json must not change what it prints.
# The matrices an example names are made from tests/data when it first
# names them (files()). An example for the GPU (--device gpu, --dense, or
# --op with --verify or --bench) runs where tcmul finds a GPU, and is
# skipped only where there is none.
. "${top_srcdir:-.}/tests/lib.sh"
command -v bash >/dev/null 2>&1 || skip_all "no bash"

# The examples call the tools by name; other-solver and display stand for
# the user's own programs (a solver reading Matrix Market, an image viewer)
# and check that what they are given is that.
mkdir "$T/bin"
printf '#!/bin/sh\nhead -c 14 | grep -qx "%%%%MatrixMarket"\n' > "$T/bin/other-solver"
printf '#!/bin/sh\nod -An -c -N4 | tr -d " " | grep -qx "211PNG"\n' > "$T/bin/display"
chmod +x "$T/bin/other-solver" "$T/bin/display"
PATH=$T/bin:$TOOLS:$PATH
export PATH

PY=$(python_with h5py numpy scipy anndata)
[ -z "$PY" ] || ln -s "$(command -v "$PY")" "$T/bin/python3"
if "$TOOLS/tcmul" --list-devices > /dev/null 2>&1; then gpu=1; else gpu=0; fi

# files DIR EXAMPLE: the inputs EXAMPLE names that DIR lacks, from the
# bundled matrices (graph: cora; m: 4 x 4 with 5 entries; band: 1138_bus).
files() {
    for _f in $(grep -o '[A-Za-z0-9_]*\.\(mtx\.gz\|mtx\|h5\)\b' "$2" | sort -u); do
        [ -e "$1/$_f" ] && continue
        case $_f in
        graph.mtx.gz|cora.mtx.gz) cp "$DATA/cora.mtx.gz" "$1/$_f" ;;
        graph.mtx) gzip -dc "$DATA/cora.mtx.gz" > "$1/$_f" ;;
        band.mtx) gzip -dc "$DATA/1138_bus.mtx.gz" > "$1/$_f" ;;
        bcsstk13.mtx.gz|citeseer.mtx.gz) cp "$DATA/$_f" "$1/$_f" ;;
        m.mtx) printf '%%%%MatrixMarket matrix coordinate real symmetric\n%% m\n4 4 4\n1 1 2\n2 2 1\n3 1 -1\n4 4 3\n' > "$1/$_f" ;;
        features.h5|x.h5)
            # cora's 2708 columns: /X for -B; /Q, /K, /V for attention
            "$PY" -c 'import sys, h5py, numpy
with h5py.File(sys.argv[1], "w") as f:
    for name in ("X", "Q", "K", "V"):
        f[name] = numpy.random.default_rng(1).uniform(-1, 1, (2708, 8))' "$1/$_f" ;;
        esac
    done
}

# The examples of one page, one file each: PAGE.1.ex, PAGE.2.ex, ...
extract() {
    sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$1" | awk -v out="$2" '
        /^\.(nf|EX)$/ { n++; on = 1; next }
        /^\.(fi|EE)$/ { on = 0; next }
        on { gsub(/\\-/, "-"); gsub(/\\e/, "\\"); gsub(/\\\(aq/, "'"'"'");
             gsub(/\\\(dq/, "\""); print > (out "." n ".ex") }'
}

# shown_in EXPECTED ACTUAL: every line the page shows is in the output,
# compared without indentation and without a trailing "{", "{ ... }".
shown_in() {
    _norm='s/^ *//; s/ *{ \.\.\. }$//; s/ *{$//'
    sed "$_norm" "$2" > "$2.norm"
    sed "$_norm" "$1" | while IFS= read -r _line; do
        [ -z "$_line" ] || grep -qxF -- "$_line" "$2.norm" || { diag "not shown: $_line"; return 1; }
    done
}

# run_example DIR EXAMPLE NAME
run_example() {
    _d=$1 _ex=$2 _name=$3
    files "$_d" "$_ex"
    if grep -q '^\$ ' "$_ex"; then
        sed -n 's/^\$ //p' "$_ex" > "$_ex.sh"
        grep -v '^\$ ' "$_ex" > "$_ex.shown"
        (cd "$_d" && bash -e "$_ex.sh") > "$_ex.out" 2> "$_ex.err" &&
            shown_in "$_ex.shown" "$_ex.out"
    elif grep -q '^import ' "$_ex"; then
        (cd "$_d" && "$PY" -W ignore "$_ex") > "$_ex.out" 2> "$_ex.err" && python_checks "$_ex" "$_d"
    else
        (cd "$_d" && bash -e "$_ex") > "$_ex.out" 2> "$_ex.err" && printed "$_ex"
    fi
    _rc=$?
    ok $_rc "$_name"
    if [ $_rc -ne 0 ]; then
        sed 's/^/#   /' "$_ex"
        diag "stderr: $(head -c 2000 "$_ex.err")"
        diag "stdout: $(head -c 2000 "$_ex.out")"
    fi
}

# printed EXAMPLE: an example whose last command ends in awk, jq, grep or
# sort, or is a loop, prints for a reader or a script: some lines, none
# blank or null; a loop, one line for each of its words.
printed() {
    sed -n '$p' "$1" | grep -qE '(^|\| *)(awk|jq|grep|sort) |^ *\$[0-9]|^done' || return 0
    [ -s "$1.out" ] && ! grep -qE '^[[:space:]]*$|(^|[[:space:]])null([[:space:]]|$)' "$1.out" ||
        return 1
    _loop=$(sed -n 's/^for [a-z]* in \(.*\); do$/\1/p' "$1")
    [ -z "$_loop" ] && return 0
    _want=$(echo "$_loop" | wc -w)
    [ "$(awk '{ print $1 }' "$1.out" | sort -u | wc -l)" -eq "$_want" ] &&
        [ "$(wc -l < "$1.out")" -eq "$_want" ]
}

# python_checks EXAMPLE DIR: a file a recipe writes is one tcstat reads; a
# recipe that reads a reordered file gives back the matrix it was made
# from, in the original order (rows and columns).
python_checks() {
    if grep -q 'mine.tcf.h5' "$1"; then
        (cd "$2" && tcstat mine.tcf.h5 > /dev/null) || return 1
    fi
    grep -q 'row_old_to_new' "$1" || return 0
    (cd "$2" && "$PY" -W ignore -c '
import sys, numpy, scipy.io
ns = {}
exec(open(sys.argv[1]).read(), ns)
want = scipy.io.mmread("m.mtx").toarray()
got = ns["A"].toarray()
assert numpy.array_equal(got, want), (got, want)
' "$1" > /dev/null)
}

for page in "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.5; do
    p=${page##*/}
    mkdir "$T/$p.d"
    extract "$page" "$T/$p"
    for ex in "$T/$p".*.ex; do
        [ -e "$ex" ] || continue
        n=${ex%.ex}; n=${n##*.}
        name="$p example $n: $(head -n 1 "$ex" | sed 's/^\$ //' | cut -c 1-60)"
        if grep -qE -- '--device gpu|--dense|--op [a-z]+ .*--(verify|bench)' "$ex" && [ $gpu -eq 0 ]; then
            skip "$name: for the GPU, and tcmul finds none"
        elif grep -q '^import ' "$ex" && [ -z "$PY" ]; then
            if set_up_installs python3-anndata; then ok 1 "$name: no python3 imports h5py, numpy, scipy and anndata"
            else skip "$name: no python3 with h5py, numpy, scipy and anndata"; fi
        elif grep -qE '(^| )jq ' "$ex" && ! command -v jq >/dev/null 2>&1; then
            if set_up_installs jq; then ok 1 "$name: setup.sh installs jq, yet there is none"
            else skip "$name: no jq"; fi
        else
            run_example "$T/$p.d" "$ex" "$name"
            if grep -qF '*.mtx.gz' "$ex"; then
                mkdir -p "$T/$p.one$n" && cp "$DATA/cora.mtx.gz" "$T/$p.one$n/"
                run_example "$T/$p.one$n" "$ex" "$name (a folder of one matrix)"
            fi
        fi
    done
done
done_testing
