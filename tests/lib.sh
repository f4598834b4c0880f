# lib.sh: TAP helpers for the tool tests. Source it, then call the helpers;
# finish with `done_testing`. Environment (from Makefile.am): top_srcdir,
# top_builddir, TC_SHARED_DATA; TC_RUN_WRAPPER (below).
#
#   ok COND-EXIT-STATUS "name"        is "got" "want" "name"
#   run_fails CODE "expected stderr" "name" -- cmd args...
#   skip_all "reason"                 scratch dir: $T (removed at exit)

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
TOOLS=$top_builddir/tools
DATA=$top_srcdir/tests/data
T=$(mktemp -d "${TMPDIR:-/tmp}/tctest.XXXXXX")
trap 'rm -rf "$T"' EXIT
# tcmul's timed plans go to a cache (libtcsparse(3), PLAN CACHE): the
# scratch directory's, never the user's
TC_PLAN_CACHE=$T/plan-cache
export TC_PLAN_CACHE
_n=0
_failed=0

# TC_RUN_WRAPPER (check.sh --valgrind): a command every tool runs under.
# TOOLS then names scripts that run the built tools through it (libtool
# --mode=execute finds the real programs behind libtool's wrappers), with
# TC_RUN_LOG exported for its report files (valgrind's
# --log-file=%q{TC_RUN_LOG}/%p.log); done_testing adds a failed test for
# each report that counts errors.
if [ -n "${TC_RUN_WRAPPER:-}" ]; then
    TC_RUN_LOG=$T/run-log
    export TC_RUN_LOG
    mkdir "$TC_RUN_LOG" "$T/run-tools"
    for _tool in "$TOOLS"/*; do
        [ -f "$_tool" ] && [ -x "$_tool" ] || continue
        printf '#!/bin/sh\nexec "%s/libtool" --mode=execute %s "%s" "$@"\n' \
            "$top_builddir" "$TC_RUN_WRAPPER" "$_tool" > "$T/run-tools/${_tool##*/}"
        chmod +x "$T/run-tools/${_tool##*/}"
    done
    TOOLS=$T/run-tools
fi

# One failed test per report under $TC_RUN_LOG that counts errors (memory
# errors, definite or indirect leaks), with the report. A tool that
# tests/faults-signal.sh stops by SIGINT or SIGTERM never gets to free its
# memory: its report fails only for what it says before the signal.
run_log_errors() {
    for _log in "$TC_RUN_LOG"/*; do
        [ -f "$_log" ] || continue
        if grep -q 'terminating with default action of signal \(2\|15\) ' "$_log"; then
            awk '/ Parent PID: / { on = 1; next } / terminating with default action/ { exit }
                 on && !/^==[0-9]+== *$/ { found = 1 } END { exit !found }' "$_log" || continue
        else
            grep -q 'ERROR SUMMARY: [1-9]' "$_log" || continue
        fi
        ok 1 "no errors under $TC_RUN_WRAPPER: $(sed -n 's/^==[0-9]*== Command: //p' "$_log")"
        sed 's/^/# /' "$_log"
    done
}

ok() {   # ok STATUS NAME
    _n=$((_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $_n - $2"
    else echo "not ok $_n - $2"; _failed=$((_failed + 1)); fi
}

is() {   # is GOT WANT NAME
    if [ "$1" = "$2" ]; then ok 0 "$3"
    else ok 1 "$3"; printf '# got:  %s\n# want: %s\n' "$1" "$2"; fi
}

skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }

# todo NAME REASON: a known failure that is not ours to fix (an expected
# failure for the TAP driver, listed in the log).
todo() { _n=$((_n + 1)); echo "not ok $_n - $1 # TODO $2"; }

skip_all() { echo "1..0 # SKIP $1"; exit 0; }

diag() { printf '# %s\n' "$*"; }

# run_fails CODE EXPECTED_STDERR NAME -- CMD...: the command must exit with
# CODE, print exactly EXPECTED_STDERR (first line) on stderr and nothing on
# stdout.
run_fails() {
    _code=$1 _want=$2 _name=$3; shift 4
    "$@" >"$T/.out" 2>"$T/.err"; _rc=$?
    _got=$(head -n 1 "$T/.err")
    if [ "$_rc" -eq "$_code" ] && [ "$_got" = "$_want" ] && [ ! -s "$T/.out" ]; then
        ok 0 "$_name"
    else
        ok 1 "$_name"
        printf '# exit %s (want %s)\n# stderr: %s\n# want:   %s\n' "$_rc" "$_code" "$_got" "$_want"
        [ -s "$T/.out" ] && printf '# stdout was not empty\n'
    fi
}

# python_with MODULE...: a python3 that imports every MODULE ($PYTHON
# first, then the one on PATH, then Debian's, where setup.sh installs them),
# or nothing.
python_with() {
    _imports=$(echo "$@" | tr ' ' ',')
    for _p in "${PYTHON:-}" python3 /usr/bin/python3; do
        if [ -n "$_p" ] && "$_p" -c "import $_imports" >/dev/null 2>&1; then
            echo "$_p"
            return
        fi
    done
}

# A python3 that imports h5py and numpy, or nothing.
h5py_python() { python_with h5py numpy; }

# set_up_installs PACKAGE: true on a Debian machine when setup.sh (which
# ./check.sh runs) installs the Debian PACKAGE: there, a missing PACKAGE is
# a failure of the set-up, not a reason to skip.
set_up_installs() {
    command -v dpkg-query >/dev/null 2>&1 || return 1
    # shellcheck disable=SC2086 # the list is words
    case " $(. "$top_srcdir/setup.sh" && echo $TC_DEB_PACKAGES) " in
    *" $1 "*) return 0 ;;
    esac
    return 1
}

# tsv_value SECTION KEY FILE: one figure from a tool's --tsv output, whose
# lines read file<TAB>section<TAB>key<TAB>value (the first file's, where
# there are several).
tsv_value() {
    awk -F'\t' -v s="$1" -v k="$2" '$2 == s && $3 == k { print $4; exit }' "$3"
}

# tool_stderr FILE: a tool's saved stderr, less AddressSanitizer's one-line
# warning that it refused an allocation too large to serve (check.sh
# --sanitize sets allocator_may_return_null=1, so the tool sees NULL, as
# it would from malloc outside the sanitizer): what the tool said itself,
# bytes that are not text included (-a).
tool_stderr() {
    grep -a -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]* bytes$' "$1"
}

# set_byte FILE OFFSET VALUE: overwrites one byte of FILE in place (VALUE
# 0 to 255), for tests that corrupt a file at a known place.
set_byte() {
    # shellcheck disable=SC2059
    printf "\\$(printf %03o "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# The registry's format names as tools list them in messages: "csr, brp".
known_formats() {
    "$TOOLS/tcconv" --list-formats | awk '/^[^ ]/ { printf "%s%s", n++ ? ", " : "", $1 }'
}

# The kinds of matrix file as tools list them in messages: "tcf (.tcf.h5
# .h5 .hdf5), mtx (.mtx .mtx.gz), ...", every kind, or with "write" the
# ones written.
known_kinds() {
    "$TOOLS/tcconv" --list-kinds |
        awk -v w="${1:-}" 'NR % 2 { name = $1; ok = w == "" || $2 == "read+write"; next }
             ok { $1 = $1; printf "%s%s (%s)", n++ ? ", " : "", name, $0 }'
}

done_testing() {
    [ -z "${TC_RUN_WRAPPER:-}" ] || run_log_errors
    echo "1..$_n"
    [ "$_failed" -eq 0 ]
}
