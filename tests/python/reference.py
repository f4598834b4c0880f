"""NumPy references for the tests (no SciPy: the GPU machine may lack it)."""

import numpy as np


def csr_product(a, x):
    """A X in float64 from the matrix's own CSR arrays."""
    indptr, indices, data = a.csr_arrays()
    x = np.asarray(x, dtype=np.float64)
    x2 = x.reshape(x.shape[0], -1)
    out = np.zeros((len(indptr) - 1, x2.shape[1]))
    row = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    np.add.at(out, row, data[:, None] * x2[indices])
    return out.reshape((-1,) + x.shape[1:])


def attention(a, q, k, v, scale):
    """softmax(scale Q K^T masked by A's pattern) V, row by row, float64;
    a row without nonzeros gives zeros."""
    indptr, indices, _ = a.csr_arrays()
    q, k, v = (np.asarray(t, dtype=np.float64) for t in (q, k, v))
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        cols = indices[indptr[i]:indptr[i + 1]]
        if len(cols):
            s = scale * (k[cols] @ q[i])
            p = np.exp(s - s.max())
            out[i] = (p / p.sum()) @ v[cols]
    return out


def sddmm(a, q, k, scale):
    indptr, indices, _ = a.csr_arrays()
    row = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return scale * np.einsum("ij,ij->i", np.asarray(q, np.float64)[row],
                             np.asarray(k, np.float64)[indices])
