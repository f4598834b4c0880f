/*
 * gpu.c: the GPU planner. Candidates are (order, format's kernel) pairs,
 * found by iterating the kernel registry and the model's ranking, never by
 * naming a format; cuSPARSE (the canonical csr format's kernel) is always
 * one, so a timed plan is never slower than cuSPARSE beyond timer noise.
 *
 *   ESTIMATE  the model's first allowed candidate (cuSPARSE when the model
 *             predicts no speedup over it), nothing timed: the chosen
 *             kernel runs its first variant that takes the matrix (or the
 *             one forced); kernels list their variants in that order.
 *   MEASURE   the model's top few in the given order, and cuSPARSE, each
 *             built, uploaded and tuned (tc_kernel_tune over operand sets
 *             rotated through L2); the fastest wins.
 *   PATIENT   the same over the orders the model proposes too, and each
 *             timed format again at the parameter settings it lists for
 *             plans (tc_format.plan_params: those whose best value
 *             depends on n and the device).
 * A forced format times that format's kernel alone (in each order PATIENT
 * or a forced order names), with cuSPARSE timed beside it for the payback.
 * "Fastest" is in a loop of products: by the GPU's time or the host's to
 * queue a product (its launches), whichever is longer (tc_loop_ms).
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "plan_internal.h"

/* Timed candidates besides cuSPARSE, in the given order and again in the
   reorderings. The measured best is among the model's first three in 98%
   of (matrix, n) left out of its fit; four since the refit of 9df56ed,
   which raised rowsplit alone: its first four hold the first three of the
   fit before on every shared matrix, order and n (256 cases; 17 of them
   not in its first three; bench/model-fit.py --timed-since), so a timed
   plan times all it timed before. With three, dlmc_transformer_mp07_
   enc0_ffn2 lost bcsr at n = 128 (MEASURE and PATIENT 14-17% slower) and
   1138_bus rstile at 32 (4%) (H200, bench/NOTES.md, "Refitted with
   rowsplit at a715429"). */
#define TOP_TIMED 4

typedef struct gcand {
    const char *order;
    const tc_kernel *k;
    const char *fparams;                    /* the format's parameters; NULL:
                                               its defaults (or the .tcf.h5's
                                               stored format) */
    char used[96];                          /* its parameters as built, all of
                                               them ("" for csr) */
    double predicted;
    double ms;                              /* the GPU's: -1 untimed, -2 out */
    double host_ms;                         /* the host's, to queue one */
    double safe_ms;                         /* of ms, the safeguards' */
    int variant;
    int runs;                               /* the timed runs behind ms: fewer
                                               than asked where it lost the
                                               race (tc_kernel_tune) */
    double vms[TC_KERNEL_MAX_VARIANTS];     /* kp->variant_ms after tuning */
    double vhost[TC_KERNEL_MAX_VARIANTS];   /* and kp->variant_host_ms */
    int vruns[TC_KERNEL_MAX_VARIANTS];      /* and kp->variant_runs */
} gcand;

/* 1 when k may run for this plan; else why not in note. */
static int kernel_allowed(const tc_plan *p, const tc_kernel *k, char *note, size_t len)
{
    if (!tc_precision_meets(k->precision, p->o.accuracy)) {
        snprintf(note, len, "left out: %s exceeds the %s accuracy asked for", k->precision,
                 p->o.accuracy);
        return 0;
    }
    return 1;
}

/* What candidate c runs at: its variant's precision once tuned or chosen,
   else its kernel's (the most exact of its variants). */
static const char *cand_precision(const gcand *c)
{
    return tc_kernel_variant_precision(c->k, c->variant);
}

/* 1 when variant v of k is at least as exact as the accuracy asked for. */
static int variant_exact_enough(const tc_plan *p, const tc_kernel *k, int v)
{
    return tc_precision_meets(tc_kernel_variant_precision(k, v), p->o.accuracy);
}

/* The format m that candidate c's kernel multiplies for p->a: NULL for
   csr; with the format's defaults, the .tcf.h5's stored one in its own
   order; else built with c's parameters into *built. c->used gets its
   parameters as built. */
