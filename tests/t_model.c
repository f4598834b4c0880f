/* t_model: the invariants of the planner's model (plan/model.c) on random
   matrices: the ranking is sorted best first, cuSPARSE (the canonical
   format) is in it once at 1, every format with a fitted row is in it in
   the given order and after each reordering the model tries, every reason
   is non-empty and, for a modelled format, names its order; the same
   ranking whatever the thread count; tc_plan_advise keeps only the paths
   that meet an accuracy; rowsplit, once a prior, ranks from its fitted
   row (the prior itself is model-fit.sh's: the header it writes); and a
   planner's reorderer serves the reordered matrices. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "model_internal.h"
#include "tcsparse_plan.h"
#include "tap.h"
#include "testmat.h"

/* How many of the c[0..n) are format f in `order`. */
static int count_of(const tc_model_candidate *c, int n, const tc_format *f, const char *order)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += c[i].format == f && strcmp(c[i].order, order) == 0;
    return k;
}

static void check_ranking(const tc_model_candidate *c, int n, const char *what)
{
    int sorted = 1, reasons = 1, named = 1;
    for (int i = 0; i < n; i++) {
        sorted &= i == 0 || c[i - 1].predicted_speedup >= c[i].predicted_speedup;
        reasons &= c[i].reason[0] != '\0';
        if (strcmp(c[i].order, "given") != 0)
            named &= strstr(c[i].reason, c[i].order) != NULL;
    }
    ok(sorted, "%s: sorted best first", what);
    ok(reasons, "%s: every reason non-empty", what);
    ok(named, "%s: a reordered candidate's reason names its order", what);
    int baseline = 1, modelled = 1;
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        if (tc_format_is_canonical(f)) {
            baseline &= count_of(c, n, f, "given") == 1;
            for (int k = 0; k < n; k++)
                baseline &= c[k].format != f || c[k].predicted_speedup == 1;
        } else if (tc_model_precision(f)) {
            modelled &= count_of(c, n, f, "given") == 1;
            for (int o = 0; o < tc_model_order_count(); o++)
                modelled &= count_of(c, n, f, tc_model_order_at(o)) == 1;
        } else {
            modelled &= count_of(c, n, f, "given") == 1;
        }
    }
    ok(baseline, "%s: cuSPARSE once, at 1", what);
    ok(modelled, "%s: every format, and each modelled one in every order", what);
}

/* The ranking of a at n with TC_THREADS = threads. */
static tc_model_candidate *rank_with(const tc_csr *a, int32_t n, const char *threads, int *count)
{
    setenv("TC_THREADS", threads, 1);
    tc_model_candidate *c = NULL;
    tc_error err;
    if (tc_model_rank(a, n, 1, &c, count, NULL, &err))
        diag("tc_model_rank: %s", err.msg);
    unsetenv("TC_THREADS");
    return c;
}

static int same_ranking(const tc_model_candidate *a, const tc_model_candidate *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].format != b[i].format || strcmp(a[i].order, b[i].order) != 0 ||
            a[i].predicted_speedup != b[i].predicted_speedup ||
            strcmp(a[i].reason, b[i].reason) != 0)
            return 0;
    return 1;
}

static void check_matrix(const tc_csr *a, const char *what)
{
    static const int32_t ns[] = { 1, 32, 256 };
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        char name[128];
        snprintf(name, sizeof name, "%s, n = %d", what, (int)ns[k]);
        int n1 = 0, n3 = 0;
        tc_model_candidate *c1 = rank_with(a, ns[k], "1", &n1);
        tc_model_candidate *c3 = rank_with(a, ns[k], "3", &n3);
        ok(c1 && c3 && n1 > 0, "%s: ranked", name);
        if (c1 && c3 && n1 > 0) {
            check_ranking(c1, n1, name);
            ok(n1 == n3 && same_ranking(c1, c3, n1), "%s: the same on 1 and 3 threads", name);
        }
        free(c1);
        free(c3);
    }
}

/* With accuracy fp32 only the fp32 paths (cuSPARSE's, rowsplit's) may be
   advised; with none, every candidate. */
