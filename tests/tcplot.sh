#!/bin/sh
# tcplot: pictures of generated matrices, every input kind, byte-identical
# outputs, errors (message, exit status, no file left), and a timing smoke
# test on the largest shared matrix.
. "${top_srcdir:-.}/tests/lib.sh"
TCPLOT=$TOOLS/tcplot
TCCONV=$TOOLS/tcconv

# "WIDTH HEIGHT" of a PNG file read from its IHDR chunk with od, after
# checking the 8-byte signature, that IHDR comes first and that the picture
# is 8-bit RGB; "bad" otherwise.
png_size() {
    sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
    ihdr=$(od -An -c -j12 -N4 "$1" | tr -d ' \n')
    set -- $(od -An -tu1 -j16 -N10 "$1")
    if [ "$sig" = 89504e470d0a1a0a ] && [ "$ihdr" = IHDR ] && [ "$9" = 8 ] && [ "${10}" = 2 ]; then
        echo "$(( ($1 << 24) + ($2 << 16) + ($3 << 8) + $4 )) $(( ($5 << 24) + ($6 << 16) + ($7 << 8) + $8 ))"
    else
        echo bad
    fi
}

# pngfind BIG SMALL...: where each SMALL picture lies in BIG ("X Y", or
# "none"); python3 is one of setup.sh's packages.
PY=$(python_with zlib struct)
pngfind() { "${PY:-python3}" "$top_srcdir/tests/pngfind.py" "$@"; }

# Fixtures, written here.
printf '%%%%MatrixMarket matrix coordinate pattern general\n4 4 4\n1 1\n2 2\n3 3\n4 4\n' > "$T/eye.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n40 70 6\n1 1 1.5\n2 2 -2\n17 9 3\n40 70 1\n20 35 2\n33 3 7\n' > "$T/wide.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 4\n' > "$T/one.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 5 0\n' > "$T/empty.mtx"
# 3001 x 1500, above the threading threshold: random entries, a dense row
# (1500 nonzeros) and a dense column.
awk 'BEGIN { srand(7); n = 300000; print "%%MatrixMarket matrix coordinate pattern general";
             print 3001, 1500, n + 1500 + 3001;
             for (k = 0; k < n; k++) print int(rand() * 3001) + 1, int(rand() * 1500) + 1;
             for (j = 1; j <= 1500; j++) print 1234, j;
             for (i = 1; i <= 3001; i++) print i, 700 }' > "$T/big.mtx"
gzip -c "$T/big.mtx" > "$T/big.mtx.gz"

# Geometry: the bare pictures (the matrix area in its frame).
"$TCPLOT" --bare "$T/eye.mtx" -s 4 -o "$T/eye.png"; ok $? "identity 4x4 drawn"
is "$(png_size "$T/eye.png")" "6 6" "a valid PNG, 4x4 pixels inside a 1-pixel frame"
"$TCPLOT" --bare "$T/wide.mtx" -o "$T/wide.png" --blocks "$T/wide-blocks.png"; ok $? "40x70: both pictures"
is "$(png_size "$T/wide.png")" "982 562" "default size 1024: zoom 14, aspect kept"
is "$(png_size "$T/wide-blocks.png")" "982 562" "block plot: same geometry"
"$TCPLOT" --bare -s 35 "$T/wide.mtx" --blocks "$T/wide-b35.png"; ok $? "--blocks alone"
is "$(png_size "$T/wide-b35.png")" "37 22" "size 35: 70 columns in 35 pixels, 40 rows in 20"
"$TCPLOT" --bare -s 1 "$T/one.mtx" -o "$T/one.png"; ok $? "1x1 at size 1"
is "$(png_size "$T/one.png")" "3 3" "1x1: one pixel in the frame"
"$TCPLOT" --bare -s 10 "$T/empty.mtx" -o "$T/empty.png" --blocks "$T/empty-b.png"; ok $? "a matrix without nonzeros"
is "$(png_size "$T/empty.png")" "12 12" "empty 5x5: zoom 2"
"$TCPLOT" --bare "$T/big.mtx" -o "$T/big-bare.png"; ok $? "3001x1500 with a dense row and column"
is "$(png_size "$T/big-bare.png")" "514 1026" "tall matrix: 1024 rows of pixels"

