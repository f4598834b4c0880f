/* t_reorder: the reordering registry and its methods: valid permutations on
   awkward shapes, the degree order, RCM undoing a scramble, determinism. */
#include "config.h"
#include <stdlib.h>
#include "tcsparse.h"
#include "tap.h"

static void bail(const char *msg)
{
    printf("Bail out! %s\n", msg);
    exit(1);
}


static tc_csr *from_coo(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                        const int32_t *ci, int values)
{
    double *v = NULL;
    if (values) {
        v = malloc(sizeof(double) * (n + 1));
        for (int64_t k = 0; k < n; k++)
            v[k] = 1 + tap_rand(9);
    }
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, v, 1, &err))
        bail(err.msg);
    free(v);
    return a;
}

/* Random entries, one empty row in 7, plus a dense row and a dense column. */
static tc_csr *random_matrix(int32_t rows, int32_t cols, int64_t nnz, int values)
{
    int64_t cap = nnz + (int64_t)rows + cols + 1, n = 0;
    int32_t *ri = malloc(sizeof(int32_t) * cap), *ci = malloc(sizeof(int32_t) * cap);
    for (int64_t k = 0; k < nnz && rows && cols; k++) {
        int32_t i = (int32_t)tap_rand((uint32_t)rows);
        if (i % 7 == 3)
            continue;
        ri[n] = i;
        ci[n++] = (int32_t)tap_rand((uint32_t)cols);
    }
    for (int32_t c = 0; rows > 1 && c < cols; c++, n++) {
        ri[n] = 1;
        ci[n] = c;
    }
    for (int32_t i = 0; cols > 1 && i < rows; i++, n++) {
        ri[n] = i;
        ci[n] = 2 % cols;
    }
    tc_csr *a = from_coo(rows, cols, n, ri, ci, values);
    free(ri);
    free(ci);
    return a;
}

static int64_t bandwidth(const tc_csr *a)
{
    int64_t b = 0;
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++) {
            int64_t d = (int64_t)a->colidx[e] - i;
            d = d < 0 ? -d : d;
            b = d > b ? d : b;
        }
    return b;
}

static tc_perm *run(const char *method, const tc_csr *a, const char *params)
{
    tc_params p = { 0 };
    tc_error err;
    tc_perm *perm;
    if ((params && tc_params_parse(&p, params, &err)) ||
        tc_reorder_run(tc_reorder_find(method), a, &p, &perm, NULL, &err))
        bail(err.msg);
    return perm;
}

static int is_bijection(const tc_perm *p, int32_t n)
{
    if (p->n != n)
        return 0;
    char *seen = calloc((size_t)n + 1, 1);
    int good = 1;
    for (int32_t i = 0; i < n && good; i++) {
        int32_t v = p->new2old[i];
        good = v >= 0 && v < n && !seen[v] && p->old2new[v] == i;
        if (good)
            seen[v] = 1;
    }
    free(seen);
    return good;
}

static void test_registry(void)
{
    ok(tc_reorder_count() >= 2, "%d methods registered", tc_reorder_count());
    is_str(tc_reorder_name(tc_reorder_at(0)), "degree", "degree first");
    is_str(tc_reorder_name(tc_reorder_at(1)), "rcm", "rcm second");
    ok(tc_reorder_at(tc_reorder_count()) == NULL && tc_reorder_at(-1) == NULL,
       "out of range index: NULL");
    ok(tc_reorder_find("rcm") == tc_reorder_at(1), "found by name");
    ok(tc_reorder_find("nope") == NULL, "unknown name: NULL");
    for (int i = 0; i < tc_reorder_count(); i++)
        ok(strlen(tc_reorder_description(tc_reorder_at(i))) > 10, "%s has a description",
           tc_reorder_name(tc_reorder_at(i)));

    int n;
    const tc_param_def *d = tc_reorder_params(tc_reorder_find("degree"), &n);
    ok(n == 1 && strcmp(d[0].name, "ascending") == 0 && d[0].def == 0, "degree: ascending=0");
    tc_params given = { 0 }, eff;
    tc_error err;
    tc_params_parse(&given, "bipartite=1", &err);
    tc_reorder_params_effective(tc_reorder_find("degree"), NULL, &eff);
    ok(eff.n == 1 && strcmp(eff.kv[0].name, "ascending") == 0 && eff.kv[0].value == 0,
       "effective parameters: the default filled in");
    tc_reorder_params_effective(tc_reorder_find("rcm"), &given, &eff);
    ok(eff.n == 1 && eff.kv[0].value == 1, "effective parameters: the given value kept");

    tc_csr *a = random_matrix(5, 5, 10, 0);
    tc_perm *p = NULL;
    is_int(tc_reorder_run(tc_reorder_find("degree"), a, &given, &p, NULL, &err), TC_ERR_ARG,
           "a parameter of another method refused");
    is_str(err.msg, "degree has no parameter 'bipartite'", "its message");
    given.n = 0;
    tc_params_parse(&given, "ascending=2", &err);
    tc_reorder_run(tc_reorder_find("degree"), a, &given, &p, NULL, &err);
    is_str(err.msg, "degree: ascending=2 is out of range [0, 1]", "out of range refused");
    ok(p == NULL, "no permutation on failure");
    tc_csr_free(a);
}

