#!/usr/bin/python3
"""model-fit.py: fits the planner's model (plan/model.c) and measures it.

The model predicts, per tensor-core format, the speedup of its GPU kernel
over cuSPARSE from figures of the matrix in a row order (the "features.ORDER"
sections of `tcstat --advise --tsv`):

    ln speedup = c . (1, ln nnz_per_block, blocks_per_window_cv, row_length_cv,
                      synergy_alpha, log2 n, log10 nnz, ln nnz/rows)

(the logs of counts taken at 1 at least), a ridge least-squares fit per
format on the measured rows. Measurements are read from

  * the per-format benchmark files (bench/results/rstile.tsv, hrpb.tsv,
    brp.tsv, bcsr.tsv, rowsplit.tsv: columns matrix, [order,] n, median_ms,
    cusparse_ms; a file with a seg column, rowsplit's, only its rows of the
    format's own parameters, seg and order "default", which is what the
    planner builds: there order is the format's row order, not a
    reordering of the matrix), or
  * a long file (bench/results/auto.tsv or any file with columns matrix, n,
    order, format, ms, cusparse_ms; format csr is cuSPARSE itself, and a
    format with parameters, FORMAT:PARAMS, a plan setting, is left out),

keeping only the matrices of the shared collection (MANIFEST.tsv). Order
"original" is the given order. The features of each (matrix, order) are
computed with the tools (tcreorder -m ORDER, then tcstat --advise on the
result) and kept in bench/results/model-features.tsv, so a refit does not
reorder again.

Evaluation, on matrices not fitted on (--evaluate, the default output):

  * split: the matrices sorted by nonzeros, alternately into half A (fit)
    and half B (measured), so both halves span the sizes;
  * leave one matrix out: each matrix measured by a model fitted on the 31
    others.

For each (matrix, n) measured, the candidates are those measured in the
given order and in the reorderings the model tries, plus cuSPARSE at 1:
hit rate (the model's first choice is the measured fastest), cost of its
mistakes (measured time of its first choice over the best's: geometric
mean and worst), how often the best is in its top 2 and top 3, and the
measured speedup over cuSPARSE of what ESTIMATE would run (its first
choice in the given order, the only one ESTIMATE ranks, where predicted
at least plan/model.h's margin, else cuSPARSE).

--timed-since HEADER lists what a timed plan would stop timing if this
fit replaced the one in HEADER (an earlier plan/model_coef.h): each
(matrix, class of orders, n), the classes being the given order and the
reorderings together, where a format among HEADER's first three is not
among this fit's first TOP_TIMED (plan/gpu.c), over every matrix of the
features cache. Where it lists some, a refit costs MEASURE and PATIENT
candidates they timed before.

--header FILE writes plan/model_coef.h: the coefficients fitted on every
matrix, the priors (PRIORS below) of formats not measured yet, the
reorderings worth trying (those that are the measured best in
at least --order-share of the (matrix, n) measured), and the commit and
data files they came from.

Needs python3 and numpy only. Reproduce NOTES.md's table:

    bench/model-fit.py

(/usr/bin/python3: Debian's, with python3-numpy.)
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
FORMAT_FILES = ["rstile", "hrpb", "brp", "bcsr", "rowsplit"]
# Formats the planner should rank before any measurement of them can be
# fitted: format -> (coefficients, why). header() writes them to
# tc_model_priors, for as long as the fit has no row of their own.
# rowsplit: a CUDA-core kernel that gathers the rows of B as cuSPARSE's
# CSR SpMM does. Where no measurement of it on the shared matrices is
# given (bench/rowsplit.sh's, in rowsplit.tsv, or auto.sh's), it is
# predicted at parity (ln 1 = 0): the timed efforts try it where every
# tensor-core format is predicted to lose, and the estimate, which needs
# TC_MODEL_ESTIMATE_MARGIN, never picks it unmeasured.
PRIORS = {
    "rowsplit": ([0.0] * 8, "parity with cuSPARSE: a CUDA-core path, not fitted yet"),
}
FEATURES = ["rows", "nnz", "blocks", "nnz_per_block", "blocks_per_window_cv",
            "row_length_cv", "synergy_alpha"]


def die(msg):
    sys.exit("model-fit.py: " + msg)


def given(order):
    return "given" if order in ("original", "given") else order


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def load_measurements(paths, names):
    """(matrix, n, order, format) -> speedup over cuSPARSE, from each file."""
    out = {}
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f, delimiter="\t")
            columns = reader.fieldnames or []
            rows = list(reader)
        long = "format" in columns
        need = ["matrix", "n", "cusparse_ms"] + (["order", "format", "ms"] if long
                                                 else ["median_ms"])
        missing = [c for c in need if c not in columns]
        if missing:
            die("%s: expected columns %s, missing %s" % (path, ", ".join(need),
                                                          ", ".join(missing)))
        fmt = None if long else os.path.basename(path).split(".")[0]
        params = "seg" in columns
        for r in rows:
            if r["matrix"] not in names:
                continue
            if params and (r["seg"] != "default" or r.get("order", "default") != "default"):
                continue
            f = r["format"] if long else fmt
            ms = float(r["ms"] if long else r["median_ms"])
            # "FORMAT:PARAMS": a plan setting (auto.sh's candidates); the
            # model predicts each format at its defaults, which is what
            # ESTIMATE runs and MEASURE times
            if f == "csr" or ":" in f or ms <= 0:
                continue
            order = "given" if params else given(r.get("order", "original"))
            key = (r["matrix"], int(r["n"]), order, f)
            out[key] = float(r["cusparse_ms"]) / ms
    return out


def tool(bindir, name):
    path = os.path.join(bindir, name)
    if not os.access(path, os.X_OK):
        die("%s: not found; build first (setup_build) or give --bin" % path)
    return path


def compute_features(bindir, path, order):
    """The features of the matrix at path in `order`, by the tools."""
    with tempfile.TemporaryDirectory() as tmp:
        src = path
        if order != "given":
            src = os.path.join(tmp, "m.tcf.h5")
            subprocess.run([tool(bindir, "tcreorder"), "-q", "-m", order, "-o", src, path],
                           check=True, stdout=subprocess.DEVNULL)
        text = subprocess.run([tool(bindir, "tcstat"), "-q", "--advise", "--tsv", src],
                              check=True, stdout=subprocess.PIPE, text=True).stdout
    feat = {}
    for line in text.splitlines()[1:]:
        _, section, key, value = line.split("\t")
        if section == "features.given" and key in FEATURES:
            feat[key] = float(value)
    if set(feat) != set(FEATURES):
        die("%s: tcstat --advise gave no features.given section" % path)
    return feat


def load_features(cache, needed, datadir, bindir):
    """(matrix, order) -> features, from the cache, computing what is missing."""
    feats = {}
    if os.path.exists(cache):
        for r in read_tsv(cache):
            feats[(r["matrix"], r["order"])] = {k: float(r[k]) for k in FEATURES}
    missing = sorted(set(needed) - set(feats))
    for m, order in missing:
        print("model-fit.py: features of %s in order %s" % (m, order), file=sys.stderr)
        feats[(m, order)] = compute_features(bindir, os.path.join(datadir, m + ".mtx.gz"), order)
    if missing:
        with open(cache + ".tmp", "w") as f:
            f.write("matrix\torder\t" + "\t".join(FEATURES) + "\n")
            for (m, order), v in sorted(feats.items()):
                f.write("%s\t%s\t%s\n" % (m, order, "\t".join("%.10g" % v[k] for k in FEATURES)))
        os.replace(cache + ".tmp", cache)
    return feats


def regressors(feat, n):
    """model.c's regressors (keep the two in step)."""
    row_len = feat["nnz"] / feat["rows"] if feat["rows"] > 0 else 0
    return np.array([1.0, math.log(max(feat["nnz_per_block"], 1)), feat["blocks_per_window_cv"],
                     feat["row_length_cv"], feat["synergy_alpha"], math.log2(max(n, 1)),
                     math.log10(max(feat["nnz"], 1)), math.log(max(row_len, 1))])


