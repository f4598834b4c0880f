"""tcsparse.Matrix: every constructor, errors with the library's message,
and the lifetime of matrices and plans."""

import gc
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse
import torch

import tcsparse
from conftest import DATA, random_sparse

CORA = os.path.join(DATA, "cora.mtx.gz")


def same_matrix(a, s):
    """a (a Matrix) holds exactly scipy's s."""
    got = a.to_scipy()
    assert got.shape == s.shape
    assert abs(got - s).max() == 0 if s.nnz else got.nnz == 0


def test_mtx_plain_and_gzip(tmp_path):
    s = scipy.io.mmread(CORA).tocsr()
    plain = tmp_path / "cora.mtx"
    with open(plain, "wb") as f:
        import gzip
        f.write(gzip.open(CORA).read())
    for source in (CORA, str(plain), plain, os.fsencode(plain)):
        a = tcsparse.Matrix(source)
        assert a.shape == (2708, 2708) and a.nnz == 13264
        same_matrix(a, s)


def test_tcf_h5_plain_and_reordered(tmp_path, run):
    """A .tcf.h5 comes back in its original order, its /permutation
    undone, and its plans multiply in that order."""
    s = scipy.io.mmread(os.path.join(DATA, "1138_bus.mtx.gz")).tocsr()
    run("tcconv", "-q", os.path.join(DATA, "1138_bus.mtx.gz"), "-o", tmp_path / "a.tcf.h5")
    run("tcreorder", "-q", "--method", "rcm", "-o", tmp_path / "r.tcf.h5", tmp_path / "a.tcf.h5")
    for name in ("a.tcf.h5", "r.tcf.h5"):
        a = tcsparse.Matrix(tmp_path / name)
        same_matrix(a, s)
        x = np.random.default_rng(1).standard_normal((1138, 9)).astype(np.float32)
        y = a @ x
        ref = s @ x.astype(np.float64)
        assert np.linalg.norm(y - ref) / np.linalg.norm(ref) <= a.plan(9, device="cpu").info.tolerance
        assert "tcf.h5" in repr(a)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "dia", "bsr"])
def test_scipy_any_format(fmt, rng):
    s = scipy.sparse.random(40, 30, density=0.1, random_state=3, format="coo")
    a = tcsparse.Matrix(s.asformat(fmt))
    same_matrix(a, s.tocsr())


def test_scipy_sparse_array_and_empty():
    if hasattr(scipy.sparse, "csr_array"):
        s = scipy.sparse.csr_array(np.eye(5))
        same_matrix(tcsparse.Matrix(s), scipy.sparse.csr_matrix(np.eye(5)))
    e = tcsparse.Matrix(scipy.sparse.csr_matrix((4, 6)))
    assert e.shape == (4, 6) and e.nnz == 0
    assert np.all(e @ np.ones((6, 2), np.float32) == 0)


def test_torch_coo_and_csr():
    dense = torch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    s = scipy.sparse.csr_matrix(dense.numpy())
    same_matrix(tcsparse.Matrix(dense.to_sparse()), s)
    same_matrix(tcsparse.Matrix(dense.to_sparse_csr()), s)
    uncoalesced = torch.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], (2, 3))
    assert tcsparse.Matrix(uncoalesced).csr_arrays()[2].tolist() == [3.0]
    with pytest.raises(TypeError, match="sparse COO or CSR"):
        tcsparse.Matrix(dense)


def test_from_coo_sums_duplicates_and_checks_indices(rng):
    a = tcsparse.Matrix.from_coo((3, 3), [0, 0, 2], [1, 1, 2], [1.0, 2.0, 5.0])
    indptr, indices, data = a.csr_arrays()
    assert indptr.tolist() == [0, 1, 1, 2] and indices.tolist() == [1, 2]
    assert data.tolist() == [3.0, 5.0]
    pattern = tcsparse.Matrix.from_coo((2, 2), [0, 1], [1, 0])
    assert pattern.csr_arrays()[2].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="column indices"):
        tcsparse.Matrix.from_coo((2, 2), [0], [2])
    with pytest.raises(ValueError, match="row indices"):
        tcsparse.Matrix.from_coo((2, 2), [-1], [0])
    with pytest.raises(TypeError, match="complex values"):
        tcsparse.Matrix(scipy.sparse.csr_matrix(np.eye(2) * 1j))
    with pytest.raises(ValueError, match="whole numbers"):
        tcsparse.Matrix.from_coo((2, 2), [0.5], [0])
    with pytest.raises(ValueError, match="2 values for 1 indices"):
        tcsparse.Matrix.from_coo((2, 2), [0], [0], [1.0, 2.0])


