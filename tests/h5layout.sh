#!/bin/sh
# h5layout.sh: the .tcf.h5 layout seen from outside, by HDF5's own tools and
# by h5py: what man/tcf.h5.5 promises (groups, types, UTF-8 strings,
# compression policy), /matrix readable as anndata's csr_matrix, and writes
# that differ only in /provenance (not at all for the same command line and
# SOURCE_DATE_EPOCH).
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=$TOOLS/tcconv

for tool in h5dump h5ls h5diff; do
    command -v $tool >/dev/null 2>&1 || skip_all "$tool not installed (Debian: hdf5-tools)"
done

# A 4x5 real matrix with an empty row, a 3x3 symmetric pattern one, and a
# random 3000x2000 one large enough to be compressed.
printf '%%%%MatrixMarket matrix coordinate real general\n%% caf\303\251 au lait\n4 5 5
1 1 1.5\n1 4 -2\n2 2 3\n4 3 4e10\n4 5 0.25\n' > "$T/small.mtx"
cat > "$T/pattern.mtx" <<'EOF'
%%MatrixMarket matrix coordinate pattern symmetric
3 3 3
1 1
2 1
3 2
EOF
awk 'BEGIN { srand(7); n = 30000; print "%%MatrixMarket matrix coordinate real general";
             print 3000, 2000, n;
             for (k = 0; k < n; k++) print int(rand() * 3000) + 1, int(rand() * 2000) + 1, rand() }' \
    > "$T/big.mtx"

"$TCCONV" "$T/small.mtx" -o "$T/small.tcf.h5"; ok $? "small.mtx converted"
"$TCCONV" "$T/pattern.mtx" -o "$T/pattern.tcf.h5"; ok $? "pattern.mtx converted"
"$TCCONV" "$T/big.mtx" -o "$T/big.tcf.h5"; ok $? "big.mtx converted"
"$TCCONV" --no-compress "$T/big.mtx" -o "$T/big-plain.tcf.h5"; ok $? "big.mtx converted, --no-compress"

# --- structure (h5ls) ------------------------------------------------------
is "$(h5ls -r "$T/small.tcf.h5" | awk '{ $1 = $1; print }')" "/ Group
/matrix Group
/matrix/data Dataset {5}
/matrix/indices Dataset {5}
/matrix/indptr Dataset {5}
/provenance Group" "h5ls: the groups and datasets of a CSR-only file"
h5ls "$T/pattern.tcf.h5/matrix" | grep -q '^data '
ok $((! $?)) "pattern matrix: no /matrix/data"

# --- types and attributes (h5dump) ------------------------------------------
# The value of attribute $2 of file $1 as h5dump prints it, without the
# "(0): " prefix.
attr() {
    h5dump -a "$2" "$1" | sed -n 's/^ *(0): //p' | tr '\n' ' ' | sed 's/ *$//'
}
dtype() {   # the DATATYPE line of dataset or attribute $2 (-d or -a in $3)
    h5dump -H "$3" "$2" "$1" | awk '/DATATYPE/ { print $2; exit }'
}
is "$(attr "$T/small.tcf.h5" /tcf_layout_version)" '"1.1"' "root: tcf_layout_version 1.1"
is "$(attr "$T/small.tcf.h5" /matrix/encoding-type)" '"csr_matrix"' "encoding-type"
is "$(attr "$T/small.tcf.h5" /matrix/encoding-version)" '"0.1.0"' "encoding-version"
is "$(attr "$T/small.tcf.h5" /matrix/shape)" '4, 5' "shape [4, 5]"
is "$(dtype "$T/small.tcf.h5" /matrix/shape -a)" H5T_STD_I64LE "shape is int64"
is "$(attr "$T/small.tcf.h5" /matrix/field)" '"real"' "field real"
is "$(attr "$T/pattern.tcf.h5" /matrix/field)" '"pattern"' "field pattern"
is "$(attr "$T/pattern.tcf.h5" /matrix/symmetry)" '"symmetric"' "symmetry of the source"
is "$(dtype "$T/small.tcf.h5" /matrix/data -d)" H5T_IEEE_F64LE "data is float64"
is "$(dtype "$T/small.tcf.h5" /matrix/indices -d)" H5T_STD_I32LE "indices are int32"
is "$(dtype "$T/small.tcf.h5" /matrix/indptr -d)" H5T_STD_I64LE "indptr is int64"
is "$(h5dump -d /matrix/indptr "$T/small.tcf.h5" | sed -n 's/^ *(0): //p')" '0, 2, 3, 3, 5' \
    "indptr values (row 3 empty)"
