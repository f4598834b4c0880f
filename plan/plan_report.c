/*
 * plan_report.c: a plan as report sections (tc_plan_report): "plan" (what
 * runs, why, and what planning cost), "candidates" (every candidate
 * considered, best first, keys "N.field" for the N-th from 1) and
 * "variants" (the chosen kernel's variants as planning tuned them).
 */
#include <config.h>

#include <math.h>

#include "plan_internal.h"

static const char *device_word(tc_device d)
{
    return d == TC_DEVICE_CPU ? "cpu" : "gpu";
}

static tc_status report_plan(const tc_plan *p, tc_report *r)
{
    const tc_plan_info *i = &p->info;
    tc_status st;
    (void)((st = tc_report_str(r, "plan", "device", device_word(i->device), NULL)) ||
           (st = tc_report_str(r, "plan", "device_name", i->device_name, NULL)) ||
           (st = tc_report_str(r, "plan", "effort", tc_plan_effort_name(i->effort), NULL)) ||
           (st = tc_report_str(r, "plan", "order", i->order, "rows as the kernel sees them")) ||
           (st = tc_report_str(r, "plan", "format", i->format, "csr on the GPU: cuSPARSE")) ||
           (st = tc_report_str(r, "plan", "format_params", i->format_params,
                               "the format's parameters the plan chose (\"\": its defaults)")) ||
           (st = tc_report_str(r, "plan", "variant", i->variant, NULL)) ||
           (st = tc_report_str(r, "plan", "precision", i->precision, NULL)) ||
           (st = tc_report_num(r, "plan", "tolerance", i->tolerance,
                               "relative Frobenius error bound of the precision")) ||
           (st = tc_report_str(r, "plan", "b_scaled", i->b_scaled ? "yes" : "no",
                               "B scaled by a power of two that fp16 holds, undone on C")) ||
           (st = tc_report_str(r, "plan", "why", p->why, NULL)) ||
           (st = tc_report_str(r, "plan", "device_why", p->device_why,
                               "why this device (\"\": as asked)")) ||
           (st = tc_report_num(r, "plan", "ms", i->ms, "measured median (-1: not timed)")) ||
           (st = tc_report_num(r, "plan", "host_ms", i->host_ms,
                               "the host's median to queue a product, which ms leaves out "
                               "(-1: not timed)")) ||
           (st = tc_report_num(r, "plan", "safeguard_ms", i->safeguard_ms,
                               "of ms: max|B|, fp16 scaling and the NaN/Inf guard, for a B of "
                               "unknown range (-1: not timed)")) ||
           (st = tc_report_num(r, "plan", "cusparse_ms", i->cusparse_ms,
                               "cuSPARSE in the same planning (-1: not timed)")) ||
           (st = tc_report_num(r, "plan", "predicted_speedup", i->predicted_speedup,
                               "the model's, over cuSPARSE (0: none)")) ||
           (st = tc_report_num(r, "plan", "reorder_s", i->reorder_s, NULL)) ||
           (st = tc_report_num(r, "plan", "build_s", i->build_s, NULL)) ||
           (st = tc_report_num(r, "plan", "upload_s", i->upload_s, NULL)) ||
           (st = tc_report_num(r, "plan", "tune_s", i->tune_s, NULL)) ||
           (st = tc_report_num(r, "plan", "plan_s", i->plan_s, "planning in all")) ||
           (isinf(i->payback_calls)
                ? (st = tc_report_str(r, "plan", "payback_calls", "never",
                                      "not faster than cuSPARSE"))
                : (st = tc_report_num(r, "plan", "payback_calls", i->payback_calls,
                                      "products after which planning paid back"))) ||
           (st = tc_report_str(r, "plan", "reused", i->reused ? "yes" : "no",
                               "taken from a stored plan, nothing tuned")) ||
           (st = tc_report_str(r, "plan", "stale", i->stale, "why a stored plan was not used")) ||
           (st = tc_report_str(r, "plan", "plan_file", i->plan_file, "stored or found here")));
    return st;
}

static tc_status report_cand(tc_report *r, int n, const plan_cand *c)
{
    char k[11][32];
    static const char *const names[11] = { "device", "order", "format", "format_params",
                                           "variant", "precision", "predicted_speedup",
                                           "predicted_ms", "ms", "host_ms", "note" };
    for (int i = 0; i < 11; i++)
        snprintf(k[i], sizeof k[i], "%d.%s", n, names[i]);
    tc_status st;
    (void)((st = tc_report_str(r, "candidates", k[0], device_word(c->pub.device), NULL)) ||
           (st = tc_report_str(r, "candidates", k[1], c->order, NULL)) ||
           (st = tc_report_str(r, "candidates", k[2], c->format, NULL)) ||
           (st = tc_report_str(r, "candidates", k[3], c->format_params, NULL)) ||
           (st = tc_report_str(r, "candidates", k[4], c->variant, NULL)) ||
           (st = tc_report_str(r, "candidates", k[5], c->precision, NULL)) ||
           (st = tc_report_num(r, "candidates", k[6], c->pub.predicted_speedup, NULL)) ||
           (st = tc_report_num(r, "candidates", k[7], c->predicted_ms, NULL)) ||
           (st = tc_report_num(r, "candidates", k[8], c->pub.ms, NULL)) ||
           (st = tc_report_num(r, "candidates", k[9], c->pub.host_ms, NULL)) ||
           (st = tc_report_str(r, "candidates", k[10], c->note, NULL)));
    return st;
}

/* tcmul's "variants" section, for a kernel with several that was tuned. */
static tc_status report_variants(const tc_plan *p, tc_report *r)
{
    const tc_kernel *k = p->path.kernel;
    int tuned = 0;
    for (int v = 0; k && v < k->nvariants; v++)
        tuned |= p->variant_ms[v] != TC_VARIANT_UNTIMED;
    if (!k || k->nvariants < 2 || !tuned || p->o.variant)
        return TC_OK;
    tc_status st = TC_OK;
    for (int v = 0; v < k->nvariants && !st; v++) {
        char key[64];
        snprintf(key, sizeof key, "%s_ms", k->variant_names[v]);
        const double ms = p->variant_ms[v];
        st = ms == TC_VARIANT_UNSUPPORTED ? tc_report_str(r, "variants", key, "unsupported", NULL)
             : ms == TC_VARIANT_SKIPPED
                 ? tc_report_str(r, "variants", key, "skipped",
                                 "B holds NaN/Inf, which this variant spreads to other rows")
             : ms == TC_VARIANT_INEXACT
                 ? tc_report_str(r, "variants", key, "inexact",
                                 "less exact than the accuracy asked for")
             : ms == TC_VARIANT_UNTIMED ? tc_report_str(r, "variants", key, "untimed", NULL)
             : p->variant_runs[v] < p->o.iters
                 ? tc_report_num(r, "variants", key, ms,
                                 "median of its first runs: slower than the fastest path so far "
                                 "by more than the race's margin")
                 : tc_report_num(r, "variants", key, ms, "median");
    }
    return st ? st : tc_report_str(r, "variants", "fastest", p->info.variant, NULL);
}

tc_status tc_plan_report(const tc_plan *p, tc_report *r, tc_error *err)
{
    if (p->attn) {
        tc_status st = tc_attn_plan_report(p->attn, r, err);
        return st;
    }
    tc_status st = report_plan(p, r);
    for (int i = 0; i < p->ncand && !st; i++)
        st = report_cand(r, i + 1, &p->cand[i]);
    if (!st)
        st = report_variants(p, r);
    return st ? tc_error_set(err, st, "out of memory") : TC_OK;
}