def fit(meas, feats, matrices, ridge):
    """format -> coefficients, from the rows of `matrices`; and under key
    None the range (lowest, highest) of each regressor over those rows,
    to which a prediction clamps, so that the model never extrapolates."""
    by_format = {}
    for (m, n, order, f), s in meas.items():
        if m in matrices:
            by_format.setdefault(f, []).append((regressors(feats[(m, order)], n), math.log(s)))
    coef = {}
    for f, rows in sorted(by_format.items()):
        x = np.array([r[0] for r in rows])
        y = np.array([r[1] for r in rows])
        penalty = ridge * np.eye(x.shape[1])
        penalty[0, 0] = 0  # the intercept is not shrunk
        coef[f] = np.linalg.solve(x.T @ x + penalty, x.T @ y)
    x = np.array([r[0] for rows in by_format.values() for r in rows])
    coef[None] = (x.min(axis=0), x.max(axis=0))
    return coef


def predict(coef, f, feat, n):
    lo, hi = coef[None]
    return math.exp(float(np.clip(regressors(feat, n), lo, hi) @ coef[f])) if f in coef else 0.0


def groups(meas, orders):
    """(matrix, n) -> [(order, format, measured speedup)], cuSPARSE included."""
    g = {}
    for (m, n, order, f), s in meas.items():
        if order == "given" or order in orders:
            g.setdefault((m, n), [("given", "csr", 1.0)]).append((order, f, s))
    return g


