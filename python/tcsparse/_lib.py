"""Loading libtcsparse and declaring the part of its C API the package calls.

The structures below mirror lib/tcsparse.h and plan/tcsparse_plan.h field
for field; tests/python/test_abi.py compiles a C program that prints their
sizes and offsets, so a change to the headers that is not made here fails
the tests instead of corrupting memory. Only the library itself is loaded:
its GPU side (libtcsparse-gpu) is dlopen'ed by the library the first time a
GPU plan is made, so importing this package never loads CUDA.
"""

import ctypes
import ctypes.util
import os

# The release of the C library these declarations were written against:
# the library's tc_version() must have the same major and minor number.
API_VERSION = "0.1"

SONAME = "libtcsparse.so.0"

c_int = ctypes.c_int
c_int32 = ctypes.c_int32
c_int64 = ctypes.c_int64
c_double = ctypes.c_double
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
POINTER = ctypes.POINTER


class TcError(ctypes.Structure):
    _fields_ = [("status", c_int), ("msg", ctypes.c_char * 1024)]


class TcCsr(ctypes.Structure):
    _fields_ = [("rows", c_int32), ("cols", c_int32), ("nnz", c_int64),
                ("rowptr", POINTER(c_int64)), ("colidx", POINTER(c_int32)),
                ("val", POINTER(c_double)), ("field", c_int), ("symmetry", c_int)]


class TcPerm(ctypes.Structure):
    _fields_ = [("n", c_int32), ("new2old", POINTER(c_int32)), ("old2new", POINTER(c_int32))]


class TcTcfHead(ctypes.Structure):
    """The first fields of tc_tcf: only ever read through the library's
    pointer, never allocated here, so the rest of it need not be declared."""
    _fields_ = [("matrix", POINTER(TcCsr)), ("row_perm", POINTER(TcPerm)),
                ("col_perm", POINTER(TcPerm))]


TC_MAX_PARAMS = 16


class TcParamKV(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 32), ("value", c_double)]


class TcParams(ctypes.Structure):
    _fields_ = [("n", c_int), ("kv", TcParamKV * TC_MAX_PARAMS)]


# tc_progress: fn(ctx, done, total)
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_int64, c_int64)


class TcProgress(ctypes.Structure):
    _fields_ = [("fn", PROGRESS_FN), ("ctx", c_void_p)]


class TcPlanOpts(ctypes.Structure):
    _fields_ = [("op", c_int), ("n", c_int32), ("device", c_int), ("gpu", c_int),
                ("effort", c_int), ("format", c_char_p), ("variant", c_char_p),
                ("order", c_char_p), ("accuracy", c_char_p), ("calls", c_int64),
                ("b_max_abs", c_double), ("scale", c_double), ("threads", c_int),
                ("warmup", c_int), ("iters", c_int), ("plan_file", c_char_p),
                ("cache_dir", c_char_p), ("progress", c_void_p)]


class TcPlanInfo(ctypes.Structure):
    _fields_ = [("op", c_int), ("n", c_int32), ("device", c_int),
                ("device_name", ctypes.c_char * 256), ("effort", c_int),
                ("order", ctypes.c_char * 64), ("format", ctypes.c_char * 32),
                ("variant", ctypes.c_char * 32), ("precision", ctypes.c_char * 8),
                ("tolerance", c_double), ("b_scaled", c_int), ("ms", c_double),
                ("cusparse_ms", c_double), ("predicted_speedup", c_double),
                ("reorder_s", c_double), ("build_s", c_double), ("upload_s", c_double),
                ("tune_s", c_double), ("plan_s", c_double), ("payback_calls", c_double),
                ("reused", c_int), ("stale", ctypes.c_char * 256),
                ("plan_file", ctypes.c_char * 4096), ("scale", c_double),
                ("safeguard_ms", c_double), ("format_params", ctypes.c_char * 256),
                ("host_ms", c_double)]


class TcCompare(ctypes.Structure):
    _fields_ = [("rel_fro", c_double), ("max_abs", c_double), ("max_at", c_int64),
                ("nonfinite", c_int64)]


class TcReportEntry(ctypes.Structure):
    _fields_ = [("section", c_char_p), ("key", c_char_p), ("help", c_char_p),
                ("is_str", c_int), ("is_int", c_int), ("num", c_double),
                ("ival", c_int64), ("str", c_char_p)]


class TcMtxReadOpts(ctypes.Structure):
    _fields_ = [("sum_duplicates", c_int)]


ERR = POINTER(TcError)
CSR_P = POINTER(TcCsr)
PERM_P = POINTER(TcPerm)
FLOAT_P = POINTER(ctypes.c_float)