# Decorations (the default): the bare picture pixel for pixel inside a
# larger one, below the title and right of the row labels; each --no-*
# option takes its part away, all of them make the bare picture.
"$TCPLOT" "$T/big.mtx" -o "$T/big.png" --blocks "$T/big-b.png"; ok $? "decorated: both pictures"
"$TCPLOT" --bare "$T/big.mtx" --blocks "$T/big-b-bare.png"
set -- $(png_size "$T/big.png")
test "$1" -gt 514 && test "$2" -gt 1026; ok $? "decorated spy plot: larger than the bare one ($1 x $2)"
set -- $(pngfind "$T/big.png" "$T/big-bare.png")
test "${1:-0}" -gt 30 && test "${2:-0}" -gt 30
ok $? "  the bare picture inside it, right of the row labels and below the title ($1, $2)"
set -- $(pngfind "$T/big-b.png" "$T/big-b-bare.png")
test "${1:-0}" -gt 30 && test "${2:-0}" -gt 30; ok $? "  the same for the block plot ($1, $2)"
for opt in --no-title --no-axes --no-colorbar; do
    "$TCPLOT" $opt "$T/big.mtx" -o "$T/big$opt.png"
    set -- $(png_size "$T/big$opt.png") $(png_size "$T/big.png")
    test $(( $1 * $2 )) -lt $(( $3 * $4 )) &&
        test "$(pngfind "$T/big$opt.png" "$T/big-bare.png")" != none
    ok $? "$opt: a smaller picture ($1 x $2), the matrix area the same"
done
"$TCPLOT" -f brp --no-legend "$T/big.mtx" -o "$T/nolegend.png" && "$TCPLOT" -f brp "$T/big.mtx" -o "$T/legend.png"
set -- $(png_size "$T/nolegend.png") $(png_size "$T/legend.png")
test "$2" -lt "$4"; ok $? "--no-legend: -f brp's legend left out ($2 rows, not $4)"
"$TCPLOT" -f brp --no-title --no-axes --no-colorbar --no-legend "$T/big.mtx" -o "$T/nodecor.png" &&
    "$TCPLOT" -f brp --bare "$T/big.mtx" -o "$T/bare.png" && cmp -s "$T/nodecor.png" "$T/bare.png"
ok $? "all four --no-* options: the bare picture, as --bare"
"$TCPLOT" --title "Another name" "$T/big.mtx" -o "$T/titled.png" && ! cmp -s "$T/titled.png" "$T/big.png" &&
    test "$(png_size "$T/titled.png")" = "$(png_size "$T/big.png")"
ok $? "--title: another title, the same layout"
# Text that is not UTF-8 (a Latin-1 file name, a title cut mid-character)
# is drawn with '?' in place of the bad bytes, not refused.
latin1=$(printf 'caf\351')
cp "$T/wide.mtx" "$T/$latin1.mtx"
"$TCPLOT" "$T/$latin1.mtx" -o "$T/latin1.png" && "$TCPLOT" --title 'caf?' "$T/wide.mtx" -o "$T/qmark.png" &&
    cmp -s "$T/latin1.png" "$T/qmark.png"
ok $? "a Latin-1 file name: titled with '?' for its bad byte"
"$TCPLOT" --title "$(printf 'x\342\202')" "$T/wide.mtx" -o "$T/cut.png" &&
    "$TCPLOT" --title 'x??' "$T/wide.mtx" -o "$T/cut2.png" && cmp -s "$T/cut.png" "$T/cut2.png"
ok $? "a title ending mid-character: '?' for each stray byte"

# Every input kind gives the same bytes; so do thread counts.
"$TCPLOT" "$T/big.mtx.gz" -o "$T/gz.png" && cmp -s "$T/gz.png" "$T/big.png"
ok $? ".mtx.gz: the same picture"
"$TCCONV" -q "$T/big.mtx" -o "$T/big.tcf.h5" && "$TCPLOT" "$T/big.tcf.h5" -o "$T/h5.png" &&
    cmp -s "$T/h5.png" "$T/big.png"