def fixed_ranking(meas, matrices):
    """(order, format) -> geometric-mean speedup over `matrices`: the
    ranking that ignores the matrix, which the model has to beat."""
    logs = {}
    for (m, n, order, f), s in meas.items():
        if m in matrices:
            logs.setdefault((order, f), []).append(math.log(s))
    return {k: math.exp(sum(v) / len(v)) for k, v in logs.items()}


def estimate_margin():
    """plan/model.h's TC_MODEL_ESTIMATE_MARGIN: the prediction over cuSPARSE
    below which ESTIMATE, the level that times nothing, keeps cuSPARSE."""
    text = open(os.path.join(TOP, "plan", "model.h")).read()
    m = re.search(r"#define TC_MODEL_ESTIMATE_MARGIN ([0-9.]+)", text)
    if not m:
        die("plan/model.h: no TC_MODEL_ESTIMATE_MARGIN")
    return float(m.group(1))


def score(meas, feats, orders, coef_of, matrices, fixed=None):
    """Per n and over all: [groups, hits, cost list, top2, top3, chosen
    list]. The model's ranking, or with `fixed` that one ranking for every
    matrix; chosen is the measured speedup over cuSPARSE of what ESTIMATE
    would run: the first choice if predicted at least the margin, else
    cuSPARSE."""
    margin = estimate_margin()
    res = {}
    for (m, n), cands in sorted(groups(meas, orders).items()):
        if m not in matrices:
            continue
        coef = coef_of(m) if coef_of else None
        def predicted(c):
            return (1.0 if c[1] == "csr" else fixed.get(c[:2], 0) if fixed else
                    predict(coef, c[1], feats[(m, c[0])], n))
        ranked = sorted(cands, key=lambda c: -predicted(c))
        # ESTIMATE ranks the given order alone (plan/gpu.c, list_cands),
        # where cuSPARSE always is
        first = [c for c in ranked if c[0] == "given"][0]
        chosen_speedup = first[2] if predicted(first) >= margin else 1.0
        best = max(c[2] for c in cands)
        pos = [i for i, c in enumerate(ranked) if c[2] == best][0]
        cost = best / ranked[0][2]
        if cost > res.get("worst", (1.0,))[0]:
            chosen = [c for c in cands if c[2] == best][0]
            res["worst"] = (cost, "%s at n = %d: chose %s %s, the best was %s %s" % (
                m, n, ranked[0][0], ranked[0][1], chosen[0], chosen[1]))
        for key in (n, "all"):
            r = res.setdefault(key, [0, 0, [], 0, 0, []])
            r[0] += 1
            r[1] += pos == 0
            r[2].append(best / ranked[0][2])
            r[3] += pos < 2
            r[4] += pos < 3
            r[5].append(chosen_speedup)
    return res


def table(title, res):
    lines = ["**%s**" % title, "",
             "| n | (matrix, n) measured | hit rate | cost: geomean | cost: worst | best in top 2 | "
             "best in top 3 | estimate over cuSPARSE: geomean |",
             "|---|---|---|---|---|---|---|---|"]
    worst = res.pop("worst", None)
    for key in sorted(res, key=lambda k: (k == "all", k if k != "all" else 0)):
        g, hits, cost, t2, t3, chosen = res[key]
        lines.append("| %s | %d | %.0f%% | %.3f | %.2f | %.0f%% | %.0f%% | %.3f |" % (
            key, g, 100 * hits / g, math.exp(sum(map(math.log, cost)) / g), max(cost),
            100 * t2 / g, 100 * t3 / g, math.exp(sum(map(math.log, chosen)) / g)))
    if worst:
        lines += ["", "Worst mistake (%.2fx): %s." % worst]
    return "\n".join(lines) + "\n"


def chosen_orders(meas, share):
    """The reorderings that are the measured best in at least `share` of the
    (matrix, n) measured: the ones worth their time in the model."""
    all_orders = {o for (_, _, o, _) in meas} - {"given"}
    wins = {}
    g = groups(meas, all_orders)
    for cands in g.values():
        best = max(cands, key=lambda c: c[2])
        wins[best[0]] = wins.get(best[0], 0) + 1
    return sorted(o for o in all_orders if wins.get(o, 0) >= share * len(g)), wins, len(g)


