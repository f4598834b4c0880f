#!/bin/sh
# edgelist.sh: edge lists through every tool. Real matrices (the shared
# collection, else the bundled ones) are written as edge lists by awk (an
# independent writer: not ours) in the styles people have: SNAP (tab, #
# comments, 0-based), CSV with weights (1-based), blanks with gzip, a name
# without an extension (--from), one triangle of a symmetric matrix
# (--undirected); each must read as the Matrix Market original does.
# Sparse and string ids are relabelled with their map kept: written back,
# in a permutation and beside tcmul's C. Malformed lists and bad options
# are refused with their messages. The README's pipeline runs as written.
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=$TOOLS/tcconv TCSTAT=$TOOLS/tcstat TCREORDER=$TOOLS/tcreorder
TCPLOT=$TOOLS/tcplot TCMUL=$TOOLS/tcmul
PY=$(python_with h5py numpy)
[ -n "$PY" ] || { set_up_installs python3-h5py && ok 1 "setup.sh installs h5py, yet no python3 imports it"; } ||
    skip_all "no python3 with h5py and numpy"
D=${TC_SHARED_DATA:-}
[ -n "$D" ] && [ -f "$D/MANIFEST.tsv" ] || D=$DATA

# mtx_edges MTX SEP BASE HEADER [triangle]: MTX's entries as an edge list
# on stdout, ids from BASE, separated by SEP, after a "# tcsparse
# edgelist:" header when HEADER is 1; a symmetric or skew-symmetric file's
# mirrors written out (their values negated as text for skew), unless
# "triangle" asks for the file's own triangle only.
mtx_edges() {
    gzip -dc "$1" | awk -v sep="$2" -v base="$3" -v header="$4" -v tri="${5:-}" '
        NR == 1 { b = tolower($0); skew = b ~ /skew/; sym = !skew && b ~ /symmetric|hermitian/
                  pattern = b ~ /pattern/; next }
        /^%/ { next }
        !sized { sized = 1; if (header) print "# tcsparse edgelist: rows=" $1 " cols=" $2 " base=" base
                 print "# FromNodeId" sep "ToNodeId"; next }
        { i = $1 - 1 + base; j = $2 - 1 + base
          print i sep j (pattern ? "" : sep $3)
          if ((sym || skew) && $1 != $2 && tri == "") {
              v = $3; if (skew) v = (v ~ /^-/) ? substr(v, 2) : "-" v
              print j sep i (pattern ? "" : sep v) } }'
}

# same_arrays A.tcf.h5 B.tcf.h5: the same /matrix arrays (values too,
# where there are any).
same_arrays() {
    for d in indptr indices data; do
        if h5ls "$1/matrix/$d" >/dev/null 2>&1 || h5ls "$2/matrix/$d" >/dev/null 2>&1; then
            h5diff "$1" "$2" "/matrix/$d" "/matrix/$d" >/dev/null || return 1
        fi
    done
}

# ---- every matrix, in one of four styles, reads as its Matrix Market ----
k=0
for m in "$D"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$TCCONV" -q "$m" -o "$T/want.tcf.h5" || { ok 1 "$name: the Matrix Market original"; continue; }
    case $((k % 4)) in
    0) style="SNAP (tab, 0-based, # comments)"; f=$T/$name.txt; mtx_edges "$m" '	' 0 1 > "$f"; from= ;;
    1) style="CSV, 1-based"; f=$T/$name.csv; mtx_edges "$m" , 1 1 > "$f"; from= ;;
    2) style="blanks, gzip"; f=$T/$name.el.gz; mtx_edges "$m" '  ' 0 1 | gzip > "$f"; from= ;;
    3) style="no extension, --from edgelist"; f=$T/$name; mtx_edges "$m" '	' 0 1 > "$f"; from="--from edgelist" ;;
    esac
    k=$((k + 1))
    # shellcheck disable=SC2086 # $from is an option or nothing
    "$TCCONV" -q $from "$f" -o "$T/got.tcf.h5" && same_arrays "$T/want.tcf.h5" "$T/got.tcf.h5"
    ok $? "$name: an edge list ($style) reads as the Matrix Market original"
    "$TCCONV" -q "$T/got.tcf.h5" -o "$T/back.el" && "$TCCONV" -q "$T/back.el" -o "$T/back.tcf.h5" &&
        same_arrays "$T/want.tcf.h5" "$T/back.tcf.h5"
    ok $? "$name: written as an edge list and read back, the same matrix"
    rm -f "$f" "$T/want.tcf.h5" "$T/got.tcf.h5" "$T/back.el" "$T/back.tcf.h5"
done

