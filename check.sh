#!/usr/bin/env bash
# check.sh: from a fresh Debian machine to every test run. Installs missing
# build dependencies (as root), bootstraps, configures, builds, runs
# `make check`, and ends with a line "N passed, M failed, K skipped" counting
# TAP test points; exits non-zero when anything failed.
set -u
cd "$(dirname "$0")"
. ./setup.sh
setup_build "$@"

echo "check: make check"
make -C _build -j"$(nproc 2>/dev/null || echo 2)" check >_build/check.log 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' _build/check.log | grep -v '^PASS' || true
# Every .trs holds one ":test-result:" line per TAP test point.
counts=$(cat _build/tests/*.trs 2>/dev/null | awk '
    /^:test-result: (PASS|XFAIL)/ { p++ }
    /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
    /^:test-result: SKIP/ { s++ }
    END { printf "%d %d %d", p, f, s }')
read -r passed failed skipped <<<"$counts"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    tail -n 30 _build/check.log
    failed=1   # make itself failed (a build error, a crashed test program)
fi
[ "$failed" -gt 0 ] && echo "check: details in _build/test-suite.log and _build/tests/*.log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
