"""Loading libtcsparse: where from, what is refused, and that the ctypes
structures are the C headers' (sizes and offsets from a compiled program)."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

import tcsparse
from tcsparse import _lib
from conftest import ROOT

LIBRARY = os.environ.get("TCSPARSE_LIBRARY", "")


def python(code, **env):
    """Runs code in a fresh Python with the package on its path and env's
    variables (None: unset); (exit status, stderr)."""
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    for k, v in env.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)
    return r.returncode, r.stderr


def cc(tmp_path, source, *args):
    if not shutil.which("cc"):     # setup.sh installs gcc; a GPU machine may lack it
        pytest.skip("no C compiler (cc)")
    (tmp_path / "p.c").write_text(source)
    out = tmp_path / ("lib.so" if "-shared" in args else "p")
    subprocess.run(["cc", "-std=c11", "-I", os.path.join(ROOT, "lib"), "-I",
                    os.path.join(ROOT, "plan"), str(tmp_path / "p.c"), "-o", str(out)] +
                   list(args), check=True)
    return str(out)


def test_version_and_path():
    assert tcsparse.library_version == tcsparse.__version__
    assert os.path.exists(tcsparse.library_path) or tcsparse.library_path == _lib.SONAME


def test_soname_on_the_linker_path():
    rc, err = python("import tcsparse; print(tcsparse.library_path)", TCSPARSE_LIBRARY=None,
                     LD_LIBRARY_PATH=os.path.dirname(LIBRARY))
    assert rc == 0, err


def test_missing_library_is_an_import_error(tmp_path):
    rc, err = python("import tcsparse", TCSPARSE_LIBRARY=str(tmp_path / "none.so"))
    assert rc != 0
    assert "ImportError: tcsparse: cannot load the C library libtcsparse" in err
    assert "none.so" in err and "TCSPARSE_LIBRARY" in err


@pytest.mark.parametrize("version,message", [
    ("9.9.0", "is version 9.9.0; this package is written against 0.1.x"),
    ("0.1.0", "(version 0.1.0) lacks tc_status_name()")])
def test_other_library_refused(tmp_path, version, message):
    fake = cc(tmp_path, 'const char *tc_version(void) { return "%s"; }\n' % version,
              "-shared", "-fPIC")
    rc, err = python("import tcsparse", TCSPARSE_LIBRARY=fake)
    assert rc != 0 and message in err


STRUCTS = {
    "tc_error": _lib.TcError, "tc_csr": _lib.TcCsr, "tc_perm": _lib.TcPerm,
    "tc_plan_opts": _lib.TcPlanOpts, "tc_plan_info": _lib.TcPlanInfo,
    "tc_compare": _lib.TcCompare, "tc_report_entry": _lib.TcReportEntry,
    "tc_mtx_read_opts": _lib.TcMtxReadOpts, "tc_params": _lib.TcParams,
    "tc_progress": _lib.TcProgress,
}


def test_structures_match_the_headers(tmp_path):
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "tcsparse_plan.h"',
             "int main(void) {"]
    for cname, py in STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
        for field, _ in py._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                         % (cname, field, cname, field))
    for field, _ in _lib.TcTcfHead._fields_:
        lines.append('printf("tc_tcf.%s %%zu\\n", offsetof(tc_tcf, %s));' % (field, field))
    lines.append("return 0; }")
    prog = cc(tmp_path, "\n".join(lines))
    c = dict(line.rsplit(" ", 1) for line in subprocess.check_output([prog], text=True).split("\n")
             if line)
    py = {}
    for cname, s in list(STRUCTS.items()) + [("tc_tcf", _lib.TcTcfHead)]:
        if cname != "tc_tcf":
            py[cname] = str(ctypes.sizeof(s))
        for field, _ in s._fields_:
            py["%s.%s" % (cname, field)] = str(getattr(s, field).offset)
    assert py == c