static tc_status kernel_fmt(tc_plan *p, gcand *c, const tc_fmt **m, tc_fmt **built,
                            tc_error *err)
{
    const tc_format *f = tc_format_find(c->k->format);
    *m = NULL;
    *built = NULL;
    c->used[0] = '\0';
    if (!f || tc_format_is_canonical(f))
        return TC_OK;
    if (!c->fparams && (*m = tc_plan_stored_fmt(p, f))) {
        tc_params_text(tc_fmt_params(*m), c->used, sizeof c->used);
        return TC_OK;
    }
    const double t0 = tc_plan_now();
    tc_params params = { 0 };
    tc_status st = c->fparams ? tc_params_parse(&params, c->fparams, err) : TC_OK;
    if (!st)
        st = tc_fmt_build(f, p->a, &params, built, err);
    p->info.build_s += tc_plan_now() - t0;
    *m = *built;
    if (!st)
        tc_params_text(tc_fmt_params(*m), c->used, sizeof c->used);
    return st;
}

/* What a product in the current order costs besides the kernel: B's rows
   gathered into the plan's column order and C's scattered back to the
   caller's (plan/execute.c), timed on ops. 0 in an order that needs
   neither. A reordered candidate is charged this, so that the plan chosen
   is the fastest as the caller sees it, not the fastest kernel. */
typedef struct moves {
    tc_plan *p;
    const tc_gpu_operands *ops;
    int32_t *d_row, *d_col;
    float *scratch;             /* rows x n: where C's rows go */
} moves;

static tc_status run_moves(void *arg, int set, tc_error *err)
{
    const moves *m = arg;
    const tc_csr *a = m->p->a;
    const int32_t n = m->p->o.n;
    tc_status st = TC_OK;
    /* into the next set's B: its values are a permutation of B's, so the
       candidates tuned after still meet a finite B of the same range (with
       one set it is in place, which only the timing sees) */
    if (m->d_col)
        st = tc_gpu_gather_rows(m->p->gpu, m->ops->B[set], n, m->d_col, a->cols, n, NULL,
                                m->ops->B[(set + 1) % m->ops->count], n, err);
    if (!st && m->d_row)
        st = tc_gpu_scatter_rows(m->p->gpu, m->ops->C[set], n, m->d_row, a->rows, n, NULL,
                                 m->scratch, n, err);
    return st;
}

static tc_status time_moves(tc_plan *p, const tc_gpu_operands *ops, tc_cost *cost,
                            tc_error *err)
{
    *cost = (tc_cost){ 0, 0 };
    if (!p->row && !p->col)
        return TC_OK;
    moves m = { p, ops, NULL, NULL, NULL };
    tc_status st = tc_plan_upload_perm(p, p->row, &m.d_row, err);
    if (!st)
        st = tc_plan_upload_perm(p, p->col, &m.d_col, err);
    if (!st && m.d_row)
        st = tc_gpu_alloc(p->gpu, (int64_t)p->a->rows * p->o.n * 4, (void **)&m.scratch, err);
    tc_gpu_timing t;
    if (!st)
        st = tc_gpu_time(p->gpu, run_moves, &m, ops->count, p->o.warmup, p->o.iters, &t, err);
    if (!st)
        *cost = (tc_cost){ t.ms.decile[5], t.host_ms };
    tc_gpu_free(p->gpu, m.d_row);
    tc_gpu_free(p->gpu, m.d_col);
    tc_gpu_free(p->gpu, m.scratch);
    return st;
}

/* Variant v of kp with its safeguards, in a loop of products. */
static double loop_ms(const tc_kplan *kp, int v, tc_cost safe)
{
    return tc_loop_ms(kp->variant_ms[v] + safe.ms, kp->variant_host_ms[v] + safe.host_ms);
}

/* The tuned variant of kp whose time with its safeguards' is least (a
   variant that spreads NaN/Inf pays for the guard, one that does not
   does not), selected; *cost what its safeguards cost. */
static tc_status with_safeguards(tc_plan *p, tc_kplan *kp, int forced,
                                 const tc_gpu_operands *ops, tc_safeguard_timer *safe,
                                 tc_cost *cost, tc_error *err)
{
    int best = kp->variant;
    tc_status st = tc_safeguard_time(p, safe, kp->kind, best, ops, cost, err);
    for (int v = 0; !st && !forced && v < kp->kind->nvariants; v++) {
        tc_cost s;
        if (v == best || kp->variant_ms[v] < 0 ||
            (st = tc_safeguard_time(p, safe, kp->kind, v, ops, &s, err)))
            continue;
        if (loop_ms(kp, v, s) < loop_ms(kp, best, *cost)) {
            best = v;
            *cost = s;
        }
    }
    return st || best == kp->variant ? st : tc_kernel_select(kp, best, err);
}