static void check_degree(const tc_csr *a, const tc_perm *p, int ascending, int *good)
{
    for (int32_t i = 1; i < a->rows; i++) {
        int32_t u = p->new2old[i - 1], v = p->new2old[i];
        int64_t lu = a->rowptr[u + 1] - a->rowptr[u], lv = a->rowptr[v + 1] - a->rowptr[v];
        if (ascending ? lu > lv : lu < lv)
            *good = 0;
        if (lu == lv && u > v)
            *good = 0;   /* ties in original order */
    }
}

static void test_shapes(void)
{
    static const struct { int32_t rows, cols; int64_t nnz; } shapes[] = {
        { 0, 0, 0 }, { 1, 1, 1 }, { 1, 1, 0 }, { 17, 9, 40 }, { 9, 17, 40 },
        { 1000, 1000, 3000 }, { 1031, 3, 2000 }, { 3, 1031, 2000 },
        { 70001, 70001, 300000 }, { 70001, 300, 200000 }, { 300, 70001, 200000 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int values = 0; values < 2; values++) {
            tc_csr *a = random_matrix(shapes[s].rows, shapes[s].cols, shapes[s].nnz, values);
            int valid = 1, same = 1, degree_ok = 1;
            for (int m = 0; m < tc_reorder_count(); m++) {
                const char *name = tc_reorder_name(tc_reorder_at(m));
                tc_perm *p = run(name, a, NULL), *q = run(name, a, NULL);
                valid &= is_bijection(p, a->rows);
                same &= memcmp(p->new2old, q->new2old, sizeof(int32_t) * a->rows) == 0;
                if (m == 0)
                    check_degree(a, p, 0, &degree_ok);
                tc_perm_free(p);
                tc_perm_free(q);
            }
            tc_perm *p = run("degree", a, "ascending=1");
            check_degree(a, p, 1, &degree_ok);
            tc_perm_free(p);
            if (a->rows == a->cols) {
                p = run("rcm", a, "bipartite=1");
                valid &= is_bijection(p, a->rows);
                tc_perm_free(p);
            }
            ok(valid, "%dx%d %s: every method gives a permutation of the rows", a->rows,
               a->cols, values ? "real" : "pattern");
            ok(same, "  ... the same one twice");
            ok(degree_ok, "  ... degree: lengths in order, ties in original order");
            tc_csr_free(a);
        }
    }
}

/* A random symmetric permutation of a matrix with half-bandwidth k (every
   entry |i - j| <= k present), and RCM's order applied back to it. */
