"""A @ X against SciPy's float64 product, within the plan's tolerance."""

import os

import numpy as np
import pytest
import scipy.sparse

import tcsparse
from conftest import DATA, assert_close, random_sparse, shared_data


def product(a, x):
    """SciPy's float64 A X on X's float32 values."""
    return a.to_scipy() @ np.asarray(x, dtype=np.float64)


@pytest.mark.parametrize("rows,cols,n", [(37, 53, 1), (1500, 1100, 7), (2049, 2049, 33),
                                         (1025, 300, 16)])
def test_random_matrix_any_n(rng, rows, cols, n):
    r, c, v = random_sparse(rng, rows, cols, 0.004)
    a = tcsparse.Matrix.from_coo((rows, cols), r, c, v)
    x = rng.standard_normal((cols, n)).astype(np.float32)
    y = a @ x
    assert y.dtype == np.float32 and y.shape == (rows, n)
    assert_close(y, product(a, x), a.plan(n, device="cpu").info.tolerance)


@pytest.mark.parametrize("name", ["cora", "citeseer", "1138_bus", "bcsstk13", "rajat01",
                                  "pubmed", "ca-CondMat"])
def test_real_matrices(rng, name):
    path = os.path.join(shared_data(), name + ".mtx.gz")
    if not os.path.exists(path):
        path = os.path.join(DATA, name + ".mtx.gz")
    if not os.path.exists(path):
        pytest.skip("%s: not in %s (set TC_SHARED_DATA)" % (name, shared_data()))
    a = tcsparse.Matrix(path)
    x = rng.standard_normal((a.shape[1], 19)).astype(np.float32)
    assert_close(a @ x, product(a, x), a.plan(19, device="cpu").info.tolerance)


@pytest.mark.parametrize("order", ["wjaccard", "rcm", "degree"])
def test_permuted_plan_gives_the_callers_order(rng, order):
    a = tcsparse.Matrix(os.path.join(DATA, "1138_bus.mtx.gz"))
    plan = a.plan(8, device="cpu", order=order)
    assert plan.info.order == order
    x = rng.standard_normal((a.shape[1], 8)).astype(np.float32)
    assert_close(plan(x), product(a, x), plan.info.tolerance)


