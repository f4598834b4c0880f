#!/bin/sh
# formats.sh: what every format of the registry must do through the tools,
# run on each format `tcconv --list-formats` names (a new format is
# tested by being registered): tcconv -f FORMAT writes it, and the file
# converts back to the .mtx that the matrix converts to directly; the
# .tcf.h5 converted again, and the matrix converted with 1 and with 3
# threads, give the same file; tcstat -f FORMAT reads it; a pattern
# matrix leaves no floating-point dataset in its group; tcplot -f FORMAT
# draws the parts of a format that splits nonzeros between tensor and CUDA
# cores (the same picture stored or built, with 1 or 3 threads, other
# colours than the plain spy plot) and refuses any other. On a small real
# matrix with an explicit zero, a 3001 x 2500 pattern one and the bundled
# real matrices. The library-level checks are t_formats'.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/fmtlib.sh"
command -v h5diff >/dev/null 2>&1 || skip_all "h5diff not installed (Debian: hdf5-tools)"

fmt_hand_20x40 "$T/hand.mtx"
fmt_big_pattern "$T/big.mtx" 7
for m in "$DATA"/*.mtx.gz; do
    gzip -dc "$m" > "$T/$(basename "$m" .mtx.gz).mtx"
done
matrices=$(cd "$T" && ls *.mtx | sed 's/\.mtx$//')

# same_file A B: two .tcf.h5 alike but for their provenance.
same_file() { h5diff --exclude-path /provenance "$1" "$2" >/dev/null; }

# plot_parts FORMAT: tcplot -f FORMAT on the pattern matrix: a format with
# parts draws them (its blocks are a usage error: --blocks draws csr's);
# any other is refused.
plot_parts() {
    "$TCPLOT" -q -f "$1" -s 256 "$T/big.mtx" -o "$T/parts.png" 2> "$T/plot.err"
    _rc=$?
    if [ $_rc -ne 0 ]; then
        case $(head -n 1 "$T/plot.err") in
        "tcplot: --format: $1 has no tensor-core and CUDA-core parts to draw (tcplot draws "*)
            [ $_rc -eq 2 ] && [ ! -e "$T/parts.png" ] ;;
        *) false ;;
        esac
        ok $? "$1: tcplot -f $1: refused (exit 2) for having no parts, no picture left"
        return
    fi
    fmt_is_png "$T/parts.png"; ok $? "$1: tcplot -f $1 writes a PNG"
    ! cmp -s "$T/parts.png" "$T/plain.png"
    ok $? "$1: the parts change the colours of the spy plot"
    # --title: the default title names the file, and the two files differ
    "$TCPLOT" -q -f "$1" -s 256 --title big "$T/big.mtx" -o "$T/built.png" &&
        "$TCPLOT" -q -f "$1" -s 256 --title big "$T/t1.tcf.h5" -o "$T/stored.png" &&
        cmp -s "$T/built.png" "$T/stored.png"
    ok $? "$1: the stored format draws as the one built from the .mtx"
    TC_THREADS=1 "$TCPLOT" -q -f "$1" -s 300 "$T/big.mtx" -o "$T/p1.png" &&
        TC_THREADS=3 "$TCPLOT" -q -f "$1" -s 300 "$T/big.mtx" -o "$T/p3.png" &&
        cmp -s "$T/p1.png" "$T/p3.png"
    ok $? "$1: the same picture with 1 and 3 threads"
    run_fails 2 "tcplot: --blocks draws the aligned HxW blocks of csr, not those of $1 (drop -f $1, or --blocks)" \
        "$1: tcplot -f $1 --blocks: refused" -- \
        "$TCPLOT" -f "$1" "$T/big.mtx" --blocks "$T/blocks.png"
    [ ! -e "$T/blocks.png" ]; ok $? "  and leaves no picture"
    rm -f "$T/parts.png" "$T/built.png" "$T/stored.png"
}
"$TCPLOT" -q -s 256 "$T/big.mtx" -o "$T/plain.png"

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
    # matrix (the canonical one is /matrix itself, drawn as the plain plot)
    h5dump -H -g "/formats/$f" "$T/t1.tcf.h5" > /dev/null 2>&1 || continue
    ! fmt_datasets "$f" "$T/t1.tcf.h5" | grep -q 'H5T_IEEE_F'
    ok $? "$f: a pattern matrix: no floating-point dataset"
    plot_parts "$f"
done

done_testing