static void test_rcm_band(int32_t n, int32_t k)
{
    int64_t cap = (int64_t)n * (2 * k + 1), m = 0;
    int32_t *ri = malloc(sizeof(int32_t) * cap), *ci = malloc(sizeof(int32_t) * cap);
    int32_t *shuffle = malloc(sizeof(int32_t) * n);
    tap_shuffle(shuffle, n);
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i - k; j <= i + k; j++)
            if (j >= 0 && j < n) {
                ri[m] = shuffle[i];
                ci[m++] = shuffle[j];
            }
    tc_csr *a = from_coo(n, n, m, ri, ci, 1);
    tc_perm *p = run("rcm", a, NULL);
    tc_csr *b;
    tc_error err;
    if (tc_csr_permute(a, p, p, &b, &err))
        bail(err.msg);
    int64_t before = bandwidth(a), after = bandwidth(b);
    ok(after <= k, "rcm: %d x %d band %d scrambled to bandwidth %lld, back to %lld", n, n, k,
       (long long)before, (long long)after);
    int64_t tcb_before = tc_count_tc_blocks(a, 16, 8), tcb_after = tc_count_tc_blocks(b, 16, 8);
    /* a window of 16 band rows spans at most 16 + 2k columns */
    int64_t bound = (n + 15) / 16 * ((16 + 2 * k + 7) / 8);
    ok(tcb_after <= bound, "  ... TC blocks %lld -> %lld (at most %lld)", (long long)tcb_before,
       (long long)tcb_after, (long long)bound);
    tc_csr_free(b);
    tc_perm_free(p);

    /* rows only scrambled (columns in place): the bipartite graph still
       sees rows sharing columns, so it brings the band back */
    tc_csr_free(a);
    m = 0;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i - k; j <= i + k; j++)
            if (j >= 0 && j < n) {
                ri[m] = shuffle[i];
                ci[m++] = j;
            }
    a = from_coo(n, n, m, ri, ci, 0);
    p = run("rcm", a, "bipartite=1");
    if (tc_csr_permute(a, p, NULL, &b, &err))
        bail(err.msg);
    /* the rows may come out in either direction of the columns */
    tc_perm *reverse;
    tc_csr *c;
    int32_t *down = malloc(sizeof(int32_t) * n);
    for (int32_t i = 0; i < n; i++)
        down[i] = n - 1 - i;
    if (tc_perm_from_array(&reverse, n, down, TC_PERM_NEW2OLD, "reverse", &err) ||
        tc_csr_permute(b, reverse, NULL, &c, &err))
        bail(err.msg);
    int64_t band = bandwidth(b) < bandwidth(c) ? bandwidth(b) : bandwidth(c);
    ok(band <= 2 * k, "rcm bipartite: rows scrambled to bandwidth %lld, back to %lld",
       (long long)bandwidth(a), (long long)band);
    tc_csr_free(c);
    tc_perm_free(reverse);
    free(down);
    tc_csr_free(b);
    tc_perm_free(p);
    tc_csr_free(a);
    free(shuffle);
    free(ri);
    free(ci);
}

/* A path scrambled: only a start at one of its ends gives bandwidth 1, so
   this checks the pseudo-peripheral search (a start in the middle gives 2). */
static void test_rcm_path(int32_t n)
{
    int32_t *ri = malloc(sizeof(int32_t) * 2 * n), *ci = malloc(sizeof(int32_t) * 2 * n);
    int32_t *label = malloc(sizeof(int32_t) * n);
    for (int32_t i = 0; i < n; i++)
        label[i] = (int32_t)(((int64_t)i * 7919 + n / 2) % n);   /* 7919 prime, n not a multiple */
    int64_t m = 0;
    for (int32_t i = 0; i + 1 < n; i++) {
        ri[m] = label[i];
        ci[m++] = label[i + 1];
        ri[m] = label[i + 1];
        ci[m++] = label[i];
    }
    tc_csr *a = from_coo(n, n, m, ri, ci, 0), *b;
    tc_perm *p = run("rcm", a, NULL);
    tc_error err;
    if (tc_csr_permute(a, p, p, &b, &err))
        bail(err.msg);
    is_int(bandwidth(b), 1, "rcm: a scrambled path of 1000 gets bandwidth 1");
    tc_csr_free(b);
    tc_perm_free(p);
    tc_csr_free(a);
    free(label);
    free(ri);
    free(ci);
}

int main(void)
{
    test_registry();
    test_shapes();
    test_rcm_band(3000, 4);
    test_rcm_band(70001, 2);
    test_rcm_path(1000);
    return done_testing();
}
