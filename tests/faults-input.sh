#!/bin/sh
# Damaged inputs at the tool level: a real Matrix Market file (plain and
# gzip) cut short at several points or holding a NUL byte, and .tcf.h5 files
# whose parts disagree: a future layout version, no /matrix, a format
# parameter out of range, a format group whose header or arrays do not
# match /matrix. Each time: exit status 1 and the
# exact message, naming the file and the line or dataset. (The parser's
# single cases are in tests/t_mtx.c, the container's in tests/t_h5bad.c and
# each format's tests.)
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=${TCCONV:-$TOOLS/tcconv}
TCSTAT=${TCSTAT:-$TOOLS/tcstat}
TCREORDER=${TCREORDER:-$TOOLS/tcreorder}
TCPLOT=${TCPLOT:-$TOOLS/tcplot}

# --- Matrix Market cut short --------------------------------------------------
# cora: "%%MatrixMarket matrix coordinate real symmetric", "%", the size line
# "2708 2708 7986", then lines "I J 1.000000000000000e+00"; line 38 is
# "31 31 1.000000000000000e+00".
gzip -dc "$DATA/cora.mtx.gz" > "$T/cora.mtx"
at38=$(head -n 37 "$T/cora.mtx" | wc -c)
cut_at() {   # cut_at BYTES MESSAGE NAME: cora.mtx cut after BYTES bytes
    head -c "$1" "$T/cora.mtx" > "$T/cut.mtx"
    run_fails 1 "tcconv: $T/cut.mtx:$2" ".mtx cut $3" -- "$TCCONV" "$T/cut.mtx" -o "$T/cut.tcf.h5"
}
cut_at 10 "1: expected a '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner, found '%%MatrixMa'" \
    "in the banner"
cut_at 60 "3: expected 3 fields in the size line (rows columns entries), found 2" \
    "in the size line"
cut_at 64 "3: unexpected end of file: expected 7986 entries, found 0" "after the size line"
cut_at $((at38 + 5)) "38: expected 3 fields, found 2" "mid-line, after two fields"
cut_at $((at38 + 13)) "38: unexpected end of file: expected 7986 entries, found 35" \
    "mid-number (1.00000: a number still)"
cut_at $((at38 + 25)) "38: expected a real value, found '1.000000000000000e+'" \
    "mid-number, in the exponent"
cut_at "$(head -n 3312 "$T/cora.mtx" | wc -c)" \
    "3313: unexpected end of file: expected 7986 entries, found 3309" "at a line end"
[ ! -e "$T/cut.tcf.h5" ]; ok $? "  no output from any of them"

# A NUL byte, plain and gzip: named with its line and column, where it would
# have cut the stored banner short or made a number look bad.
nul_at() {   # nul_at LINE TEXT-WITH-NUL COLUMN NAME: line LINE of cora.mtx replaced
    { head -n $(($1 - 1)) "$T/cora.mtx"; printf "$2\n"; tail -n +$(($1 + 1)) "$T/cora.mtx"; } \
        > "$T/nul.mtx"
    gzip -c "$T/nul.mtx" > "$T/nul.mtx.gz"
    for f in "$T/nul.mtx" "$T/nul.mtx.gz"; do
        run_fails 1 "tcconv: $f:$1: NUL byte at column $3 (Matrix Market is text)" \
            "a NUL byte $4 (${f##*/})" -- "$TCCONV" "$f" --output "$T/nul.tcf.h5"
    done
}
nul_at 1 '%%%%MatrixMarket matrix coordinate real symmetric\000' 48 "in the banner"
nul_at 38 '31 31 1.000000000000000\000e+00' 24 "in a value"
[ ! -e "$T/nul.tcf.h5" ]; ok $? "  no output from any of them"

size=$(wc -c < "$DATA/cora.mtx.gz")
gz_cut() {   # gz_cut BYTES NAME: cora.mtx.gz cut after BYTES bytes
    head -c "$1" "$DATA/cora.mtx.gz" > "$T/cut.mtx.gz"
    run_fails 1 "tcconv: $T/cut.mtx.gz: cannot decompress: unexpected end of file" \
        ".mtx.gz cut $2" -- "$TCCONV" "$T/cut.mtx.gz" -o "$T/cut.tcf.h5"
}
gz_cut 5 "in the gzip header"
gz_cut 100 "in the first deflate block"
gz_cut $((size / 2)) "mid-member"
gz_cut $((size - 8)) "before the trailer (all data there, no CRC and length)"
gz_cut $((size - 1)) "in the trailer's length"
cp "$DATA/cora.mtx.gz" "$T/bad-crc.mtx.gz"
printf '\377' | dd of="$T/bad-crc.mtx.gz" bs=1 seek=$((size - 6)) conv=notrunc 2>/dev/null
run_fails 1 "tcconv: $T/bad-crc.mtx.gz: cannot decompress: incorrect data check" \
    ".mtx.gz with a wrong CRC" -- "$TCCONV" "$T/bad-crc.mtx.gz" -o "$T/cut.tcf.h5"
[ ! -e "$T/cut.tcf.h5" ]; ok $? "  no output from any of them"

