"""Plans: tc_plan_create and what runs through a plan (libtcsparse(3),
tcsparse_plan.h), for one matrix, one operation, one n and one device."""

import ctypes
import sys

from . import _operands
from ._errors import call, check
from ._resource import Resource
from ._lib import PROGRESS_FN, TcCompare, TcError, TcPlanInfo, TcPlanOpts, TcProgress, lib

OPS = {"spmm": 0, "sddmm": 1, "attention": 2}
DEVICES = {"auto": 0, "cpu": 1, "gpu": 2}
EFFORTS = {None: -1, "default": -1, "estimate": 0, "measure": 1, "patient": 2,
           "exhaustive": 3}
ACCURACIES = (None, "fp32", "tf32", "fp16")
DEVICE_NAMES = {v: k for k, v in DEVICES.items()}
TC_BENCH_DENSE = 1


def _choice(table, value, what):
    if value not in table:
        raise ValueError("%s %r: one of %s was expected"
                         % (what, value, ", ".join(repr(k) for k in table if k is not None)))
    return table[value]


def _text(value):
    return None if value is None else str(value).encode()


def _progress(fn):
    """A tc_progress that calls fn(done, total) as planning goes (its whole
    is total), and the objects that must outlive it."""
    if not callable(fn):
        raise TypeError("progress %r: a function of (done, total) was expected" % (fn,))
    callback = PROGRESS_FN(lambda ctx, done, total: fn(done, total))
    p = TcProgress(callback, None)
    return ctypes.cast(ctypes.pointer(p), ctypes.c_void_p), [callback, p]


def plan_opts(op, n, device="auto", gpu=0, effort=None, accuracy=None, order=None,
              format=None, variant=None, calls=1000, b_max_abs=0.0, scale=0.0, threads=0,
              warmup=None, iters=None, plan_file=None, cache_dir=None, progress=None):
    """A tc_plan_opts from keyword options (their meaning: tcsparse_plan.h;
    progress: a function of (done, total) told of planning's progress).
    Returns (opts, keep): keep holds what the options point to alive."""
    o = TcPlanOpts()
    lib.tc_plan_opts_init(ctypes.byref(o))
    if not isinstance(n, int) or n < 1:
        raise ValueError("n %r: a positive whole number was expected" % (n,))
    if accuracy not in ACCURACIES:
        raise ValueError("accuracy %r: one of 'fp32', 'tf32', 'fp16' or None was expected"
                         % (accuracy,))
    o.op = _choice(OPS, op, "operation")
    o.n = n
    o.device = _choice(DEVICES, device, "device")
    o.gpu = int(gpu)
    o.effort = _choice(EFFORTS, effort, "effort")
    o.calls = int(calls)
    o.b_max_abs = float(b_max_abs)
    o.scale = float(scale)
    o.threads = int(threads)
    if warmup is not None:
        o.warmup = int(warmup)
    if iters is not None:
        o.iters = int(iters)
    keep = [_text(v) for v in (format, variant, order, accuracy, plan_file, cache_dir)]
    o.format, o.variant, o.order, o.accuracy, o.plan_file, o.cache_dir = keep
    if progress is not None:
        o.progress, more = _progress(progress)
        keep += more
    return o, keep


class PlanInfo:
    """tc_plan_info as attributes: device ("cpu" or "gpu"), device_name,
    order, format, format_params (the format's settings the plan runs, ""
    for its defaults), variant, precision, tolerance, ms, cusparse_ms,
    reused, scale, ..."""

    def __init__(self, info):
        for name, _ in TcPlanInfo._fields_:
            value = getattr(info, name)
            setattr(self, name, value.decode() if isinstance(value, bytes) else value)
        self.device = DEVICE_NAMES[info.device]
        self.op = {v: k for k, v in OPS.items()}[info.op]

    def __repr__(self):
        return ("PlanInfo(%s n=%d on %s: %s %s, %s order, %s, tolerance %g)"
                % (self.op, self.n, self.device_name, self.format, self.variant, self.order,
                   self.precision, self.tolerance))


def report_entries(report):
    """A tc_report as {section: {key: value}}."""
    out = {}
    for i in range(lib.tc_report_count(report)):
        e = lib.tc_report_at(report, i).contents
        value = e.str.decode() if e.is_str else e.ival if e.is_int else e.num
        out.setdefault(e.section.decode(), {})[e.key.decode()] = value
    return out


def _with_report(fill):
    report = lib.tc_report_new()
    if not report:
        raise MemoryError("tcsparse: no memory for a report")
    try:
        fill(report)
        return report_entries(report)
    finally:
        lib.tc_report_free(report)