is "$(attr "$T/small.tcf.h5" /provenance/creator)" '"tcsparse 0.1.0"' "provenance creator"
is "$(attr "$T/small.tcf.h5" /provenance/source)" "\"$T/small.mtx\"" "provenance source"
nstr=$(h5dump -H "$T/small.tcf.h5" | grep -c 'H5T_STRING')
nutf8=$(h5dump -H "$T/small.tcf.h5" | grep -c 'CSET H5T_CSET_UTF8')
test "$nstr" -ge 8 && test "$nstr" -eq "$nutf8"
ok $? "all $nstr string attributes are UTF-8"

# --- compression policy -----------------------------------------------------
layout() {  # "CHUNKED SHUFFLE DEFLATE" or "CONTIGUOUS" for dataset $2 of $1
    h5dump -H -p -d "$2" "$1" |
        awk '/CHUNKED|CONTIGUOUS|COMPACT/ { l = $1 } /SHUFFLE/ { s = " SHUFFLE" }
             /DEFLATE/ { d = " DEFLATE" } END { print l s d }'
}
is "$(layout "$T/big.tcf.h5" /matrix/indices)" "CHUNKED SHUFFLE DEFLATE" \
    "a large dataset is chunked, shuffled and deflated"
is "$(layout "$T/big.tcf.h5" /matrix/indptr)" "CONTIGUOUS" \
    "a dataset under 64 KiB (indptr, 24 KB) stays contiguous"
is "$(layout "$T/big-plain.tcf.h5" /matrix/indices)" "CONTIGUOUS" "--no-compress: contiguous"
h5diff "$T/big.tcf.h5" "$T/big-plain.tcf.h5" /matrix /matrix >/dev/null
ok $? "compressed and uncompressed /matrix hold the same data"

# --- content comparison and reproducibility ----------------------------------
"$TCCONV" "$T/big.mtx" -o "$T/big2.tcf.h5" || exit 1
out=$(h5diff --exclude-path /provenance "$T/big.tcf.h5" "$T/big2.tcf.h5" 2>&1)
ok $? "h5diff --exclude-path /provenance: two writes of the same input agree"
is "$out" "" "... and it reports nothing"
h5diff "$T/big.tcf.h5" "$T/big2.tcf.h5" >/dev/null 2>&1
is $? 1 "without the exclusion they differ (the command line is in /provenance)"
mkdir "$T/a" "$T/b"
(cd "$T/a" && SOURCE_DATE_EPOCH=1700000000 "$TCCONV" ../big.mtx -o out.tcf.h5) &&
    sleep 1 &&
    (cd "$T/b" && SOURCE_DATE_EPOCH=1700000000 "$TCCONV" ../big.mtx -o out.tcf.h5) &&
    cmp -s "$T/a/out.tcf.h5" "$T/b/out.tcf.h5"
ok $? "same command line and SOURCE_DATE_EPOCH: byte-identical files (cmp)"
is "$(attr "$T/a/out.tcf.h5" /provenance/created)" '"2023-11-14T22:13:20Z"' \
    "created honours SOURCE_DATE_EPOCH"

# --- h5py / anndata's view ---------------------------------------------------
PY=$(h5py_python)
if [ -z "$PY" ]; then
    skip "h5py checks: no python3 with h5py and numpy (Debian: python3-h5py)"
    skip "h5py checks: pattern matrix"
    skip "scipy check"
    skip "anndata check"
else
    # Reads /matrix as anndata does (attributes, then scipy's (data,
    # indices, indptr) triple) and compares with a dense matrix built from
    # the Matrix Market file by the script itself.
    cat > "$T/check.py" <<'EOF'
import sys, h5py, numpy as np
tcf, mtx, what = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.split() for l in open(mtx) if l.strip() and not l.startswith('%')]
rows, cols = int(lines[0][0]), int(lines[0][1])
symmetric = 'symmetric' in open(mtx).readline()
want = np.zeros((rows, cols))
for e in lines[1:]:
    i, j, v = int(e[0]) - 1, int(e[1]) - 1, float(e[2]) if len(e) > 2 else 1.0
    want[i, j] = v
    if symmetric:
        want[j, i] = v
