#!/bin/sh
# h5corrupt.sh: a .tcf.h5 that is corrupt, or that lies about its matrix,
# is refused by every tool that reads it, exit 1, with a message naming
# that file and what is wrong in it; never a crash, never an output.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

# /matrix says symmetric but is not: a symmetric matrix whose stored
# mirror of (2, 1) = 5 is changed to 7 (the first 5.0, a little-endian
# double, of the uncompressed file: entry (1, 2) of the CSR arrays).
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 1 5\n3 3 2\n' \
    > "$T/sym.mtx"
"$TOOLS/tcconv" --no-compress "$T/sym.mtx" --output "$T/bad.tcf.h5" || exit 1
off=$(LC_ALL=C grep -obUaP '\x00\x00\x00\x00\x00\x00\x14\x40' "$T/bad.tcf.h5" |
      head -n 1 | cut -d: -f1)
set_byte "$T/bad.tcf.h5" $((off + 6)) 28   # 0x14 -> 0x1c: 5.0 -> 7.0
why="$T/bad.tcf.h5: /matrix: not symmetric as its symmetry attribute says: entry (1, 2) = 7 but (2, 1) = 5"
run_fails 1 "tcconv: $why" "tcconv: a /matrix that is not symmetric blames the input" -- \
    "$TOOLS/tcconv" "$T/bad.tcf.h5" --output "$T/back.mtx"
test ! -e "$T/back.mtx"; ok $? "tcconv: no output written"
run_fails 1 "tcstat: $why" "tcstat: the same message" -- "$TOOLS/tcstat" "$T/bad.tcf.h5"

# Files on which libhdf5 1.10 faults, loops or reads past its buffers
# (tests/fuzz/regressions/tcf: global heap objects whose lengths were
# changed, object headers it fails to decode, a compressed chunk that
# inflates short): every tool says so, as a message on the file.
# each_tool FILE: runs every tool that reads FILE as its matrix.
each_tool() {
    for _run in "tcconv $1 --output $T/o.mtx" "tcstat $1" "tcplot $1 --output $T/o.png" \
                "tcreorder --method rcm $1 --output $T/o.tcf.h5" "tcmul $1 --device cpu --cols 2 --verify"; do
        _prog=${_run%% *}
        # shellcheck disable=SC2086
        "$TOOLS"/$_run > /dev/null 2> "$T/err.raw"; _rc=$?
        tool_stderr "$T/err.raw" > "$T/err"
        case $_rc:$(head -n 1 "$T/err") in
        1:"$_prog: $1: "*) ok 0 "$_prog ${1##*/}: refused" ;;
        *) ok 1 "$_prog ${1##*/}: exit $_rc"; sed 's/^/# /' "$T/err" | head -n 20 ;;
        esac
        grep -q -e Sanitizer -e 'runtime error' "$T/err"; ok $(( ! $? )) "$_prog ${1##*/}: no sanitizer report"
    done
    ls "$T"/o.* > /dev/null 2>&1; ok $(( ! $? )) "${1##*/}: no output written"
}
for f in "$top_srcdir"/tests/fuzz/regressions/tcf/*; do
    # A loop costs 10 s of CPU a run, and fuzz-* are fuzz_tcf's findings
    # kept whole, some of them files that read correctly once HDF5 is kept
    # from faulting (leaks only) or not HDF5 at all: t_fuzz_tcf replays
    # them all through the same guarded read; the files named here are
    # one of each kind, refused by every tool.
    case ${f##*/} in *-loop|fuzz-*) continue ;; esac
    each_tool "$f"
done

done_testing
