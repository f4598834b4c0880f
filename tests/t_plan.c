/* t_plan: the planner's pieces that need no GPU: the power of two that
   brings B into fp16's range, the check of A's values for the fp16 paths,
   the content hash of plan keys, and the plan API on the CPU (a forced
   order applied and undone, leading dimensions, tc_plan_verify, argument
   errors). */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tcsparse.h"
#include "testmat.h"
#include "fp16_scale.h"
#include "plan_internal.h"
#include "progresslog.h"

/* x 2^s lies in [2^14, 2^15) whenever s is not 0. */
static int in_top_binade(double x)
{
    const int s = tc_fp16_b_exponent(x);
    const double y = ldexp(x, s);
    return s != 0 && y >= 16384 && y < 32768;
}

static void test_exponent(void)
{
    is_int(tc_fp16_b_exponent(1.0), 0, "1 fits fp16: no scaling");
    is_int(tc_fp16_b_exponent(65504.0), 0, "65504, fp16's largest, fits");
    is_int(tc_fp16_b_exponent(TC_FP16_MIN_NORMAL), 0, "2^-14, fp16's smallest normal, fits");
    ok(in_top_binade(65505.0), "65505 does not fit: scaled into [2^14, 2^15)");
    is_int(tc_fp16_b_exponent(65536.0), -2, "2^16: scaled by 2^-2");
    ok(in_top_binade(1e6), "1e6: scaled into [2^14, 2^15)");
    is_int(tc_fp16_b_exponent(ldexp(1.0, -15)), 29, "2^-15 (fp16 subnormal): scaled by 2^29");
    ok(in_top_binade(1e-7), "1e-7 (flushed by fp16): scaled into [2^14, 2^15)");
    ok(in_top_binade(3.4e38), "float's largest: scaled down");
    ok(in_top_binade(1.4e-45), "float's smallest subnormal: scaled up");
    is_int(tc_fp16_b_exponent(0.0), 0, "an all-zero B: no scaling");
    is_int(tc_fp16_b_exponent(INFINITY), 0, "a B holding Inf: no scaling (Inf stays Inf)");
    is_int(tc_fp16_b_exponent(NAN), 0, "a B holding NaN: no scaling");
    /* the scaling and its inverse are exact in float32 */
    const float b = 123456.789f;
    const int s = tc_fp16_b_exponent(b);
    ok(ldexpf(ldexpf(b, s), -s) == b && ldexpf(b, s) <= 65504, "B 2^s 2^-s is B, bit for bit");
}

static void test_hash(void)
{
    tc_csr *a = tap_random_matrix(300, 200, 5, 7, 9, 0), *b = NULL;
    tc_csr_copy(a, &b, NULL);
    is_int(tc_plan_hash_csr(a) == tc_plan_hash_csr(b), 1, "equal matrices hash alike");
    b->val[b->nnz / 2] += 1e-12;
    is_int(tc_plan_hash_csr(a) == tc_plan_hash_csr(b), 0, "one value changed: another hash");
    b->val[b->nnz / 2] = a->val[a->nnz / 2];
    b->colidx[0] ^= 1;
    is_int(tc_plan_hash_csr(a) == tc_plan_hash_csr(b), 0, "one column changed: another hash");
    tc_csr_free(a);
    tc_csr_free(b);
}

/* A forced order on the CPU with ldb, ldc > n: C in the caller's order and
   its padding untouched. */
