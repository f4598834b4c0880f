"""tcsparse.Matrix: a sparse matrix held by libtcsparse (a tc_csr in the
caller's order, and the .tcf.h5 it came from, if any), with its plans."""

import ctypes
import inspect
import os
import sys

import numpy as np

from . import _operands
from ._errors import call
from ._resource import Resource
from ._lib import CSR_P, PERM_P, TcMtxReadOpts, TcParams, TcTcfHead, lib
from .plan import Plan, plan_opts

TC_PERM_OLD2NEW = 1
PLAN_OPTIONS = tuple(p for p in inspect.signature(plan_opts).parameters if p not in ("op", "n"))
INT32_MAX = 2**31 - 1


def _int32(values, what, bound):
    """values as a contiguous int32 array, each in 0 .. bound - 1."""
    a = np.asarray(values)
    if a.size and (a.dtype.kind not in "iu" or a.min() < 0 or a.max() >= bound):
        raise ValueError("%s: whole numbers from 0 to %d were expected" % (what, bound - 1))
    return np.ascontiguousarray(a, dtype=np.int32)


def _ptr(array, ctype):
    return array.ctypes.data_as(ctypes.POINTER(ctype))


def _check_options(options):
    unknown = sorted(set(options) - set(PLAN_OPTIONS))
    if unknown:
        raise TypeError("unknown plan option %s; the options are %s"
                        % (", ".join(unknown), ", ".join(PLAN_OPTIONS)))