def precisions():
    """format -> its kernel's precision, from the tc_kernel in kernels/*.cu."""
    out = {}
    pattern = re.compile(r'tc_kernel tc_kernel_(\w+) = \{\s*"(\w+)",\s*"(?:[^"\\]|\\.)*"'
                         r'(?:\s*"(?:[^"\\]|\\.)*")*,\s*"(fp32|tf32|fp16)"')
    for f in sorted(os.listdir(os.path.join(TOP, "kernels"))):
        if f.endswith(".cu"):
            for _, fmt, prec in pattern.findall(open(os.path.join(TOP, "kernels", f)).read()):
                out[fmt] = prec
    return out


def top_timed():
    """plan/gpu.c's TOP_TIMED: how many of the model's first candidates
    MEASURE and PATIENT time in each class of orders (the given one, the
    reorderings)."""
    text = open(os.path.join(TOP, "plan", "gpu.c")).read()
    m = re.search(r"#define TOP_TIMED ([0-9]+)", text)
    if not m:
        die("plan/gpu.c: no TOP_TIMED")
    return int(m.group(1))


def read_header(path):
    """The fitted rows of a header model-fit.py wrote, as fit() gives them:
    format -> coefficients, None -> the regressors' range."""
    text = open(path).read()
    def row(name):
        m = re.search(r"%s\[TC_MODEL_NCOEF\] = \{ ([^}]*) \}" % name, text)
        if not m:
            die("%s: no %s" % (path, name))
        return np.array([float(v) for v in m.group(1).split(",")])
    coef = {None: (row("tc_model_lo"), row("tc_model_hi"))}
    for f, _, c in re.findall(r'\{ "(\w+)", "(\w+)", \{ ([^}]*) \} \}',
                              text.split("tc_model_priors")[0]):
        coef[f] = np.array([float(v) for v in c.split(",")])
    return coef


def timed_since(before, now, feats, orders, ns, first):
    """The (matrix, class of orders, n) where a format among the `first`
    that fit `before` ranks first is not among the top_timed() that fit
    `now` ranks first: what a timed plan stops timing by the refit. Classes:
    the given order, and the reorderings together (plan/gpu.c counts them
    so); every matrix of the features cache, every n measured."""
    k = top_timed()
    formats = sorted(f for f in set(before) | set(now) if f is not None)
    lost = []
    for m in sorted({m for (m, _) in feats}):
        for cls in (["given"], orders):
            cands = [(o, f) for o in cls if (m, o) in feats for f in formats]
            for n in ns:
                def top(coef, count):
                    ranked = sorted(cands, key=lambda c: -predict(coef, c[1], feats[(m, c[0])], n))
                    return set(ranked[:count])
                gone = top(before, first) - top(now, k)
                if cands and gone:
                    lost.append((m, cls[0] if cls == ["given"] else "reorderings", n, sorted(gone)))
    return k, lost


