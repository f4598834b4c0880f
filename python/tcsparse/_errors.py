"""The library's tc_status and message as a Python exception."""

import ctypes

from ._lib import TcError, lib


class Error(RuntimeError):
    """A call of libtcsparse failed: str(e) is the library's message (it
    names the file, line or argument at fault), e.status the tc_status
    number and e.status_name its name ("I/O error", "no CUDA device", ...)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.status_name = lib.tc_status_name(status).decode()


def check(status, err):
    """Raises Error for a failed call (status != TC_OK) with err's message."""
    if status != 0:
        raise Error(status, err.msg.decode(errors="replace"))


def call(fn, *args):
    """fn(*args, &err), raising Error when it fails."""
    err = TcError()
    check(fn(*args, ctypes.byref(err)), err)
