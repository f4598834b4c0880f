#!/usr/bin/env python3
"""What a caller who states no range for X pays per product on the GPU:
each spec's plan is made with b_max_abs left at 0 (as tcsparse's Python
layer does by default), so that fp16 paths measure max|X| and scale X (in
the kernel or through copies, plan/execute.c) every product. One line of
tab-separated fields per spec:

  label, matrix, n, format, variant, X's scale, the plan
  (format/variant/precision/order), per_call_ms, plan_ms, safeguard_ms,
  b_scaled, plan_seconds, verify (pass or FAIL and rel_fro, "-" unchecked),
  host_ms

per_call_ms is the median of 5 rounds of 100 tc_plan_execute calls on one
CUDA X (after 20), timed by CUDA events; plan_ms and safeguard_ms are the
plan's own figures (tc_plan_info: its time with its safeguards, and their
share; host_ms the host's time to queue a product, 0 from a library
older than that field). X is uniform in [-scale, scale), seeded by n.
Plans are made at effort measure with no plan cache.

  python3 bench/python-safeguards.py LABEL PATH:N:FORMAT:VARIANT:SCALE:VERIFY...

FORMAT and VARIANT "-" leave them to the planner; VERIFY 1 checks one
product against float64 (tc_plan_verify), 0 does not. The library is
$TCSPARSE_LIBRARY's (and $TC_GPU_LIBRARY's): an A/B runs this once per
library. bench/results/python-safeguards-7d9a01d.tsv has such runs.
"""
import statistics
import sys
import time

import torch

import tcsparse

ROUNDS, CALLS, WARMUP = 5, 100, 20


def per_call_ms(plan, x, n):
    """The median over ROUNDS of the mean time of CALLS products."""
    ptr = x.data_ptr()
    for _ in range(WARMUP):
        plan.execute_cuda(x, ptr, n)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(ROUNDS):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(CALLS):
            plan.execute_cuda(x, ptr, n)
        end.record()
        torch.cuda.synchronize()
        rounds.append(start.elapsed_time(end) / CALLS)
    return statistics.median(rounds)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    label = sys.argv[1]
    matrices = {}
    for spec in sys.argv[2:]:
        path, n, fmt, variant, scale, check = spec.split(":")
        n, scale = int(n), float(scale)
        if path not in matrices:
            matrices[path] = tcsparse.Matrix(path)
        a = matrices[path]
        options = dict(device="gpu", gpu=0, effort="measure", calls=1000, cache_dir="")
        if fmt != "-":
            options["format"] = fmt
        if variant != "-":
            options["variant"] = variant
        t0 = time.time()
        plan = a.plan(n, **options)
        plan_s = time.time() - t0
        g = torch.Generator().manual_seed(n)
        x = ((torch.rand(a.shape[1], n, generator=g) * 2 - 1) * scale).cuda()
        ms = per_call_ms(plan, x, n)
        verdict = "-"
        if check == "1":
            y = plan.execute_cuda(x, x.data_ptr(), n).cpu().numpy()
            passed, rel = plan.verify(x.cpu().numpy(), y)
            verdict = "%s:%.2e" % ("pass" if passed else "FAIL", rel)
        i = plan.info
        print("\t".join(str(v) for v in (
            label, path.split("/")[-1], n, fmt, variant, scale,
            "%s/%s/%s/%s" % (i.format, i.variant, i.precision, i.order),
            "%.5f" % ms, "%.5f" % i.ms, "%.5f" % i.safeguard_ms, int(i.b_scaled),
            "%.1f" % plan_s, verdict, "%.5f" % i.host_ms)), flush=True)
        plan.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
