#!/bin/sh
# Faults every writing tool must survive: the file system refusing more
# bytes (a file-size limit, which as root too makes writes fail with
# EFBIG) and an output that names the input. Expected each time: exit
# status 1 (2 for a refused -o), a message, the previous file at the output
# path untouched, no temporary file left beside it, and no crash (HDF5's
# clean-up at exit crashed after a failed write before tools skipped it:
# tc_h5_skip_exit_cleanup).
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=${TCCONV:-$TOOLS/tcconv}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}
TCMUL=${TCMUL:-$TOOLS/tcmul}
TCPLOT=${TCPLOT:-$TOOLS/tcplot}
M=$DATA/cora.mtx.gz

# full NAME OUTPUT COMMAND...: COMMAND under a 16 KB file-size limit
# (SIGXFSZ ignored, so a write past it fails with EFBIG).
full() {
    _name=$1 _out=$2; shift 2
    echo previous > "$_out"
    (trap '' XFSZ; ulimit -f 16; "$@") > /dev/null 2> "$T/full.err"
    _rc=$?
    is "$_rc" 1 "$_name: disk full: exit 1"
    grep -q 'File too large' "$T/full.err"
    ok $? "$_name: disk full: the message says why"
    is "$(cat "$_out")" previous "$_name: disk full: the previous file is untouched"
    is "$(ls -A "$T/d" | grep -c '^\.')" 0 "$_name: disk full: no temporary file left"
}
mkdir "$T/d"
full "tcconv to .tcf.h5" "$T/d/c.tcf.h5" "$TCCONV" -q "$M" -o "$T/d/c.tcf.h5"
full "tcconv to .mtx" "$T/d/c.mtx" "$TCCONV" -q "$M" -o "$T/d/c.mtx"
full "tcreorder" "$T/d/r.tcf.h5" "$TCREORDER" -q -m rcm "$M" -o "$T/d/r.tcf.h5"
full "tcmul to HDF5" "$T/d/c.h5" "$TCMUL" --device cpu --cols 64 "$M" -o "$T/d/c.h5"
full "tcmul to .mtx" "$T/d/c2.mtx" "$TCMUL" --device cpu --cols 64 "$M" -o "$T/d/c2.mtx"
full "tcmul --op sddmm to .mtx" "$T/d/s.mtx" "$TCMUL" --device cpu --op sddmm --dim 8 "$M" \
    -o "$T/d/s.mtx"

# -o naming the input: tools that convert the matrix write it through a
# temporary file, so the input is read whole first and replaced only by a
# complete result; tools whose output is something else refuse.
"$TCCONV" -q "$M" -o "$T/in.tcf.h5"
"$TCCONV" -q "$T/in.tcf.h5" -o "$T/in.tcf.h5"
ok $? "tcconv -o naming its input: converted in place"
"$TCCONV" -q -o "$T/back.mtx" "$T/in.tcf.h5"
is "$(grep -v '^%' "$T/back.mtx" | head -n 1)" "2708 2708 7986" "  and the matrix is still whole"
run_fails 2 "tcplot: -o $T/in.tcf.h5 would overwrite the input" "tcplot -o naming its input" -- \
    "$TCPLOT" "$T/in.tcf.h5" -o "$T/in.tcf.h5"
run_fails 2 "tcplot: --blocks $T/in.tcf.h5 would overwrite the input" \
    "tcplot --blocks naming its input" -- "$TCPLOT" "$T/in.tcf.h5" --blocks "$T/in.tcf.h5"
run_fails 2 "tcmul: -o $T/in.tcf.h5 would overwrite an input" "tcmul -o naming its input" -- \
    "$TCMUL" --device cpu --cols 4 "$T/in.tcf.h5" -o "$T/in.tcf.h5"
"$TCCONV" -q -o "$T/back2.mtx" "$T/in.tcf.h5"
cmp -s "$T/back.mtx" "$T/back2.mtx"
ok $? "the input is intact after the refusals"

done_testing
