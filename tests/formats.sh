#!/bin/sh
# formats.sh: what every format of the registry must do through the tools,
# run on each format `tcconv --list-formats` names (a new format is
# tested by being registered): tcconv -f FORMAT writes it, and the file
# converts back to the .mtx that the matrix converts to directly; the
# .tcf.h5 converted again, and the matrix converted with 1 and with 3
# threads, give the same file; tcstat -f FORMAT reads it; a pattern
# matrix leaves no floating-point dataset in its group. On a small real
# matrix with an explicit zero, a 3001 x 2500 pattern one and the bundled
# real matrices. The library-level checks are t_formats'.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"
TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat
command -v h5diff >/dev/null 2>&1 || skip_all "h5diff not installed (Debian: hdf5-tools)"
command -v h5dump >/dev/null 2>&1 || skip_all "h5dump not installed (Debian: hdf5-tools)"

fmt_hand_20x40 "$T/hand.mtx"
fmt_big_pattern "$T/big.mtx" 7
for m in "$DATA"/*.mtx.gz; do
    gzip -dc "$m" > "$T/$(basename "$m" .mtx.gz).mtx"
done
matrices=$(cd "$T" && ls *.mtx | sed 's/\.mtx$//')

# same_file A B: two .tcf.h5 alike but for their provenance.
same_file() { h5diff --exclude-path /provenance "$1" "$2" >/dev/null; }

formats=$("$TCCONV" --list-formats | awk '/^[^ ]/ { print $1 }')
[ -n "$formats" ]; ok $? "tcconv --list-formats names the formats: $(echo $formats)"
for f in $formats; do
    for m in $matrices; do
        "$TCCONV" -q -f "$f" --no-compress "$T/$m.mtx" -o "$T/$m.$f.tcf.h5"
        ok $? "$f, $m: tcconv -f $f"
        "$TCCONV" -q "$T/$m.$f.tcf.h5" -o "$T/$m.$f-back.mtx" &&
            "$TCCONV" -q "$T/$m.mtx" -o "$T/$m-direct.mtx" &&
            cmp -s "$T/$m.$f-back.mtx" "$T/$m-direct.mtx"
        ok $? "$f, $m: .mtx -> .tcf.h5 -> .mtx gives the same file as .mtx -> .mtx"
        "$TCCONV" -q -f "$f" --no-compress "$T/$m.$f.tcf.h5" -o "$T/again.tcf.h5" &&
            same_file "$T/$m.$f.tcf.h5" "$T/again.tcf.h5"
        ok $? "$f, $m: converting the .tcf.h5 again rebuilds the same file"
        "$TCSTAT" -q -f "$f" "$T/$m.$f.tcf.h5" > /dev/null
        ok $? "$f, $m: tcstat -f $f reads it"
        rm -f "$T/$m.$f.tcf.h5" "$T/$m.$f-back.mtx" "$T/again.tcf.h5"
    done
    TC_THREADS=1 "$TCCONV" -q -f "$f" "$T/big.mtx" -o "$T/t1.tcf.h5" &&
        TC_THREADS=3 "$TCCONV" -q -f "$f" "$T/big.mtx" -o "$T/t3.tcf.h5" &&
        same_file "$T/t1.tcf.h5" "$T/t3.tcf.h5"
    ok $? "$f: the same file with 1 and 3 threads"
    # a format stored in a group of its own keeps no values of a pattern
    # matrix (the canonical one is /matrix itself)
    if h5dump -H -g "/formats/$f" "$T/t1.tcf.h5" > /dev/null 2>&1; then
        ! fmt_datasets "$f" "$T/t1.tcf.h5" | grep -q 'H5T_IEEE_F'
        ok $? "$f: a pattern matrix: no floating-point dataset"
    fi
done

done_testing