/* Uploads and tunes c on p->a (already in c's order), in format m
   (kernel_fmt), over ops; its
   time is the kernel's plus the order's moves (move_cost) plus what its
   safeguards cost (safeguard_time.c), on the GPU and on the host. bar is
   the fastest candidate's time so far in a loop (0: none), which c's
   variants race (tc_kernel_tune): the kernel's time alone is less than
   c's, so a variant that loses to bar cannot make c the fastest. At
   ESTIMATE nothing is timed: c gets the kernel's first variant that takes
   the matrix (tc_kernel_prepare's choice; each kernel lists its variants
   in that order on purpose, kernels.h) and no time. */
static tc_status time_cand(tc_plan *p, gcand *c, const tc_fmt *m, const tc_gpu_operands *ops,
                           tc_cost move_cost, tc_safeguard_timer *safe, double bar,
                           tc_error *err)
{
    tc_kplan *kp = NULL;
    double t0 = tc_plan_now();
    tc_status st = tc_kernel_prepare(c->k, p->gpu, m, p->a, ops, &kp, err);
    p->info.upload_s += tc_plan_now() - t0;
    t0 = tc_plan_now();
    const int forced = p->o.variant && strcmp(c->k->format, p->o.format) == 0;
    const int untimed = p->o.effort == TC_EFFORT_ESTIMATE;
    tc_gpu_timing t;
    if (!st && forced)
        st = tc_kernel_select(kp, tc_kernel_variant_find(c->k, p->o.variant), err);
    /* untimed, the kernel runs its first variant that takes the matrix
       (tc_kernel_prepare's choice); where that one is less exact than the
       accuracy, its first exact-enough one that does */
    if (!st && !forced && untimed && !variant_exact_enough(p, c->k, kp->variant)) {
        int v = 0;
        while (v < c->k->nvariants &&
               (!variant_exact_enough(p, c->k, v) || tc_kernel_select(kp, v, err) != TC_OK))
            v++;
        if (v == c->k->nvariants)
            st = tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: no variant at least as exact as "
                              "%s takes this matrix", c->k->format, p->o.accuracy);
    }
    if (!st && forced && !untimed)
        st = tc_kernel_time(kp, ops, p->o.warmup, p->o.iters, &t, err);
    else if (!st && !untimed)
        st = tc_kernel_tune(kp, ops, p->o.warmup, p->o.iters, tc_plan_b_finite(p),
                            p->o.accuracy, bar, err);
    tc_cost safe_cost = { 0, 0 };
    if (!st && !untimed)
        st = with_safeguards(p, kp, forced, ops, safe, &safe_cost, err);
    if (!st) {
        c->variant = kp->variant;
        c->safe_ms = safe_cost.ms;
        c->ms = untimed ? -1
                        : (forced ? t.ms.decile[5] : kp->variant_ms[kp->variant]) + move_cost.ms +
                              safe_cost.ms;
        c->host_ms = untimed ? 0
                             : (forced ? t.host_ms : kp->variant_host_ms[kp->variant]) +
                                   move_cost.host_ms + safe_cost.host_ms;
        c->runs = untimed ? 0 : forced ? t.runs : kp->variant_runs[kp->variant];
        memcpy(c->vms, kp->variant_ms, sizeof c->vms);
        memcpy(c->vhost, kp->variant_host_ms, sizeof c->vhost);
        memcpy(c->vruns, kp->variant_runs, sizeof c->vruns);
    }
    if (!untimed)
        p->info.tune_s += tc_plan_now() - t0;
    tc_kernel_free(kp);
    return st;
}

/* The candidate before gc[i] in the same order with the same kernel and
   the same parameters as built (gc[i] an alternative setting that came
   out as another's), else NULL. */
static const gcand *same_as_earlier(const gcand *gc, int i)
{
    for (int j = 0; j < i && gc[i].fparams; j++)
        if (gc[j].ms != -2 && gc[j].k == gc[i].k && strcmp(gc[j].order, gc[i].order) == 0 &&
            strcmp(gc[j].used, gc[i].used) == 0)
            return &gc[j];
    return NULL;
}

/* Builds c's format (kernel_fmt) and times c in it (time_cand, racing
   bar); *dup the earlier candidate it is the same as, when it is one (c is
   not timed). */
