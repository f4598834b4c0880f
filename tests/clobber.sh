#!/usr/bin/env bash
# clobber.sh: no output of any tool takes the place of a file given as input,
# and no output's kind is guessed from a name that says another kind.
#
# An output naming an input (the same file by device and inode, so through
# symbolic and hard links too) is a usage error, exit 2, and the input stays
# byte for byte as it was; the in-place updates that are meant (tcconv into
# the same kind, tcreorder of a .tcf.h5) still work. Two outputs naming one
# file are refused the same way. An output name ending in a kind the option
# does not write (.jpg for tcconv, .mtx for a permutation, .jpg for a
# picture) is a usage error too, and leaves nothing behind.
. "$(dirname "$0")/lib.sh"
TCCONV=$TOOLS/tcconv TCSTAT=$TOOLS/tcstat TCREORDER=$TOOLS/tcreorder
TCPLOT=$TOOLS/tcplot TCMUL=$TOOLS/tcmul

gzip -dc "$DATA/cora.mtx.gz" > "$T/m.mtx"
"$TCCONV" -q "$T/m.mtx" --output "$T/m.tcf.h5" || exit 1
for f in m.mtx m.tcf.h5; do cp "$T/$f" "$T/$f.orig"; done
# Other names for the inputs: links by another name, one with no extension
# (so that the name says no kind and only the clash is at fault).
ln "$T/m.mtx" "$T/hard-mtx"
ln -s m.mtx "$T/sym-mtx"
ln "$T/m.tcf.h5" "$T/hard-tcf"
ln -s m.tcf.h5 "$T/sym-tcf.h5"

# refused NAME INPUT MESSAGE -- CMD...: exit 2, MESSAGE then the --help
# hint on stderr, nothing on stdout, INPUT as it was, and no file left in $T
# that was not there before.
refused() {
    _rname=$1 _rin=$2 _rmsg=$3; shift 4
    : > "$T/.out"; : > "$T/.err"
    _before=$(ls -A "$T")
    run_fails 2 "$_rmsg" "$_rname" -- "$@"
    _tool=${_rmsg%%:*}
    is "$(sed -n 2p "$T/.err")" "Try '$_tool --help' for more information." "  the --help hint"
    cmp -s "$T/$_rin" "$T/$_rin.orig" && [ "$(ls -A "$T")" = "$_before" ]
    ok $? "  $_rin untouched, nothing written"
}

# ---- an output naming an input -------------------------------------------

refused "tcstat --output: a hard link to the input" m.tcf.h5 \
    "tcstat: --output $T/hard-tcf would overwrite the input $T/m.tcf.h5" -- \
    "$TCSTAT" "$T/m.tcf.h5" --output "$T/hard-tcf"
refused "tcstat --output: any of several inputs" m.mtx \
    "tcstat: --output $T/sym-mtx would overwrite the input $T/m.mtx" -- \
    "$TCSTAT" "$T/m.tcf.h5" "$T/m.mtx" --output "$T/sym-mtx"
refused "tcreorder --perm-out: the input through a symbolic link" m.mtx \
    "tcreorder: --perm-out $T/sym-mtx would overwrite the input $T/m.mtx" -- \
    "$TCREORDER" --method rcm "$T/m.mtx" --perm-out "$T/sym-mtx"
refused "tcreorder --perm-out: a .tcf.h5 input" m.tcf.h5 \
    "tcreorder: --perm-out $T/hard-tcf would overwrite the input $T/m.tcf.h5" -- \
    "$TCREORDER" --method rcm "$T/m.tcf.h5" --perm-out "$T/hard-tcf"
refused "tcreorder --output: a .tcf.h5 in place of a Matrix Market input" m.mtx \
    "tcreorder: --output $T/hard-mtx would overwrite the input $T/m.mtx" -- \
    "$TCREORDER" --method rcm "$T/m.mtx" --output "$T/hard-mtx"
"$TCREORDER" -q --method rcm "$T/m.mtx" --perm-out "$T/perm" && cp "$T/perm" "$T/perm.orig"
refused "tcreorder --output: the --apply file" perm \
    "tcreorder: --output $T/perm would overwrite the input $T/perm" -- \
    "$TCREORDER" --apply "$T/perm" "$T/m.tcf.h5" --output "$T/perm"
refused "tcreorder --perm-out: the --apply file" perm \
    "tcreorder: --perm-out $T/perm would overwrite the input $T/perm" -- \
    "$TCREORDER" --apply "$T/perm" "$T/m.mtx" --perm-out "$T/perm"
