#!/bin/sh
# containers.sh: other libraries' sparse files (lib/npz.c, lib/binsparse.c,
# lib/h5ad.c) through the test driver tests/containers, against each
# format's own reference (tests/containers.py: SciPy, h5py + json,
# anndata): real matrices of the shared collection written by them and
# read by us, written by us and read by them; binsparse fixtures typed in
# from the specification's examples (tests/data/binsparse), so that a
# misreading shared by our reader and writer shows; malformed files of
# each kind refused with a message naming the file and what was expected.
. "${top_srcdir:-.}/tests/lib.sh"
C=$top_builddir/tests/containers
REF=$top_srcdir/tests/containers.py
FIX=$DATA/binsparse

PY=$(python_with scipy h5py anndata)
if [ -z "$PY" ]; then
    set_up_installs python3-anndata && { ok 1 "python3 with scipy, h5py and anndata"; done_testing; exit; }
    skip_all "no python3 with scipy, h5py and anndata (Debian: python3-scipy python3-h5py python3-anndata)"
fi
ref() { "$PY" -W ignore "$REF" "$@"; }

# The lines "0 NAME" / "1 NAME: why" of `containers.py compare` in FILE as
# tests.
report() {
    while read -r status rest; do
        ok "$status" "${rest%%:*}"
        [ "$status" -eq 0 ] || diag "$rest"
    done < "$1"
}

# --- the specification's own examples, typed in -----------------------------
for f in spec-iso-csr spec-symmetric-lower; do
    "$C" read binsparse "$FIX/$f.bsp.h5" "$T/$f.mtx"
    is "$(cat "$T/$f.mtx" 2>&1)" "$(grep -v '^% ' "$FIX/$f.mtx")" "binsparse: the specification's $f example"
done
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 4 3\n1 2\n3 1\n3 4\n' > "$T/pattern.mtx"
"$C" write binsparse "$FIX/spec-symmetric-lower.mtx" "$T/spec.h5"
"$C" write binsparse "$T/pattern.mtx" "$T/pattern.h5"
ref compare "$FIX/spec-symmetric-lower.mtx" "$T/spec.h5" | sed "s|$T/||" > "$T/cmp"
ref compare "$T/pattern.mtx" "$T/pattern.h5" | sed "s|$T/||" >> "$T/cmp"
report "$T/cmp"
"$C" read binsparse "$T/pattern.h5" "$T/pattern-back.mtx"
is "$(cat "$T/pattern-back.mtx")" "$(cat "$T/pattern.mtx")" "binsparse: a pattern written as iso[bint8] [1] reads back as a pattern"

# --- real matrices: written by SciPy, h5py and anndata, read by us -----------
# Each is read from every kind and variant; the first result is compared
# with the Matrix Market original by SciPy, the others with the first byte
# for byte. What we write is read by load_npz and by h5py.
D=${TC_SHARED_DATA:-}
if [ -n "$D" ] && [ -f "$D/MANIFEST.tsv" ]; then
    # symmetric real, pattern general, symmetric integer, rectangular real,
    # pattern with empty rows
    mats="cora rajat01 ak2010 dlmc_transformer_mp07_enc0_ffn2 wiki-Vote"
    for m in $mats; do cp "$D/$m.mtx.gz" "$T/"; done
    # shellcheck disable=SC2046 # a list of paths without blanks
    ref inputs "$T" $(for m in $mats; do echo "$T/$m.mtx.gz"; done)
    ok $? "SciPy, h5py and anndata wrote the inputs"
    for m in $mats; do
        "$C" read npz "$T/$m.csr.npz" "$T/$m.mtx"
        for f in csc.npz coo.npz csr.bsp.h5 csc.bsp.h5 coo.bsp.h5 dcsr.bsp.h5 sym.bsp.h5 h5ad \
                 csc.h5ad h5ad:layers/counts; do
            file=${f%%:*} dataset=${f#"$file"}
            [ -f "$T/$m.$file" ] || continue
            case $f in *npz) kind=npz ;; *bsp.h5) kind=binsparse ;; *) kind=h5ad ;; esac
            "$C" read $kind "$T/$m.$file" "$T/$m.other.mtx" ${dataset:+"${dataset#:}"} &&
                cmp -s "$T/$m.mtx" "$T/$m.other.mtx"
            ok $? "$m: $f read as the CSR .npz was"
            rm -f "$T/$m.other.mtx"
        done
        "$C" write npz "$T/$m.mtx.gz" "$T/$m.w.npz"
        "$C" write binsparse "$T/$m.mtx.gz" "$T/$m.w.h5"
        ref compare "$T/$m.mtx.gz" "$T/$m.mtx" "$T/$m.w.npz" "$T/$m.w.h5" | sed "s|$T/||" > "$T/cmp"
        report "$T/cmp"
        rm -f "$T/$m".*
    done