# name: (result type, argument types)
_PROTOTYPES = {
    "tc_status_name": (c_char_p, [c_int]),
    "tc_csr_free": (None, [CSR_P]),
    "tc_csr_copy": (c_int, [CSR_P, POINTER(CSR_P), ERR]),
    "tc_csr_from_coo": (c_int, [POINTER(CSR_P), c_int32, c_int32, c_int64, POINTER(c_int32),
                                POINTER(c_int32), POINTER(c_double), c_int, ERR]),
    "tc_csr_transpose": (c_int, [CSR_P, POINTER(CSR_P), ERR]),
    "tc_csr_permute": (c_int, [CSR_P, PERM_P, PERM_P, POINTER(CSR_P), ERR]),
    "tc_perm_from_array": (c_int, [POINTER(PERM_P), c_int32, POINTER(c_int32), c_int,
                                   c_char_p, ERR]),
    "tc_perm_free": (None, [PERM_P]),
    "tc_mtx_read": (c_int, [c_char_p, POINTER(TcMtxReadOpts), POINTER(CSR_P), c_void_p,
                            c_void_p, ERR]),
    "tc_h5_is_hdf5": (c_int, [c_char_p]),
    "tc_h5_read": (c_int, [c_char_p, c_int, POINTER(c_void_p), ERR]),
    "tc_tcf_free": (None, [c_void_p]),
    "tc_params_parse": (c_int, [POINTER(TcParams), c_char_p, ERR]),
    "tc_reorder_find": (c_void_p, [c_char_p]),
    "tc_reorder_count": (c_int, []),
    "tc_reorder_at": (c_void_p, [c_int]),
    "tc_reorder_name": (c_char_p, [c_void_p]),
    "tc_reorder_run": (c_int, [c_void_p, CSR_P, POINTER(TcParams), POINTER(PERM_P),
                               c_void_p, ERR]),
    "tc_report_new": (c_void_p, []),
    "tc_report_free": (None, [c_void_p]),
    "tc_report_count": (c_int, [c_void_p]),
    "tc_report_at": (POINTER(TcReportEntry), [c_void_p, c_int]),
    "tc_plan_opts_init": (None, [POINTER(TcPlanOpts)]),
    "tc_plan_create": (c_int, [CSR_P, POINTER(TcPlanOpts), POINTER(c_void_p), ERR]),
    "tc_plan_create_tcf": (c_int, [c_void_p, POINTER(TcPlanOpts), POINTER(c_void_p), ERR]),
    "tc_plan_execute": (c_int, [c_void_p, c_void_p, c_int64, c_void_p, c_int64, c_void_p, ERR]),
    "tc_plan_execute_host": (c_int, [c_void_p, c_void_p, c_int64, c_void_p, c_int64, ERR]),
    "tc_plan_sddmm": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, ERR]),
    "tc_plan_attention": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_void_p,
                                  ERR]),
    "tc_plan_execute_attention_host": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p,
                                               c_void_p, ERR]),
    "tc_plan_get_info": (None, [c_void_p, POINTER(TcPlanInfo)]),
    "tc_plan_report": (c_int, [c_void_p, c_void_p, ERR]),
    "tc_plan_save": (c_int, [c_void_p, c_char_p, ERR]),
    "tc_plan_free": (None, [c_void_p]),
    "tc_plan_bench": (c_int, [c_void_p, c_void_p, c_int64, c_int, c_int, ctypes.c_uint,
                              c_double, c_void_p, c_int64, c_void_p, ERR]),
    "tc_plan_verify": (c_int, [c_void_p, c_void_p, c_int64, c_void_p, c_int64,
                               POINTER(TcCompare), POINTER(c_int), ERR]),
}


def _candidates():
    """Where the library may be, in the order tried (see the package's
    documentation, LOADING)."""
    named = os.environ.get("TCSPARSE_LIBRARY")
    if named:
        return [named], "$TCSPARSE_LIBRARY"
    found = []
    try:
        from . import _installed  # written by `make install`
        found.append(os.path.join(_installed.LIBDIR, SONAME))
    except ImportError:
        pass
    found.append(SONAME)
    generic = ctypes.util.find_library("tcsparse")
    if generic:
        found.append(generic)
    return found, None


def _load():
    tried, why = _candidates()
    reasons = []
    for name in tried:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            reasons.append("%s: %s" % (name, e))
    how = ("the file that %s names could not be loaded" % why if why else
           "libtcsparse is not installed where the dynamic linker looks")
    raise ImportError("tcsparse: cannot load the C library libtcsparse (%s); tried %s. "
                      "Install tcsparse (make install), or set TCSPARSE_LIBRARY to the "
                      "path of libtcsparse.so.0 (a build tree's: _build/lib/.libs/"
                      "libtcsparse.so.0)" % (how, "; ".join(reasons)))


def _declare(lib, path):
    """Checks the version first (a library of another release may lack or
    change what the rest declares), then declares every function."""
    try:
        lib.tc_version.restype = c_char_p
        lib.tc_version.argtypes = []
    except AttributeError:
        raise ImportError("tcsparse: %s lacks tc_version(): it is older than the release "
                          "this package needs (%s)" % (path, API_VERSION))
    have = lib.tc_version().decode()
    if ".".join(have.split(".")[:2]) != API_VERSION:
        raise ImportError("tcsparse: %s is version %s; this package is written against %s.x "
                          "(its structures may differ)" % (path, have, API_VERSION))
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError("tcsparse: %s (version %s) lacks %s()" % (path, have, name))
        fn.restype = restype
        fn.argtypes = argtypes
    return have


lib, path = _load()
version = _declare(lib, path)