static void check_accuracy(const tc_csr *a)
{
    tc_error err;
    tc_report *any = tc_report_new(), *fp32 = tc_report_new();
    int ok_any = !tc_plan_advise(a, 32, NULL, any, NULL, &err);
    int ok_fp32 = !tc_plan_advise(a, 32, "fp32", fp32, NULL, &err);
    ok(ok_any && ok_fp32, "tc_plan_advise: no accuracy, and fp32");
    int fp32_only = 1, n_fp32 = 0, n_any = 0;
    for (int i = 0; i < tc_report_count(fp32); i++) {
        const tc_report_entry *e = tc_report_at(fp32, i);
        if (strncmp(e->section, "advice.", 7) == 0 && strcmp(e->key, "precision") == 0) {
            fp32_only &= strcmp(e->str, "fp32") == 0;
            n_fp32++;
        }
    }
    for (int i = 0; i < tc_report_count(any); i++) {
        const tc_report_entry *e = tc_report_at(any, i);
        n_any += strncmp(e->section, "advice.", 7) == 0 && strcmp(e->key, "format") == 0;
    }
    int model_count = 0;
    tc_model_candidate *c = rank_with(a, 32, "2", &model_count);
    int fp32_paths = 0;
    for (int i = 0; c && i < model_count; i++) {
        const char *prec = tc_model_precision(c[i].format);
        fp32_paths += prec && strcmp(prec, "fp32") == 0;
    }
    ok(fp32_only && n_fp32 == fp32_paths,
       "accuracy fp32: cuSPARSE and the ranking's other fp32 paths alone (%d advised of %d)",
       n_fp32, fp32_paths);
    is_int(n_any, model_count, "no accuracy: every candidate of the ranking");
    /* advice.R is the R-th of tc_model_rank's ranking: what tcstat --advise
       prints is the model's ranking */
    int same = c != NULL;
    for (int i = 0; same && i < tc_report_count(any); i++) {
        const tc_report_entry *e = tc_report_at(any, i);
        int rank = strncmp(e->section, "advice.", 7) == 0 ? atoi(e->section + 7) : 0;
        if (rank < 1 || rank > model_count)
            continue;
        if (strcmp(e->key, "format") == 0)
            same &= strcmp(e->str, tc_format_name(c[rank - 1].format)) == 0;
        if (strcmp(e->key, "order") == 0)
            same &= strcmp(e->str, c[rank - 1].order) == 0;
        if (strcmp(e->key, "reason") == 0)
            same &= strcmp(e->str, c[rank - 1].reason) == 0;
    }
    ok(same, "tc_plan_advise reports tc_model_rank's ranking, in its order");
    free(c);
    tc_report *bad = tc_report_new();
    ok(tc_plan_advise(a, 32, "fp8", bad, NULL, &err) == TC_ERR_ARG && strstr(err.msg, "fp8"),
       "an unknown accuracy is refused, naming it");
    ok(tc_plan_advise(a, 0, NULL, bad, NULL, &err) == TC_ERR_ARG, "n = 0 is refused");
    tc_report_free(any);
    tc_report_free(fp32);
    tc_report_free(bad);
}

/* rowsplit's row is fitted (bench/results/rowsplit.tsv on the shared
   matrices): it ranks in the given order and after each reordering, its
   prediction from the matrix's figures (no longer the prior's parity for
   every matrix), its reasons a fitted format's, and its precision its
   kernel's. */
static void check_rowsplit(const tc_csr *a, const tc_csr *b, const char *what)
{
    const tc_format *f = tc_format_find("rowsplit");
    int na = 0, nb = 0, found = 0, fitted = 1;
    double pa = 0, pb = 0;
    tc_model_candidate *ca = rank_with(a, 128, "1", &na), *cb = rank_with(b, 128, "1", &nb);
    for (int i = 0; ca && i < na; i++) {
        if (ca[i].format != f)
            continue;
        found++;
        fitted &= strstr(ca[i].reason, "rowsplit predicted") != NULL &&
                  strstr(ca[i].reason, "not measured yet") == NULL;
        if (strcmp(ca[i].order, "given") == 0)
            pa = ca[i].predicted_speedup;
    }
    for (int i = 0; cb && i < nb; i++)
        if (cb[i].format == f && strcmp(cb[i].order, "given") == 0)
            pb = cb[i].predicted_speedup;
    ok(f && found == 1 + tc_model_order_count() && fitted,
       "%s: rowsplit ranked in every order from its fitted row, its reasons saying so", what);
    ok(pa > 0 && pb > 0 && pa != pb,
       "rowsplit's prediction follows the matrix (%.3f and %.3f on two matrices)", pa, pb);
    is_str(tc_model_precision(f), "fp32", "rowsplit's row carries its kernel's precision");
    free(ca);
    free(cb);
}

