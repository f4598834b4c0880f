"""Graph helpers for GNN code, in NumPy (no SciPy needed)."""

import numpy as np

from .matrix import Matrix


def gcn_normalize(adjacency, weighted=True, **options):
    """The GCN aggregation D^-1/2 (A + I) D^-1/2 of a square Matrix, D the
    row sums of A + I, as a new Matrix with these plan options (the
    adjacency's when none are given). weighted: A's values are the edge
    weights (a pattern matrix's are 1); else every stored entry is an edge
    of weight 1 (for matrices whose values are not weights). A row whose
    sum is not positive is refused."""
    rows, cols = adjacency.shape
    if rows != cols:
        raise ValueError("gcn_normalize: a square matrix was expected, not %dx%d" % (rows, cols))
    indptr, indices, data = adjacency.csr_arrays()
    if not weighted:
        data = np.ones_like(data)
    row = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
    degree = np.bincount(row, weights=data, minlength=rows) + 1.0
    if rows and degree.min() <= 0:
        bad = int(np.argmin(degree))
        raise ValueError("gcn_normalize: row %d of A + I sums to %g; positive degrees were "
                         "expected" % (bad, degree[bad]))
    scale = 1.0 / np.sqrt(degree)
    diagonal = np.arange(rows, dtype=np.int64)
    return Matrix.from_coo(
        (rows, cols), np.concatenate([row, diagonal]), np.concatenate([indices, diagonal]),
        np.concatenate([data * scale[row] * scale[indices], scale * scale]),
        **(options or adjacency.options))
