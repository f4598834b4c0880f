#!/usr/bin/env python3
"""Multiply-only timings of one matrix and n, for bench/python.sh: what a
PyTorch user pays per Y = A X through

  torch_ms      torch.sparse.mm on a float32 CSR tensor;
  py_ms         tcsparse's `A @ X` (plan looked up, X checked, Y allocated,
                tc_plan_execute called through ctypes);
  raw_ms        tc_plan_execute called straight through ctypes on the same
                plan and buffers (no Python layer);
  c_bench_ms    the same plan timed by the library itself (tc_plan_bench,
                tcmul --bench's protocol: the whole product in the caller's
                order on a GPU, over operand sets rotated through L2);

each loop of `iters` calls after `warmup`, synchronised once at the end, so
a figure is the per-call cost of a stream of products; py_ms and raw_ms
are medians of ROUNDS alternating loops. overhead_us, what the Python layer
adds to each call, is the fastest round of A @ X less the fastest round of
the raw call (timeit's convention: a slower round is other work on the
host, not the layer's cost). Prints one JSON object.

  python3 bench/python-spmm.py [--device cpu|cuda] [-n N] MATRIX
"""

import argparse
import ctypes
import json
import statistics
import sys
import time
import warnings

import torch

import tcsparse
from tcsparse import _operands
from tcsparse._lib import TcError, lib


ROUNDS = 9


def per_call_ms(fn, warmup, iters, device):
    for _ in range(warmup):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return (time.perf_counter() - t0) * 1e3 / iters


def parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("matrix")
    p.add_argument("-n", type=int, default=32)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--effort", default="measure")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--iters", type=int, default=200)
    return p


def measure(args, a):
    """The figures for A (a tcsparse.Matrix planned with effort=args.effort
    and calls=args.iters) at args.n, as a dict."""
    device = torch.device(args.device)
    x = torch.randn(a.shape[1], args.n, generator=torch.Generator().manual_seed(args.n)).to(device)
    options = {"device": "gpu", "gpu": x.device.index} if device.type == "cuda" else \
        {"device": "cpu"}
    plan = a.plan(args.n, **options)       # the plan `a @ x` uses

    warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta")
    indptr, indices, data = a.csr_arrays()
    csr = torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices).long(),
                                  torch.from_numpy(data).float(), a.shape, device=device)
    torch_ms = per_call_ms(lambda: torch.sparse.mm(csr, x), args.warmup, args.iters, device)

    b = _operands.prepare(x, "X", a.shape[1])
    c = _operands.empty_like(b, a.shape[0], args.n)
    err = TcError()
    handle = plan._live()
    if device.type == "cuda":
        stream = ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)
        raw = lambda: lib.tc_plan_execute(handle, b.ptr, b.ld, c.ptr, c.ld, stream,  # noqa: E731
                                          ctypes.byref(err))
    else:
        raw = lambda: lib.tc_plan_execute_host(handle, b.ptr, b.ld, c.ptr, c.ld,  # noqa: E731
                                               ctypes.byref(err))
    # A @ X and the raw call in alternating rounds: a difference of
    # microseconds between two loops timed once apart moved by 5-10 us from
    # run to run, and the medians of 5 rounds by up to 8 (bcsstk13 n = 32 on
    # an H100 host: 6.3 then 14.7, torch.sparse.mm's time 33 then 53 us);
    # bench/NOTES.md, Python
    rounds = [(per_call_ms(lambda: a @ x, args.warmup, args.iters, device),
               per_call_ms(raw, args.warmup, args.iters, device)) for _ in range(ROUNDS)]
    py_ms = statistics.median(r[0] for r in rounds)
    raw_ms = statistics.median(r[1] for r in rounds)
    overhead_us = (min(r[0] for r in rounds) - min(r[1] for r in rounds)) * 1e3
    if err.status:
        raise tcsparse.Error(err.status, err.msg.decode())

    host_x = x.cpu().numpy()
    bench = plan.bench(host_x, warmup=args.warmup, iters=args.iters)["bench"]
    y = (a @ x).cpu().numpy()
    passed, rel = plan.verify(host_x, y)
    info = plan.info
    return {
        "matrix": args.matrix, "n": args.n, "device": info.device_name,
        "plan": "%s/%s/%s/%s order" % (info.format, info.variant, info.precision, info.order),
        "torch_ms": torch_ms, "py_ms": py_ms, "raw_ms": raw_ms,
        "c_bench_ms": bench.get("plan_ms", bench["median_ms"]),
        "overhead_us": overhead_us, "rel_fro": rel, "verify": passed}


def main():
    args = parser().parse_args()
    a = tcsparse.Matrix(args.matrix, effort=args.effort, calls=args.iters)
    figures = measure(args, a)
    print(json.dumps(figures))
    return 0 if figures["verify"] else 1


if __name__ == "__main__":
    sys.exit(main())