static tc_status build_and_time(tc_plan *p, gcand *gc, int i, const tc_gpu_operands *ops,
                                tc_cost move_cost, tc_safeguard_timer *safe, double bar,
                                const gcand **dup, tc_error *err)
{
    const tc_fmt *m;
    tc_fmt *built;
    gcand *c = &gc[i];
    tc_status st = kernel_fmt(p, c, &m, &built, err);
    *dup = st ? NULL : same_as_earlier(gc, i);
    if (!st && !*dup)
        st = time_cand(p, c, m, ops, move_cost, safe, bar, err);
    tc_fmt_free(built);
    /* the kernels' messages name their kernel; the order is news only when
       it is not the given one */
    if (st && strcmp(c->order, "given") != 0)
        return tc_error_prefix(err, st, "after reordering by %s", c->order);
    return st;
}

/* EXHAUSTIVE: every kernel in every order (the given one, then each
   registered reordering) that the model's list lacks, predicted 0. */
static int add_every_pair(const tc_plan *p, gcand *gc, int n)
{
    const char *orders[32] = { p->o.order ? p->o.order : "given" };
    const int no = 1 + (p->o.order ? 0 : tc_plan_orders(orders + 1, 31));
    for (int o = 0; o < no; o++)
        for (int k = 0; k < tc_kernel_count() && n < TC_PLAN_MAX_CANDS; k++) {
            const tc_kernel *kk = tc_kernel_at(k);
            int have = 0;
            for (int i = 0; i < n && !have; i++)
                have = gc[i].k == kk && strcmp(gc[i].order, orders[o]) == 0;
            if (kk && !have)
                gc[n++] = (gcand){ .order = orders[o], .k = kk, .ms = -1, .variant = -1 };
        }
    return n;
}

/* The model's reorderer (tc_model_rank_reordered): the plan set to the
   order, so that it keeps each reordering the model ranks in for the
   timing (tc_plan_set_order); each a step of progress, together the first
   `share` of the bar. */
typedef struct model_orders {
    tc_plan *p;
    const tc_csr *given;
    double share;
    int done;
} model_orders;

static tc_status reorder_for_model(void *ctx, const char *order, const tc_csr **out,
                                   tc_error *err)
{
    model_orders *m = ctx;
    const int of = tc_model_order_count();
    tc_plan_progress_step(m->p, m->share * m->done / of, m->share * (m->done + 1) / of);
    m->done++;
    tc_status st = tc_plan_set_order(m->p, m->given, order, NULL, err);
    *out = m->p->a;
    return st;
}

/* The share of the bar the model's reorderings take where it ranks in
   them (list_cands' `all`): the timing takes the rest. */
#define RANKING_SHARE 0.5

/* The candidates from the model (format auto), or the forced format's
   kernel in each order; cuSPARSE in the given order is always among them. */