def _stream_getter():
    """A function of a GPU index giving PyTorch's current stream there as a
    cudaStream_t (an int). Every product asks, so the raw getter PyTorch's
    own compiled code uses comes first: torch.cuda.current_stream builds a
    Stream object each call, a few microseconds of the 10 a call may cost
    (bench/python.sh)."""
    torch = sys.modules["torch"]
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    return raw or (lambda index: torch.cuda.current_stream(index).cuda_stream)


def _current_stream(index):
    return ctypes.c_void_p(_stream_getter()(index))


class Plan(Resource):
    """A plan of libtcsparse. Made by Matrix.plan (which caches it); freed by
    close(), by leaving a `with` block, or by the garbage collector. Its
    matrix may be closed first: a plan keeps what it needs."""

    def __init__(self, create, source, opts, keep, shape, nnz):
        self._handle = None
        self.rows, self.cols = shape
        self.nnz = nnz
        handle = ctypes.c_void_p()
        call(create, source, ctypes.byref(opts), ctypes.byref(handle))
        self._handle = handle
        self._keep = keep
        raw = TcPlanInfo()
        lib.tc_plan_get_info(handle, ctypes.byref(raw))
        self.info = PlanInfo(raw)
        self.gpu = opts.gpu
        self._stream_of_gpu = None      # execute_cuda's, found on its first call
        self._err = TcError()           # execute_cuda's, made once
        self._err_ref = ctypes.byref(self._err)

    # lifetime ---------------------------------------------------------------
    def close(self):
        """Frees the plan; a second close does nothing."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and lib is not None:
            lib.tc_plan_free(handle)

    @property
    def closed(self):
        return self._handle is None

    def _live(self):
        if self._handle is None:
            raise ValueError("the plan is closed")
        return self._handle

    def __repr__(self):
        return "<tcsparse.Plan %s>" % ("closed" if self.closed else self.info)

    # operands -------------------------------------------------------------
    def _stream(self, ops):
        """The stream to queue on: PyTorch's current stream of the operands'
        GPU for a GPU plan and CUDA tensors; None (host arrays, run by the
        _host calls) otherwise. Refuses operands on another device."""
        where = ops[0].cuda
        if any(op.cuda != where for op in ops[1:]):
            cuda = {op.cuda for op in ops}
            raise ValueError("the operands are on different devices (%s)"
                             % ", ".join("cpu" if c is None else "cuda:%d" % c for c in cuda))
        if where is None:
            return None
        if self.info.device != "gpu":
            raise ValueError("the operands are on cuda:%d but the plan is on the CPU: move them "
                             "to the CPU or make a plan with device='gpu'" % where)
        if where != self.gpu:
            raise ValueError("the operands are on cuda:%d but the plan is on cuda:%d"
                             % (where, self.gpu))
        return _current_stream(where)

    # SpMM -------------------------------------------------------------------
    def execute(self, x, convert=False):
        """C = A X in the caller's row order; X cols x n (a NumPy array or a
        PyTorch tensor; see DTYPES AND LAYOUT). Host operands go through
        tc_plan_execute_host (any plan); CUDA tensors through
        tc_plan_execute on PyTorch's current stream, without waiting."""
        return self.execute_operand(_operands.prepare(x, "X", self.cols, convert))

    __call__ = execute

    def execute_cuda(self, x, ptr, n):
        """execute for what Matrix._cuda_product has already checked: x a
        packed, 16-byte aligned, float32, cols x n CUDA tensor on this plan's
        GPU, ptr its data_ptr(); None when the plan is closed (the general
        path then makes another). The per-product path of a GPU model, so it
        does no more than allocate C and call (bench/python.sh counts what
        it adds to tc_plan_execute). Its error buffer is the plan's own:
        like the library's plan, a Plan multiplies in one thread at a time."""
        handle = self._handle
        if handle is None:
            return None
        c = x.new_empty(self.rows, n)
        stream = self._stream_of_gpu
        if stream is None:
            stream = self._stream_of_gpu = _stream_getter()
        status = lib.tc_plan_execute(handle, ptr, n, c.data_ptr(), n, stream(self.gpu),
                                     self._err_ref)
        if status:
            check(status, self._err)
        return c

    def execute_operand(self, b):
        """execute on an operand that _operands.prepare made."""
        handle = self._live()
        if self.info.op != "spmm":
            raise ValueError("this is a %s plan; execute needs an SpMM plan" % self.info.op)
        if b.cols != self.info.n:
            raise ValueError("X has %d columns; this plan is for n = %d"
                             % (b.cols, self.info.n))
        stream = self._stream([b])
        c = _operands.empty_like(b, self.rows, b.cols)
        if stream is None:
            call(lib.tc_plan_execute_host, handle, b.ptr, b.ld, c.ptr, c.ld)
        else:
            call(lib.tc_plan_execute, handle, b.ptr, b.ld, c.ptr, c.ld, stream)
        return _operands.result(c)

    def bench(self, x, warmup=10, iters=100, dense=False, bandwidth_gbs=0.0):
        """tcmul's run protocol on host X (tc_plan_bench): the report
        sections ("bench", "baseline", ...) as {section: {key: value}}."""
        handle = self._live()
        b = _operands.prepare(x, "X", self.cols, False)
        if b.cuda is not None:
            raise ValueError("bench takes X on the host (it times on its own copies)")
        c = _operands.empty_like(b, self.rows, b.cols)
        flags = TC_BENCH_DENSE if dense else 0
        return _with_report(lambda r: call(lib.tc_plan_bench, handle, b.ptr, b.ld, warmup,
                                           iters, flags, bandwidth_gbs, c.ptr, c.ld, r))

    def verify(self, x, c):
        """Checks host C = A X against the float64 product (tc_plan_verify):
        (passed, relative Frobenius error)."""
        handle = self._live()
        b = _operands.prepare(x, "X", self.cols, False)
        out = _operands.prepare(c, "C", self.rows, False)
        if b.cuda is not None or out.cuda is not None:
            raise ValueError("verify takes host arrays")
        cmp, passed = TcCompare(), ctypes.c_int()
        call(lib.tc_plan_verify, handle, b.ptr, b.ld, out.ptr, out.ld, ctypes.byref(cmp),
             ctypes.byref(passed))
        return bool(passed.value), cmp.rel_fro

    # SDDMM and attention --------------------------------------------------
    def _qkv(self, q, k, v, convert):
        """Q (rows x d), K and V (cols x d), packed as the attention calls
        take them (a padded operand is copied)."""
        d = self.info.n
        named = [("Q", q, self.rows), ("K", k, self.cols)]
        if v is not None:
            named.append(("V", v, self.cols))
        ops = []
        for name, x, rows in named:
            op = _operands.prepare(x, name, rows, convert, packed=True)
            if op.cols != d:
                raise ValueError("%s has %d columns; this plan is for d = %d"
                                 % (name, op.cols, d))
            ops.append(op)
        return ops

    def attention(self, q, k, v, convert=False):
        """O = softmax(scale Q K^T masked by A's pattern) V, rows x d."""
        handle = self._live()
        if self.info.op != "attention":
            raise ValueError("this is a %s plan; attention needs an attention plan"
                             % self.info.op)
        ops = self._qkv(q, k, v, convert)
        stream = self._stream(ops)
        o = _operands.empty_like(ops[0], self.rows, self.info.n)
        ptrs = [op.ptr for op in ops]
        if stream is None:
            call(lib.tc_plan_execute_attention_host, handle, *ptrs, o.ptr)
        else:
            call(lib.tc_plan_attention, handle, *ptrs, o.ptr, stream)
        return _operands.result(o)

    def sddmm(self, q, k, convert=False):
        """S[k] = scale (Q K^T)[i, j] for the k-th nonzero (i, j) of A in its
        CSR order: a 1-D array of nnz scores."""
        handle = self._live()
        if self.info.op != "sddmm":
            raise ValueError("this is a %s plan; sddmm needs an SDDMM plan" % self.info.op)
        ops = self._qkv(q, k, None, convert)
        stream = self._stream(ops)
        s = _operands.empty_like(ops[0], max(self.nnz, 1), 1)
        if stream is None:
            call(lib.tc_plan_execute_attention_host, handle, ops[0].ptr, ops[1].ptr, None,
                 s.ptr)
        else:
            call(lib.tc_plan_sddmm, handle, ops[0].ptr, ops[1].ptr, s.ptr, stream)
        return s.value.reshape(-1)[:self.nnz]

    # what the plan chose ----------------------------------------------------
    def report(self):
        """tc_plan_report's sections as {section: {key: value}}."""
        handle = self._live()
        return _with_report(lambda r: call(lib.tc_plan_report, handle, r))

    def save(self, path):
        """Writes the plan file (its key and choices) atomically."""
        call(lib.tc_plan_save, self._live(), str(path).encode())