static void test_cpu_plan(void)
{
    tc_csr *a = tap_random_matrix(500, 400, 6, 3, 11, 0);
    const int32_t n = 5, ld = 8;
    tc_plan_opts o;
    tc_plan_opts_init(&o);
    o.n = n;
    o.device = TC_DEVICE_CPU;
    o.order = "rcm";
    o.effort = TC_EFFORT_MEASURE;   /* timed, so that its saved plan serves */
    o.cache_dir = "";
    tc_plan *p = NULL;
    tc_error err;
    tc_status st = tc_plan_create(a, &o, &p, &err);
    ok(st == TC_OK, "tc_plan_create on the CPU, order rcm%s%s", st ? ": " : "", st ? err.msg : "");
    if (st) {
        tc_csr_free(a);
        return;
    }
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    is_str(info.order, "rcm", "the plan's order is rcm");
    float *B = malloc(sizeof *B * 400 * ld), *C = malloc(sizeof *C * 500 * ld);
    float *R = malloc(sizeof *R * 500 * n);
    for (int i = 0; i < 400 * ld; i++)
        B[i] = (float)tap_rand(2001) / 1000 - 1;
    for (int i = 0; i < 500 * ld; i++)
        C[i] = -7;
    st = tc_plan_execute(p, B, ld, C, ld, NULL, &err);
    ok(st == TC_OK, "tc_plan_execute with ldb = ldc = 8 > n = 5");
    int pad = 1;
    for (int i = 0; i < 500; i++)
        for (int k = n; k < ld; k++)
            pad &= C[i * ld + k] == -7;
    ok(pad, "... C's padding columns untouched");
    tc_compare c;
    int pass = 0;
    st = tc_plan_verify(p, B, ld, C, ld, &c, &pass, &err);
    ok(st == TC_OK && pass, "... C passes tc_plan_verify (rel_fro %g)", c.rel_fro);
    tc_spmm_cpu_f32(a, B, ld, n, R, n, 1, NULL);
    int same = 1;
    for (int i = 0; i < 500; i++)
        for (int k = 0; k < n; k++)
            same &= C[i * ld + k] == R[i * n + k];
    ok(same, "... and equals the given order's product bit for bit: rows back in place");
    C[3 * ld + 1] += 1;
    st = tc_plan_verify(p, B, ld, C, ld, &c, &pass, &err);
    ok(st == TC_OK && !pass && c.max_at == 3 * n + 1, "a wrong element fails, found at row 3");
    is_int(tc_plan_execute(p, B, ld, C, ld, (void *)&o, &err), TC_ERR_ARG,
           "a stream with a CPU plan: TC_ERR_ARG");
    is_int(tc_plan_execute(p, B, 4, C, ld, NULL, &err), TC_ERR_ARG, "ldb < n: TC_ERR_ARG");
    /* tc_plan_save, then a plan from that file: reused, in the same order */
    char path[] = "/tmp/t_plan.XXXXXX";
    const int fd = mkstemp(path);
    st = fd >= 0 ? tc_plan_save(p, path, &err) : TC_ERR_IO;
    ok(st == TC_OK, "tc_plan_save");
    tc_plan_free(p);
    o.plan_file = path;
    o.order = NULL;
    st = tc_plan_create(a, &o, &p, &err);
    tc_plan_get_info(p, &info);
    ok(st == TC_OK && info.reused && strcmp(info.order, "rcm") == 0 && info.tune_s == 0,
       "a plan from the saved file is reused, order rcm, nothing tuned");
    o.plan_file = NULL;
    o.order = "rcm";
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    tc_plan_free(p);
    o.format = "brp";
    is_int(tc_plan_create(a, &o, &p, &err), TC_ERR_ARG, "the CPU with format brp: TC_ERR_ARG");
    o.format = NULL;
    o.accuracy = "fp64";
    is_int(tc_plan_create(a, &o, &p, &err), TC_ERR_ARG, "accuracy fp64: TC_ERR_ARG");
    free(B);
    free(C);
    free(R);
    tc_csr_free(a);
}

/* Options of a patient CPU plan at n, not cached. */
static tc_plan_opts cpu_patient(int32_t n)
{
    tc_plan_opts o;
    tc_plan_opts_init(&o);
    o.n = n;
    o.device = TC_DEVICE_CPU;
    o.effort = TC_EFFORT_PATIENT;
    o.cache_dir = "";
    return o;
}

/* A reordering at its defaults runs once while planning (plan/order.c):
   set again, the plan takes the permutation it kept, the same as a fresh
   run's; with parameters, or once forgotten, it runs again. A patient CPU
   plan, which times every order and then sets the best one again, runs
   each reordering once. */