def header(coef, orders, source):
    prec = precisions()
    lines = ["/* model_coef.h: written by bench/model-fit.py --header; do not edit, refit.",
             "   Fitted from %s. */" % source,
             "#define TC_MODEL_FIT_SOURCE \"%s\"" % source,
             "/* the reorderings the model tries besides the given order */",
             "static const char *const tc_model_orders[] = { %s };" % ", ".join(
                 ['"%s"' % o for o in orders] + ["NULL"]),
             "/* ln speedup = coef . (1, ln nnz/block, blocks/window CV, row length CV,",
             "   synergy alpha, log2 n, log10 nnz, ln nnz/rows) */",
             "/* each regressor's range in the fit: predictions clamp to it */",
             "static const double tc_model_lo[TC_MODEL_NCOEF] = { %s };" % ", ".join(
                 "%.6g" % v for v in coef[None][0]),
             "static const double tc_model_hi[TC_MODEL_NCOEF] = { %s };" % ", ".join(
                 "%.6g" % v for v in coef[None][1]),
             "static const tc_model_row tc_model_rows[] = {"]
    for f, c in sorted((f, c) for f, c in coef.items() if f is not None):
        if f not in prec:
            die("no kernels/%s.cu declaring the kernel's precision" % f)
        lines.append("    { \"%s\", \"%s\", { %s } }," % (f, prec[f], ", ".join(
            "%.6g" % v for v in c)))
    lines += ["    { NULL, NULL, { 0 } }", "};",
              "/* formats not measured yet: bench/model-fit.py's PRIORS, not fitted */",
              "static const tc_model_row tc_model_priors[] = {"]
    for f, (c, why) in sorted(PRIORS.items()):
        if f in coef:
            continue
        if f not in prec:
            die("no kernels/%s.cu declaring the kernel's precision" % f)
        lines.append("    /* %s */" % why)
        lines.append("    { \"%s\", \"%s\", { %s } }," % (f, prec[f], ", ".join(
            "%.6g" % v for v in c)))
    lines += ["    { NULL, NULL, { 0 } }", "};"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="measurement files (default: the per-format "
                    "benchmark files in bench/results)")
    ap.add_argument("--data", default=os.environ.get("TC_SHARED_DATA",
                                                      os.path.join(TOP, "..", "shared", "data")))
    ap.add_argument("--bin", default=os.path.join(TOP, "_build", "tools"))
    ap.add_argument("--features", default=os.path.join(HERE, "results", "model-features.tsv"))
    ap.add_argument("--ridge", type=float, default=1.0)
    ap.add_argument("--order-share", type=float, default=0.1)
    ap.add_argument("--header", metavar="FILE")
    ap.add_argument("--timed-since", metavar="HEADER",
                    help="list what a timed plan stops timing if this fit replaces HEADER's: "
                    "the (matrix, orders, n) where one of HEADER's first three is not among "
                    "this fit's first TOP_TIMED")
    a = ap.parse_args()
    files = a.files or [os.path.join(HERE, "results", f + ".tsv") for f in FORMAT_FILES]
    manifest = os.path.join(a.data, "MANIFEST.tsv")
    if not os.path.exists(manifest):
        die("%s: not found (give --data or set TC_SHARED_DATA)" % manifest)
    manifest_rows = read_tsv(manifest)
    names = {r["name"] for r in manifest_rows}
    nnz = {r["name"]: int(r["nnz_full"]) for r in manifest_rows}
    meas = load_measurements(files, names)
    if not meas:
        die("no measurement of a shared matrix in %s" % ", ".join(files))
    feats = load_features(a.features, {(m, o) for (m, _, o, _) in meas}, a.data, a.bin)
    orders, wins, ngroups = chosen_orders(meas, a.order_share)
    matrices = sorted({m for (m, _, _, _) in meas}, key=lambda m: (nnz[m], m))
    half_a, half_b = set(matrices[0::2]), set(matrices[1::2])
    coef_a = fit(meas, feats, half_a, a.ridge)
    split = score(meas, feats, orders, lambda m: coef_a, half_b)
    fixed = score(meas, feats, orders, None, half_b, fixed_ranking(meas, half_a))
    loo_coef = {m: fit(meas, feats, set(matrices) - {m}, a.ridge) for m in matrices}
    loo = score(meas, feats, orders, lambda m: loo_coef[m], set(matrices))
    commit = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, text=True).stdout.strip() or "unknown"
    source = "commit %s, %s" % (commit, " ".join(os.path.relpath(f, TOP) for f in files))
    print("Orders: %s (measured best in: %s of %d (matrix, n))\n" % (
        ", ".join(["given"] + orders), ", ".join("%s %d" % kv for kv in sorted(wins.items())),
        ngroups))
    print(table("Fitted on half A (%d matrices), measured on half B: %s" % (
        len(half_a), ", ".join(sorted(half_b))), split))
    print(table("Without features, for comparison: one fixed ranking for every matrix, the "
                "geometric-mean speedups on half A, measured on half B", fixed))
    print(table("Leave one matrix out (%d matrices)" % len(matrices), loo))
    full = fit(meas, feats, set(matrices), a.ridge)
    if a.timed_since:
        first = 3   # what TOP_TIMED was before the refit of 9df56ed
        k, lost = timed_since(read_header(a.timed_since), full, feats, orders,
                              sorted({n for (_, n, _, _) in meas}), first)
        print("Timed since %s (its first %d against this fit's first %d, in each class of "
              "orders): %d lost" % (a.timed_since, first, k, len(lost)))
        for m, cls, n, gone in lost:
            print("  %s, %s, n = %d: %s" % (m, cls, n,
                                              ", ".join("%s %s" % og for og in gone)))
        print()
    if a.header:
        text = header(full, orders, source)
        with open(a.header + ".tmp", "w") as f:
            f.write(text)
        os.replace(a.header + ".tmp", a.header)


if __name__ == "__main__":
    main()
