"""tcsparse.torch on the CPU: autograd against torch.sparse.mm's gradient,
the GCN layer, attention and SDDMM against NumPy references."""

import os

import numpy as np
import pytest
import torch

import tcsparse
import tcsparse.torch as tt
from conftest import DATA, assert_close
from reference import attention as attention_ref, csr_product, sddmm as sddmm_ref


def torch_sparse(a):
    indptr, indices, data = a.csr_arrays()
    row = np.repeat(np.arange(a.shape[0]), np.diff(indptr))
    return torch.sparse_coo_tensor(np.vstack([row, indices]), data.astype(np.float32),
                                   a.shape).coalesce()


@pytest.fixture
def bus():
    return tcsparse.Matrix(os.path.join(DATA, "1138_bus.mtx.gz"))


@pytest.fixture
def rect(rng):
    """A non-symmetric rectangular matrix, so that A^T is a plan of its own."""
    r = rng.integers(0, 1100, 9000)
    c = rng.integers(0, 1031, 9000)
    return tcsparse.Matrix.from_coo((1100, 1031), r, c, rng.uniform(-1, 1, 9000))


def test_tensor_product_cpu(rect, rng):
    x = torch.from_numpy(rng.standard_normal((1031, 5)).astype(np.float32))
    y = rect @ x
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32 and y.shape == (1100, 5)
    assert_close(y.numpy(), csr_product(rect, x.numpy()), 1e-5)
    assert_close((rect @ x.t().contiguous().t()).numpy(), csr_product(rect, x.numpy()), 1e-5)
    with pytest.raises(TypeError, match="torch.float64.*convert=True"):
        rect @ x.double()
    with pytest.raises(TypeError, match="torch.float16"):
        rect @ x.half()
    assert rect.matmul(x.double(), convert=True).dtype == torch.float32
    with pytest.raises(TypeError, match="sparse tensor"):
        rect @ x.to_sparse()
    with pytest.raises(ValueError, match="is on meta"):
        rect @ torch.empty((1031, 5), device="meta")


@pytest.mark.parametrize("fixture", ["rect", "bus"])
def test_gradient_matches_torch_sparse_mm(fixture, request, rng):
    a = request.getfixturevalue(fixture)
    ts = torch_sparse(a)
    x0 = torch.from_numpy(rng.standard_normal((a.shape[1], 7)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((a.shape[0], 7)).astype(np.float32))
    x1, x2 = x0.clone().requires_grad_(), x0.clone().requires_grad_()
    y1 = a @ x1
    y2 = torch.sparse.mm(ts, x2)
    assert y1.requires_grad
    (y1 * w).sum().backward()
    (y2 * w).sum().backward()
    assert_close(y1.detach().numpy(), y2.detach().numpy(), 1e-5)
    assert_close(x1.grad.numpy(), x2.grad.numpy(), 1e-5)
    assert_close(x1.grad.numpy(), csr_product(a.T, w.numpy()), 1e-5)


def test_gradcheck_style_against_finite_differences(rng):
    """The gradient of a scalar loss along a random direction, against a
    central difference in float64 through the float32 product."""
    a = tcsparse.Matrix.from_coo((40, 30), rng.integers(0, 40, 200), rng.integers(0, 30, 200),
                                 rng.uniform(-1, 1, 200))
    x = torch.from_numpy(rng.standard_normal((30, 3)).astype(np.float32)).requires_grad_()
    loss = ((a @ x) ** 2).sum()
    loss.backward()
    d = torch.from_numpy(rng.standard_normal((30, 3)).astype(np.float32))
    h = 1e-2
    with torch.no_grad():
        up = ((a @ (x + h * d)).double() ** 2).sum()
        down = ((a @ (x - h * d)).double() ** 2).sum()
    numeric = (up - down) / (2 * h)
    analytic = (x.grad.double() * d.double()).sum()
    assert abs(numeric - analytic) <= 1e-3 * abs(analytic)


def test_converted_input_gets_its_dtype_back_as_gradient(rect, rng):
    x = torch.from_numpy(rng.standard_normal((1031, 2))).requires_grad_()
    tt.matmul(rect, x, convert=True).sum().backward()
    assert x.grad.dtype == torch.float64
    with pytest.raises(TypeError, match="tcsparse.Matrix"):
        tt.matmul(torch_sparse(rect), x)


def test_gcn_layer_trains(bus, rng):
    torch.manual_seed(5)
    adj = tcsparse.gcn_normalize(bus, weighted=False)
    model = torch.nn.Sequential(tt.GCNConv(adj, 8, 16), torch.nn.ReLU(), tt.GCNConv(adj, 16, 3))
    x = torch.randn(1138, 8)
    labels = torch.randint(0, 3, (1138,))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert model[0].linear.weight.grad is not None
    with pytest.raises(TypeError, match="adjacency"):
        tt.GCNConv(torch_sparse(bus), 8, 16)


@pytest.mark.parametrize("d", [1, 8, 33])
def test_attention_against_numpy(bus, rng, d):
    q, k, v = (torch.from_numpy(rng.standard_normal((1138, d)).astype(np.float32))
               for _ in range(3))
    o = tt.attention(bus, q, k, v)
    plan = bus.plan(d, op="attention", scale=0.0, device="cpu")
    assert plan.info.scale == pytest.approx(1 / np.sqrt(d))
    assert_close(o.numpy(), attention_ref(bus, q, k, v, 1 / np.sqrt(d)), plan.info.tolerance)
    o2 = bus.attention(q.numpy(), k.numpy(), v.numpy(), scale=0.5)
    assert_close(o2, attention_ref(bus, q, k, v, 0.5), plan.info.tolerance)


def test_attention_padded_operands_and_no_backward(bus, rng):
    wide = torch.from_numpy(rng.standard_normal((1138, 12)).astype(np.float32))
    q, k, v = wide[:, :4], wide[:, 4:8], wide[:, 8:]
    o = tt.attention(bus, q, k, v)
    assert_close(o.numpy(), attention_ref(bus, q, k, v, 0.5), 1e-5)
    qg = q.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="no backward"):
        tt.attention(bus, qg, k, v).sum().backward()
    with pytest.raises(ValueError, match="K has 5 columns; this plan is for d = 4"):
        bus.attention(q, wide[:, :5], v)
    with pytest.raises(ValueError, match="V has 1137 rows"):
        bus.attention(q, k, v[:1137])


def test_sddmm_against_numpy(rect, rng):
    q = rng.standard_normal((1100, 6)).astype(np.float32)
    k = rng.standard_normal((1031, 6)).astype(np.float32)
    s = rect.sddmm(q, k)
    assert s.shape == (rect.nnz,)
    assert_close(s, sddmm_ref(rect, q, k, 1.0), 1e-5)
    assert_close(rect.sddmm(q, k, scale=2.0), sddmm_ref(rect, q, k, 2.0), 1e-5)
    with pytest.raises(ValueError, match="this is a sddmm plan; attention needs"):
        rect.plan(6, op="sddmm", scale=0.0, device="cpu").attention(q, k, k)