ok $? ".tcf.h5: the same picture"
"$TCPLOT" --title big - -o "$T/stdin.png" < "$T/big.mtx" && cmp -s "$T/stdin.png" "$T/big.png"
ok $? "Matrix Market on standard input (titled as the file's name is)"
"$TCPLOT" "$T/big.mtx" --blocks - > "$T/stdout.png" && cmp -s "$T/stdout.png" "$T/big-b.png"
ok $? "--blocks - writes to standard output"
TC_THREADS=1 "$TCPLOT" "$T/big.mtx" -o "$T/t1.png" --blocks "$T/t1b.png" &&
    TC_THREADS=3 "$TCPLOT" "$T/big.mtx" -o "$T/t3.png" --blocks "$T/t3b.png" &&
    cmp -s "$T/t1.png" "$T/big.png" && cmp -s "$T/t3.png" "$T/big.png" &&
    cmp -s "$T/t1b.png" "$T/big-b.png" && cmp -s "$T/t3b.png" "$T/big-b.png"
ok $? "byte-identical on 1 and 3 threads"
TC_THREADS=1 "$TCPLOT" -t 3 "$T/big.mtx" -o "$T/t3o.png" && cmp -s "$T/t3o.png" "$T/big.png"
ok $? "  ... and with -t 3 (over \$TC_THREADS)"

# Grid: automatic at zoom (a 16x8 block is 14x7 pixels above), never when
# blocks are under 4 pixels a side.
"$TCPLOT" --bare --grid "$T/wide.mtx" -o "$T/grid.png" && "$TCPLOT" --bare --no-grid "$T/wide.mtx" -o "$T/nogrid.png"
ok $? "--grid and --no-grid"
cmp -s "$T/grid.png" "$T/wide.png"; ok $? "auto draws the grid when zoomed"
! cmp -s "$T/nogrid.png" "$T/wide.png"; ok $? "--no-grid removes it"
"$TCPLOT" -s 64 "$T/big.mtx" -o "$T/small.png" && "$TCPLOT" -s 64 --no-grid "$T/big.mtx" -o "$T/small-ng.png" &&
    cmp -s "$T/small.png" "$T/small-ng.png"
ok $? "auto draws no grid when a block is under 4 pixels"
"$TCPLOT" --bare --block 4x2 "$T/big.mtx" --blocks "$T/b42.png" && ! cmp -s "$T/b42.png" "$T/big-b-bare.png"
ok $? "--block 4x2 changes the block plot"
"$TCPLOT" -f csr "$T/big.mtx" --blocks "$T/fcsr.png" && cmp -s "$T/fcsr.png" "$T/big-b.png"
ok $? "-f csr is the aligned grid (the default)"

"$TCPLOT" --bare -v "$T/wide.mtx" -o "$T/v.png" > "$T/v.out" 2> "$T/v.err"
ok $? "-v"
is "$(cat "$T/v.err")" "tcplot: $T/wide.mtx: 40 x 70, 6 nonzeros
tcplot: $T/v.png: spy plot, 982 x 562 pixels" "-v says what was read and drawn, on stderr"
test ! -s "$T/v.out"; ok $? "-v: nothing on stdout"
"$TCPLOT" -q "$T/wide.mtx" -o "$T/q.png" 2> "$T/q.err" && test ! -s "$T/q.err"; ok $? "-q: silent"
"$TCPLOT" --help | grep -q '^Usage: tcplot'; ok $? "--help"
is "$("$TCPLOT" --version)" "tcplot (tcsparse) 0.1.0" "--version"

# Errors: message, exit status, no output left behind, nothing clobbered.
run_fails 1 "tcplot: $T/none.mtx: cannot open: No such file or directory" "missing input" -- \
    "$TCPLOT" "$T/none.mtx" -o "$T/none.png"
test ! -e "$T/none.png"; ok $? "no picture after a missing input"
run_fails 2 "tcplot: --size: 0 is out of range [1, 8192]" "--size 0" -- \
    "$TCPLOT" -s 0 "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: --threads: 0 is out of range [1, 4096]" "--threads 0" -- \
    "$TCPLOT" -t 0 "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: --size: 'big' is not a whole number" "--size big" -- \
    "$TCPLOT" --size big "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: --size: 9000 is out of range [1, 8192]" "--size 9000" -- \
    "$TCPLOT" --size 9000 "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: --block: expected HxW with sides 1 to 1024 (e.g. 16x8), found '16'" "--block 16" -- \
    "$TCPLOT" --block 16 "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: --block: expected HxW with sides 1 to 1024 (e.g. 16x8), found '16x0'" "--block 16x0" -- \
    "$TCPLOT" --block 16x0 "$T/wide.mtx" -o "$T/x.png"
