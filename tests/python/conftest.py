"""Fixtures of the Python package's tests (tests/python.sh runs them with
TCSPARSE_LIBRARY naming the build tree's library and PYTHONPATH the source
tree's python/; by hand, from the repository root:

  TCSPARSE_LIBRARY=$PWD/_build/lib/.libs/libtcsparse.so.0 PYTHONPATH=python \
      python3 -m pytest tests/python
"""

import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
BUILD = os.environ.get("top_builddir", os.path.join(ROOT, "_build"))


def shared_data():
    """The shared collection of real matrices ($TC_SHARED_DATA, as the other
    tests find it), or the repository's copies of some of them."""
    d = os.environ.get("TC_SHARED_DATA") or os.path.join(ROOT, "..", "shared", "data")
    return d if os.path.isfile(os.path.join(d, "MANIFEST.tsv")) else DATA


@pytest.fixture(autouse=True)
def plan_cache(tmp_path, monkeypatch):
    """Timed plans go to a scratch cache, never the user's."""
    monkeypatch.setenv("TC_PLAN_CACHE", str(tmp_path / "plan-cache"))


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


@pytest.fixture
def tool():
    """The path of a built tool (tcconv, tcreorder, ...): the build tree's,
    or a bundle's bin/."""
    def find(name):
        for d in (os.path.join(BUILD, "tools"), os.path.join(BUILD, "bin")):
            if os.access(os.path.join(d, name), os.X_OK):
                return os.path.join(d, name)
        pytest.fail("no %s in %s/tools or %s/bin" % (name, BUILD, BUILD))
    return find


@pytest.fixture
def run(tool):
    def run_tool(name, *args):
        subprocess.run([tool(name)] + [str(a) for a in args], check=True,
                       stdout=subprocess.DEVNULL)
    return run_tool


def random_sparse(rng, rows, cols, density, pattern=False):
    """Random triplets (duplicates possible: the library sums them)."""
    n = max(1, int(rows * cols * density))
    r = rng.integers(0, rows, n)
    c = rng.integers(0, cols, n)
    v = None if pattern else rng.uniform(-1, 1, n)
    return r, c, v


def assert_close(got, want, tolerance):
    """The plan's check: relative Frobenius error within its tolerance."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.all(np.isfinite(got))
    err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300)
    assert err <= tolerance, "relative error %g over the tolerance %g" % (err, tolerance)
