"""The CUDA side, on a machine with a GPU and PyTorch built with CUDA:
zero-copy products on PyTorch's current stream, autograd and attention on
the GPU, operands on the wrong device refused. Skipped elsewhere ("no CUDA
device"). Needs no SciPy, and runs without pytest too:

  LD_LIBRARY_PATH=$PWD/.gpu/lib TCSPARSE_LIBRARY=$PWD/.gpu/lib/libtcsparse.so.0 \\
      PYTHONPATH=python:tests/python python3 tests/python/test_cuda.py
"""

import os
import sys
import tempfile

import numpy as np

try:
    import pytest
    Skipped = pytest.skip.Exception
except ImportError:        # the plain-script run below
    pytest = None

    class Skipped(Exception):
        """A test that cannot run here (the plain-script run's pytest.skip)."""
import torch

import tcsparse
import tcsparse.torch as tt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import attention as attention_ref, csr_product  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
HAVE_CUDA = torch.cuda.is_available()
if pytest:
    pytestmark = pytest.mark.skipif(not HAVE_CUDA, reason="no CUDA device")


def within(got, want, tolerance):
    got = np.asarray(got, dtype=np.float64)
    err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300)
    assert np.all(np.isfinite(got)) and err <= tolerance, \
        "relative error %g over the tolerance %g" % (err, tolerance)


def matrix(name="1138_bus"):
    return tcsparse.Matrix(os.path.join(DATA, name + ".mtx.gz"))


def test_cuda_product_zero_copy_on_the_current_stream():
    a = matrix()
    x = torch.randn(1138, 33, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())   # x is written on the default stream
    with torch.cuda.stream(stream):
        y = a @ x
    stream.synchronize()
    assert y.device == x.device and y.dtype == torch.float32 and y.shape == (1138, 33)
    plan = a.plan(33, device="gpu", gpu=x.device.index)
    assert plan.info.device == "gpu"
    within(y.cpu().numpy(), csr_product(a, x.cpu().numpy()), plan.info.tolerance)
    padded = torch.randn(1138, 40, device="cuda")[:, :33]     # ld 40, no copy
    within((a @ padded).cpu().numpy(), csr_product(a, padded.cpu().numpy()),
           plan.info.tolerance)
    # n = 4 from a flat buffer one float in: not 16-byte aligned, so copied
    shifted = torch.randn(1138 * 4 + 1, device="cuda")[1:].view(1138, 4)
    plan4 = a.plan(4, device="gpu", gpu=x.device.index)
    within((a @ shifted).cpu().numpy(), csr_product(a, shifted.cpu().numpy()),
           plan4.info.tolerance)


def test_cuda_repeated_products_take_the_short_path():
    """After the first product, a packed float32 X of the same shape goes
    straight to the plan (Matrix._cuda_product); the result is the same, on
    the current stream, and a NaN/Inf of X reaches exactly the rows that
    use its row. Anything else, and a closed plan, still takes the checked
    path."""
    a = matrix()
    x = torch.randn(1138, 32, device="cuda")
    a @ x
    plan = a._products[(32, x.device.index)]
    short = a._cuda_product(x, torch)
    assert short is not None and short.shape == (1138, 32)
    within(short.cpu().numpy(), csr_product(a, x.cpu().numpy()), plan.info.tolerance)
    x2 = torch.randn(1138, 32, device="cuda")
    x2[5, :] = float("inf")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        y = a @ x2
    stream.synchronize()
    want = csr_product(a, x2.cpu().numpy())
    got = y.cpu().numpy()
    assert np.array_equal(np.isfinite(got), np.isfinite(want))
    finite = np.isfinite(want).all(axis=1)
    within(got[finite], want[finite], plan.info.tolerance)
    unaligned = torch.randn(1138 * 32 + 1, device="cuda")[1:].view(1138, 32)
    for other in (x2[:, :16], x2.t().contiguous().t(), x2.double(), x2[:1000], unaligned):
        assert a._cuda_product(other, torch) is None
    within((a @ unaligned).cpu().numpy(), csr_product(a, unaligned.cpu().numpy()),
           plan.info.tolerance)
    refused(lambda: a @ x[:1000], "has 1000 rows; 1138 were expected")
    try:
        a @ x.double()
    except TypeError as e:
        assert "float32" in str(e), str(e)
    else:
        raise AssertionError("a float64 X was not refused")
    plan.close()
    assert a._cuda_product(x, torch) is None
    within((a @ x).cpu().numpy(), csr_product(a, x.cpu().numpy()), plan.info.tolerance)
    assert not a._products[(32, x.device.index)].closed