run_fails 2 "tcplot: nothing to draw: give -o FILE and/or --blocks FILE" "no output named" -- \
    "$TCPLOT" "$T/wide.mtx"
run_fails 2 "tcplot: --output and --blocks name the same file '$T/x.png'" "one file for both" -- \
    "$TCPLOT" "$T/wide.mtx" -o "$T/x.png" --blocks "$T/x.png"
run_fails 2 "tcplot: --format: unknown format 'nope' (give one of: $(known_formats))" "unknown format" -- \
    "$TCPLOT" -f nope "$T/wide.mtx" -o "$T/x.png"
# Formats without parts would be drawn as csr under their name.
for f in bsb hrpb bcsr; do
    run_fails 2 "tcplot: --format: $f has no tensor-core and CUDA-core parts to draw (tcplot draws csr, brp, rstile)" \
        "-f $f refused" -- "$TCPLOT" -f $f "$T/wide.mtx" -o "$T/x.png"
done
# -b is --block, as in tcstat: it must not take a block shape for a file name
(cd "$T" && "$TCPLOT" -b 16x16 big.mtx -o b16.png) && [ ! -e "$T/16x16" ] &&
    "$TCPLOT" --block 16x16 "$T/big.mtx" -o "$T/block16.png" && cmp -s "$T/b16.png" "$T/block16.png"
ok $? "-b 16x16 is --block 16x16"
run_fails 2 "tcplot: no input file" "no input" -- "$TCPLOT" -o "$T/x.png"
run_fails 2 "tcplot: more than one input file" "two inputs" -- "$TCPLOT" -o "$T/x.png" "$T/wide.mtx" "$T/eye.mtx"
test ! -e "$T/x.png"; ok $? "no picture after usage errors"
run_fails 1 "tcplot: /nonexistent-dir/x.png: cannot create: No such file or directory" \
    "unwritable output" -- "$TCPLOT" "$T/wide.mtx" -o /nonexistent-dir/x.png
"$TCPLOT" "$T/wide.mtx" -o "$T/first.png" --blocks /nonexistent-dir/b.png 2>/dev/null
ok $(( $? != 1 )) "one unwritable target of two: exit 1"
test ! -e "$T/first.png"; ok $? "...and the other picture is not written either"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n' > "$T/short.mtx"
echo previous > "$T/keep.png"
"$TCPLOT" "$T/short.mtx" -o "$T/keep.png" 2>/dev/null
ok $(( $? != 1 )) "a truncated matrix exits 1"
is "$(cat "$T/keep.png")" "previous" "a failed run leaves the existing picture untouched"
is "$(ls -A "$T" | grep -c '^\..*\.png\.')" "0" "no temporary file left behind"
if [ -w /dev/full ]; then
    "$TCPLOT" "$T/wide.mtx" -o - > /dev/full 2> "$T/full.err"
    ok $(( $? != 1 )) "standard output full: exit 1"
    grep -q 'No space left on device' "$T/full.err"; ok $? "...saying why"
else
    skip "no /dev/full"
    skip "no /dev/full"
fi

# Timing smoke test on the largest matrix of the shared collection.
D=${TC_SHARED_DATA:-}
if [ -n "$D" ] && [ -f "$D/MANIFEST.tsv" ]; then
    name=$(tail -n +2 "$D/MANIFEST.tsv" | sort -t '	' -k5,5n | tail -n 1 | cut -f1)
    start=$(date +%s)
    "$TCPLOT" -q --bare "$D/$name.mtx.gz" -o "$T/largest.png" --blocks "$T/largest-b.png"
    ok $? "$name (largest shared matrix): both pictures"
    secs=$(( $(date +%s) - start ))
    diag "$name: read and drawn in about $secs s"
    test "$secs" -le 30; ok $? "$name: within 30 s"
    is "$(png_size "$T/largest.png" | cut -d' ' -f1)" "1026" "$name: 1024 pixels wide"
else
    skip "no shared matrix collection (TC_SHARED_DATA)"
fi
done_testing
