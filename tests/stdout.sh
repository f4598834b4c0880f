#!/bin/sh
# Standard output that cannot be written: every tool, for every kind of
# thing it prints there (help, version, lists, reports in text, TSV and
# JSON, timings, outputs given as "-"), exits 1 with one line saying so
# when stdout is /dev/full, rather than exit 0 with the results lost; and
# when stdout is closed. A failed "-o -" is told once.
. "${top_srcdir:-.}/tests/lib.sh"
[ -w /dev/full ] || skip_all "no /dev/full (a Linux device)"

A=$DATA/cora.mtx.gz
"$TOOLS/tcconv" -q "$A" --output "$T/a.tcf.h5"; ok $? "set-up: cora as .tcf.h5"
enospc="standard output: write failed: No space left on device"

# full WANT NAME -- CMD...: CMD with stdout on /dev/full exits 1 and its
# whole stderr is WANT.
full() {
    _want=$1 _name=$2; shift 3
    "$@" > /dev/full 2> "$T/full.err"; _rc=$?
    is "$_rc: $(cat "$T/full.err")" "1: $_want" "$_name > /dev/full"
}

for tool in tcconv tcstat tcreorder tcplot tcmul; do
    full "$tool: $enospc" "$tool --help" -- "$TOOLS/$tool" --help
    full "$tool: $enospc" "$tool --version" -- "$TOOLS/$tool" --version
done
full "tcconv: $enospc" "tcconv --list-formats" -- "$TOOLS/tcconv" --list-formats
full "tcreorder: $enospc" "tcreorder --list-methods" -- "$TOOLS/tcreorder" --list-methods

for style in "" --tsv --json; do
    s=${style:-(text)}
    full "tcstat: $enospc" "tcstat $s" -- "$TOOLS/tcstat" $style "$A"
    full "tcstat: $enospc" "tcstat $s, two inputs" -- "$TOOLS/tcstat" $style "$A" "$T/a.tcf.h5"
    full "tcreorder: $enospc" "tcreorder --method rcm $s" -- \
        "$TOOLS/tcreorder" --method rcm $style "$A" --output "$T/r.tcf.h5"
    full "tcmul: $enospc" "tcmul --verify $s" -- \
        "$TOOLS/tcmul" --device cpu --verify $style "$A" --cols 4
    full "tcmul: $enospc" "tcmul --bench $s" -- \
        "$TOOLS/tcmul" --device cpu --bench --iters 2 --warmup 1 $style "$A" --cols 4
done

# Outputs named "-": the writer's own message, once.
full "tcconv: <stdout>: cannot write: No space left on device" "tcconv --output -" -- \
    "$TOOLS/tcconv" "$A" --output -
full "tcreorder: $enospc" "tcreorder --perm-out -" -- \
    "$TOOLS/tcreorder" --method rcm "$A" --perm-out -
full "tcplot: standard output: cannot write PNG (Write Error): No space left on device" \
    "tcplot --output -" -- "$TOOLS/tcplot" "$A" --output -

# A closed stdout: an error where something was to be printed, none where
# nothing was.
"$TOOLS/tcstat" --version >&- 2> "$T/err"
is "$?: $(cat "$T/err")" "1: tcstat: standard output: write failed: Bad file descriptor" \
    "tcstat --version with stdout closed"
"$TOOLS/tcconv" -q "$A" --output "$T/b.mtx" >&- 2> "$T/err"
is "$?: $(cat "$T/err")" "0: " "tcconv --output FILE with stdout closed: nothing to say"

# The same commands with a working stdout succeed.
"$TOOLS/tcmul" --device cpu --verify --json "$A" --cols 4 > "$T/out" &&
    "$TOOLS/tcstat" --tsv "$A" "$T/a.tcf.h5" >> "$T/out" && [ -s "$T/out" ]
ok $? "with a working stdout: exit 0"

done_testing