static tc_status list_cands(tc_plan *p, const tc_csr *given, gcand *gc, int *ngc, tc_error *err)
{
    const tc_kernel *base = tc_kernel_baseline();
    int n = 0;
    gc[n++] = (gcand){ .order = "given", .k = base, .predicted = 1, .ms = -1, .variant = -1 };
    if (p->o.format) {
        const tc_kernel *k = tc_kernel_find(p->o.format);
        if (!k)
            return tc_error_set(err, TC_ERR_ARG, "no GPU kernel for format '%s'", p->o.format);
        if (p->o.variant && tc_kernel_variant_find(k, p->o.variant) < 0)
            return tc_error_set(err, TC_ERR_ARG, "the %s kernel has no variant '%s'", k->format,
                                p->o.variant);
        char note[160];
        if (!kernel_allowed(p, k, note, sizeof note))
            return tc_error_set(err, TC_ERR_ARG, "format %s (%s): %s", k->format, k->precision,
                                note + strlen("left out: "));
        const int fv = p->o.variant ? tc_kernel_variant_find(k, p->o.variant) : -1;
        if (fv >= 0 && !variant_exact_enough(p, k, fv))
            return tc_error_set(err, TC_ERR_ARG, "%s variant %s (%s): exceeds the %s accuracy "
                                "asked for", k->format, p->o.variant,
                                tc_kernel_variant_precision(k, fv), p->o.accuracy);
        const char *orders[32] = { p->o.order ? p->o.order : "given" };
        int no = 1;
        if (!p->o.order && p->o.effort >= TC_EFFORT_PATIENT)
            no += tc_plan_orders(orders + 1, 31);
        for (int i = 0; i < no && n < TC_PLAN_MAX_CANDS; i++)
            if (k != base || strcmp(orders[i], "given") != 0)
                gc[n++] = (gcand){ .order = orders[i], .k = k, .ms = -1, .variant = -1 };
        *ngc = n;
        return TC_OK;
    }
    const int all = p->o.order ? strcmp(p->o.order, "given") != 0
                               : p->o.effort >= TC_EFFORT_PATIENT;
    tc_model_candidate *mc = NULL;
    int count = 0;
    model_orders orders = { p, given, RANKING_SHARE, 0 };
    const tc_model_reorderer reorderer = { reorder_for_model, &orders };
    tc_status st = tc_model_rank_reordered(given, p->o.n, all, &reorderer, &mc, &count, NULL,
                                           err);
    for (int i = 0; !st && i < count && n < TC_PLAN_MAX_CANDS; i++) {
        const tc_kernel *k = tc_kernel_find(tc_format_name(mc[i].format));
        if (!k || (p->o.order && strcmp(p->o.order, mc[i].order) != 0))
            continue;
        if (k == base && strcmp(mc[i].order, "given") == 0) {
            gc[0].predicted = mc[i].predicted_speedup;
            continue;
        }
        /* the model's order names live in the registry: keep its pointer */
        const tc_reorder_method *r = tc_reorder_find(mc[i].order);
        gc[n++] = (gcand){ .order = r ? tc_reorder_name(r) : "given", .k = k,
                           .predicted = mc[i].predicted_speedup, .ms = -1, .variant = -1 };
    }
    free(mc);
    if (!st && p->o.effort == TC_EFFORT_EXHAUSTIVE)
        n = add_every_pair(p, gc, n);
    *ngc = n;
    return st;
}

/* The given order first, then by order; in an order, each format's
   defaults before its other settings (same_as_earlier compares with
   them). */
static int by_order(const void *x, const void *y)
{
    const gcand *a = x, *b = y;
    const int ga = strcmp(a->order, "given") == 0, gb = strcmp(b->order, "given") == 0;
    if (ga != gb)
        return gb - ga;
    const int o = strcmp(a->order, b->order);
    if (o || !a->fparams != !b->fparams)
        return o ? o : a->fparams ? 1 : -1;
    return a->fparams ? strcmp(a->fparams, b->fparams) : 0;
}

/* 1 when c may be the plan's choice: with a format forced, that format's
   candidates only (the others are timed for the payback). */
static int choosable(const tc_plan *p, const gcand *c)
{
    return !p->o.format || strcmp(c->k->format, p->o.format) == 0;
}

/* Times the candidates not marked out (ms -2), grouped by order so that
   each reordering runs once; one whose kernel cannot take the matrix is
   marked out with the reason. Each choosable candidate races the fastest
   so far (time_cand), but at EXHAUSTIVE, whose every time is a figure
   (the model's fit, bench/auto.sh's candidates), timed to the end. Each
   candidate is a step of progress, together the rest of the bar. */