/* A reorderer that runs the reordering itself, counting its calls. */
typedef struct counted {
    const tc_csr *a;
    tc_csr *b;
    int calls;
    int fail;                   /* 1: fails every time */
} counted;

static tc_status counted_reorder(void *ctx, const char *order, const tc_csr **out,
                                 tc_error *err)
{
    counted *c = ctx;
    c->calls++;
    tc_csr_free(c->b);
    c->b = NULL;
    tc_params none = { 0 };
    tc_perm *q = NULL;
    const tc_reorder_method *m = tc_reorder_find(order);
    tc_status st = m && !c->fail ? tc_reorder_run(m, c->a, &none, &q, NULL, err)
                                 : tc_error_set(err, TC_ERR_NOMEM, "no %s this time", order);
    if (!st)
        st = tc_csr_permute(c->a, q, NULL, &c->b, err);
    tc_perm_free(q);
    *out = c->b;
    return st;
}

/* tc_model_rank_reordered asks its reorderer for each reordering the model
   tries, once, and ranks as tc_model_rank does; a reorderer's failure is
   the ranking's. */
static void check_reorderer(const tc_csr *a, const char *what)
{
    int n0 = 0, n1 = 0;
    tc_model_candidate *c0 = rank_with(a, 64, "2", &n0), *c1 = NULL;
    counted ctx = { a, NULL, 0, 0 };
    const tc_model_reorderer r = { counted_reorder, &ctx };
    tc_error err;
    tc_status st = tc_model_rank_reordered(a, 64, 1, &r, &c1, &n1, NULL, &err);
    ok(st == TC_OK && ctx.calls == tc_model_order_count(),
       "%s: the reorderer asked for each of the model's %d reorderings once (%d calls)", what,
       tc_model_order_count(), ctx.calls);
    ok(c0 && c1 && n0 == n1 && same_ranking(c0, c1, n0), "%s: ... the same ranking", what);
    free(c1);
    c1 = NULL;
    ctx.fail = 1;
    st = tc_model_rank_reordered(a, 64, 1, &r, &c1, &n1, NULL, &err);
    ok(tc_model_order_count() == 0 || (st != TC_OK && !c1),
       "%s: ... a reorderer's failure is the ranking's", what);
    free(c0);
    free(c1);
    tc_csr_free(ctx.b);
}

int main(void)
{
    tc_csr *dense = tap_random_matrix(200, 150, 40, 3, 7, 0);
    tc_csr *sparse = tap_random_matrix(1000, 1000, 3, -1, -1, 1);
    tc_csr *empty = tap_random_matrix(37, 19, 0, -1, -1, 0);
    tc_csr *one = tap_random_matrix(1, 1, 1, -1, -1, 0);
    if (!dense || !sparse || !empty || !one)
        skip_all("could not build the test matrices");
    check_matrix(dense, "200 x 150 with a dense row and column");
    check_matrix(sparse, "1000 x 1000 pattern, 3 per row");
    check_matrix(empty, "37 x 19 empty");
    check_matrix(one, "1 x 1");
    int n = 0;
    tc_model_candidate *c = rank_with(empty, 32, "1", &n);
    ok(c && n > 0 && tc_format_is_canonical(c[0].format),
       "an empty matrix: cuSPARSE first, nothing for tensor cores");
    free(c);
    check_accuracy(sparse);
    check_rowsplit(sparse, dense, "1000 x 1000 pattern, 3 per row");
    check_reorderer(dense, "200 x 150 with a dense row and column");
    tc_csr_free(dense);
    tc_csr_free(sparse);
    tc_csr_free(empty);
    tc_csr_free(one);
    return done_testing();
}