static void test_kept_orders(void)
{
    tc_csr *a = tap_random_matrix(700, 700, 5, 3, 23, 0);
    const tc_plan_opts o = cpu_patient(4);
    tc_plan *p = NULL;
    tc_error err;
    if (!ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "a patient CPU plan")) {
        diag("  %s", err.msg);
        tc_csr_free(a);
        return;
    }
    const char *orders[32];
    const int norders = tc_plan_orders(orders, 32);
    ok(p->reorder_runs == norders, "... ran each of the %d reorderings once (%d runs)", norders,
       p->reorder_runs);
    is_int(p->nkept, 0, "... and kept none once made");
    const tc_reorder_method *m = tc_reorder_find("rcm");
    tc_params none = { 0 };
    tc_perm *fresh = NULL;
    tc_status st = m ? tc_reorder_run(m, a, &none, &fresh, NULL, &err) : TC_ERR_ARG;
    const int before = p->reorder_runs;
    int same = st == TC_OK;
    for (int k = 0; k < 2 && same; k++) {
        same &= tc_plan_set_order(p, a, "rcm", NULL, &err) == TC_OK && p->row &&
                p->row->n == fresh->n;
        for (int32_t i = 0; same && i < fresh->n; i++)
            same &= p->row->new2old[i] == fresh->new2old[i];
    }
    ok(same, "rcm set twice: both times a fresh run's permutation");
    is_int(p->reorder_runs - before, 1, "... run once");
    tc_params params = { 0 };
    st = tc_params_parse(&params, "bipartite=1", &err);
    ok(st == TC_OK && tc_plan_set_order(p, a, "rcm", &params, &err) == TC_OK &&
           p->reorder_runs - before == 2, "... with parameters, run again");
    tc_plan_forget_orders(p);
    ok(tc_plan_set_order(p, a, "rcm", NULL, &err) == TC_OK && p->reorder_runs - before == 3,
       "... and once forgotten");
    tc_perm_free(fresh);
    tc_plan_free(p);
    tc_csr_free(a);
}

/* A plan's progress is one bar (plan/progress.c): a patient CPU plan
   reports each order as a step and its reorderings inside their steps,
   never backwards, and ends at the whole. */
static void test_plan_progress(void)
{
    tc_csr *a = tap_random_matrix(900, 900, 6, 3, 29, 0);
    tc_plan_opts o = cpu_patient(4);
    progress_log l = { 0, 0, 0, 0 };
    const tc_progress prog = { log_progress, &l };
    o.progress = &prog;
    tc_plan *p = NULL;
    tc_error err;
    const tc_status st = tc_plan_create(a, &o, &p, &err);
    ok(st == TC_OK, "a patient CPU plan with progress%s%s", st ? ": " : "", st ? err.msg : "");
    const char *orders[32];
    const int steps = 1 + tc_plan_orders(orders, 32);
    ok(l.reports > steps, "... %d reports, more than its %d orders", l.reports, steps);
    ok(progress_log_whole(&l), "... never backwards, of one total, ending at the whole (%lld of "
       "%lld)", (long long)l.last, (long long)l.total);
    tc_plan_free(p);
    tc_csr_free(a);
}

/* An exhaustive plan's candidates fit the plan's list: every format in
   every order, once for its defaults, once for each plan setting and, for
   a format with wave settings (rowsplit, whose kernel gives its waves),
   at two waves' cuts alone and with each; and the other device's line. */
static void test_candidate_room(void)
{
    int per_order = 0;
    for (int i = 0; i < tc_format_count(); i++) {
        const char *const *s = tc_format_plan_params(tc_format_at(i));
        const char *const *w = tc_format_wave_params(tc_format_at(i));
        per_order++;
        while (s && *s++)
            per_order++;
        if (w)
            per_order += 2;
        while (w && *w++)
            per_order += 2;
    }
    const int need = (1 + tc_reorder_count()) * per_order + 1;
    ok(need <= TC_PLAN_MAX_CANDS, "an exhaustive plan's %d candidates fit its list of %d", need,
       TC_PLAN_MAX_CANDS);
}

/* Every plan and wave setting a format lists is parameters it takes,
   within their bounds: a patient plan that built one that is not would
   fail (the build's TC_ERR_ARG is no candidate's to leave out,
   plan/gpu.c). */
static void test_plan_settings_valid(void)
{
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        int ndefs = 0;
        const tc_param_def *defs = tc_format_params(f, &ndefs);
        const char *const *lists[2] = { tc_format_plan_params(f), tc_format_wave_params(f) };
        for (int l = 0; l < 2; l++)
            for (const char *const *s = lists[l]; s && *s; s++) {
                tc_params q = { 0 };
                tc_error err;
                ok(tc_params_parse(&q, *s, &err) == TC_OK &&
                       tc_params_check(&q, defs, ndefs, tc_format_name(f), &err) == TC_OK,
                   "%s's %s setting %s: parameters it takes", tc_format_name(f),
                   l ? "wave" : "plan", *s);
            }
    }
}

