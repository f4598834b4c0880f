#!/usr/bin/env bash
# check.sh: from a fresh Debian machine to every test run. Installs missing
# build dependencies (as root), bootstraps, configures, builds, runs
# `make check`, and ends with a line "N passed, M failed, K skipped" counting
# TAP test points; exits non-zero when anything failed.
#
#   ./check.sh [configure arguments...]     in _build/
#   ./check.sh --sanitize                   in _build-sanitize/: everything
#       built with AddressSanitizer and UndefinedBehaviorSanitizer (no CUDA:
#       the sanitizers do not see into device code), any report fails the
#       test that triggered it, leaks included but for HDF5's own that
#       tests/lsan.supp lists
#   ./check.sh --valgrind                   in _build-valgrind/ (no CUDA, -O1
#       -g): every tool run of the tool tests (TC_RUN_WRAPPER, tests/lib.sh)
#       and every C unit test under valgrind memcheck; an error or a
#       definite or indirect leak fails the test that triggered it. Too slow
#       for CI on 2 cores (bench/results/valgrind.txt: the recorded run)
set -u
cd "$(dirname "$0")"
. ./setup.sh
if [ "${1:-}" = "--sanitize" ]; then
    shift
    export TC_BUILD=_build-sanitize
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    # whole stacks on malloc, for the suppressions of HDF5's own leaks; a
    # request too large to serve returns NULL, as malloc does outside the
    # sanitizer (a corrupted object header makes HDF5 ask for exabytes,
    # and it handles the NULL: "memory allocation failed"), after a
    # warning that tests/lib.sh's tool_stderr drops; the suppressions that
    # matched are not listed on exit (print_suppressions=0), so that a tool
    # that draws text (cairo's caches) keeps its standard error to itself
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0:allocator_may_return_null=1 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
    set -- --without-cuda CFLAGS="-O1 -g $san" LDFLAGS="$san" "$@"
fi
make_args=
if [ "${1:-}" = "--valgrind" ]; then
    shift
    export TC_BUILD=_build-valgrind
    vg="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
    export TC_RUN_WRAPPER="$vg --log-file=%q{TC_RUN_LOG}/%p.log"
    make_args="LOG_COMPILER=./libtool --mode=execute $vg -q"
    set -- --without-cuda CFLAGS="-O1 -g" "$@"
fi
b=${TC_BUILD:-_build}
setup_build "$@"

echo "check: make check in $b/"
make -C "$b" -j"$(nproc 2>/dev/null || echo 2)" check ${make_args:+"$make_args"} >"$b/check.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$b/check.log" | grep -v '^PASS' || true
# Every .trs holds one ":test-result:" line per TAP test point.
counts=$(cat "$b"/tests/*.trs 2>/dev/null | awk '
    /^:test-result: (PASS|XFAIL)/ { p++ }
    /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
    /^:test-result: SKIP/ { s++ }
    END { printf "%d %d %d", p, f, s }')
read -r passed failed skipped <<<"$counts"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    tail -n 30 "$b/check.log"
    failed=1   # make itself failed (a build error, a crashed test program)
fi
[ "$failed" -gt 0 ] && echo "check: details in $b/test-suite.log and $b/tests/*.log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
