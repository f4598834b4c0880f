#!/bin/sh
# Faults every writing tool must survive: the file system refusing more
# bytes (a file-size limit, which as root too makes writes fail with
# EFBIG) and an output directory that cannot be written. Expected each
# time: exit status 1, the exact message, naming the output the user gave (not a temporary
# file), the previous file at the output path untouched, no temporary file
# left beside it, and no crash (HDF5's clean-up at exit crashed after a
# failed write before tools skipped it: tc_h5_skip_exit_cleanup). Outputs
# that are devices or fifos are written in place. Signals: faults-signal.sh;
# outputs that name an input: clobber.sh.
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=${TCCONV:-$TOOLS/tcconv}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}
TCMUL=${TCMUL:-$TOOLS/tcmul}
TCPLOT=${TCPLOT:-$TOOLS/tcplot}
TCSTAT=${TCSTAT:-$TOOLS/tcstat}
M=$DATA/cora.mtx.gz
M2=$DATA/rajat01.mtx.gz   # 6833 rows: a permutation file above the limit

# full NAME OUTPUT MESSAGE COMMAND...: COMMAND under a 16 KB file-size
# limit (SIGXFSZ ignored, so a write past it fails with EFBIG). MESSAGE is
# a shell pattern: which of its writes HDF5 sees fail first ("file write
# failed", "unable to extend file properly") varies.
full() {
    _name=$1 _out=$2 _msg=$3; shift 3
    echo previous > "$_out"
    (trap '' XFSZ; ulimit -f 16; "$@") > /dev/null 2> "$T/full.err"
    _rc=$?
    is "$_rc" 1 "$_name: disk full: exit 1"
    case $(cat "$T/full.err") in
    $_msg": File too large") ok 0 "$_name: disk full: the message" ;;
    *) ok 1 "$_name: disk full: the message"; diag "got: $(cat "$T/full.err")" ;;
    esac
    is "$(cat "$_out")" previous "$_name: disk full: the previous file is untouched"
    is "$(ls -A "$T/d" | grep -c '^\.')" 0 "$_name: disk full: no temporary file left"
}
mkdir "$T/d"
D=$T/d
full "tcconv to .tcf.h5" "$D/c.tcf.h5" \
    "tcconv: $D/c.tcf.h5: /matrix/*: cannot write chunk *" \
    "$TCCONV" -q "$M" -o "$D/c.tcf.h5"
full "tcconv to .mtx" "$D/c.mtx" "tcconv: $D/c.mtx: cannot write" "$TCCONV" -q "$M" -o "$D/c.mtx"
full "tcconv to .mtx.gz" "$D/c.mtx.gz" "tcconv: $D/c.mtx.gz: cannot write" \
    "$TCCONV" -q "$M" -o "$D/c.mtx.gz"
full "tcreorder" "$D/r.tcf.h5" "tcreorder: $D/r.tcf.h5: /matrix/*: cannot write chunk *" \
    "$TCREORDER" -q -m rcm "$M" -o "$D/r.tcf.h5"
full "tcreorder --perm-out" "$D/p.txt" "tcreorder: $D/p.txt: write failed" \
    "$TCREORDER" -q -m rcm "$M2" --perm-out "$D/p.txt"
full "tcmul to HDF5" "$D/c.h5" "tcmul: $D/c.h5: /C: cannot write: *" \
    "$TCMUL" --device cpu --cols 64 "$M" -o "$D/c.h5"
full "tcmul to .mtx" "$D/c2.mtx" "tcmul: $D/c2.mtx: cannot write" \
    "$TCMUL" --device cpu --cols 64 "$M" -o "$D/c2.mtx"
full "tcmul --op sddmm to .mtx" "$D/s.mtx" "tcmul: $D/s.mtx: cannot write" \
    "$TCMUL" --device cpu --op sddmm --dim 8 "$M" -o "$D/s.mtx"
full "tcplot" "$D/p.png" "tcplot: $D/p.png: cannot write PNG (Write Error)" \
    "$TCPLOT" -q "$M" -o "$D/p.png"
full "tcplot --blocks" "$D/b.png" "tcplot: $D/b.png: cannot write PNG (Write Error)" \
    "$TCPLOT" -q "$M" --blocks "$D/b.png"
full "tcstat -o" "$D/s.txt" "tcstat: $D/s.txt: write failed" \
    "$TCSTAT" -o "$D/s.txt" "$M" "$M" "$M"