static tc_status time_cands(tc_plan *p, const tc_csr *given, gcand *gc, int n, tc_error *err)
{
    const double from = tc_plan_progress_at(p);
    const int64_t nb = (int64_t)given->cols * p->o.n;
    /* random values to time on; zeros at ESTIMATE, where the kernels are
       only prepared (as tc_plan_gpu_ready's operands are) */
    const int untimed = p->o.effort == TC_EFFORT_ESTIMATE;
    double *bd = untimed ? NULL : tc_malloc_array(nb, sizeof *bd, err);
    float *B = bd || untimed ? tc_calloc_array(nb, sizeof *B, err) : NULL;
    if (!B) {
        free(bd);
        return TC_ERR_NOMEM;
    }
    if (bd) {
        tc_random_fill(bd, nb, 1, -1.0, 1.0);
        for (int64_t i = 0; i < nb; i++)
            B[i] = (float)bd[i];
        free(bd);
    }
    tc_gpu_operands ops;
    const double t0 = tc_plan_now();
    tc_status st = tc_gpu_operands_alloc(p->gpu, B, given->cols, given->rows, p->o.n, 1, &ops, err);
    p->info.upload_s += tc_plan_now() - t0;
    free(B);
    if (st)
        return st;
    qsort(gc, (size_t)n, sizeof *gc, by_order);
    p->path.order[0] = '\0';
    tc_cost move_cost = { 0, 0 };
    tc_safeguard_timer safe;
    tc_safeguard_timer_init(&safe);
    const int race = p->o.effort != TC_EFFORT_EXHAUSTIVE;
    double fastest = 0;         /* the fastest choosable candidate's loop time */
    for (int i = 0; i < n && !st; i++) {
        if (gc[i].ms == -2)
            continue;
        tc_plan_progress_step(p, from + (1 - from) * i / n, from + (1 - from) * (i + 1) / n);
        if (strcmp(p->path.order, gc[i].order) != 0) {
            st = tc_plan_set_order(p, given, gc[i].order, NULL, err);
            const double t1 = tc_plan_now();
            if (!st && !untimed) {
                st = time_moves(p, &ops, &move_cost, err);
                p->info.tune_s += tc_plan_now() - t1;
            }
        }
        const gcand *dup = NULL;
        if (!st)
            st = build_and_time(p, gc, i, &ops, move_cost, &safe,
                                race && choosable(p, &gc[i]) ? fastest : 0, &dup, err);
        if (!st && !dup && gc[i].ms >= 0 && choosable(p, &gc[i])) {
            const double loop = tc_loop_ms(gc[i].ms, gc[i].host_ms);
            if (fastest == 0 || loop < fastest)
                fastest = loop;
        }
        if (dup) {
            char note[160];
            snprintf(note, sizeof note, "not timed: the same parameters as %s (%.100s)",
                     dup->fparams ? dup->fparams : "the defaults", gc[i].used);
            tc_plan_add_cand(p, TC_DEVICE_GPU, gc[i].order, gc[i].k->format, gc[i].fparams, "",
                             cand_precision(&gc[i]), gc[i].predicted, -1, note);
            gc[i].ms = -2;
            continue;
        }
        /* a kernel that cannot take this matrix (its format refuses it, its
           device memory runs short) is a candidate left out, unless it is
           cuSPARSE or the format asked for */
        const int must = gc[i].k == tc_kernel_baseline() ||
                         (p->o.format && strcmp(gc[i].k->format, p->o.format) == 0);
        if ((st == TC_ERR_UNSUPPORTED || st == TC_ERR_NOMEM || st == TC_ERR_INVALID) && !must) {
            char note[160];
            snprintf(note, sizeof note, "left out: %.140s", err ? err->msg : "failed");
            tc_plan_add_cand(p, TC_DEVICE_GPU, gc[i].order, gc[i].k->format, gc[i].fparams, "",
                             cand_precision(&gc[i]), gc[i].predicted, -1, note);
            gc[i].ms = -2;
            st = TC_OK;
        }
    }
    tc_safeguard_timer_free(p, &safe);
    tc_gpu_operands_free(p->gpu, &ops);
    return st;
}

/* Marks (ms -2) the candidates not to time: disallowed ones and those past
   the model's top few; records each in the plan's candidate list. The top
   few are counted apart in the given order and in the reorderings, so that
   PATIENT times everything MEASURE does (the model ranks reorderings high
   when they raise block density, which their moves can then cost back). */
static void choose_timed(tc_plan *p, gcand *gc, int n, int timed)
{
    int kept[2] = { 0, 0 };     /* given order, reorderings */
    for (int i = 0; i < n; i++) {
        char note[160] = "";
        const int given = strcmp(gc[i].order, "given") == 0;
        const int base = gc[i].k == tc_kernel_baseline() && given;
        const int allowed = kernel_allowed(p, gc[i].k, note, sizeof note);
        /* a forced format is timed in every order asked for */
        const int past_top = kept[!given] >= TOP_TIMED && !p->o.format &&
                             p->o.effort != TC_EFFORT_EXHAUSTIVE;
        if (!allowed || (!base && (!timed || past_top))) {
            if (allowed)
                snprintf(note, sizeof note, timed ? "not timed: below the model's top %d"
                                                  : "not timed (estimate)", TOP_TIMED);
            gc[i].ms = -2;
            tc_plan_add_cand(p, TC_DEVICE_GPU, gc[i].order, gc[i].k->format, NULL, "",
                             cand_precision(&gc[i]), gc[i].predicted, -1, note);
        } else if (!base) {
            kept[!given]++;
        }
    }
}

/* ESTIMATE: the model's first allowed candidate, cuSPARSE unless its
   predicted speedup clears the model's margin (model.h). */
