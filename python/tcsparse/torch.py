"""tcsparse.torch: libtcsparse's multiply in PyTorch models (needs torch).

matmul(A, X)       Y = A X that backpropagates to X: dX = A^T dY through
                   a plan of A's transpose, made once (A.T keeps it; a
                   symmetric A serves as its own transpose). A's values get
                   no gradient: A is data (a graph), not a parameter.
GCNConv(A, i, o)   a GCN layer, A (X W) + b, with A the aggregation; build A
                   with tcsparse.gcn_normalize.
attention(A, ...)  the fused sparse attention, softmax(scale Q K^T masked by
                   A) V, forward only: the C API has no backward for it
                   (tc_plan_attention), so backpropagating through it raises.

`A @ X` on a tensor that requires grad goes through matmul by itself.
"""

import torch

from .matrix import Matrix


class _MatMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, matrix, convert):
        ctx.matrix, ctx.dtype = matrix, x.dtype
        return matrix.matmul(x, convert)

    @staticmethod
    def backward(ctx, dy):
        return ctx.matrix.T.matmul(dy).to(ctx.dtype), None, None


def matmul(matrix, x, convert=False):
    """A @ X with autograd to X (the module's documentation)."""
    if not isinstance(matrix, Matrix):
        raise TypeError("matmul: a tcsparse.Matrix was expected, not %s" % type(matrix).__name__)
    return _MatMul.apply(x, matrix, convert)


class GCNConv(torch.nn.Module):
    """One graph convolution (Kipf and Welling): A (X W) + b, the
    aggregation by tcsparse on X's device."""

    def __init__(self, adjacency, in_features, out_features, bias=True):
        super().__init__()
        if not isinstance(adjacency, Matrix):
            raise TypeError("GCNConv: a tcsparse.Matrix was expected as the adjacency")
        self.adjacency = adjacency
        self.linear = torch.nn.Linear(in_features, out_features, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out_features)) if bias else None

    def forward(self, x):
        h = matmul(self.adjacency, self.linear(x))
        return h + self.bias if self.bias is not None else h


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, matrix, scale):
        return matrix.attention(q, k, v, scale)

    @staticmethod
    def backward(ctx, do):
        raise RuntimeError("tcsparse.torch.attention has no backward: libtcsparse's attention "
                           "(tc_plan_attention) computes the forward pass only")


def attention(matrix, q, k, v, scale=None):
    """O = softmax(scale Q K^T masked by A's pattern) V (scale None:
    1/sqrt(d)); Q rows x d, K and V cols x d, float32. Forward only."""
    return _Attention.apply(q, k, v, matrix, scale)
