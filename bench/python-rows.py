#!/usr/bin/env python3
"""bench/python.sh's rows for one matrix, in one process: for each n, a
two-layer GCN epoch through torch.sparse.mm and through tcsparse
(python/examples/gcn.py's run) and the multiply-only figures
(bench/python-spmm.py's measure). One process per matrix, not four per
row: importing PyTorch and starting CUDA took most of a row's 20 seconds.
Each row's command column gives the two standalone commands that measure
the same figures.

  python3 bench/python-rows.py --device cuda|cpu --commit C --date D
                               [-n "32 128"] [--epochs E] [--iters I] MATRIX

Prints the TSV rows (no header); exit status 1 when a product fails its
check or the losses disagree.
"""

import argparse
import importlib.util
import os
import sys

import tcsparse

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def figure(v):
    if v is None:
        return "-"
    return "%.6g" % v if isinstance(v, float) else str(v)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("matrix")
    p.add_argument("--device", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--host", default="-", help="the device column for a CPU run")
    p.add_argument("-n", default="32 128")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--iters", type=int, default=200)
    args = p.parse_args()
    if args.epochs < 2:
        p.error("--epochs: at least 2 (the first one includes planning)")
    gcn = load("gcn", "python/examples/gcn.py")
    spmm = load("python_spmm", "bench/python-spmm.py")
    name = os.path.basename(args.matrix)
    short = name
    for suffix in (".gz", ".mtx", ".tcf.h5"):
        short = short[:-len(suffix)] if short.endswith(suffix) else short
    try:
        # one read for both: python-spmm.py's plan options; gcn.py's
        # normalised copy takes its own (tcsparse.gcn_normalize)
        graph = tcsparse.Matrix(args.matrix, effort="measure", calls=args.iters)
    except tcsparse.Error as e:
        print(e, file=sys.stderr)
        return 1
    square = graph.shape[0] == graph.shape[1]
    status = 0
    for n in (int(v) for v in args.n.split()):
        gcn_cmd = ["--json", "--device", args.device, "--epochs", str(args.epochs),
                   "--hidden", str(n)]
        mm_cmd = ["--device", args.device, "-n", str(n), "--iters", str(args.iters),
                  "--warmup", str(args.iters // 10 + 1)]
        g = gcn.run(gcn.parser().parse_args(gcn_cmd + [args.matrix]), graph) if square else {}
        m = spmm.measure(spmm.parser().parse_args(mm_cmd + [args.matrix]), graph)
        if (square and not g["agree"]) or not m["verify"]:
            status = 1
        device = m["device"] if args.device != "cpu" else args.host
        command = "python/examples/gcn.py %s %s && bench/python-spmm.py %s %s" % (
            " ".join(gcn_cmd), name, " ".join(mm_cmd), name)
        row = [device, args.date, args.commit, command, short, n]
        row += [g.get(k) for k in ("epoch_ms_torch", "epoch_ms_tcsparse", "loss_rel_diff",
                                   "tolerance", "agree")]
        row += [m[k] for k in ("torch_ms", "py_ms", "raw_ms", "c_bench_ms", "overhead_us",
                               "plan")]
        print("\t".join(figure(v) for v in row), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
