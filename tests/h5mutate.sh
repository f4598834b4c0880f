#!/bin/sh
# h5mutate.sh: mutated .tcf.h5 files are refused with a message or read
# correctly, never a crash. Each format of the registry but the canonical
# csr is built (with its values, when it can store them) into a file of a
# real and of a pattern matrix; then, in copies of each file, one byte at a
# time is flipped at deterministic pseudo-random offsets spread over the
# whole file (superblock, object headers, attributes, datasets), and each
# copy is read by tcstat (which reads and validates the format against
# /matrix) and by tcconv (which writes /matrix back as Matrix Market).
#
# Every run must exit 0, or 1 with "PROG: FILE: message" on stderr, FILE
# being the mutated input: never a signal, never a sanitizer report, never
# a status above 1, never a message that blames another file. A fault
# inside libhdf5 is no excuse: the library reads every file in a child
# process first (lib/h5guard.c), so that one becomes "FILE: corrupt file".
# When tcstat accepts a copy, the format vouches for /matrix, so tcconv must
# give the original matrix exactly. (A file with csr alone is not mutated here: a
# flipped value in /matrix/data is then undetectable, as HDF5 stores no
# checksums, so tcconv would rightly give a different matrix.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PER_FILE=${TC_MUTANTS:-64}   # copies of each file
# Thousands of runs: not under valgrind (check.sh --sanitize runs it with
# ASan and UBSan).
[ -z "${TC_RUN_WRAPPER:-}" ] || skip_all "too slow under a run wrapper (TC_RUN_WRAPPER)"

# A real matrix (1138_bus: symmetric, 1138 rows, rows not a multiple of 16)
# and its pattern.
gzip -dc "$DATA/1138_bus.mtx.gz" > "$T/real.mtx"
awk 'NR == 1 { sub(/ real /, " pattern ") } /^%/ { print; next }
     !size { size = 1; print; next } { print $1, $2 }' \
    "$T/real.mtx" > "$T/pattern.mtx"
for kind in real pattern; do
    "$TOOLS/tcconv" -q "$T/$kind.mtx" -o "$T/$kind.ref.mtx" || exit 1
    grep -v '^%' "$T/$kind.ref.mtx" > "$T/$kind.ref"
done

# Formats stored under /formats, each with -p values=1 when it has that
# parameter (from tcconv --list-formats: a name line, then its parameters).
"$TOOLS/tcconv" --list-formats | awk '
    /^[^ ]/ { if (name != "" && name != "csr") print name, values; name = $1; values = 0 }
    /^ +values=/ { values = 1 }
    END { if (name != "" && name != "csr") print name, values }' > "$T/formats"

# The next number of a 31-bit linear congruential generator (seeded below).
seed=8
rand() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 )); }

# run_tool NAME PROG FILE ARGS...: runs PROG ARGS, which reads FILE; it
# must exit 0, or 1 with "PROG: FILE: message" (or "PROG: FILE:LINE:
# message", when a flipped signature makes it Matrix Market) on stderr and no sanitizer
# report. A signal is rerun under gdb to show where. Leaves the status in
# $rc.
run_tool() {
    _name=$1 _prog=$2 _file=$3; shift 3
    timeout 60 "$TOOLS/$_prog" "$@" > /dev/null 2> "$T/err.raw"; rc=$?
    tool_stderr "$T/err.raw" > "$T/err"
    _first=$(head -n 1 "$T/err")
    if grep -q -e 'Sanitizer' -e 'runtime error' "$T/err"; then
        ok 1 "$_name: $_prog: sanitizer report"; sed 's/^/# /' "$T/err" | head -n 40
        return
    fi
    if [ "$rc" -gt 128 ] && [ "$rc" -ne 137 ] && command -v gdb > /dev/null; then
        "$top_builddir/libtool" --mode=execute gdb -batch -ex run -ex bt \
            --args "$top_builddir/tools/$_prog" "$@" 2>&1 | sed 's/^/# /' | tail -n 30
    fi
    case $rc:$_first in
    0:*) ;;
    1:"$_prog: $_file:"*) ;;   # "FILE: ..." or, read as Matrix Market, "FILE:LINE: ..."
    *) ok 1 "$_name: $_prog exited $rc"; diag "stderr: $_first"; return ;;
    esac
    ok 0 "$_name: $_prog exit $rc"
}

for kind in real pattern; do
    while read -r fmt values; do
        params=
        [ "$values" -eq 1 ] && params="-p values=1"
        orig=$T/$fmt-$kind.tcf.h5
        # shellcheck disable=SC2086
        "$TOOLS/tcconv" -q "$T/$kind.mtx" -f "$fmt" $params -o "$orig" || exit 1
        size=$(wc -c < "$orig")
        stride=$((size / PER_FILE))
        i=0
        while [ "$i" -lt "$PER_FILE" ]; do
            rand; off=$((i * stride + seed % stride))
            rand; mask=$((seed % 255 + 1))
            m=$T/m.tcf.h5
            cp "$orig" "$m"
            byte=$(od -An -tu1 -j "$off" -N1 "$m" | tr -d ' ')
            set_byte "$m" "$off" $((byte ^ mask))
            name="$fmt $kind: byte $off ^ $mask"
            run_tool "$name" tcstat "$m" --format "$fmt" "$m"
            stat_rc=$rc
            rm -f "$T/out.mtx"
            run_tool "$name" tcconv "$m" --quiet "$m" --output "$T/out.mtx"
            if [ "$stat_rc" -eq 0 ]; then
                got=$(grep -v '^%' "$T/out.mtx" 2>/dev/null | cmp -s - "$T/$kind.ref" && echo same)
                is "$got" same "$name: accepted by tcstat, so tcconv gives the original matrix"
            fi
            i=$((i + 1))
        done
    done < "$T/formats"
done

done_testing