def test_vector_is_one_column(rng):
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    x = rng.standard_normal(a.shape[1]).astype(np.float32)
    y = a @ x
    assert y.shape == (a.shape[0],)
    assert_close(y, product(a, x), 1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_other_dtypes_refused_unless_converted(rng, dtype):
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    x = rng.standard_normal((a.shape[1], 3)).astype(dtype)
    with pytest.raises(TypeError, match="convert=True"):
        a @ x
    y = a.matmul(x, convert=True)
    assert y.dtype == np.float32
    assert_close(y, product(a, x.astype(np.float32)), 1e-5)


def test_complex_refused_even_with_convert(rng):
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    with pytest.raises(TypeError, match="complex"):
        a.matmul(np.ones((a.shape[1], 2), np.complex64), convert=True)


def test_non_contiguous_operands(rng):
    a = tcsparse.Matrix(os.path.join(DATA, "1138_bus.mtx.gz"))
    k = a.shape[1]
    base = rng.standard_normal((k, 20)).astype(np.float32)
    transposed = np.ascontiguousarray(base.T).T          # column-major
    strided = base[:, ::3]                               # every third column
    leading = base[:, :5]                                # padded rows: ld 20
    reversed_rows = base[::-1, :4]                       # negative row stride
    for x in (transposed, strided, leading, reversed_rows):
        assert not x.flags.c_contiguous
        assert_close(a @ x, product(a, x), 1e-5)


def test_padded_rows_are_not_copied(monkeypatch):
    """A slice of leading columns goes to the library as it is: its
    leading dimension is the parent's row length."""
    from tcsparse import _operands
    base = np.zeros((6, 10), np.float32)
    op = _operands.prepare(base[:, :4], "X", 6)
    assert op.ld == 10 and op.ptr == base.ctypes.data
    op = _operands.prepare(base[:, ::2], "X", 6)
    assert op.ld == 5 and op.ptr != base.ctypes.data


def test_shape_and_kind_mistakes(rng):
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    with pytest.raises(ValueError, match="2707 rows; 2708 were expected"):
        a @ np.ones((2707, 4), np.float32)
    with pytest.raises(ValueError, match="3 dimensions"):
        a @ np.ones((2708, 4, 1), np.float32)
    with pytest.raises(ValueError, match="no columns"):
        a @ np.ones((2708, 0), np.float32)
    with pytest.raises(TypeError, match="a NumPy array or a PyTorch tensor"):
        a @ ([[1.0]] * 2708)
    plan = a.plan(4, device="cpu")
    with pytest.raises(ValueError, match="5 columns; this plan is for n = 4"):
        plan(np.ones((2708, 5), np.float32))


def test_plans_are_cached_per_n_and_options():
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    p4 = a.plan(4, device="cpu")
    assert a.plan(4, device="cpu") is p4
    assert a.plan(5, device="cpu") is not p4
    assert a.plan(4, device="cpu", order="rcm") is not p4
    x = np.ones((2708, 4), np.float32)
    a @ x
    assert a._products[(4, None)] is p4          # A @ X took that very plan
    p4.close()
    assert (a @ x).shape == (2708, 4)             # and makes a new one once it is closed
    assert not a.plan(4, device="cpu").closed


def test_bad_plan_options():
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    with pytest.raises(ValueError, match="device 'tpu'"):
        a.plan(4, device="tpu")
    with pytest.raises(ValueError, match="accuracy 'fp8'"):
        a.plan(4, accuracy="fp8")
    with pytest.raises(ValueError, match="n 0"):
        a.plan(0)
    with pytest.raises(TypeError, match="unknown plan option colour"):
        a.plan(4, colour="red")
    with pytest.raises(tcsparse.Error, match="no-such-format") as e:
        a.plan(4, device="cpu", format="no-such-format")
    assert e.value.status_name


def test_plan_progress():
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    seen = []
    a.plan(4, device="cpu", effort="patient", cache_dir="",
           progress=lambda done, total: seen.append((done, total)))
    assert len(seen) > 1
    assert all(t == seen[0][1] > 0 for _, t in seen)            # one whole
    assert all(x[0] <= y[0] for x, y in zip(seen, seen[1:]))    # one way
    assert seen[-1][0] == seen[-1][1]                            # to its end
    with pytest.raises(TypeError, match="progress 3: a function"):
        a.plan(4, device="cpu", progress=3)


def test_gpu_plan_without_a_gpu_is_the_librarys_error():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is here: tests/python/test_cuda.py covers it")
    except ImportError:
        pass
    a = tcsparse.Matrix(os.path.join(DATA, "cora.mtx.gz"))
    with pytest.raises(tcsparse.Error, match="no CUDA device") as e:
        a.plan(4, device="gpu")
    assert e.value.status == 8   # TC_ERR_NODEVICE


def test_plan_info_report_save_verify_bench(rng, tmp_path):
    a = tcsparse.Matrix(os.path.join(DATA, "1138_bus.mtx.gz"))
    with a.plan(6, device="cpu") as plan:
        assert plan.info.device == "cpu" and plan.info.precision == "fp32"
        assert plan.info.tolerance == 1e-5
        assert plan.info.format_params == ""  # a CPU plan runs CSR, no settings
        report = plan.report()
        assert report["plan"]["format"] == "csr" and report["plan"]["format_params"] == ""
        plan.save(tmp_path / "p.plan")
        assert "format_params\t\n" in (tmp_path / "p.plan").read_text()
        x = rng.standard_normal((a.shape[1], 6)).astype(np.float32)
        y = plan(x)
        passed, err = plan.verify(x, y)
        assert passed and err <= 1e-5
        passed, err = plan.verify(x, np.zeros_like(y))
        assert not passed
        bench = plan.bench(x, warmup=1, iters=3)
        assert bench["bench"]
    assert plan.closed
    with pytest.raises(ValueError, match="the plan is closed"):
        plan(x)


def test_scipy_reference_sizes_cross_1024_rows(rng):
    """Rows past 1024 (a thread block's worth in several kernels) with an
    odd n, in scipy's every format."""
    s = scipy.sparse.random(1300, 1031, density=0.01, format="csr", random_state=7,
                            dtype=np.float64)
    for fmt in ("csr", "csc", "coo", "lil", "dok", "bsr"):
        a = tcsparse.Matrix(s.asformat(fmt))
        x = rng.standard_normal((1031, 3)).astype(np.float32)
        assert_close(a @ x, s @ x.astype(np.float64), 1e-5)
