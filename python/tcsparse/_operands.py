"""Dense operands (NumPy arrays and PyTorch tensors) as the C API takes
them: float32, row-major, each row contiguous, with a leading dimension.

Policy (the package's documentation, DTYPES AND LAYOUT):
- float32 in, float32 out. Any other dtype is refused with TypeError
  unless the caller passes convert=True, which converts a copy.
- An operand whose rows are each contiguous (a C-contiguous array, a slice
  of rows, a slice of leading columns) is passed as it is, zero-copy, with
  its row stride as the leading dimension. Any other layout (a transpose, a
  column-strided view, negative strides), and a CUDA tensor that does not
  start on a 16-byte boundary, is copied into a packed array first: a copy
  the caller can avoid by passing contiguous rows.
- A 1-D operand is one column (n = 1) and gives a 1-D result.

PyTorch is never imported here: a tensor is recognised by its class's
module, so NumPy users do not pay for importing torch.
"""

import sys

import numpy as np


def is_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def device_index(x):
    """The GPU a CUDA tensor is on; None for host memory."""
    if is_tensor(x):
        device = x.device
        return device.index if device.type == "cuda" else None
    return None


class Operand:
    """One prepared operand: .value keeps the memory alive; .ptr, .ld (in
    elements), .rows, .cols; .cuda is None for host memory, else the GPU
    index; .squeeze is True when the caller gave a 1-D operand."""

    __slots__ = ("value", "ptr", "ld", "rows", "cols", "cuda", "squeeze")


def _dtype_refusal(what, dtype):
    return TypeError("%s is %s; tcsparse multiplies float32 (float32 in, float32 out): pass "
                     "convert=True to multiply a float32 copy" % (what, dtype))


def _rows_contiguous(stride0, stride1, rows, cols):
    """Whether a row-major layout with these strides (in elements) is one the
    C API takes: unit stride along a row, rows at least cols apart."""
    return (cols <= 1 or stride1 == 1) and (rows <= 1 or stride0 >= max(cols, 1))


def _numpy(x, what, convert, packed):
    if x.dtype != np.float32:
        if not convert or x.dtype.kind not in "fiub":
            raise _dtype_refusal(what, x.dtype)
        x = x.astype(np.float32)
    rows, cols = x.shape
    s0, s1 = (s // 4 if s % 4 == 0 else -1 for s in x.strides)
    if (not _rows_contiguous(s0, s1, rows, cols) or not x.flags.aligned
            or (packed and rows > 1 and s0 != cols)):
        x = np.ascontiguousarray(x)
        s0 = cols
    op = Operand()
    op.value, op.ptr, op.cuda = x, x.ctypes.data, None
    op.ld = max(s0, cols, 1) if rows > 1 else max(cols, 1)
    return op


def _torch(x, what, convert, packed):
    torch = sys.modules["torch"]
    if x.layout != torch.strided:
        raise TypeError("%s is a sparse tensor (%s); a dense one was expected" % (what, x.layout))
    if x.dtype != torch.float32:
        if not convert or x.dtype.is_complex or x.dtype == torch.bool:
            raise _dtype_refusal(what, x.dtype)
        x = x.to(torch.float32)
    device = x.device
    if device.type not in ("cpu", "cuda"):
        raise ValueError("%s is on %s; tcsparse multiplies on the CPU or a CUDA GPU"
                         % (what, device))
    rows, cols = x.shape
    s0, s1 = x.stride()
    # a GPU kernel may read B's rows in 16-byte pieces when n % 4 == 0,
    # which needs a 16-byte aligned start (any allocation's is; a view
    # starting mid-row may not be)
    ptr = x.data_ptr()
    misaligned = device.type == "cuda" and ptr % 16 != 0
    if (misaligned or not _rows_contiguous(s0, s1, rows, cols)
            or (packed and rows > 1 and s0 != cols)):
        x = x.clone(memory_format=torch.contiguous_format)
        s0, ptr = cols, x.data_ptr()
    op = Operand()
    op.value, op.ptr = x, ptr
    op.cuda = device.index if device.type == "cuda" else None
    op.ld = max(s0, cols, 1) if rows > 1 else max(cols, 1)
    return op


def prepare(x, what, rows, convert=False, packed=False):
    """x as an Operand of `rows` rows, or TypeError / ValueError naming what
    is wrong with it (`what` names it in the message: "X", "Q", ...).
    packed: the call takes no leading dimension, so padded rows are copied
    too."""
    tensor = is_tensor(x)
    if tensor:
        shape = tuple(x.shape)
    elif isinstance(x, np.ndarray):
        shape = x.shape
    else:
        raise TypeError("%s is a %s; a NumPy array or a PyTorch tensor was expected"
                        % (what, type(x).__name__))
    if len(shape) not in (1, 2):
        raise ValueError("%s has %d dimensions; 1 or 2 were expected" % (what, len(shape)))
    squeeze = len(shape) == 1
    if squeeze:
        x = x.reshape(shape[0], 1)
        shape = (shape[0], 1)
    if shape[0] != rows:
        raise ValueError("%s has %d rows; %d were expected" % (what, shape[0], rows))
    if shape[1] < 1:
        raise ValueError("%s has no columns" % what)
    op = (_torch if tensor else _numpy)(x, what, convert, packed)
    op.rows, op.cols, op.squeeze = shape[0], shape[1], squeeze
    return op


def empty_like(op, rows, cols):
    """A packed float32 result of rows x cols beside op (the same kind of
    array, on the same device), as an Operand."""
    if not isinstance(op.value, np.ndarray):
        # new_empty keeps the operand's device and dtype (float32: prepare
        # made it so) without building a torch.device on every product
        out = op.value.new_empty((rows, cols))
        ptr = out.data_ptr()
    else:
        out = np.empty((rows, cols), dtype=np.float32)
        ptr = out.ctypes.data
    res = Operand()
    res.value, res.ptr, res.ld, res.rows, res.cols = out, ptr, max(cols, 1), rows, cols
    res.cuda, res.squeeze = op.cuda, op.squeeze
    return res


def result(res):
    """What the caller gets back: 1-D for a 1-D operand."""
    return res.value.reshape(res.rows) if res.squeeze else res.value