else
    skip "no shared matrix collection (set TC_SHARED_DATA)"
fi

# --- writing: deterministic, stdout, atomic ---------------------------------
M=$DATA/mtx/coord-real-general.mtx
"$C" write npz "$M" "$T/a.npz" && "$C" write npz "$M" "$T/b.npz" && cmp -s "$T/a.npz" "$T/b.npz"
ok $? "npz: the same matrix gives the same bytes"
"$C" write npz "$M" - > "$T/stdout.npz" && cmp -s "$T/a.npz" "$T/stdout.npz"
ok $? "npz: written to standard output"
"$C" write binsparse "$M" "$T/a.bsp.h5" && "$C" write binsparse "$M" "$T/b.bsp.h5" &&
    cmp -s "$T/a.bsp.h5" "$T/b.bsp.h5"
ok $? "binsparse: the same matrix gives the same bytes"
run_fails 1 "containers: $T/none/x.npz: cannot create: No such file or directory" \
    "npz: an output that cannot be created" -- "$C" write npz "$M" "$T/none/x.npz"
ls -a "$T" | grep -q '^\.a\.npz\.' ; ok $((! $?)) "npz: no temporary file left behind"

# --- kinds told apart by content ---------------------------------------------
B=$T/bad
mkdir "$B" && ref bad "$B"
ok $? "malformed inputs written"
is "$("$C" is h5ad "$B/good.h5ad") $("$C" is binsparse "$B/good.h5ad")" "1 0" "an AnnData file is h5ad, not binsparse"
is "$("$C" is h5ad "$B/good.bsp.h5") $("$C" is binsparse "$B/good.bsp.h5")" "0 1" "a binsparse file is binsparse, not h5ad"
is "$("$C" is h5ad "$B/good.npz") $("$C" is binsparse "$M") $("$C" is h5ad "$T/none")" "0 0 0" \
    "a zip archive, a text file, a missing file: neither"

# --- malformed inputs ----------------------------------------------------------
# bad KIND FILE MESSAGE [DATASET]: refused with exit 1, that message, no output
bad() {
    run_fails 1 "containers: $B/$2: $3" "$1: $2 refused" -- "$C" read "$1" "$B/$2" "$T/out.mtx" ${4:+"$4"}
    [ ! -e "$T/out.mtx" ]; ok $? "$1: $2: no output written"
}
bad npz truncated.npz "not a zip archive, or a truncated one (a .npz file is the zip archive scipy.sparse.save_npz writes)"
bad npz no-indices.npz "indices.npy: no such member (scipy.sparse.save_npz writes one)"
bad npz complex-data.npz "data.npy: dtype '<c16' is not supported (expected bool, int8 to int64, uint8 to uint64, float32, float64 or a string)"
bad npz big-endian.npz "indices.npy: dtype '>i4' is not little-endian (expected '<' or, for one-byte types, '|')"
bad npz float-indices.npz "indices.npy: dtype '<f8', expected an integer array (int32 or int64)"
bad npz padded-descr.npz "indices.npy: dtype '<f0000000000000008', expected an integer array (int32 or int64)"
bad npz indptr-down.npz "indptr.npy[2] is 2, less than indptr.npy[1] = 3 (pointers must not decrease)"
bad npz index-range.npz "indices.npy[1] is 3, out of range (expected 0 to 2, the number of columns less one)"
bad npz shape-mismatch.npz "indptr.npy: expected 4 entries (the number of rows plus one), found 3"
bad npz bsr.npz "format.npy: format 'bsr' is not supported (expected csr, csc or coo)"
bad npz short-data.npz "data.npy: expected 3 entries (one per stored entry), found 2"
bad npz bad-header.npz "data.npy: malformed .npy header at \"X'descr': '<f8', 'fo\" (expected '{')"
bad npz empty.npz "an empty archive (expected the members scipy.sparse.save_npz writes)"
"$C" read npz - "$T/stdin.mtx" < "$B/good.npz" && "$C" read npz "$B/good.npz" "$T/file.mtx" &&
    cmp -s "$T/stdin.mtx" "$T/file.mtx"