# ---- every tool reads an edge list as it reads the Matrix Market -------
m=$DATA/cora.mtx.gz
mtx_edges "$m" '	' 0 0 > "$T/cora.txt"
mtx_edges "$m" ' ' 0 0 triangle > "$T/tri.el"
gzip -dc "$m" > "$T/cora.mtx"
"$TCSTAT" --undirected --tsv "$T/tri.el" | cut -f 2- > "$T/stat.el" &&
    "$TCSTAT" --tsv "$T/cora.mtx" | cut -f 2- > "$T/stat.mtx" && cmp -s "$T/stat.el" "$T/stat.mtx"
ok $? "tcstat --undirected: the same figures from one triangle as from the symmetric file"
"$TCREORDER" -q --method rcm --perm-out "$T/p1.txt" "$T/cora.txt" &&
    "$TCREORDER" -q --method rcm --perm-out "$T/p2.txt" "$T/cora.mtx" && cmp -s "$T/p1.txt" "$T/p2.txt"
ok $? "tcreorder: the same permutation"
"$TCPLOT" -q --bare -o "$T/el.png" "$T/cora.txt" && "$TCPLOT" -q --bare -o "$T/mtx.png" "$T/cora.mtx" &&
    cmp -s "$T/el.png" "$T/mtx.png"
ok $? "tcplot: the same picture (--bare: the titles name the files)"
"$TCMUL" -q --device cpu --cols 5 "$T/cora.txt" -o "$T/c.el.h5" &&
    "$TCMUL" -q --device cpu --cols 5 "$T/cora.mtx" -o "$T/c.mtx.h5" &&
    h5diff "$T/c.el.h5" "$T/c.mtx.h5" /C /C
ok $? "tcmul --device cpu: the same C"
"$TCCONV" -q --undirected "$T/tri.el" -o "$T/tri.tcf.h5" && "$TCCONV" -q "$m" -o "$T/cora.tcf.h5" &&
    same_arrays "$T/tri.tcf.h5" "$T/cora.tcf.h5"
ok $? "--undirected: one triangle reads as the symmetric matrix"

# no id 0 and no header: 1-based, said so
printf '1 2\n2 3\n' > "$T/guess.el"
"$TCCONV" "$T/guess.el" -o "$T/guess.mtx" 2> "$T/err"
is "$(cat "$T/err")" "tcconv: warning: $T/guess.el: no id is 0: ids taken as 1-based (--index-base 0 or 1 says which)" \
    "a list without an id 0: read 1-based, with a warning"
"$TCCONV" -q --index-base 0 "$T/guess.el" -o "$T/guess0.mtx" && sed -n 2p "$T/guess0.mtx" | grep -qx '4 4 2'
ok $? "--index-base 0: the same list keeps an empty row 0"