def test_bad_file_is_the_librarys_message(tmp_path):
    bad = os.path.join(DATA, "mtx", "bad-real.mtx")
    with pytest.raises(tcsparse.Error) as e:
        tcsparse.Matrix(bad)
    assert str(e.value) == "%s:3: expected a real value, found '1.5x'" % bad
    assert e.value.status == 2 and isinstance(e.value, RuntimeError)
    with pytest.raises(tcsparse.Error, match=str(tmp_path / "absent.mtx")):
        tcsparse.Matrix(tmp_path / "absent.mtx")
    truncated = tmp_path / "t.tcf.h5"
    with open(truncated, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(tcsparse.Error, match=str(truncated)):
        tcsparse.Matrix(truncated)


def test_what_is_not_a_matrix():
    with pytest.raises(TypeError, match="a file name, a scipy.sparse matrix"):
        tcsparse.Matrix(np.eye(3))
    with pytest.raises(TypeError, match="unknown plan option"):
        tcsparse.Matrix(CORA, effrot="measure")


def test_close_context_manager_and_double_close():
    with tcsparse.Matrix(CORA) as a:
        plan = a.plan(3, device="cpu")
        assert not a.closed
    assert a.closed and plan.closed
    a.close()
    plan.close()
    assert "closed" in repr(a) and "closed" in repr(plan)
    with pytest.raises(ValueError, match="the matrix is closed"):
        a @ np.ones((2708, 3), np.float32)
    with pytest.raises(ValueError, match="the matrix is closed"):
        a.shape


def test_plan_outlives_its_matrix(rng):
    a = tcsparse.Matrix(CORA)
    s = a.to_scipy()
    plan = a.plan(2, device="cpu")
    a._plans.clear()          # the caller keeps the plan; the matrix goes
    del a
    gc.collect()
    x = rng.standard_normal((2708, 2)).astype(np.float32)
    assert np.allclose(plan(x), s @ x, rtol=1e-4, atol=1e-4)


def test_garbage_collector_frees(rng):
    for _ in range(50):
        a = tcsparse.Matrix(CORA)
        a @ np.ones((2708, 2), np.float32)
    del a
    gc.collect()


def test_transpose_and_symmetric_self(rng):
    r, c, v = random_sparse(rng, 30, 20, 0.2)
    a = tcsparse.Matrix.from_coo((30, 20), r, c, v)
    assert a.T.shape == (20, 30)
    assert abs(a.T.to_scipy() - a.to_scipy().T).max() == 0
    assert a.T is a.T
    sym = tcsparse.Matrix(CORA)
    assert sym.T is sym


def test_reorder(rng):
    a = tcsparse.Matrix(os.path.join(DATA, "1138_bus.mtx.gz"))
    b, perm = a.reorder("rcm")
    assert sorted(perm.tolist()) == list(range(1138))
    assert abs(b.to_scipy() - a.to_scipy()[perm]).max() == 0
    b2, _ = a.reorder("wjaccard")
    assert b2.shape == a.shape
    with pytest.raises(ValueError, match="reordering 'nope': one of .*rcm"):
        a.reorder("nope")
    with pytest.raises(tcsparse.Error, match="bogus"):
        a.reorder("rcm", bogus=1)


def test_gcn_normalize():
    a = tcsparse.Matrix.from_coo((3, 3), [0, 1, 1, 2], [1, 0, 2, 1])
    n = tcsparse.gcn_normalize(a).to_scipy().toarray()
    d = np.array([2.0, 3.0, 2.0])
    want = (np.eye(3) + a.to_scipy().toarray()) / np.sqrt(np.outer(d, d))
    assert np.allclose(n, want)
    weights = tcsparse.Matrix.from_coo((2, 2), [0, 1], [1, 0], [3.0, 3.0])
    assert np.allclose(tcsparse.gcn_normalize(weights).to_scipy().toarray(),
                       [[0.25, 0.75], [0.75, 0.25]])
    assert np.allclose(tcsparse.gcn_normalize(weights, weighted=False).to_scipy().toarray(),
                       [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="square"):
        tcsparse.gcn_normalize(tcsparse.Matrix.from_coo((2, 3), [0], [0]))
    with pytest.raises(ValueError, match="row 0 of A \\+ I sums to -1"):
        tcsparse.gcn_normalize(tcsparse.Matrix.from_coo((2, 2), [0], [1], [-2.0]))