ok $? "npz: read from standard input as from the file"
run_fails 1 "containers: standard input: not a zip archive, or a truncated one (a .npz file is the zip archive scipy.sparse.save_npz writes)" \
    "npz: a truncated archive on standard input refused" -- sh -c '"$1" read npz - "$2" < "$3"' sh "$C" "$T/out.mtx" "$B/truncated.npz"
run_fails 1 "containers: $M: not a zip archive, or a truncated one (a .npz file is the zip archive scipy.sparse.save_npz writes)" \
    "npz: a text file refused" -- "$C" read npz "$M" "$T/out.mtx"

bad binsparse bad-json.bsp.h5 "/: attribute binsparse: bad JSON at line 1, column 50: string or '}' expected near '}'"
bad binsparse no-descriptor.bsp.h5 "/: no binsparse attribute (not a binsparse file)"
bad binsparse version.bsp.h5 "/: binsparse.version '1.0' is not supported (expected \"0.1\")"
bad binsparse dvec.bsp.h5 "/: binsparse.format 'DVEC' is not supported (expected CSR, CSC, DCSR, DCSC, COO, COOR or COOC)"
bad binsparse nsv.bsp.h5 "/indices_1: expected 4 entries (number_of_stored_values), found 3"
bad binsparse ptr-down.bsp.h5 "/: pointers_to_1[2] is 2, less than pointers_to_1[1] = 3 (pointers must not decrease)"
bad binsparse index-range.bsp.h5 "/: indices_1[1] is 5, out of range (expected 0 to 2, the number of columns less one)"
bad binsparse declared.bsp.h5 "/indices_1: a 4-byte integer dataset, but data_types declares int64"
bad binsparse upper.bsp.h5 "/: entry 1 at (0, 1) is outside the stored lower triangle of a symmetric matrix"
bad binsparse hermitian.bsp.h5 "/: binsparse.structure 'hermitian_lower' needs complex values, which are not supported"
bad binsparse fill.bsp.h5 "/fill_value: 2.5 is not supported (expected 0: entries not stored are zeros)"
bad binsparse no-types.bsp.h5 "/: data_types.indices_1: missing (expected a type name string)"
bad binsparse good.bsp.h5 "/sub: no such group" sub

bad h5ad encoding.h5ad "/X: encoding-type is 'dataframe' (expected csr_matrix or csc_matrix)"
bad h5ad indptr-down.h5ad "/X: indptr[2] is 3, less than indptr[1] = 4 (pointers must not decrease)"
bad h5ad index-range.h5ad "/X: indices[0] is 7, out of range (expected 0 to 2, the number of columns less one)"
bad h5ad shape.h5ad "/X: indptr: expected 4 entries (the number of rows plus one), found 3"
bad h5ad good.h5ad "/layers/counts: no such group or dataset (expected X or a layer such as layers/counts)" layers/counts

done_testing
