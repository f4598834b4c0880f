# lib.sh: TAP helpers for the tool tests. Source it, then call the helpers;
# finish with `done_testing`. Environment (from Makefile.am): top_srcdir,
# top_builddir, TC_SHARED_DATA.
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
_n=0
_failed=0

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

# The registry's format names as tools list them in messages: "csr, brp".
known_formats() {
    "$TOOLS/tcconv" --list-formats | awk '/^[^ ]/ { printf "%s%s", n++ ? ", " : "", $1 }'
}

done_testing() {
    echo "1..$_n"
    [ "$_failed" -eq 0 ]
}
