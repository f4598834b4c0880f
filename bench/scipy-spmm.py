"""scipy-spmm.py: times SciPy on C = A @ B, the competitor of the CPU path
in bench/cpu.sh.

usage: scipy-spmm.py FILE.tcf.h5 N DTYPE WARMUP ITERS

A is the file's /matrix as a scipy.sparse.csr_matrix of DTYPE (float32 or
float64; a pattern matrix gets ones), B a C-contiguous DTYPE array of
random values in [-1, 1), cols x N. SciPy's sparse-times-dense product runs
on one thread whatever the machine. Prints the median of ITERS runs after
WARMUP in milliseconds, then the sum of C's entries. Bad usage exits 2, an
unreadable file 1."""
import sys
import time

try:
    import h5py
    import numpy as np
    import scipy.sparse
except ImportError as e:
    sys.exit(f"scipy-spmm.py: needs h5py, numpy and scipy: {e}")


def main(argv):
    if len(argv) != 6 or argv[3] not in ("float32", "float64"):
        print("usage: scipy-spmm.py FILE.tcf.h5 N float32|float64 WARMUP ITERS",
              file=sys.stderr)
        return 2
    try:
        n, warmup, iters = int(argv[2]), int(argv[4]), int(argv[5])
    except ValueError:
        n = warmup = iters = -1
    if n < 1 or warmup < 0 or iters < 1:
        print("scipy-spmm.py: N and ITERS must be >= 1, WARMUP >= 0", file=sys.stderr)
        return 2
    dtype = np.dtype(argv[3])
    try:
        with h5py.File(argv[1], "r") as f:
            g = f["matrix"]
            shape = tuple(int(x) for x in g.attrs["shape"])
            indptr, indices = g["indptr"][()], g["indices"][()]
            data = g["data"][()].astype(dtype) if "data" in g else \
                np.ones(len(indices), dtype)
    except (OSError, KeyError) as e:
        print(f"scipy-spmm.py: {argv[1]}: not a readable .tcf.h5 /matrix ({e})",
              file=sys.stderr)
        return 1
    a = scipy.sparse.csr_matrix((data, indices, indptr), shape=shape)
    b = np.random.default_rng(1).uniform(-1, 1, (shape[1], n)).astype(dtype)
    t = []
    for i in range(warmup + iters):
        t0 = time.perf_counter()
        c = a @ b
        if i >= warmup:
            t.append((time.perf_counter() - t0) * 1e3)
    print(f"{float(np.median(t)):.6f}\t{float(c.sum(dtype=np.float64)):.9g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
