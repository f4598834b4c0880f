#!/bin/sh
# kinds.sh: SciPy .npz, binsparse and AnnData files through the tools, by
# their names and by --from. Every matrix of the shared collection (else
# the bundled ones) is written by the kinds' own libraries
# (tests/containers.py inputs: SciPy's save_npz as csr, csc and coo;
# binsparse CSR, CSC, COO and DCSR by h5py; anndata's X as csr and csc and
# a layer), and tcconv must make of each the .tcf.h5 it makes of the Matrix
# Market original (the /matrix arrays alike). On a few of them every other
# tool (tcstat, tcreorder, tcplot, tcmul --device cpu) gives from each kind
# what it gives from the original. tcconv --to npz / binsparse are read
# back by SciPy and h5py as the original.
. "${top_srcdir:-.}/tests/lib.sh"
TCCONV=$TOOLS/tcconv TCSTAT=$TOOLS/tcstat TCREORDER=$TOOLS/tcreorder
TCPLOT=$TOOLS/tcplot TCMUL=$TOOLS/tcmul
REF=$top_srcdir/tests/containers.py
command -v h5diff >/dev/null 2>&1 || skip_all "h5diff (hdf5-tools) not installed"
PY=$(python_with scipy h5py anndata)
if [ -z "$PY" ]; then
    set_up_installs python3-anndata && { ok 1 "python3 with scipy, h5py and anndata"; done_testing; exit; }
    skip_all "no python3 with scipy, h5py and anndata (Debian: python3-scipy python3-h5py python3-anndata)"
fi
D=${TC_SHARED_DATA:-}
[ -n "$D" ] && [ -f "$D/MANIFEST.tsv" ] || D=$DATA

# same_matrix A.tcf.h5 B.tcf.h5: the same /matrix arrays; a pattern
# matrix's missing /matrix/data stands for ones, which is how SciPy,
# binsparse and AnnData store a pattern.
same_matrix() {
    "$PY" - "$1" "$2" <<'PY'
import sys
import h5py
import numpy as np
def arrays(path):
    with h5py.File(path, "r") as f:
        m = f["matrix"]
        ind = m["indices"][()]
        data = m["data"][()] if "data" in m else np.ones(len(ind))
        return m["indptr"][()], ind, data
a, b = arrays(sys.argv[1]), arrays(sys.argv[2])
sys.exit(0 if all(np.array_equal(x, y) for x, y in zip(a, b)) else 1)
PY
}

mkdir "$T/in"
"$PY" -W ignore "$REF" inputs "$T/in" "$D"/*.mtx.gz
ok $? "SciPy, h5py and anndata write every matrix of $(basename "$D") in their kinds"
for m in "$D"/*.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$TCCONV" -q "$m" -o "$T/ref.tcf.h5" || { ok 1 "$name: tcconv of the original"; continue; }
    bad=""
    for f in "$T/in/$name".*; do
        input=$f
        case $f in *.h5ad) [ "${f%.csc.h5ad}" = "$f" ] && input="$f:layers/counts" ;; esac
        { "$TCCONV" -q "$input" -o "$T/got.tcf.h5" && same_matrix "$T/ref.tcf.h5" "$T/got.tcf.h5"; } ||
            bad="$bad ${f##*/}"
        rm -f "$T/got.tcf.h5"
    done
    [ -z "$bad" ]
    ok $? "$name: every kind's file converts to the original's matrix${bad:+ (not:$bad)}"
done

# Every tool, on the bundled matrices: the same output from each kind.
for m in "$DATA"/cora.mtx.gz "$DATA"/bcsstk13.mtx.gz; do
    name=$(basename "$m" .mtx.gz)
    "$PY" -W ignore "$REF" inputs "$T" "$m"
    # all but what the source declares of itself (its field, its symmetry):
    # these kinds store a pattern's values as ones and every entry
    "$TCSTAT" --tsv "$m" | cut -f2- | grep -Ev '^matrix	(field|symmetry)	' > "$T/stat.ref"
    "$TCREORDER" -q --method rcm --perm-out "$T/perm.ref" "$m"
    "$TCPLOT" -q --bare -s 256 -o "$T/plot.ref.png" "$m"
    "$TCMUL" -q --device cpu --cols 8 --seed 5 -o "$T/c.ref.mtx" "$m"
    for input in "$T/$name.csr.npz" "$T/$name.coo.npz" "$T/$name.dcsr.bsp.h5" "$T/$name.h5ad" \
        "$T/$name.csc.h5ad:X"; do
        what="$name ${input##*/}"
        "$TCSTAT" --tsv "$input" | cut -f2- | grep -Ev '^matrix	(field|symmetry)	' |
            cmp -s - "$T/stat.ref"
        ok $? "$what: tcstat gives the original's figures"
        "$TCREORDER" -q --method rcm --perm-out "$T/perm" "$input" && cmp -s "$T/perm" "$T/perm.ref"
        ok $? "$what: tcreorder gives the original's permutation"
        "$TCPLOT" -q --bare -s 256 -o "$T/plot.png" "$input" && cmp -s "$T/plot.png" "$T/plot.ref.png"
        ok $? "$what: tcplot draws the original's picture"
        "$TCMUL" -q --device cpu --cols 8 --seed 5 -o "$T/c.mtx" "$input" &&
            cmp -s "$T/c.mtx" "$T/c.ref.mtx"
        ok $? "$what: tcmul --device cpu gives the original's C"
    done
    # by --from, whatever the name
    cp "$T/$name.csc.npz" "$T/$name.scipy"
    "$TCCONV" -q --from npz "$T/$name.scipy" -o "$T/from.tcf.h5" && "$TCCONV" -q "$m" -o "$T/ref.tcf.h5" &&
        same_matrix "$T/ref.tcf.h5" "$T/from.tcf.h5"
    ok $? "$name: --from npz reads a name that says nothing"
    # written by tcconv, read by SciPy and h5py
    "$TCCONV" -q "$m" -o "$T/$name.out.npz" && "$TCCONV" -q "$T/$name.csr.npz" --to binsparse \
        -o "$T/$name.out.h5"
    ok $? "$name: tcconv writes .npz and (--to) binsparse"
    "$PY" -W ignore "$REF" compare "$m" "$T/$name.out.npz" "$T/$name.out.h5" | sed "s|$T/||" |
        while read -r status rest; do echo "$status $rest"; done > "$T/cmp"
    is "$(cut -d' ' -f1 "$T/cmp" | tr -d '\n')" "00" "$name: $(tr '\n' ';' < "$T/cmp")"
done
run_fails 2 "tcconv: --to: unknown kind 'npy' (give one of: tcf (.tcf.h5 .h5 .hdf5), mtx (.mtx .mtx.gz), edgelist (.el .edges .txt .tsv .csv .el.gz .edges.gz .txt.gz .tsv.gz .csv.gz), npz (.npz), binsparse (.bsp.h5 .bsp.hdf5))" \
    "--to npy: a usage error naming the kinds" -- "$TCCONV" "$DATA/cora.mtx.gz" --to npy -o "$T/x"
done_testing