static const gcand *estimate(const tc_plan *p, const gcand *gc, int n)
{
    const gcand *best = &gc[0];
    char note[160];
    for (int i = 1; i < n; i++)
        if (kernel_allowed(p, gc[i].k, note, sizeof note) &&
            (p->o.format || gc[i].predicted >= TC_MODEL_ESTIMATE_MARGIN)) {
            best = &gc[i];
            break;
        }
    return best;
}

/* Candidate i again at format setting `setting` (gc[*n]), or listed
   untimed and unbuilt where the format says it cannot pay on the matrix
   (at PATIENT; EXHAUSTIVE prunes nothing); neither once gc is full. */
static void add_setting(tc_plan *p, const tc_csr *given, const tc_format *f, gcand *gc, int *n,
                        int i, const char *setting)
{
    if (*n >= TC_PLAN_MAX_CANDS)
        return;
    if (p->o.effort < TC_EFFORT_EXHAUSTIVE && !tc_format_plan_param_pays(f, given, setting)) {
        tc_plan_add_cand(p, TC_DEVICE_GPU, gc[i].order, gc[i].k->format, setting, "",
                         cand_precision(&gc[i]), gc[i].predicted, -1,
                         "not timed: a setting that cannot pay on a matrix this size");
        return;
    }
    gc[*n] = gc[i];
    gc[(*n)++].fparams = setting;
}

/* "segs=N" or "segs=N,WITH" kept in p for the candidates to point to
   (they are sorted, so not in themselves), one copy each; NULL when p has
   no room left or the setting does not fit. */
static const char *wave_setting(tc_plan *p, int64_t segs, const char *with)
{
    char s[sizeof p->wave_params[0]];
    if (snprintf(s, sizeof s, "segs=%lld%s%s", (long long)segs, with ? "," : "",
                 with ? with : "") >= (int)sizeof s)
        return NULL;
    for (size_t i = 0; i < sizeof p->wave_params / sizeof p->wave_params[0]; i++) {
        if (!p->wave_params[i][0])
            memcpy(p->wave_params[i], s, sizeof s);
        if (strcmp(p->wave_params[i], s) == 0)
            return p->wave_params[i];
    }
    return NULL;
}

/* PATIENT and EXHAUSTIVE: each candidate to time (not marked out) again
   at every parameter setting its format lists for plans, in the same
   order, then, for a kernel that says what one wave of it runs
   (tc_kernel.wave_items), at a cut of at most one and two waves of this
   device at n (the format's parameter segs), alone and with each of the
   format's wave settings. Returns the new count. */
static int add_param_settings(tc_plan *p, const tc_csr *given, gcand *gc, int n)
{
    const int listed = n;
    for (int i = 0; p->o.effort >= TC_EFFORT_PATIENT && i < listed; i++) {
        const tc_format *f = tc_format_find(gc[i].k->format);
        if (gc[i].ms == -2 || !f)
            continue;
        for (const char *const *s = tc_format_plan_params(f); s && *s; s++)
            add_setting(p, given, f, gc, &n, i, *s);
        const int64_t wave = p->gpu && gc[i].k->wave_items
                                 ? gc[i].k->wave_items(tc_gpu_get_info(p->gpu), p->o.n)
                                 : 0;
        const char *const *with = tc_format_wave_params(f);
        for (int w = 1; wave > 0 && w <= 2; w++)
            for (int s = -1; s < 0 || (with && with[s]); s++) {
                const char *setting = wave_setting(p, w * wave, s < 0 ? NULL : with[s]);
                if (setting)
                    add_setting(p, given, f, gc, &n, i, setting);
            }
    }
    return n;
}

static void set_path(tc_plan *p, const gcand *c)
{
    p->path.kernel = c->k;
    p->path.format = tc_format_find(c->k->format);
    p->path.variant = c->variant;
    snprintf(p->info.format, sizeof p->info.format, "%s", c->k->format);
    /* precision and tolerance: tc_plan_gpu_ready's, from the variant run */
    p->info.ms = c->ms >= 0 ? c->ms : -1;
    p->info.host_ms = c->ms >= 0 ? c->host_ms : -1;
    p->info.safeguard_ms = c->ms >= 0 ? c->safe_ms : -1;
    p->info.predicted_speedup = c->predicted;
    if (c->ms >= 0 && !p->info.reused) {
        memcpy(p->variant_ms, c->vms, sizeof p->variant_ms);
        memcpy(p->variant_host_ms, c->vhost, sizeof p->variant_host_ms);
        memcpy(p->variant_runs, c->vruns, sizeof p->variant_runs);
    }
}

