#!/bin/sh
# python.sh: the Python package (python/tcsparse) under pytest, each pytest
# test one TAP test point (tests/python/junit_tap.py), so that ./check.sh
# counts them; then `make install` puts the package where it imports from.
#
# Needs a python3 with numpy, scipy, torch and pytest (setup.sh installs
# Debian's python3-numpy, python3-scipy, python3-torch, python3-pytest) and
# the shared libtcsparse of the build ($top_builddir/lib/.libs, or a
# bundle's $top_builddir/lib). The CUDA tests (tests/python/test_cuda.py)
# run where PyTorch sees a GPU, and skip ("no CUDA device") elsewhere. On
# a GPU machine with a bundle in .gpu/ (python/README.md, ON A GPU):
#   LD_LIBRARY_PATH=$PWD/.gpu/lib top_srcdir=$PWD top_builddir=$PWD/.gpu sh tests/python.sh
. "${top_srcdir:-.}/tests/lib.sh"
lib=$top_builddir/lib/.libs/libtcsparse.so.0
[ -e "$lib" ] || lib=$top_builddir/lib/libtcsparse.so.0
[ -e "$lib" ] || skip_all "no shared libtcsparse.so.0 in $top_builddir/lib/.libs or $top_builddir/lib"

# Which tests run: all where setup.sh installs what they need; elsewhere
# (a GPU machine with PyTorch but without SciPy, or without pytest) the
# ones that need no SciPy under pytest, or else the CUDA tests as a plain
# script, and a skipped test point names what did not run.
tests="$top_srcdir/tests/python"
py=$(python_with numpy scipy torch pytest)
if [ -z "$py" ] && set_up_installs python3-torch; then
    ok 1 "setup.sh installs python3-scipy, python3-torch and python3-pytest, yet no python3 imports numpy, scipy, torch and pytest"
    done_testing
fi
runner=pytest
if [ -z "$py" ]; then
    py=$(python_with numpy torch pytest)
    if [ -n "$py" ]; then
        skip "python: test_matrix.py, test_multiply.py: no SciPy (their reference)"
        tests="$tests --ignore=$tests/test_matrix.py --ignore=$tests/test_multiply.py"
    else
        py=$(python_with numpy torch)
        [ -n "$py" ] || skip_all "no python3 with numpy and torch (Debian: python3-torch)"
        skip "python: all but test_cuda.py: no pytest"
        runner=script
    fi
fi

# A library built with AddressSanitizer (check.sh --sanitize) loads into
# python only after the sanitizer's runtime, and with libstdc++ loaded
# from the start (else ASan cannot intercept the C++ exceptions PyTorch's
# autograd throws, and aborts); Python's own allocations are not ours to
# check for leaks.
preload=
if ldd "$lib" 2>/dev/null | grep -q libasan; then
    preload="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libstdc++.so.6)"
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    export ASAN_OPTIONS
fi
pyrun() {
    (cd "$T" && env ${preload:+LD_PRELOAD="$preload"} TCSPARSE_LIBRARY="$lib" \
        PYTHONPATH="$top_srcdir/python" PYTHONDONTWRITEBYTECODE=1 "$py" "$@")
}

if [ $runner = script ]; then
    pyrun "$top_srcdir/tests/python/test_cuda.py" > "$T/results" 2>&1
    before=$_n
    while read -r line; do
        case $line in
        "1..0 # SKIP"*) skip "python: test_cuda.py: ${line#1..0 # SKIP }" ;;
        1..*) ;;
        "not ok "*) line=${line#not ok }; ok 1 "python: test_cuda.py: ${line#* - }" ;;
        "ok "*) line=${line#ok }; ok 0 "python: test_cuda.py: ${line#* - }" ;;
        *) echo "# $line" ;;
        esac
    done < "$T/results"
    [ $_n -gt "$before" ] || ok 1 "python: test_cuda.py ran"
else
    # shellcheck disable=SC2086 # $tests is a word list
    pyrun -m pytest -p no:cacheprovider -q -rs --junitxml="$T/junit.xml" $tests \
        > "$T/pytest.out" 2>&1
    if [ -s "$T/junit.xml" ]; then
        "$py" "$top_srcdir/tests/python/junit_tap.py" "$T/junit.xml" $_n > "$T/results"
        cat "$T/results"
        _n=$((_n + $(grep -c '^\(not \)\{0,1\}ok' "$T/results")))
        _failed=$((_failed + $(grep -c '^not ok' "$T/results")))
        grep -q '^not ok' "$T/results" && sed 's/^/# /' "$T/pytest.out" | tail -n 40
    else
        ok 1 "pytest ran and wrote its report"
        sed 's/^/# /' "$T/pytest.out"
    fi
fi

# make install: the package lands in $(pythondir)/tcsparse beside an
# _installed.py naming $(libdir), and imports from there with the
# installed library (a build tree only; a bundle has no Makefile).
if [ -f "$top_builddir/Makefile" ]; then
    make -s -C "$top_builddir" install DESTDIR="$T/inst" > "$T/install.out" 2>&1
    ok $? "make install"
    init=$(find "$T/inst" -path '*/tcsparse/__init__.py' | head -n 1)
    [ -n "$init" ] && [ -f "${init%/__init__.py}/torch.py" ]
    ok $? "make install installs the package (tcsparse/__init__.py, torch.py, ...)"
    libdir=$(sed -n "s/^LIBDIR = '\([^']*\)'.*/\1/p" "${init%/__init__.py}/_installed.py" 2>/dev/null)
    [ -n "$libdir" ] && [ -e "$T/inst$libdir/libtcsparse.so.0" ]
    ok $? "_installed.py names the libdir libtcsparse.so.0 was installed into ($libdir)"
    got=$(cd "$T" && env -u TCSPARSE_LIBRARY ${preload:+LD_PRELOAD="$preload"} \
        LD_LIBRARY_PATH="$T/inst$libdir" PYTHONPATH="${init%/tcsparse/__init__.py}" \
        PYTHONDONTWRITEBYTECODE=1 "$py" -c \
        'import tcsparse; print(tcsparse.__file__.startswith("'"$T/inst"'"), tcsparse.library_version)' 2>&1)
    is "$got" "True $("$py" -c 'import re,sys; print(re.search(r"TC_VERSION_STRING \"([^\"]*)\"", open(sys.argv[1]).read()).group(1))' "$top_srcdir/lib/tcsparse.h")" \
        "the installed package imports and loads the installed library"
fi
done_testing