def test_cuda_permuted_and_fp32_plans():
    a = matrix("cora")
    x = torch.randn(2708, 16, device="cuda")
    for opts in ({"order": "wjaccard"}, {"accuracy": "fp32"}, {"effort": "measure"}):
        plan = a.plan(16, device="gpu", **opts)
        within(plan(x).cpu().numpy(), csr_product(a, x.cpu().numpy()), plan.info.tolerance)


def test_cuda_host_operands_through_a_gpu_plan():
    a = matrix()
    plan = a.plan(4, device="gpu")
    x = np.random.default_rng(3).standard_normal((1138, 4)).astype(np.float32)
    within(plan(x), csr_product(a, x), plan.info.tolerance)


def test_cuda_gradient_matches_torch_sparse_mm():
    a = tcsparse.Matrix.from_coo((1500, 1100), *np.random.default_rng(4).integers(
        0, 1100, (2, 12000)), np.random.default_rng(5).uniform(-1, 1, 12000))
    indptr, indices, data = a.csr_arrays()
    ts = torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices.astype(
        np.int64)), torch.from_numpy(data.astype(np.float32)), a.shape, device="cuda")
    x1 = torch.randn(1100, 8, device="cuda", requires_grad=True)
    x2 = x1.detach().clone().requires_grad_()
    w = torch.randn(1500, 8, device="cuda")
    ((a @ x1) * w).sum().backward()
    (torch.sparse.mm(ts, x2) * w).sum().backward()
    tol = max(a.plan(8, device="gpu").info.tolerance, a.T.plan(8, device="gpu").info.tolerance)
    within(x1.grad.cpu().numpy(), x2.grad.cpu().numpy().astype(np.float64), tol)


def test_cuda_attention_against_numpy():
    a = matrix()
    # fp16 values: the fused kernel takes its operands in fp16, so the
    # float64 reference then sees what it sees
    q, k, v = (torch.randn(1138, 32, device="cuda").half().float() for _ in range(3))
    o = tt.attention(a, q, k, v)
    assert o.device == q.device
    plan = a.plan(32, op="attention", scale=0.0, device="gpu", gpu=q.device.index)
    ref = attention_ref(a, q.cpu().numpy(), k.cpu().numpy(), v.cpu().numpy(), plan.info.scale)
    within(o.cpu().numpy(), ref, plan.info.tolerance)


def refused(call, message):
    """call() must raise ValueError saying message."""
    try:
        call()
    except ValueError as e:
        assert message in str(e), str(e)
    else:
        raise AssertionError("not refused: expected '%s'" % message)


def test_cuda_patient_rowsplit_plan_says_its_format_params():
    a = matrix("cora")
    with a.plan(32, device="gpu", effort="patient", format="rowsplit", iters=10) as plan:
        assert plan.info.format == "rowsplit"
        assert plan.info.format_params == plan.report()["plan"]["format_params"]
        x = torch.randn(2708, 32, device="cuda")
        within(plan(x).cpu().numpy(), csr_product(a, x.cpu().numpy()), plan.info.tolerance)


def test_cuda_tensor_with_a_cpu_plan_is_refused():
    a = matrix()
    plan = a.plan(4, device="cpu")
    refused(lambda: plan(torch.zeros(1138, 4, device="cuda")),
            "on cuda:0 but the plan is on the CPU")
    refused(lambda: a.attention(torch.zeros(1138, 4, device="cuda"), torch.zeros(1138, 4),
                                torch.zeros(1138, 4)), "different devices")


def test_cuda_tensor_on_another_gpu_is_refused():
    if torch.cuda.device_count() < 2:
        raise Skipped("one GPU: no other GPU to put the tensor on")
    a = matrix()
    plan = a.plan(4, device="gpu", gpu=0)
    refused(lambda: plan(torch.zeros(1138, 4, device="cuda:1")),
            "on cuda:1 but the plan is on cuda:0")


if __name__ == "__main__":
    if not HAVE_CUDA:
        print("1..0 # SKIP no CUDA device")
        sys.exit(0)
    os.environ["TC_PLAN_CACHE"] = tempfile.mkdtemp(prefix="tcplan")
    tests = [(k, f) for k, f in sorted(globals().items()) if k.startswith("test_")]
    print("1..%d" % len(tests))
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Skipped as e:     # pytest's is no Exception: caught by name
            print("ok %d - %s # SKIP %s" % (i, name, e))
        except Exception as e:   # a test's failure, reported and counted
            failed += 1
            print("not ok %d - %s\n# %s: %s" % (i, name, type(e).__name__, e))
    sys.exit(1 if failed else 0)
