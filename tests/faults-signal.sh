#!/bin/sh
# Every writing tool stopped by SIGINT or SIGTERM while it writes: the
# process ends by the signal (status 128 + its number), the previous file
# at the output path is byte-identical, and no temporary file is left.
# tests/hold.c (preloaded) stops the tool at the point named by TC_HOLD, so
# that the signal lands there every time: "write", at a write into the
# temporary file once part of the output is in it, or "rename", with the
# complete output about to replace the previous file. Outputs written with
# fprintf (tcstat -o, tcreorder --perm-out) go through stdio's internal
# write, which a preloaded module cannot see: those are held at rename only.
. "${top_srcdir:-.}/tests/lib.sh"
HOLD=$top_builddir/tests/.libs/libhold.so
M=$DATA/cora.mtx.gz

[ -f "$HOLD" ] || skip_all "no $HOLD (a build without shared libraries)"
LD_PRELOAD=$HOLD "$TOOLS/tcconv" --version >/dev/null 2>&1 ||
    skip_all "$HOLD cannot be preloaded here"
# A shell starts background jobs with SIGINT ignored, and the tools leave a
# signal ignored at start ignored: env resets it for the tool.
env --default-signal=INT true 2>/dev/null ||
    skip_all "env has no --default-signal (coreutils 8.31 or later)"

mkdir "$T/d"

# start_held POINT OUTPUT COMMAND...: starts COMMAND in the background
# (pid in $pid) with the previous contents in OUTPUT, and waits until it
# holds at POINT. Returns 1 when it never does (120 s: valgrind is slow).
start_held() {
    _point=$1 _out=$2; shift 2
    printf 'previous contents of %s\n' "$_out" > "$_out"
    cp "$_out" "$T/previous"
    rm -f "$T/held"
    TC_HOLD=$_point TC_HOLD_MARK=$T/held LD_PRELOAD=$HOLD \
        env --default-signal=INT,TERM "$@" > /dev/null 2> "$T/stderr" &
    pid=$!
    _tries=0
    while [ ! -e "$T/held" ]; do
        kill -0 "$pid" 2>/dev/null || return 1
        _tries=$((_tries + 1))
        [ "$_tries" -gt 1200 ] && { kill -KILL "$pid"; return 1; }
        sleep 0.1
    done
}

status_of() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; esac; }
temporaries() { ls -A "$T/d" | grep -c '^\.'; }

# interrupted NAME SIGNAL POINT OUTPUT COMMAND...
interrupted() {
    _name=$1 _sig=$2 _point=$3 _out=$4; shift 4
    _what="$_name: SIG$_sig at $_point"
    if ! start_held "$_point" "$_out" "$@"; then
        wait "$pid"
        _rc=$?
        ok 1 "$_what: the tool holds"
        diag "it ended with status $_rc before holding: $(head -n 1 "$T/stderr")"
        return
    fi
    # (tcreorder's HDF5 output has two: tc_h5_write's own inside its
    # caller's, which stays empty)
    _size=$(cd "$T/d" && cat .[!.]* ..?* 2>/dev/null | wc -c)
    [ "$(temporaries)" -gt 0 ] && [ "$_size" -gt 0 ]
    ok $? "$_what: held, $_size bytes in temporary files"
    kill -"$_sig" "$pid"
    wait "$pid"
    is $? "$(status_of "$_sig")" "$_what: ended by the signal"
    cmp -s "$_out" "$T/previous"
    ok $? "$_what: the previous file is byte-identical"
    is "$(temporaries)" 0 "$_what: no temporary file left"
    [ ! -s "$T/stderr" ]
    ok $? "$_what: nothing on stderr"
}

for sig in INT TERM; do
    interrupted "tcconv to .tcf.h5" $sig write "$T/d/c.tcf.h5" \
        "$TOOLS/tcconv" -q "$M" -o "$T/d/c.tcf.h5"
    interrupted "tcconv to .mtx" $sig write "$T/d/c.mtx" "$TOOLS/tcconv" -q "$M" -o "$T/d/c.mtx"
    interrupted "tcreorder" $sig write "$T/d/r.tcf.h5" \
        "$TOOLS/tcreorder" -q -m rcm "$M" -o "$T/d/r.tcf.h5"
    interrupted "tcplot" $sig write "$T/d/p.png" "$TOOLS/tcplot" -q "$M" -o "$T/d/p.png"
    interrupted "tcplot --blocks" $sig write "$T/d/b.png" \
        "$TOOLS/tcplot" -q "$M" --blocks "$T/d/b.png"
    interrupted "tcmul to HDF5" $sig write "$T/d/c.h5" \
        "$TOOLS/tcmul" --device cpu --cols 64 "$M" -o "$T/d/c.h5"
    interrupted "tcmul to .mtx" $sig write "$T/d/c2.mtx" \
        "$TOOLS/tcmul" --device cpu --cols 64 "$M" -o "$T/d/c2.mtx"
done
for sig in INT TERM; do
    interrupted "tcconv to .tcf.h5" $sig rename "$T/d/c.tcf.h5" \
        "$TOOLS/tcconv" -q "$M" -o "$T/d/c.tcf.h5"
    interrupted "tcconv to .mtx" $sig rename "$T/d/c.mtx" "$TOOLS/tcconv" -q "$M" -o "$T/d/c.mtx"
    interrupted "tcreorder --perm-out" $sig rename "$T/d/perm.txt" \
        "$TOOLS/tcreorder" -q -m rcm "$M" --perm-out "$T/d/perm.txt"
    interrupted "tcstat -o" $sig rename "$T/d/s.txt" "$TOOLS/tcstat" "$M" -o "$T/d/s.txt"
    interrupted "tcmul to .mtx" $sig rename "$T/d/c2.mtx" \
        "$TOOLS/tcmul" --device cpu --cols 64 "$M" -o "$T/d/c2.mtx"
done

# A signal ignored when the tool starts (nohup ignores SIGHUP) stays
# ignored: the tool goes on; SIGTERM still stops it cleanly.
start_held write "$T/d/n.tcf.h5" \
    env --ignore-signal=HUP "$TOOLS/tcconv" -q "$M" -o "$T/d/n.tcf.h5"
kill -HUP "$pid"
sleep 1
kill -0 "$pid" 2>/dev/null
ok $? "SIGHUP ignored at start (nohup): the tool is still running"
is "$(temporaries)" 1 "  and its temporary file is still there"
kill -TERM "$pid"
wait "$pid"
is $? 143 "  SIGTERM then ends it"
cmp -s "$T/d/n.tcf.h5" "$T/previous" && [ "$(temporaries)" -eq 0 ]
ok $? "  leaving the previous file and no temporary file"

done_testing