# ---- ids kept: names and sparse numbers --------------------------------
# sorted_edges FILE: "SOURCE TARGET VALUE" lines, values as numbers, sorted
sorted_edges() {
    awk -F'[,\t ]+' '/^#/ { next } { printf "%s %s %.17g\n", $1, $2, $3 }' "$1" | sort
}
mtx_edges "$m" , 0 0 | awk -F, '/^#/ { next } { print "v" $1 "," "v" $2 "," $3 }' > "$T/names.csv"
# (ids by text, not arithmetic: mawk prints large numbers as 2.7e+09)
mtx_edges "$m" '	' 0 0 | awk -F'\t' '/^#/ { next } { print $1 + 1 "000017\t" $2 + 1 "000017\t" $3 }' > "$T/sparse.tsv"
for f in names.csv sparse.tsv; do
    ext=${f#*.}
    "$TCCONV" -q "$T/$f" -o "$T/$f.tcf.h5" && "$TCCONV" -q "$T/$f.tcf.h5" -o "$T/back.$ext" &&
        sorted_edges "$T/$f" > "$T/a" && sorted_edges "$T/back.$ext" > "$T/b" && cmp -s "$T/a" "$T/b"
    ok $? "$f: ids kept through .tcf.h5 and written back"
    "$TCREORDER" -q --method rcm -o "$T/r.tcf.h5" "$T/$f.tcf.h5" &&
        "$TCCONV" -q "$T/r.tcf.h5" -o "$T/r.$ext" && sorted_edges "$T/r.$ext" > "$T/b" && cmp -s "$T/a" "$T/b"
    ok $? "$f: reordered, the edge list written has the original ids"
done
h5ls "$T/names.csv.tcf.h5/labels/text" >/dev/null && h5ls "$T/sparse.tsv.tcf.h5/labels/id" >/dev/null
ok $? "names are kept as /labels text, sparse numbers as /labels id"

# labels LABELS_GROUP_PATH FILE: the labels, one a line
labels() {
    "$PY" -c 'import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    g = f[sys.argv[2]]
    if "id" in g:
        print("\n".join(str(x) for x in g["id"][:]))
    else:
        t, o = bytes(g["text"][:]), g["offset"][:]
        print("\n".join(t[o[i]:o[i + 1]].decode() for i in range(len(o) - 1)))' "$2" "$1"
}
# The permutation of a labelled matrix lists ids: those of the index
# permutation of the same matrix without labels.
labels /labels "$T/names.csv.tcf.h5" > "$T/ids"
"$TCCONV" -q "$T/names.csv.tcf.h5" -o "$T/plain.mtx" &&
    "$TCREORDER" -q --method rcm --perm-out "$T/idx.txt" "$T/plain.mtx" &&
    "$TCREORDER" -q --method rcm --perm-out "$T/ids.txt" "$T/names.csv.tcf.h5" &&
    awk 'NR == FNR { id[NR - 1] = $0; next } { print id[$1] }' "$T/ids" "$T/idx.txt" > "$T/want.txt" &&
    cmp -s "$T/want.txt" "$T/ids.txt" && [ "$(sort -u "$T/ids.txt" | wc -l)" -eq 2708 ]
ok $? "tcreorder --perm-out: the original ids in their new order"
# reordered again: the ids of the rows as stored, through both permutations
"$TCREORDER" -q --method rcm -o "$T/r.tcf.h5" "$T/names.csv.tcf.h5" &&
    "$TCREORDER" -q --method degree --perm-out "$T/ids2.txt" "$T/r.tcf.h5" &&
    "$TCREORDER" -q --method rcm -o "$T/rp.tcf.h5" "$T/plain.mtx" &&
    "$TCREORDER" -q --method degree --perm-out "$T/idx2.txt" "$T/rp.tcf.h5" &&
    awk 'FILENAME == ARGV[1] { id[FNR - 1] = $0; next }
         FILENAME == ARGV[2] { rcm[FNR - 1] = $1; next } { print id[rcm[$1]] }' \
        "$T/ids" "$T/idx.txt" "$T/idx2.txt" | cmp -s - "$T/ids2.txt"
ok $? "tcreorder --perm-out of a reordered file: still the original ids"
# ... and --apply reads such a file back: the same order as the method's
"$TCREORDER" -q --method rcm -o "$T/m.tcf.h5" "$T/names.csv.tcf.h5" &&
    "$TCREORDER" -q --apply "$T/ids.txt" -o "$T/a.tcf.h5" "$T/names.csv.tcf.h5" &&
    for d in /matrix/indptr /matrix/indices /permutation/row_new_to_old; do
        h5diff "$T/m.tcf.h5" "$T/a.tcf.h5" $d $d >/dev/null || exit 1
    done
ok $? "tcreorder --apply: a file of ids, as --perm-out writes it, gives the same order"
"$TCREORDER" -q --apply "$T/ids2.txt" -o "$T/a2.tcf.h5" "$T/r.tcf.h5" &&
    "$TCREORDER" -q --method degree -o "$T/m2.tcf.h5" "$T/r.tcf.h5" &&
    h5diff "$T/m2.tcf.h5" "$T/a2.tcf.h5" /permutation/row_new_to_old /permutation/row_new_to_old
ok $? "tcreorder --apply on a reordered file: ids of its rows as stored"
printf 'v1\nnope\n' > "$T/bad-ids.txt"
run_fails 1 "tcreorder: $T/bad-ids.txt:2: unknown id 'nope' (not a row's)" "--apply: an unknown id" -- \
    "$TCREORDER" --apply "$T/bad-ids.txt" "$T/names.csv.tcf.h5"
head -n 5 "$T/ids.txt" > "$T/few-ids.txt"
run_fails 1 "tcreorder: $T/few-ids.txt:6: 5 ids for 2708 rows" "--apply: too few ids" -- \
    "$TCREORDER" --apply "$T/few-ids.txt" "$T/names.csv.tcf.h5"
"$TCMUL" -q --device cpu --cols 3 "$T/names.csv.tcf.h5" -o "$T/c.h5:/C" &&
    "$TCMUL" -q --device cpu --cols 3 "$T/plain.mtx" -o "$T/c.plain.h5" &&
    h5diff "$T/c.h5" "$T/c.plain.h5" /C /C && labels /C_row_labels "$T/c.h5" | cmp -s - "$T/ids"
ok $? "tcmul: C with the ids of its rows beside it (C_row_labels)"
"$TCMUL" -q --device cpu --cols 3 "$T/r.tcf.h5" -o "$T/cr.h5:/C" &&
    h5diff "$T/cr.h5" "$T/c.plain.h5" /C /C && labels /C_row_labels "$T/cr.h5" | cmp -s - "$T/ids"
ok $? "tcmul on the reordered file: C and its ids in the original order"
"$TCMUL" --device cpu --cols 3 "$T/names.csv" -o "$T/c.mtx" 2> "$T/err" >/dev/null
is "$(cat "$T/err")" "tcmul: warning: $T/c.mtx: a Matrix Market array has no place for the original row ids: write HDF5 to keep them" \
    "tcmul: a Matrix Market C says that the ids are not in it"

# ---- malformed lists: file:line, exit 1, nothing written ----------------
bad() {   # bad NAME TEXT MESSAGE [OPTIONS...]
    _name=$1 _text=$2 _msg=$3; shift 3
    printf "$_text" > "$T/bad.el"
    run_fails 1 "tcconv: $T/bad.el:$_msg" "$_name" -- "$TCCONV" "$@" "$T/bad.el" -o "$T/out.tcf.h5"
}
bad "ragged columns" '0 1\n1 2 3.5\n' "2: expected 2 fields as on line 1, found 3"
bad "a bad number" '0 1 2\n1 2 x\n' "2: expected a real weight, found 'x'"
bad "a negative id" '0 1\n-3 2\n' "2: negative source id -3 (ids are numbers from 0, or names)"
bad "an empty file" '' "1: no edges: expected lines 'SOURCE TARGET [WEIGHT]'"
bad "an id past int32, not relabelled" '0 1\n1 3000000000\n' \
    "2: target id 3000000000 is past the largest index, 2147483646 (0-based; ids are not relabelled)" --relabel never
bad "an id past 64 bits" '0 1\n99999999999999999999 1\n' "2: source id 99999999999999999999 does not fit in 64 bits"
bad "an id 0 with --index-base 1" '2 1\n1 0\n' "2: id 0 where ids are 1-based (--index-base 1)" --index-base 1
[ ! -e "$T/out.tcf.h5" ]; ok $? "no output after a refused list"
printf 'keep\n' > "$T/kept.el"
printf '0 1\n1\n' > "$T/bad.el"
"$TCCONV" -q "$T/bad.el" -o "$T/kept.el" 2>/dev/null; [ "$(cat "$T/kept.el")" = keep ]
ok $? "a refused list leaves the existing output untouched"

# ---- options -------------------------------------------------------------
el=$T/cora.txt
run_fails 2 "tcconv: --from: unknown kind 'graph' (give one of: $(known_kinds))" "bad --from" -- \
    "$TCCONV" --from graph "$el" -o "$T/x.tcf.h5"
run_fails 2 "tcconv: --to: unknown kind 'png' (give one of: $(known_kinds write))" "bad --to" -- \
    "$TCCONV" --to png "$el" -o "$T/x.tcf.h5"
run_fails 2 "tcstat: --index-base: 2 is out of range [0, 1]" "bad --index-base" -- \
    "$TCSTAT" --index-base 2 "$el"
run_fails 2 "tcplot: --relabel: expected auto, always or never, found 'yes'" "bad --relabel" -- \
    "$TCPLOT" --relabel yes "$el" -o "$T/x.png"
run_fails 1 "tcmul: $T/cora.txt:1: expected a '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner, found '# FromNodeId	ToNodeId'" \
    "--from mtx reads an edge list's name as Matrix Market" -- \
    "$TCMUL" --from mtx --device cpu --cols 2 --verify "$T/cora.txt"
"$TCCONV" -q --from edgelist - --to mtx < "$el" | sed -n 2p | grep -qx '2708 2708 13264'
ok $? "--from edgelist reads standard input"
"$TCCONV" --list-kinds | grep -q '^edgelist *read+write'
ok $? "--list-kinds lists the edge lists"

# ---- the README's pipeline, as written ---------------------------------
mkdir "$T/readme"
mtx_edges "$DATA/cora.mtx.gz" '	' 0 0 > "$T/readme/g.txt"
sed -n '/^<!-- edge-list pipeline -->$/,/^```$/p' "$top_srcdir/README.md" | sed '1,2d;$d' > "$T/readme.sh"
[ -s "$T/readme.sh" ] && (cd "$T/readme" && PATH=$TOOLS:$PATH bash -e "$T/readme.sh" > out 2> err) &&
    [ -s "$T/readme/g.png" ]
ok $? "README: a SNAP edge list to a plot and a multiply"

done_testing