static tc_status plan_new(tc_plan *p, const tc_csr *given, tc_error *err)
{
    gcand gc[TC_PLAN_MAX_CANDS];
    int n = 0;
    memset(p->wave_params, 0, sizeof p->wave_params);  /* no candidate of before points there */
    tc_status st = list_cands(p, given, gc, &n, err);
    const int timed = p->o.effort != TC_EFFORT_ESTIMATE;
    if (!st) {
        choose_timed(p, gc, n, timed);
        n = add_param_settings(p, given, gc, n);
    }
    if (!st && timed)
        st = time_cands(p, given, gc, n, err);
    if (st)
        return st;
    const gcand *best = NULL;
    for (int i = 0; timed && i < n; i++) {
        if (gc[i].k == tc_kernel_baseline() && strcmp(gc[i].order, "given") == 0)
            p->info.cusparse_ms = gc[i].ms;
        if (gc[i].ms < 0)
            continue;
        const int other = !choosable(p, &gc[i]);
        char note[160] = "";
        if (other)
            snprintf(note, sizeof note, "timed for the payback only: the format is forced");
        else if (gc[i].runs < p->o.iters)
            snprintf(note, sizeof note, "timed over its first %d runs: slower than %g times "
                     "the fastest so far", gc[i].runs, TC_TUNE_MARGIN);
        plan_cand *c = tc_plan_add_cand(p, TC_DEVICE_GPU, gc[i].order, gc[i].k->format,
                                        gc[i].fparams, gc[i].k->variant_names[gc[i].variant],
                                        cand_precision(&gc[i]), gc[i].predicted, gc[i].ms, note);
        if (c)
            c->pub.host_ms = gc[i].host_ms;
        if (!other && (!best || tc_loop_ms(gc[i].ms, gc[i].host_ms) <
                                    tc_loop_ms(best->ms, best->host_ms)))
            best = &gc[i];
    }
    if (!best && timed)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "plan: no candidate could be timed");
    /* ESTIMATE: the model ranks formats, not variants; the chosen kernel is
       built and prepared (so that one which cannot take the matrix gives
       way to cuSPARSE) and runs its first variant that takes the matrix,
       untimed (time_cand) */
    gcand one;
    if (!best) {
        one = *estimate(p, gc, n);
        one.ms = -1;
        if (!p->o.variant)
            st = time_cands(p, given, &one, 1, err);
        /* the model's choice could not take the matrix: cuSPARSE (gc[0],
           unsorted on this path) */
        if (!st && one.ms == -2) {
            one = gc[0];
            st = time_cands(p, given, &one, 1, err);
        }
        if (st)
            return st;
        best = &one;
        tc_plan_add_cand(p, TC_DEVICE_GPU, best->order, best->k->format, NULL,
                         best->variant >= 0 ? best->k->variant_names[best->variant] : "",
                         cand_precision(best), best->predicted, best->ms,
                         "the model's choice, its first variant that takes the matrix "
                         "(nothing timed)");
    }
    set_path(p, best);
    memset(&p->path.format_params, 0, sizeof p->path.format_params);
    if (best->fparams)  /* a format's plan_params or a wave's segs: it parses */
        (void)tc_params_parse(&p->path.format_params, best->fparams, NULL);
    if (strcmp(p->path.order, best->order) != 0)
        st = tc_plan_set_order(p, given, best->order, NULL, err);
    tc_plan_sort_cands(p);
    return st;
}

tc_status tc_plan_gpu(tc_plan *p, const tc_csr *given, int reuse, tc_error *err)
{
    tc_status st;
    if (reuse) {
        /* the stored plan's time; its safeguards were not timed again */
        const gcand c = { .order = p->path.order, .k = p->path.kernel,
                          .predicted = p->info.predicted_speedup, .ms = p->info.ms,
                          .host_ms = -1, .safe_ms = -1, .variant = p->path.variant };
        set_path(p, &c);
        st = tc_plan_set_order(p, given, p->path.order, &p->path.order_params, err);
    } else {
        st = plan_new(p, given, err);
    }
    snprintf(p->info.order, sizeof p->info.order, "%s", p->path.order);
    /* the one text of the settings: the report, the plan's why and its
       file take it from here */
    tc_params_text(&p->path.format_params, p->info.format_params, sizeof p->info.format_params);
    return st ? st : tc_plan_gpu_ready(p, err);
}