refused "tcconv --output: .tcf.h5 in place of a Matrix Market input" m.mtx \
    "tcconv: --output $T/hard-mtx would overwrite the input $T/m.mtx" -- \
    "$TCCONV" "$T/m.mtx" --output "$T/hard-mtx"
refused "tcconv --to mtx --output: Matrix Market in place of a .tcf.h5" m.tcf.h5 \
    "tcconv: --output $T/sym-tcf.h5 would overwrite the input $T/m.tcf.h5" -- \
    "$TCCONV" "$T/m.tcf.h5" --to mtx --output "$T/sym-tcf.h5"
refused "tcplot --output: a picture in place of the matrix" m.mtx \
    "tcplot: --output $T/sym-mtx would overwrite the input $T/m.mtx" -- \
    "$TCPLOT" "$T/m.mtx" --output "$T/sym-mtx"
refused "tcplot --blocks: the same" m.tcf.h5 \
    "tcplot: --blocks $T/hard-tcf would overwrite the input $T/m.tcf.h5" -- \
    "$TCPLOT" "$T/m.tcf.h5" --blocks "$T/hard-tcf"
refused "tcmul --output: C in place of A" m.tcf.h5 \
    "tcmul: --output $T/sym-tcf.h5 would overwrite the input $T/m.tcf.h5" -- \
    "$TCMUL" --device cpu --cols 4 "$T/m.tcf.h5" --output "$T/sym-tcf.h5"
refused "tcmul --op sddmm --output: S in place of A" m.tcf.h5 \
    "tcmul: --output $T/m.tcf.h5 would overwrite the input $T/m.tcf.h5" -- \
    "$TCMUL" --device cpu --op sddmm --dim 4 "$T/m.tcf.h5" --output "$T/m.tcf.h5"

# Standard output redirected onto the input: by name it is reopened (and
# truncated), so it is the input. (/proc/self/fd/1 rather than /dev/stdout:
# see faults.sh.)
"$TCSTAT" "$T/m.mtx" --output /proc/self/fd/1 >> "$T/m.mtx" 2> "$T/err"
is "$?:$(head -n 1 "$T/err")" "2:tcstat: --output /proc/self/fd/1 would overwrite the input $T/m.mtx" \
    "tcstat --output naming standard output appended to the input: refused"
cmp -s "$T/m.mtx" "$T/m.mtx.orig"; ok $? "  the input untouched"

# ---- two outputs naming one file ------------------------------------------
# (not there yet, spelled two ways: the same directory and name)

refused "tcreorder --output and --perm-out: one new file" m.mtx \
    "tcreorder: --output and --perm-out name the same file '$T/./new'" -- \
    "$TCREORDER" --method rcm "$T/m.mtx" --output "$T/new" --perm-out "$T/./new"
refused "tcplot --output and --blocks: one new file" m.mtx \
    "tcplot: --output and --blocks name the same file '$T/../${T##*/}/new.png'" -- \
    "$TCPLOT" "$T/m.mtx" --output "$T/new.png" --blocks "$T/../${T##*/}/new.png"
refused "tcplot --output and --blocks: both standard output" m.mtx \
    "tcplot: --output and --blocks name the same file '/dev/stdout'" -- \
    "$TCPLOT" "$T/m.mtx" --output - --blocks /dev/stdout

# ---- a name that says a kind the option does not write ------------------

refused "tcstat --output: the issue's case, a .tcf.h5 name for text" m.tcf.h5 \
    "tcstat: --output $T/m.tcf.h5: cannot write '.tcf.h5': it writes text (a name not ending in .tcf.h5, .h5, .hdf5, .mtx, .mtx.gz or .png)" -- \
    "$TCSTAT" "$T/m.tcf.h5" --output "$T/m.tcf.h5"
refused "tcreorder --perm-out: a .mtx name for a permutation" m.mtx \
    "tcreorder: --perm-out $T/m.mtx: cannot write '.mtx': it writes text (a name not ending in .tcf.h5, .h5, .hdf5, .mtx, .mtx.gz or .png)" -- \
    "$TCREORDER" --method rcm "$T/m.mtx" --perm-out "$T/m.mtx"
refused "tcreorder --output: a .mtx name for a .tcf.h5" m.mtx \
    "tcreorder: --output $T/m.mtx: cannot write '.mtx': it writes .tcf.h5 (a name ending in .tcf.h5, .h5 or .hdf5, or without an extension)" -- \
    "$TCREORDER" --method rcm "$T/m.mtx" --output "$T/m.mtx"