# Output directories that cannot be written: a path through a regular file
# (refused to root too), a missing directory, and one without write
# permission: chmod 0555 for others; root ignores permissions, but not the
# kernel's refusal to create files in /sys (sysfs).
touch "$T/file"
unwritable() {   # unwritable WHY DIR: every writer, its output in DIR
    _why=$1 _dir=$2
    for _w in "tcconv .tcf.h5" "tcconv .mtx" tcreorder "tcreorder --perm-out" tcplot \
              "tcplot --blocks" tcmul "tcstat -o"; do
        case $_w in
        "tcconv .tcf.h5") _out=$_dir/o.tcf.h5; set -- "$TCCONV" -q "$M" -o "$_out" ;;
        "tcconv .mtx") _out=$_dir/o.mtx; set -- "$TCCONV" -q "$M" -o "$_out" ;;
        tcreorder) _out=$_dir/o.tcf.h5; set -- "$TCREORDER" -q -m rcm "$M" -o "$_out" ;;
        "tcreorder --perm-out") _out=$_dir/o.txt
            set -- "$TCREORDER" -q -m rcm "$M" --perm-out "$_out" ;;
        tcplot) _out=$_dir/o.png; set -- "$TCPLOT" -q "$M" -o "$_out" ;;
        "tcplot --blocks") _out=$_dir/o.png; set -- "$TCPLOT" -q "$M" --blocks "$_out" ;;
        tcmul) _out=$_dir/o.h5; set -- "$TCMUL" --device cpu --cols 4 "$M" -o "$_out" ;;
        "tcstat -o") _out=$_dir/o.txt; set -- "$TCSTAT" "$M" -o "$_out" ;;
        esac
        run_fails 1 "${1##*/}: $_out: cannot create: $_why" "$_w: $_why ($_dir)" -- "$@"
    done
}
unwritable "Not a directory" "$T/file"
unwritable "No such file or directory" "$T/missing"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$T/ro" && chmod 0555 "$T/ro"
    unwritable "Permission denied" "$T/ro"
    is "$(ls -A "$T/ro")" "" "  nothing left in the read-only directory"
elif [ -d /sys/kernel ] && ! touch /sys/kernel/.tc 2>/dev/null; then
    unwritable "Permission denied" /sys/kernel
else
    skip "unwritable directory: root, and /sys accepts new files here"
fi

# Devices and fifos are written in place: a rename would replace the node
# itself with a regular file (root could lose /dev/null). As root the tests
# use device nodes of their own, so that a regression cannot touch /dev.
if [ "$(id -u)" -ne 0 ]; then
    null=/dev/null devfull=/dev/full
elif mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/full" c 1 7 2>/dev/null; then
    null=$T/null devfull=$T/full
else
    null= devfull=
fi
if [ -n "$null" ]; then
    "$TCCONV" -q "$M" -o "$null" --to mtx && "$TCPLOT" -q "$M" -o "$null" &&
        "$TCSTAT" "$M" -o "$null" && "$TCREORDER" -q -m rcm "$M" --perm-out "$null" &&
        "$TCCONV" -q "$M" -o "$null"
    ok $? "writing to a null device: tcconv (.mtx, .tcf.h5), tcplot, tcstat, tcreorder"
    [ -c "$null" ]; ok $? "  and $null is still a character device"
    run_fails 1 "tcconv: $devfull: cannot write: No space left on device" \
        "tcconv to a full device: refused" -- "$TCCONV" -q "$M" -o "$devfull" --to mtx
    run_fails 1 "tcstat: $devfull: write failed: No space left on device" \
        "tcstat to a full device: refused" -- "$TCSTAT" "$M" -o "$devfull"
    [ -c "$devfull" ]; ok $? "  and $devfull is still a character device"
else
    skip "device outputs: root without the right to mknod (writing to /dev/null as root is not risked)"
fi
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/from-fifo" &
"$TCCONV" -q "$M" -o "$T/fifo" --to mtx
ok $? "tcconv writes into a fifo"
wait
"$TCCONV" -q "$M" -o "$T/direct.mtx"
cmp -s "$T/from-fifo" "$T/direct.mtx" && [ -p "$T/fifo" ]
ok $? "  the reader gets the whole matrix, and the fifo stays a fifo"

# A name under /dev or /proc leads elsewhere (/dev/stdout: to whatever
# standard output is open on, a file it was redirected to too): written
# through, the link left alone. /proc first: a tool that renamed a
# temporary file onto the link fails there without harm; only then
# /dev/stdout, which it would replace, as root, for every program.
"$TCSTAT" "$M" > "$T/stat.want"
"$TCSTAT" "$M" --output /proc/self/fd/1 > "$T/stat.proc" && cmp -s "$T/stat.proc" "$T/stat.want"
ok $? "tcstat --output /proc/self/fd/1 into a redirected file: written through"
if [ -L /dev/stdout ] && cmp -s "$T/stat.proc" "$T/stat.want"; then
    "$TCSTAT" "$M" --output /dev/stdout > "$T/stat.dev" && cmp -s "$T/stat.dev" "$T/stat.want" &&
        [ -L /dev/stdout ]
    ok $? "  and --output /dev/stdout: written through, still a link"
else
    skip "/dev/stdout: not a link here, or /proc/self/fd/1 was not written through"
fi

done_testing