with h5py.File(tcf, 'r') as f:
    m = f['matrix']
    assert f.attrs['tcf_layout_version'] == '1.1', f.attrs['tcf_layout_version']
    assert isinstance(m.attrs['encoding-type'], str), 'encoding-type is not a str'
    assert m.attrs['encoding-type'] == 'csr_matrix'
    assert m.attrs['encoding-version'] == '0.1.0'
    assert tuple(m.attrs['shape']) == (rows, cols), m.attrs['shape']
    assert isinstance(f['provenance'].attrs['command'], str)
    if what == 'real':
        assert 'caf\u00e9 au lait' in f['provenance'].attrs['comments'], 'UTF-8 comment'
    indptr, indices = m['indptr'][:], m['indices'][:]
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    data = m['data'][:] if 'data' in m else np.ones(len(indices))
    assert ('data' in m) == (what == 'real'), 'data presence'
    got = np.zeros((rows, cols))
    for i in range(rows):
        for k in range(indptr[i], indptr[i + 1]):
            got[i, indices[k]] = data[k]
    assert (got == want).all(), 'values differ'
    try:
        import scipy.sparse
    except ImportError:
        print('noscipy'); sys.exit(0)
    s = scipy.sparse.csr_matrix((data, indices, indptr), shape=tuple(m.attrs['shape']))
    assert (s.toarray() == want).all(), 'scipy differs'
    print('scipy')
EOF
    res=$("$PY" "$T/check.py" "$T/small.tcf.h5" "$T/small.mtx" real 2>&1)
    ok $? "h5py reads /matrix as a csr_matrix equal to small.mtx, strings as str ($PY)"
    case $res in scipy|noscipy) ;; *) diag "$res" ;; esac
    "$PY" "$T/check.py" "$T/pattern.tcf.h5" "$T/pattern.mtx" pattern >/dev/null
    ok $? "h5py: the pattern matrix (no data; symmetric source expanded)"
    if [ "$res" = scipy ]; then ok 0 "scipy.sparse.csr_matrix((data, indices, indptr)) agrees"
    else skip "scipy check: scipy not importable by $PY"; fi
    # The other way: a file written by h5py as man/tcf.h5.5 shows (no field
    # or symmetry attributes) holds, for tcsparse, the same matrix.
    "$PY" -c '
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["tcf_layout_version"] = "1.0"
    m = f.create_group("matrix")
    m.attrs["encoding-type"] = "csr_matrix"
    m.attrs["encoding-version"] = "0.1.0"
    m.attrs["shape"] = (4, 5)
    m["data"] = np.array([1.5, -2, 3, 4e10, 0.25])
    m["indices"] = np.array([0, 3, 1, 2, 4], dtype="int32")
    m["indptr"] = np.array([0, 2, 3, 3, 5], dtype="int64")
' "$T/py.tcf.h5" && "$TCCONV" "$T/py.tcf.h5" -o "$T/py2.tcf.h5" &&
        h5diff --exclude-path /provenance "$T/small.tcf.h5" "$T/py2.tcf.h5"
    ok $? "a file written by h5py is read by tcconv as the same matrix"
fi
# anndata >= 0.11 has read_elem in anndata.io; before (Debian 12 ships 0.8)
# in anndata.experimental, a submodule that `import anndata` does not load.
PYA=$(python_with h5py anndata)
if [ -n "$PYA" ]; then
    "$PYA" -W ignore -c '
import sys, h5py
try:
    from anndata.io import read_elem
except ImportError:
    from anndata.experimental import read_elem
with h5py.File(sys.argv[1], "r") as f:
    s = read_elem(f["matrix"])
    assert s.shape == (4, 5) and s.nnz == 5 and s[3, 2] == 4e10
' "$T/small.tcf.h5"
    ok $? "anndata's read_elem gives the matrix ($("$PYA" -W ignore -c 'import anndata; print(anndata.__version__)'))"
elif set_up_installs python3-anndata; then
    ok 1 "anndata check: setup.sh installs python3-anndata, yet no python3 imports h5py and anndata"
else
    skip "anndata check: no python3 imports h5py and anndata (Debian: python3-anndata)"
fi

done_testing