class Matrix(Resource):
    """A sparse matrix for libtcsparse's multiply.

    Matrix(source, **options): source is a path (.mtx, .mtx.gz or .tcf.h5,
    read by the library), a scipy.sparse matrix or array (any format), or a
    PyTorch sparse tensor (COO or CSR). options are the plan options that
    A @ X uses (Matrix.plan lists them). Values are kept in float64; the
    multiply takes float32 operands."""

    def __init__(self, source, **options):
        self._start(options)
        if isinstance(source, (str, bytes, os.PathLike)):
            self._read(os.fsdecode(source))
        elif _operands.is_tensor(source):
            self._from_torch(source)
        elif type(source).__module__.startswith("scipy.sparse"):
            coo = source.tocoo()
            self._from_coo(coo.shape, coo.row, coo.col, coo.data)
        else:
            raise TypeError("Matrix(%s): a file name, a scipy.sparse matrix or a PyTorch "
                            "sparse tensor was expected" % type(source).__name__)

    @classmethod
    def from_coo(cls, shape, row, col, val=None, **options):
        """From 0-based triplets (duplicates summed; val None: a pattern
        matrix, every value 1)."""
        m = cls.__new__(cls)
        m._start(options)
        m._from_coo(shape, row, col, val)
        return m

    @classmethod
    def _wrap(cls, csr, options):
        """A Matrix owning csr, a tc_csr the library made."""
        m = cls.__new__(cls)
        m._start(options)
        m._own(csr)
        return m

    def _start(self, options):
        _check_options(options)
        self._csr, self._tcf, self._plans, self._transpose = None, None, {}, None
        self._products = {}    # (n, GPU or None) -> the plan A @ X takes
        self.options = dict(options)

    def _own(self, csr):
        """Takes csr (a tc_csr the library made) as this matrix's."""
        self._csr = csr
        a = csr.contents
        self._shape, self._nnz = (a.rows, a.cols), a.nnz

    # constructors ---------------------------------------------------------------
    def _read(self, path):
        name = os.fsencode(path)
        if lib.tc_h5_is_hdf5(name):
            tcf = ctypes.c_void_p()
            call(lib.tc_h5_read, name, 1, ctypes.byref(tcf))
            self._tcf = tcf
            self._own(self._caller_order(ctypes.cast(tcf, ctypes.POINTER(TcTcfHead)).contents))
        else:
            csr = CSR_P()
            opts = TcMtxReadOpts(1)
            call(lib.tc_mtx_read, name, ctypes.byref(opts), ctypes.byref(csr), None, None)
            self._own(csr)

    @staticmethod
    def _caller_order(head):
        """A .tcf.h5's matrix in its original order: the stored one with its
        /permutation undone (each stored permutation's inverse applied)."""
        stored = head.matrix.contents
        inverses = []
        try:
            for perm in (head.row_perm, head.col_perm):
                inv = PERM_P()
                if perm:
                    call(lib.tc_perm_from_array, ctypes.byref(inv), perm.contents.n,
                         perm.contents.new2old, TC_PERM_OLD2NEW, b"permutation")
                inverses.append(inv)
            out = CSR_P()
            if head.row_perm or head.col_perm:
                call(lib.tc_csr_permute, ctypes.byref(stored), inverses[0], inverses[1],
                     ctypes.byref(out))
            else:
                call(lib.tc_csr_copy, ctypes.byref(stored), ctypes.byref(out))
            return out
        finally:
            for inv in inverses:
                lib.tc_perm_free(inv)

    def _from_coo(self, shape, row, col, val):
        rows, cols = (int(s) for s in shape)
        if not (0 <= rows <= INT32_MAX and 0 <= cols <= INT32_MAX):
            raise ValueError("shape %r: the library takes up to %d rows and columns"
                             % (tuple(shape), INT32_MAX))
        ri = _int32(row, "row indices", rows)
        ci = _int32(col, "column indices", cols)
        if ri.shape != ci.shape or ri.ndim != 1:
            raise ValueError("row and column indices must be 1-D and of one length")
        v = None
        if val is not None:
            v = np.asarray(val)
            if v.dtype.kind == "c":
                raise TypeError("complex values: the library holds real matrices")
            v = np.ascontiguousarray(v, dtype=np.float64)
            if v.shape != ri.shape:
                raise ValueError("%d values for %d indices" % (v.size, ri.size))
        csr = CSR_P()
        call(lib.tc_csr_from_coo, ctypes.byref(csr), rows, cols, ri.size, _ptr(ri, ctypes.c_int32),
             _ptr(ci, ctypes.c_int32), None if v is None else _ptr(v, ctypes.c_double), 1)
        self._own(csr)

    def _from_torch(self, t):
        torch = __import__("torch")
        if t.layout == torch.sparse_coo:
            t = t.coalesce()
            idx = t.indices().cpu().numpy()
            self._from_coo(t.shape, idx[0], idx[1], t.values().detach().cpu().double().numpy())
        elif t.layout == torch.sparse_csr:
            crow = t.crow_indices().cpu().numpy()
            row = np.repeat(np.arange(t.shape[0]), np.diff(crow))
            self._from_coo(t.shape, row, t.col_indices().cpu().numpy(),
                           t.values().detach().cpu().double().numpy())
        else:
            raise TypeError("a PyTorch tensor of layout %s: a sparse COO or CSR tensor was "
                            "expected" % t.layout)

    # what it holds ----------------------------------------------------------------
    def _live(self):
        if self._csr is None:
            raise ValueError("the matrix is closed")
        return self._csr

    @property
    def shape(self):
        self._live()
        return self._shape

    @property
    def nnz(self):
        self._live()
        return self._nnz

    def csr_arrays(self):
        """(indptr int64, indices int32, data float64) copies, the caller's
        order; data is all ones for a pattern matrix."""
        a = self._live().contents
        indptr = np.ctypeslib.as_array(a.rowptr, (a.rows + 1,)).copy()
        if a.nnz == 0:
            return indptr, np.zeros(0, np.int32), np.zeros(0, np.float64)
        indices = np.ctypeslib.as_array(a.colidx, (a.nnz,)).copy()
        data = (np.ctypeslib.as_array(a.val, (a.nnz,)).copy() if a.val
                else np.ones(a.nnz, np.float64))
        return indptr, indices, data

    def to_scipy(self):
        """A scipy.sparse.csr_matrix copy (SciPy needed)."""
        import scipy.sparse
        indptr, indices, data = self.csr_arrays()
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=self.shape)

    def __repr__(self):
        if self._csr is None:
            return "<tcsparse.Matrix closed>"
        return "<tcsparse.Matrix %dx%d, %d nonzeros%s>" % (
            self.shape + (self.nnz, ", from a .tcf.h5" if self._tcf else ""))

    @property
    def T(self):
        """The transpose (made once and kept; the matrix itself when it is
        symmetric, so that its plans serve both)."""
        if self._transpose is None:
            out = CSR_P()
            call(lib.tc_csr_transpose, self._live(), ctypes.byref(out))
            t = Matrix._wrap(out, self.options)
            if self.shape == t.shape and all(
                    np.array_equal(x, y) for x, y in zip(self.csr_arrays(), t.csr_arrays())):
                t.close()
                t = self
            self._transpose = t
        return self._transpose

    def reorder(self, method, **params):
        """(B, perm): B = A with its rows in the order the library's
        reordering `method` ("wjaccard", "rcm", ...) computes, and perm its
        new-to-old row permutation (B row i is A row perm[i]). Plans reorder
        by themselves (order=...) and give the caller's order back; this is
        for callers who want the reordered matrix."""
        method_p = lib.tc_reorder_find(str(method).encode())
        if not method_p:
            names = [lib.tc_reorder_name(lib.tc_reorder_at(i)).decode()
                     for i in range(lib.tc_reorder_count())]
            raise ValueError("reordering %r: one of %s was expected" % (method, ", ".join(names)))
        p = TcParams()
        if params:
            text = ",".join("%s=%s" % kv for kv in params.items())
            call(lib.tc_params_parse, ctypes.byref(p), text.encode())
        perm = PERM_P()
        call(lib.tc_reorder_run, method_p, self._live(), ctypes.byref(p), ctypes.byref(perm),
             None)
        try:
            out = CSR_P()
            call(lib.tc_csr_permute, self._csr, perm, None, ctypes.byref(out))
            order = np.ctypeslib.as_array(perm.contents.new2old, (perm.contents.n,)).copy()
        finally:
            lib.tc_perm_free(perm)
        return Matrix._wrap(out, self.options), order

    # plans and products ---------------------------------------------------------
    def plan(self, n, op="spmm", **options):
        """The plan for n columns (SpMM) or width d (op "sddmm" or
        "attention"), with this matrix's options updated by `options`:
        device ("auto", "cpu", "gpu"), gpu (index), effort (None, "estimate",
        "measure", "patient", "exhaustive"), accuracy (None, "fp32", "tf32",
        "fp16"), order (None/"auto", "given", or a reordering), format,
        variant, calls, b_max_abs, scale, threads, warmup, iters, plan_file,
        cache_dir (tcsparse_plan.h), progress (a function of (done, total)
        told of planning's progress, which reaches total at the end). Plans
        are made once per distinct (op, n, options) and kept until
        close()."""
        _check_options(options)
        merged = dict(self.options, **options)
        key = (op, n, tuple(sorted(merged.items())))
        plan = self._plans.get(key)
        if plan is None or plan.closed:
            opts, keep = plan_opts(op, n, **merged)
            if self._tcf is not None:
                plan = Plan(lib.tc_plan_create_tcf, self._tcf, opts, keep, self.shape, self.nnz)
            else:
                plan = Plan(lib.tc_plan_create, self._live(), opts, keep, self.shape, self.nnz)
            self._plans[key] = plan
        return plan

    def _device_options(self, cuda):
        """The plan options for operands on GPU `cuda` (None: the host): that
        GPU, else the CPU, unless this matrix's options name a device."""
        if "device" in self.options:
            return {"gpu": cuda} if cuda is not None else {}
        return {"device": "gpu", "gpu": cuda} if cuda is not None else {"device": "cpu"}

    def matmul(self, x, convert=False):
        """A @ X (see the package's documentation): a float32 result rows x n,
        in the caller's row order, of X's kind and on X's device. A PyTorch
        X that requires grad gets a result that backpropagates to it."""
        torch = sys.modules.get("torch")
        plain = torch is not None and type(x) is torch.Tensor
        if plain or _operands.is_tensor(x):
            if x.requires_grad and torch.is_grad_enabled():
                from .torch import matmul
                return matmul(self, x, convert)
            if plain and x.is_cuda:
                c = self._cuda_product(x, torch)
                if c is not None:
                    return c
        b = _operands.prepare(x, "X", self.shape[1], convert)
        # the plan of each (n, device) once found, without Matrix.plan's
        # key of every option: this lookup is on every product's path
        plan = self._products.get((b.cols, b.cuda))
        if plan is None or plan.closed:
            plan = self.plan(b.cols, **self._device_options(b.cuda))
            self._products[(b.cols, b.cuda)] = plan
        return plan.execute_operand(b)

    def _cuda_product(self, x, torch):
        """A @ X through an earlier product's plan when X, a CUDA tensor, is
        what a GPU model passes every step (float32, A's width, packed rows,
        16-byte aligned), else None: everything else, and the first product,
        take the general path (_operands.prepare), which checks, converts or
        refuses, and makes the plan. Each test here costs a tenth of a
        microsecond or more on every product (bench/python.sh), so they are
        the fewest that do: stride() == (n, 1) is a packed 2-D X."""
        if x.layout is not torch.strided or x.dtype is not torch.float32:
            return None
        shape = x.shape
        if len(shape) != 2 or shape[0] != self._shape[1]:
            return None
        n = shape[1]
        plan = self._products.get((n, x.get_device()))
        if plan is None or x.stride() != (n, 1):
            return None
        ptr = x.data_ptr()
        return None if ptr % 16 else plan.execute_cuda(x, ptr, n)

    __matmul__ = matmul

    def attention(self, q, k, v, scale=None, convert=False):
        """O = softmax(scale Q K^T masked by A's pattern) V (the library's
        fused attention; scale None: 1/sqrt(d)). Q rows x d, K and V
        cols x d; no gradient (tcsparse.torch.attention says why)."""
        d = q.shape[1] if len(q.shape) == 2 else 1
        plan = self.plan(d, op="attention", scale=scale or 0.0,
                         **self._device_options(_operands.device_index(q)))
        return plan.attention(q, k, v, convert)

    def sddmm(self, q, k, scale=None, convert=False):
        """S = scale (Q K^T) at A's nonzeros, one score per nonzero in the
        order of csr_arrays() (scale None: 1)."""
        d = q.shape[1] if len(q.shape) == 2 else 1
        plan = self.plan(d, op="sddmm", scale=scale or 0.0,
                         **self._device_options(_operands.device_index(q)))
        return plan.sddmm(q, k, convert)

    # lifetime -------------------------------------------------------------------
    def close(self):
        """Frees the matrix, its plans and its transpose; a second close does
        nothing."""
        for plan in getattr(self, "_plans", {}).values():
            plan.close()
        self._plans, self._products = {}, {}
        t, self._transpose = getattr(self, "_transpose", None), None
        if t is not None and t is not self:
            t.close()
        csr, self._csr = getattr(self, "_csr", None), None
        tcf, self._tcf = getattr(self, "_tcf", None), None
        if lib is not None:
            if csr:
                lib.tc_csr_free(csr)
            if tcf:
                lib.tc_tcf_free(tcf)

    @property
    def closed(self):
        return self._csr is None
