#!/bin/sh
# tcreorder --plot: the pattern before and after a reordering, side by
# side, each panel what tcplot draws at size 512 titled with the report's
# 16x8 TC block count; the same bytes twice; written with the other
# outputs or not at all; every clash with an input or another output
# refused before anything is read.
. "${top_srcdir:-.}/tests/lib.sh"
TCREORDER=$TOOLS/tcreorder
TCPLOT=$TOOLS/tcplot

PY=$(python_with zlib struct)
pngfind() { "${PY:-python3}" "$top_srcdir/tests/pngfind.py" "$@"; }
# "WIDTH HEIGHT" of a PNG, from its IHDR chunk
png_size() { set -- $(od -An -tu1 -j16 -N8 "$1"); echo "$(( ($1 << 24) + ($2 << 16) + ($3 << 8) + $4 )) $(( ($5 << 24) + ($6 << 16) + ($7 << 8) + $8 ))"; }

# 1138_bus, a power network: rcm brings its nonzeros near the diagonal.
gzip -dc "$DATA/1138_bus.mtx.gz" > "$T/band.mtx"
cp "$T/band.mtx" "$T/band.orig"

"$TCREORDER" --method rcm --symmetric --tsv --plot "$T/pair.png" -o "$T/rcm.tcf.h5" "$T/band.mtx" > "$T/rcm.tsv"
ok $? "--plot with -o and --tsv"
before=$(tsv_value tc16x8 blocks_before "$T/rcm.tsv"); after=$(tsv_value tc16x8 blocks_after "$T/rcm.tsv")
"$TCPLOT" -s 512 --title "band, before: $before TC blocks of 16x8" "$T/band.mtx" -o "$T/left.png" &&
    "$TCPLOT" -s 512 --title "after rcm: $after TC blocks of 16x8" "$T/rcm.tcf.h5" -o "$T/right.png"
ok $? "the two panels drawn by tcplot, titled with the report's counts ($before, $after)"
set -- $(png_size "$T/left.png") $(png_size "$T/right.png") $(png_size "$T/pair.png")
is "$5 $6" "$(( $1 + 24 + $3 )) $(( $2 > $4 ? $2 : $4 ))" "side by side, 24 pixels apart: $5 x $6"
left_w=$1
is "$(pngfind "$T/pair.png" "$T/left.png" "$T/right.png" | tr '\n' ' ')" "0 0 $(( left_w + 24 )) 0 " \
    "before on the left, after on the right, pixel for pixel (titles and counts included)"
"$TCREORDER" -q --method rcm --symmetric --plot "$T/again.png" "$T/band.mtx" && cmp -s "$T/pair.png" "$T/again.png"
ok $? "the same bytes twice"
cmp -s "$T/band.mtx" "$T/band.orig"; ok $? "the input untouched"
"$TCREORDER" -v --method rcm --symmetric --plot "$T/v.png" "$T/band.mtx" > /dev/null 2> "$T/v.err"
grep -qx "tcreorder: $T/v.png: before and after, $5 x $6 pixels" "$T/v.err"; ok $? "-v says what was drawn"
"$TCREORDER" -q --apply "$T/identity.txt" --plot "$T/x.png" "$T/band.mtx" 2>/dev/null
ok $(( $? != 1 )) "a missing --apply file: exit 1"
test ! -e "$T/x.png"; ok $? "  and no picture"

# Clashes and bad names: usage errors, nothing written, the input kept.
cp "$T/band.mtx" "$T/m"
run_fails 2 "tcreorder: --plot $T/m would overwrite the input $T/m" "--plot naming the input" -- \
    "$TCREORDER" --method rcm --plot "$T/m" "$T/m"
cmp -s "$T/m" "$T/band.orig"; ok $? "  the input untouched"
ln -s m "$T/link.png"
run_fails 2 "tcreorder: --plot $T/link.png would overwrite the input $T/m" "--plot naming the input through a link" -- \
    "$TCREORDER" --method rcm --plot "$T/link.png" "$T/m"
cmp -s "$T/m" "$T/band.orig"; ok $? "  the input untouched"
run_fails 2 "tcreorder: --perm-out and --plot name the same file '$T/out'" "--plot and --perm-out naming one file" -- \
    "$TCREORDER" --method rcm --perm-out "$T/out" --plot "$T/out" "$T/band.mtx"
run_fails 2 "tcreorder: --plot: the picture cannot go to standard output: give a file name" "--plot -" -- \
    "$TCREORDER" --method rcm --plot - "$T/band.mtx"
run_fails 2 "tcreorder: --plot $T/p.txt: cannot write '.txt': it writes PNG (a name ending in .png, or without an extension)" \
    "--plot of a text name" -- "$TCREORDER" --method rcm --plot "$T/p.txt" "$T/band.mtx"
test ! -e "$T/out" && test ! -e "$T/p.txt"; ok $? "no file after usage errors"

# One output that cannot be written: none is.
run_fails 1 "tcreorder: /nonexistent-dir/p.png: cannot create: No such file or directory" \
    "--plot into a missing folder" -- \
    "$TCREORDER" --method rcm -o "$T/also.tcf.h5" --plot /nonexistent-dir/p.png "$T/band.mtx"
test ! -e "$T/also.tcf.h5"; ok $? "  and -o's file is not written either"
echo previous > "$T/keep.png"
"$TCREORDER" -q --method rcm --perm-out /nonexistent-dir/p.txt --plot "$T/keep.png" "$T/band.mtx" 2>/dev/null
ok $(( $? != 1 )) "--perm-out into a missing folder: exit 1"
is "$(cat "$T/keep.png")" "previous" "  and the picture of that name is kept"
is "$(ls -A "$T" | grep -c '^\..*\.png\.')" "0" "no temporary file left behind"
done_testing
