"""tcsparse: sparse matrices on GPU tensor cores, from Python.

The package wraps libtcsparse's public C API (tcsparse.h, tcsparse_plan.h)
through ctypes: Matrix reads and holds a sparse matrix, its plans multiply
it by NumPy arrays and PyTorch tensors (on the CPU or, zero-copy on
PyTorch's current stream, on a CUDA GPU). tcsparse.torch adds autograd and
a GCN layer. README.md and python/README.md document it: loading the
library ($TCSPARSE_LIBRARY), the dtype and layout policy, plans, errors.
"""

from ._errors import Error
from ._lib import path as library_path, version as library_version
from .graph import gcn_normalize
from .matrix import Matrix
from .plan import Plan, PlanInfo

__version__ = "0.1.0"
__all__ = ["Error", "Matrix", "gcn_normalize", "Plan", "PlanInfo", "library_path", "library_version"]
