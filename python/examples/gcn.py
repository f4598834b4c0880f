#!/usr/bin/env python3
"""Train a two-layer GCN on a graph, once aggregating with torch.sparse.mm
and once with tcsparse, from the same seeded weights, random features and
random labels; print each epoch's time and loss, and check that the losses
agree within the plans' precision (the larger tolerance of the plans of A
and of its transpose: 1e-5 relative for fp32, tf32 and fp16 per DESIGN.md).

  python3 python/examples/gcn.py [--device cpu|cuda] [--epochs N] GRAPH.mtx.gz

Exit status: 0 when the losses agree, 1 when they do not, 2 for bad usage.
--json prints the summary as one JSON object (bench/python.sh reads it).
"""

import argparse
import json
import statistics
import sys
import time
import warnings

import torch

import tcsparse
import tcsparse.torch as tt


class TorchGCNConv(torch.nn.Module):
    """The same layer as tcsparse.torch.GCNConv, aggregating with
    torch.sparse.mm on a CSR tensor (what PyTorch Geometric users call)."""

    def __init__(self, adjacency, in_features, out_features):
        super().__init__()
        self.adjacency = adjacency
        self.linear = torch.nn.Linear(in_features, out_features, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return torch.sparse.mm(self.adjacency, self.linear(x)) + self.bias


def two_layers(conv, adjacency, args):
    return torch.nn.Sequential(conv(adjacency, args.features, args.hidden), torch.nn.ReLU(),
                               conv(adjacency, args.hidden, args.classes))


def torch_csr(matrix, device):
    warnings.filterwarnings("ignore", "Sparse CSR tensor support is in beta")
    indptr, indices, data = matrix.csr_arrays()
    return torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices).long(),
                                   torch.from_numpy(data).float(), matrix.shape, device=device)


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def train(model, x, labels, args, device):
    """(losses, epoch times in ms) of args.epochs full-batch SGD epochs."""
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    losses, times = [], []
    for _ in range(args.epochs):
        sync(device)
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        sync(device)
        times.append((time.perf_counter() - t0) * 1e3)
        losses.append(loss.item())
    return losses, times


def parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("graph", help="a .mtx, .mtx.gz or .tcf.h5 file (a square matrix)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--classes", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--effort", default="measure",
                   help="tcsparse planning effort (estimate, measure, patient, exhaustive)")
    p.add_argument("--accuracy", default=None, help="fp32, tf32 or fp16: the least accepted")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def run(args, graph):
    """Both trainings on graph (a square tcsparse.Matrix): the summary."""
    device = torch.device(args.device)
    adjacency = tcsparse.gcn_normalize(graph, weighted=False, effort=args.effort,
                                       accuracy=args.accuracy, calls=10 * args.epochs)
    nodes = graph.shape[0]
    gen = torch.Generator().manual_seed(args.seed)
    x = torch.randn(nodes, args.features, generator=gen).to(device)
    labels = torch.randint(0, args.classes, (nodes,), generator=gen).to(device)
    torch.manual_seed(args.seed)
    reference = two_layers(TorchGCNConv, torch_csr(adjacency, device), args).to(device)
    ours = two_layers(tt.GCNConv, adjacency, args).to(device)
    ours.load_state_dict(reference.state_dict())

    torch_losses, torch_ms = train(reference, x, labels, args, device)
    our_losses, our_ms = train(ours, x, labels, args, device)

    options = {"device": "gpu", "gpu": device.index or 0} if device.type == "cuda" \
        else {"device": "cpu"}
    plans = [m.plan(n, **options) for m in (adjacency, adjacency.T)
             for n in (args.hidden, args.classes)]
    tolerance = max(plan.info.tolerance for plan in plans)
    worst = max(abs(a - b) / max(abs(a), 1e-30) for a, b in zip(torch_losses, our_losses))
    return {
        "graph": args.graph, "nodes": nodes, "nnz": adjacency.nnz, "device": str(device),
        "epochs": args.epochs, "n": [args.hidden, args.classes],
        "plans": ["%s/%s/%s/%s order" % (pl.info.format, pl.info.variant, pl.info.precision,
                                         pl.info.order) for pl in plans],
        "epoch_ms_torch": statistics.median(torch_ms[1:]),
        "epoch_ms_tcsparse": statistics.median(our_ms[1:]),
        "first_epoch_ms_tcsparse": our_ms[0], "loss_rel_diff": worst,
        "tolerance": tolerance, "agree": worst <= tolerance,
        "losses_torch": torch_losses, "losses_tcsparse": our_losses,
        "epochs_ms_torch": torch_ms, "epochs_ms_tcsparse": our_ms,
    }


def main():
    p = parser()
    args = p.parse_args()
    if args.epochs < 2:
        p.error("--epochs: at least 2 (the first one includes planning)")
    try:
        graph = tcsparse.Matrix(args.graph)
    except tcsparse.Error as e:
        print("gcn.py: %s" % e, file=sys.stderr)
        return 1
    if graph.shape[0] != graph.shape[1]:
        print("gcn.py: %s: a square adjacency matrix was expected, not %dx%d"
              % ((args.graph,) + graph.shape), file=sys.stderr)
        return 1
    summary = run(args, graph)
    worst, tolerance = summary["loss_rel_diff"], summary["tolerance"]
    if args.json:
        print(json.dumps(summary))
    else:
        rows = zip(summary["losses_torch"], summary["epochs_ms_torch"],
                   summary["losses_tcsparse"], summary["epochs_ms_tcsparse"])
        for i, (tl, tm, ol, om) in enumerate(rows, 1):
            print("epoch %2d  torch.sparse.mm %9.3f ms loss %.7f   tcsparse %9.3f ms loss %.7f"
                  % (i, tm, tl, om, ol))
        print("median epoch (after the first): torch.sparse.mm %.3f ms, tcsparse %.3f ms"
              % (summary["epoch_ms_torch"], summary["epoch_ms_tcsparse"]))
        print("plans: %s" % ", ".join(summary["plans"]))
        print("losses %s: largest relative difference %.2e, tolerance %.0e"
              % ("agree" if summary["agree"] else "DISAGREE", worst, tolerance))
    return 0 if summary["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