/* The settings of segments smaller than rowsplit's default are left out of
   plans where its default cut (seg 128 on empty rows, each costing 2)
   gives 131072 segments or more, 8388608 rows' cost, and those at rowcost 1
   where its cut at 1 does (twice the rows); the orders and every other
   format's settings are timed whatever the size. */
static void test_plan_settings_pay(void)
{
    const tc_format *rs = tc_format_find("rowsplit");
    tc_csr *small = tap_random_matrix(1000, 1000, 8, 7, -1, 0), *below = NULL, *at = NULL;
    tc_error err;
    ok(small && tc_csr_alloc(&below, 8388607, 1, 0, 0, &err) == TC_OK &&
           tc_csr_alloc(&at, 8388608, 1, 0, 0, &err) == TC_OK,
       "matrices of 1000 rows, and of 8388607 and 8388608 empty rows");
    if (!small || !below || !at) {
        tc_csr_free(small);
        tc_csr_free(below);
        tc_csr_free(at);
        return;
    }
    int at_one = 0;
    for (const char *const *s = tc_format_plan_params(rs); s && *s; s++) {
        const int seg = strstr(*s, "seg=") != NULL, one = strstr(*s, "rowcost=1") != NULL;
        is_int(tc_format_plan_param_pays(rs, small, *s), 1, *s);
        is_int(tc_format_plan_param_pays(rs, below, *s), 1, *s);
        ok(tc_format_plan_param_pays(rs, at, *s) == (!seg || one),
           "rowsplit's %s on 8388608 rows: %s", *s,
           seg && !one ? "cannot pay" : one ? "timed (65536 segments at rowcost 1)" : "timed");
        at_one += one;
    }
    /* every plan setting, and the defaults, also at rowcost=1 */
    is_int(at_one, 9, "rowsplit lists its eight plan settings and the defaults at rowcost=1 too");
    /* a plan's wave settings (segs=N, alone or with rowcost): timed where
       the cut at the setting's rowcost has fewer than 4 N segments by
       default (at 8388608 empty rows, 131072 at rowcost 2; 262144 at 4,
       seg 128 still) */
    ok(tc_format_plan_param_pays(rs, small, "segs=16896"), "segs=16896 on 1000 rows: timed");
    ok(tc_format_plan_param_pays(rs, small, "segs=16896,rowcost=4"),
       "segs=16896,rowcost=4 on 1000 rows: timed");
    ok(!tc_format_plan_param_pays(rs, at, "segs=16384,rowcost=1"),
       "... segs=16384,rowcost=1 not (65536 segments at rowcost 1)");
    ok(tc_format_plan_param_pays(rs, at, "segs=16385,rowcost=1"),
       "... segs=16385,rowcost=1 is timed");
    ok(!tc_format_plan_param_pays(rs, at, "segs=16896"),
       "segs=16896 on 8388608 rows (131072 segments by default): cannot pay");
    ok(!tc_format_plan_param_pays(rs, at, "segs=32768"), "... segs=32768 neither (4 x = 131072)");
    ok(tc_format_plan_param_pays(rs, at, "segs=32769"), "... segs=32769 is timed");
    ok(!tc_format_plan_param_pays(rs, at, "segs=65536,rowcost=4"),
       "... segs=65536,rowcost=4 not (262144 segments at rowcost 4)");
    ok(tc_format_plan_param_pays(rs, at, "segs=65537,rowcost=4"),
       "... segs=65537,rowcost=4 is timed");
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        for (const char *const *s = tc_format_plan_params(f); f != rs && s && *s; s++)
            ok(tc_format_plan_param_pays(f, at, *s), "%s's %s pays on any matrix",
               tc_format_name(f), *s);
    }
    tc_csr_free(small);
    tc_csr_free(below);
    tc_csr_free(at);
}

int main(void)
{
    test_candidate_room();
    test_plan_settings_valid();
    test_plan_settings_pay();
    test_exponent();
    test_hash();
    test_cpu_plan();
    test_kept_orders();
    test_plan_progress();
    return done_testing();
}