# --- .tcf.h5 whose parts disagree ---------------------------------------------
# /formats/F of one matrix grafted onto another of the same shape and nonzero
# count (its rcm reordering): the header agrees, the arrays do not.
"$TCCONV" -q -f all "$DATA/1138_bus.mtx.gz" -o "$T/all.tcf.h5" &&
    "$TCREORDER" -q -m rcm "$DATA/1138_bus.mtx.gz" -o "$T/rcm.tcf.h5"
ok $? "a file with every format, and the matrix reordered"
formats=$(known_formats | sed 's/, / /g; s/\<csr\>//')
if command -v h5copy >/dev/null 2>&1; then
    for f in $formats; do
        cp "$T/rcm.tcf.h5" "$T/graft.tcf.h5"
        h5copy -p -i "$T/all.tcf.h5" -s "/formats/$f" -o "$T/graft.tcf.h5" -d "/formats/$f"
        run_fails 1 "tcstat: $T/graft.tcf.h5: /formats/$f: does not encode /matrix (row 0 differs)" \
            "$f of another matrix with the same header: refused" -- \
            "$TCSTAT" -f "$f" "$T/graft.tcf.h5"
    done
else
    skip "no h5copy (Debian: hdf5-tools)"
fi

PY=$(h5py_python)
if [ -z "$PY" ]; then
    skip "h5py edits: no python3 with h5py and numpy (Debian: python3-h5py)"
    done_testing
    exit
fi
# tamper FILE GROUP EDIT NAME: a copy of FILE as $T/bad.tcf.h5 with one edit
# of GROUP: attribute NAME plus one, dataset NAME one element short, or NAME
# (group or dataset) removed, the layout version set to NAME, or with EDIT
# set, the attribute NAME=VALUE given its value (float64).
tamper() {
    cp "$1" "$T/bad.tcf.h5"
    "$PY" - "$T/bad.tcf.h5" "$2" "$3" "$4" <<'EOF'
import sys, h5py
path, group, edit, name = sys.argv[1:5]
with h5py.File(path, 'r+') as f:
    g = f[group]
    if edit == 'attr+1':
        g.attrs[name] = g.attrs[name] + 1
    elif edit == 'short':
        d = g[name][:]
        del g[name]
        g.create_dataset(name, data=d[:-1])
    elif edit == 'remove':
        del g[name]
    elif edit == 'version':
        g.attrs['tcf_layout_version'] = name
    elif edit == 'set':
        key, value = name.split('=')
        g.attrs[key] = float(value)
EOF
}
bad=$T/bad.tcf.h5
tamper "$T/all.tcf.h5" / version 2.0
run_fails 1 \
    "tcstat: $bad: tcf layout version 2.0 is not supported (tcsparse 0.1.0 reads 1.x and writes 1.1)" \
    "a future layout version (2.0): refused" -- "$TCSTAT" "$bad"
tamper "$T/all.tcf.h5" / remove matrix
run_fails 1 "tcconv: $bad: /matrix: no such group" "no /matrix: refused" -- \
    "$TCCONV" "$bad" -o "$T/out.mtx"
# A parameter stored out of range or fractional: a bad file (status 1), not
# a usage error (2), from every tool that reads it; a whole number in full.
for g in "1000|is out of range [1, 256]" "2.5|must be a whole number" \
         "9502740|is out of range [1, 256]"; do
    v=${g%%|*}
    tamper "$T/all.tcf.h5" /formats/brp set "g=$v"
    run_fails 1 "tcstat: $bad: /formats/brp: g=$v ${g#*|}" "tcstat: brp stored with g=$v: refused" -- \
        "$TCSTAT" --format brp "$bad"
    run_fails 1 "tcplot: $bad: /formats/brp: g=$v ${g#*|}" "tcplot: brp stored with g=$v: refused" -- \
        "$TCPLOT" --format brp "$bad" --output "$T/parts.png"
done
[ ! -e "$T/parts.png" ]; ok $? "  no picture from any of them"

for f in $formats; do
    for a in rows cols nnz; do
        tamper "$T/all.tcf.h5" "/formats/$f" attr+1 $a
        case $a in
        rows) h="1139x1138, 4054" ;; cols) h="1138x1139, 4054" ;; nnz) h="1138x1138, 4055" ;;
        esac
        want="/formats/$f: header says $h nonzeros, has_values 1; /matrix is 1138x1138, 4054"
        run_fails 1 "tcstat: $bad: $want nonzeros, has_values 1" \
            "$f: attribute $a differs from /matrix: refused" -- "$TCSTAT" -f "$f" "$bad"
    done
    # Every array one element short (offsets arrays included): refused,
    # naming a dataset of the group, whichever check sees it first.
    for d in $(h5ls "$T/all.tcf.h5/formats/$f" | awk '{ print $1 }'); do
        tamper "$T/all.tcf.h5" "/formats/$f" short "$d"
        named="^tcstat: $bad: /formats/$f/[A-Za-z_]*: expected [0-9]* entries, found [0-9]*$"
        "$TCSTAT" -f "$f" "$bad" > /dev/null 2> "$T/err"
        is "$?:$(sed "s|$named|named|" "$T/err")" 1:named \
            "$f: $d one element short: refused ($(sed "s|$T/||" "$T/err"))"
    done
done

done_testing