for ext in jpg mtx.bz2; do
    refused "tcconv --output: a .$ext name" m.tcf.h5 \
        "tcconv: --output $T/out.$ext: cannot write '.${ext##*.}': it writes $(known_kinds write); a name without an extension: tcf; --to KIND for any other name" -- \
        "$TCCONV" "$T/m.tcf.h5" --output "$T/out.$ext"
done
refused "tcplot --output: a .mtx name for a picture" m.mtx \
    "tcplot: --output $T/m.mtx: cannot write '.mtx': it writes PNG (a name ending in .png, or without an extension)" -- \
    "$TCPLOT" "$T/m.mtx" --output "$T/m.mtx"
refused "tcplot --blocks: a .jpg name" m.mtx \
    "tcplot: --blocks $T/b.jpg: cannot write '.jpg': it writes PNG (a name ending in .png, or without an extension)" -- \
    "$TCPLOT" "$T/m.mtx" --blocks "$T/b.jpg"
dense="HDF5 (a name ending in .h5 or .hdf5, or FILE:DATASET) or Matrix Market (.mtx, .mtx.gz)"
refused "tcmul --output: a .tcf.h5 name for a dense C" m.mtx \
    "tcmul: --output $T/c.tcf.h5: cannot write '.tcf.h5': it writes $dense" -- \
    "$TCMUL" --device cpu --cols 4 "$T/m.mtx" --output "$T/c.tcf.h5"
refused "tcmul --output: a .mtx file with an HDF5 dataset" m.mtx \
    "tcmul: --output $T/c.mtx: cannot write '.mtx': it writes $dense" -- \
    "$TCMUL" --device cpu --cols 4 "$T/m.mtx" --output "$T/c.mtx:/C"
refused "tcmul --output: no extension, no dataset" m.mtx \
    "tcmul: --output $T/c: no extension to tell the kind by: it writes $dense" -- \
    "$TCMUL" --device cpu --cols 4 "$T/m.mtx" --output "$T/c"

# ---- what stays allowed ---------------------------------------------------

# The matrix as Matrix Market in its original order, for comparisons.
"$TCCONV" -q "$T/m.tcf.h5.orig" --output "$T/want.mtx"
same_matrix() {   # same_matrix FILE NAME: FILE holds the original matrix
    "$TCCONV" -q --original-order "$1" --output "$T/got.mtx" &&
        cmp -s "$T/got.mtx" "$T/want.mtx"
    ok $? "$2"
}
"$TCCONV" -q "$T/m.tcf.h5" --format brp --output "$T/m.tcf.h5" &&
    "$TCSTAT" --format brp "$T/m.tcf.h5" | grep -q '^format.brp'
ok $? "tcconv .tcf.h5 --format brp into itself: an update, the format added"
same_matrix "$T/m.tcf.h5" "  the same matrix"
"$TCREORDER" -q --method rcm "$T/m.tcf.h5" --output "$T/m.tcf.h5" &&
    "$TCCONV" -q "$T/m.tcf.h5" --output "$T/stored.mtx" && ! cmp -s "$T/stored.mtx" "$T/want.mtx"
ok $? "tcreorder .tcf.h5 into itself: an update, stored reordered"
same_matrix "$T/m.tcf.h5" "  the same matrix (its permutation undone)"
"$TCCONV" -q "$T/m.mtx" --output "$T/m.mtx"
same_matrix "$T/m.mtx" "tcconv .mtx into itself: the same matrix"
is_hdf5() { [ "$(head -c 4 "$1" | tail -c 3)" = HDF ]; }
"$TCCONV" -q "$T/m.mtx" --to tcf --output "$T/explicit.csv" && is_hdf5 "$T/explicit.csv"
ok $? "tcconv --to tcf: any name (.csv) once the kind is given"
same_matrix "$T/explicit.csv" "  the same matrix"
"$TCCONV" -q "$T/m.mtx" --output "$T/no-extension" && is_hdf5 "$T/no-extension"
ok $? "tcconv: a name without an extension is a .tcf.h5"
same_matrix "$T/no-extension" "  the same matrix"
"$TCSTAT" "$T/m.mtx" --output "$T/report.json" && "$TCSTAT" "$T/m.mtx" --output - |
    cmp -s - "$T/report.json"
ok $? "tcstat --output: any other name for text, and - for standard output"
"$TCSTAT" "$T/m.mtx" --output /dev/stdout | cmp -s - "$T/report.json"
ok $? "tcstat --output /dev/stdout, a pipe: no clash"

done_testing
