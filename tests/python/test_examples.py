"""What the documentation shows runs: README.md's Python example, the GCN
example script and bench/python.sh, on the CPU with small matrices (the
lead runs them on the GPU: python/README.md, ON A GPU)."""

import csv
import json
import os
import subprocess
import sys

from conftest import DATA, ROOT

CORA = os.path.join(DATA, "cora.mtx.gz")


def env():
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    e["PYTHON"] = sys.executable
    return e


def readme_example(label):
    """The indented block of README.md whose first line is "# example: LABEL"."""
    lines = open(os.path.join(ROOT, "README.md")).read().split("\n")
    start = lines.index("    # example: %s" % label)
    block = []
    for line in lines[start + 1:]:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block)


def test_readme_example(tmp_path):
    code = readme_example("python")
    assert "tcsparse.Matrix" in code
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env(), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "PlanInfo(spmm n=16 on cpu" in r.stdout
    assert "(2708, 16) torch.Size([2708, 4]) torch.Size([4, 16])" in r.stdout


def test_python_readme_example(tmp_path):
    """python/README.md's example, the same way."""
    text = open(os.path.join(ROOT, "python", "README.md")).read()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env(), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "agree" in r.stdout


def test_gcn_example_on_the_cpu():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "gcn.py"),
                        "--device", "cpu", "--epochs", "3", "--json", CORA], env=env(),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["agree"] and summary["tolerance"] == 1e-5
    assert len(summary["losses_torch"]) == 3 and summary["epoch_ms_tcsparse"] > 0
    text = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "gcn.py"),
                           "--device", "cpu", "--epochs", "2", CORA], env=env(),
                          capture_output=True, text=True)
    assert text.returncode == 0 and "losses agree" in text.stdout


def test_gcn_example_refuses():
    script = os.path.join(ROOT, "python", "examples", "gcn.py")
    bad = os.path.join(DATA, "mtx", "bad-real.mtx")
    r = subprocess.run([sys.executable, script, "--device", "cpu", bad], env=env(),
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == "gcn.py: %s:3: expected a real value, found '1.5x'\n" % bad
    r = subprocess.run([sys.executable, script, "--epochs", "1", CORA], env=env(),
                       capture_output=True, text=True)
    assert r.returncode == 2 and "at least 2" in r.stderr


def bench_python_sh(out, *matrices):
    """bench/python.sh on the CPU at n = 5, 2 epochs and 5 products: (the
    finished process, the rows of OUT)."""
    r = subprocess.run(["sh", os.path.join(ROOT, "bench", "python.sh"), "-o", str(out), "-n",
                        "5", "-d", "cpu", "-e", "2", "-i", "5"] + list(matrices), env=env(),
                       capture_output=True, text=True)
    return r, list(csv.DictReader(open(out), delimiter="\t")) if out.exists() else []


def test_bench_python_sh_on_the_cpu(tmp_path):
    rect = os.path.join(DATA, "mtx", "array-real-general.mtx")
    r, rows = bench_python_sh(tmp_path / "python.tsv", CORA, rect)
    assert r.returncode == 0, r.stderr
    assert [row["matrix"] for row in rows] == ["cora", "array-real-general"]
    cora, small = rows
    assert cora["loss_agree"] == "True" and cora["n"] == "5"
    for key in ("epoch_ms_torch", "epoch_ms_tcsparse", "mm_ms_torch", "mm_ms_tcsparse_python",
                "mm_ms_tcsparse_raw", "mm_ms_tc_plan_bench", "python_overhead_us"):
        float(cora[key])
    assert cora["commit"] and cora["date"] and "gcn.py" in cora["command"]
    assert small["epoch_ms_torch"] == "-"     # 2x3: no graph to train on
    float(small["mm_ms_tcsparse_python"])


def test_bench_python_sh_names_a_bad_matrix(tmp_path):
    bad = os.path.join(DATA, "mtx", "bad-real.mtx")
    r, rows = bench_python_sh(tmp_path / "python.tsv", bad, CORA)
    assert r.returncode == 1
    assert "python.sh: bad-real.mtx: %s:3: expected a real value, found '1.5x'\n" % bad \
        in r.stderr, r.stderr
    assert [row["matrix"] for row in rows] == ["cora"]
