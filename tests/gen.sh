#!/bin/sh
# bench/gen: every kind as Matrix Market and streamed into a .tcf.h5
# through tc_h5_write_rows (-o), which must hold the same matrix as tcconv
# makes of the Matrix Market one; each kind's shape and nonzeros where they
# are known exactly, its statistics where they are drawn; the same seed
# gives the same matrix, another seed another; -p, -z; usage errors.
. "${top_srcdir:-.}/tests/lib.sh"
GEN=$top_builddir/bench/gen
TCCONV=$TOOLS/tcconv
TCSTAT=$TOOLS/tcstat
command -v h5diff >/dev/null 2>&1 || skip_all "h5diff (hdf5-tools) not installed"
PY=$(python_with numpy scipy)
[ -n "$PY" ] || skip_all "no python3 with numpy and scipy (setup.sh installs them)"

# nnz of a Matrix Market file's size line
mtx_nnz() { awk '!/^%/ { print $3; exit }' "$1"; }

"$GEN" band 1000 37 > "$T/a.mtx"; ok $? "band: Matrix Market on standard output"
"$TCCONV" "$T/a.mtx" -o "$T/a.tcf.h5"; ok $? "tcconv reads it"
"$GEN" -o "$T/b.tcf.h5" band 1000 37; ok $? "-o streams a .tcf.h5"
"$TCSTAT" --tsv "$T/b.tcf.h5" > "$T/b.tsv"; ok $? "tcstat reads it"
is "$(awk -F'\t' '$2 == "matrix" && $3 == "nnz" { print $4 }' "$T/b.tsv")" 36658 \
    "band nnz: 1000 rows of 37, less 18 x 19 / 2 at each corner"
for d in indices indptr; do
    h5diff "$T/a.tcf.h5" "$T/b.tcf.h5" /matrix/$d /matrix/$d >/dev/null
    ok $? "band /matrix/$d: the same as tcconv's"
done
# Matrix Market keeps 6 decimals of the values
h5diff -d 6e-7 "$T/a.tcf.h5" "$T/b.tcf.h5" /matrix/data /matrix/data >/dev/null
ok $? "band /matrix/data: within the 6 decimals Matrix Market keeps"

"$GEN" -p -z -o "$T/p.tcf.h5" band 1000 37; ok $? "-p -z: pattern, compressed"
h5ls "$T/p.tcf.h5/matrix" | grep -q '^data '
ok $((! $?)) "pattern: no /matrix/data"
h5diff "$T/a.tcf.h5" "$T/p.tcf.h5" /matrix/indices /matrix/indices >/dev/null
ok $? "pattern: the same column indices"
is "$(h5dump -p -d /matrix/indices "$T/p.tcf.h5" | grep -c DEFLATE)" 1 "-z: deflated"

# Each random kind: Matrix Market and the streamed .tcf.h5 agree, and tcconv
# takes the Matrix Market one.
for k in "stencil 9" "stencil 9 7" "rmat 12 16" "random 3000 40" "bipartite 2000 5000 12 1.1"; do
    f=$(echo "$k" | tr ' ' _)
    # shellcheck disable=SC2086 # k is the kind and its operands
    "$GEN" $k > "$T/$f.mtx" && "$TCCONV" "$T/$f.mtx" -o "$T/$f.m.tcf.h5" &&
        "$GEN" -o "$T/$f.tcf.h5" $k
    ok $? "$k: written both ways, tcconv reads it"
    h5diff "$T/$f.m.tcf.h5" "$T/$f.tcf.h5" /matrix/indices /matrix/indices > /dev/null &&
        h5diff "$T/$f.m.tcf.h5" "$T/$f.tcf.h5" /matrix/indptr /matrix/indptr > /dev/null
    ok $? "$k: the same matrix streamed"
done

# 27 points: 27 per interior point, fewer at faces; sum over axes of
# (3 n - 2) per axis: (3 * 9 - 2)^3 = 15625. 7 points: n^3 + 6 n^2 (n - 1).
is "$(mtx_nnz "$T/stencil_9.mtx")" 15625 "stencil 9: 25^3 nonzeros"
is "$(mtx_nnz "$T/stencil_9_7.mtx")" $((729 + 6 * 81 * 8)) "stencil 9 7: n^3 + 6 n^2 (n - 1)"
"$PY" - "$T/stencil_9.mtx" "$T/random_3000_40.mtx" "$T/rmat_12_16.mtx" \
    "$T/bipartite_2000_5000_12_1.1.mtx" > "$T/stats" <<'PY'
import sys
import numpy as np
import scipy.io
import scipy.sparse as sp
out = []
s = sp.csr_matrix(scipy.io.mmread(sys.argv[1]))
s.data[:] = 1
out.append("stencil_asymmetric=%d" % (s - s.T).count_nonzero())
r = sp.csr_matrix(scipy.io.mmread(sys.argv[2]))
out.append("random_rows=%s" % ",".join(sorted(set(map(str, np.diff(r.indptr))))))
m = sp.csr_matrix(scipy.io.mmread(sys.argv[3]))
deg = np.diff(m.indptr)
# R-MAT: about EDGEFACTOR * rows edges before repeats merge; heavy tail
out.append("rmat_mean_ok=%d" % (10 <= deg.mean() <= 16))
out.append("rmat_skewed=%d" % (deg.max() > 20 * deg.mean()))
out.append("rmat_shuffled=%d" % (int(np.argmax(deg)) != 0))
b = sp.csr_matrix(scipy.io.mmread(sys.argv[4]))
bd, bc = np.diff(b.indptr), np.bincount(b.indices, minlength=b.shape[1])
out.append("bipartite_shape=%dx%d" % b.shape)
out.append("bipartite_mean_ok=%d" % (8 <= bd.mean() <= 14))
out.append("bipartite_popular=%d" % (bc.max() > 10 * bc.mean()))
print(" ".join(out))
PY
is "$(cat "$T/stats")" "stencil_asymmetric=0 random_rows=40 rmat_mean_ok=1 rmat_skewed=1 rmat_shuffled=1 bipartite_shape=2000x5000 bipartite_mean_ok=1 bipartite_popular=1" \
    "each kind's statistics (SciPy): a symmetric stencil pattern, 40 a row, R-MAT's and the user-item tails"

"$GEN" rmat 12 16 > "$T/again.mtx"
cmp -s "$T/rmat_12_16.mtx" "$T/again.mtx"; ok $? "the same seed: the same matrix"
"$GEN" --seed 7 rmat 12 16 > "$T/seed7.mtx"
cmp -s "$T/rmat_12_16.mtx" "$T/seed7.mtx"; ok $((! $?)) "another seed: another matrix"

run_fails 2 "gen: -p and -z need -o (Matrix Market output always has values)" \
    "-p without -o refused" -- "$GEN" -p band 10 3
run_fails 2 "gen: band: expected ORDER WIDTH" "one operand refused" -- "$GEN" band 10
run_fails 2 "gen: unknown kind 'mesh' (band, stencil, rmat, random, bipartite)" \
    "an unknown kind refused" -- "$GEN" mesh 10
run_fails 2 "gen: stencil: POINTS must be 7 or 27, not 9" "stencil 9 points refused" -- \
    "$GEN" stencil 10 9
run_fails 2 "gen: cannot write HDF5 to standard output (it needs a seekable file)" \
    "-o - refused" -- "$GEN" -o - band 10 3
run_fails 1 "gen: $T/none/x.tcf.h5: cannot create: No such file or directory" \
    "an output in a missing directory refused" -- "$GEN" -o "$T/none/x.tcf.h5" band 10 3
done_testing
