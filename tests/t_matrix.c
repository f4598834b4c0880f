/* t_matrix: CSR building, validation, transpose and permutation. */
#include "config.h"
#include <math.h>
#include "tcsparse.h"
#include "tap.h"


/* Triplets with duplicates, in random order, checked against a dense sum. */
static void check_from_coo(int32_t rows, int32_t cols, int64_t n, int pattern)
{
    int32_t *ri = malloc((size_t)(n ? n : 1) * sizeof *ri);
    int32_t *ci = malloc((size_t)(n ? n : 1) * sizeof *ci);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    double *dense = calloc((size_t)rows * cols + 1, sizeof *dense);
    char *present = calloc((size_t)rows * cols + 1, 1);
    for (int64_t k = 0; k < n; k++) {
        ri[k] = (int32_t)tap_rand((uint32_t)rows);
        ci[k] = (int32_t)tap_rand((uint32_t)cols);
        v[k] = (double)tap_rand(1000) - 500;
        dense[(size_t)ri[k] * cols + ci[k]] += v[k];
        present[(size_t)ri[k] * cols + ci[k]] = 1;
    }
    tc_csr *a = NULL;
    tc_error err;
    tc_status st = tc_csr_from_coo(&a, rows, cols, n, ri, ci, pattern ? NULL : v, 1, &err);
    int good = st == TC_OK && tc_csr_validate(a, "a", &err) == TC_OK;
    int64_t distinct = 0;
    for (size_t p = 0; p < (size_t)rows * cols; p++)
        distinct += present[p];
    good = good && a->nnz == distinct;
    for (int32_t i = 0; good && i < rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            size_t p = (size_t)i * cols + a->colidx[k];
            good = good && present[p] && (pattern || a->val[k] == dense[p]);
        }
    ok(good, "from_coo %dx%d, %lld triplets%s: sorted, duplicates summed", rows, cols,
       (long long)n, pattern ? ", pattern" : "");

    tc_csr *t = NULL, *tt = NULL;
    good = tc_csr_transpose(a, &t, &err) == TC_OK && tc_csr_validate(t, "t", &err) == TC_OK &&
           tc_csr_transpose(t, &tt, &err) == TC_OK && tc_csr_equal(a, tt);
    ok(good, "transpose twice is the identity (%dx%d)", rows, cols);

    /* Permute rows and columns, then undo with the inverses. */
    int32_t *pr = malloc((size_t)rows * sizeof *pr), *pc = malloc((size_t)cols * sizeof *pc);
    tap_shuffle(pr, rows);
    for (int32_t i = 0; i < cols; i++)
        pc[i] = cols - 1 - i;
    tc_perm *rp, *cp, *rinv, *cinv;
    tc_perm_from_array(&rp, rows, pr, TC_PERM_NEW2OLD, "rows", &err);
    tc_perm_from_array(&cp, cols, pc, TC_PERM_NEW2OLD, "cols", &err);
    tc_perm_from_array(&rinv, rows, rp->old2new, TC_PERM_NEW2OLD, "rinv", &err);
    tc_perm_from_array(&cinv, cols, cp->old2new, TC_PERM_NEW2OLD, "cinv", &err);
    tc_csr *b = NULL, *back = NULL;
    good = tc_csr_permute(a, rp, cp, &b, &err) == TC_OK && tc_csr_validate(b, "b", &err) == TC_OK;
    /* Entry (i, j) of b is entry (pr[i], pc[j]) of a. */
    for (int32_t i = 0; good && i < rows; i++)
        for (int64_t k = b->rowptr[i]; k < b->rowptr[i + 1]; k++) {
            size_t p = (size_t)pr[i] * cols + pc[b->colidx[k]];
            good = good && present[p] && (pattern || b->val[k] == dense[p]);
        }
    good = good && tc_csr_permute(b, rinv, cinv, &back, &err) == TC_OK && tc_csr_equal(a, back);
    ok(good, "permute rows and columns, and back (%dx%d)", rows, cols);

    tc_csr_free(a), tc_csr_free(t), tc_csr_free(tt), tc_csr_free(b), tc_csr_free(back);
    tc_perm_free(rp), tc_perm_free(cp), tc_perm_free(rinv), tc_perm_free(cinv);
    free(pr), free(pc), free(ri), free(ci), free(v), free(dense), free(present);
}

/* from_coo_sym(triangle) == from_coo(triangle and its mirror, listed right
   after each entry), for symmetric and skew; diagonal entries stay single. */
static void check_sym(tc_symmetry sym, int32_t n, int64_t m)
{
    int32_t *ri = malloc((size_t)m * sizeof *ri), *ci = malloc((size_t)m * sizeof *ci);
    int32_t *r2 = malloc((size_t)2 * m * sizeof *r2), *c2 = malloc((size_t)2 * m * sizeof *c2);
    double *v = malloc((size_t)m * sizeof *v), *v2 = malloc((size_t)2 * m * sizeof *v2);
    int64_t k2 = 0;
    for (int64_t k = 0; k < m; k++) {
        int32_t i = (int32_t)tap_rand((uint32_t)n), j = (int32_t)tap_rand((uint32_t)n);
        if (sym == TC_SYM_SKEW && i == j)
            j = (i + 1) % n;
        ri[k] = i > j ? i : j;
        ci[k] = i > j ? j : i;
        v[k] = (double)tap_rand(100) - 50;
        r2[k2] = ri[k], c2[k2] = ci[k], v2[k2++] = v[k];
        if (ri[k] != ci[k])
            r2[k2] = ci[k], c2[k2] = ri[k], v2[k2++] = sym == TC_SYM_SKEW ? -v[k] : v[k];
    }
    tc_csr *a = NULL, *b = NULL;
    tc_error err;
    int good = tc_csr_from_coo_sym(&a, n, n, m, ri, ci, v, sym, 1, &err) == TC_OK &&
               tc_csr_from_coo(&b, n, n, k2, r2, c2, v2, 1, &err) == TC_OK &&
               tc_csr_equal(a, b) && a->symmetry == sym;
    ok(good, "from_coo_sym %s, %d x %d, %lld triplets: the mirror is built in",
       tc_symmetry_name(sym), n, n, (long long)m);
    tc_csr_free(a), tc_csr_free(b);
    free(ri), free(ci), free(r2), free(c2), free(v), free(v2);
}

static void check_invalid(void)
{
    tc_error err;
    tc_csr *a;
    int32_t ri[] = { 0, 1, 1 }, ci[] = { 1, 0, 0 };
    double v[] = { 1, 2, 3 };
    is_int(tc_csr_from_coo(&a, 2, 2, 3, ri, ci, v, 0, &err), TC_ERR_INVALID,
           "duplicates refused when not summing");
    is_str(err.msg, "duplicate entry (2, 1)", "duplicate message names the entry (1-based)");
    int32_t bad[] = { 0, 2 };
    is_int(tc_csr_from_coo(&a, 2, 2, 2, bad, ci, v, 1, &err), TC_ERR_INVALID,
           "out-of-range triplet refused");
    is_str(err.msg, "entry 1: index (2, 0) outside the 2 x 2 matrix", "out-of-range message");

    tc_csr_from_coo(&a, 2, 3, 2, ri, ci, v, 1, &err);
    a->colidx[0] = 3;
    is_int(tc_csr_validate(a, "m: /matrix", &err), TC_ERR_INVALID, "column out of range caught");
    is_str(err.msg, "m: /matrix: row 0: column index 3 outside 0..2", "column range message");
    a->colidx[0] = 1;
    a->rowptr[1] = 5;
    tc_csr_validate(a, "m", &err);
    is_str(err.msg, "m: row pointers not monotone at row 0 (0 then 5, nnz 2)",
           "row pointer message");
    tc_csr_free(a);

    int32_t r2[] = { 0, 0 }, c2[] = { 2, 1 };
    tc_csr_from_coo(&a, 1, 3, 2, r2, c2, NULL, 1, &err);
    a->colidx[0] = 2;
    a->colidx[1] = 1;
    tc_csr_validate(a, "m", &err);
    is_str(err.msg, "m: row 0: column indices not strictly increasing (1 after 2)",
           "unsorted columns caught");
    tc_csr_free(a);
    is_int(tc_csr_alloc(&a, -1, 2, 0, 0, &err), TC_ERR_ARG, "negative size refused");
}

int main(void)
{
    static const int32_t shapes[][2] = {
        { 1, 1 }, { 3, 5 }, { 17, 9 }, { 33, 1 }, { 1, 40 }, { 100, 100 }, { 1025, 31 },
        { 3, 3000 },    /* rows of ~1000 unsorted entries: the long-row sort */
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int pattern = 0; pattern < 2; pattern++) {
            int32_t r = shapes[s][0], c = shapes[s][1];
            check_from_coo(r, c, (int64_t)r * c / 3 + 2, pattern);
        }
    check_from_coo(5, 7, 0, 0);
    /* Far wider than it has entries: memory must stay O(n + rows) (a
       column-bucket pass would want 16 GiB here). */
    {
        int32_t ri[] = { 2, 0, 2, 2 }, ci[] = { INT32_MAX - 1, 7, 5, INT32_MAX - 1 };
        double v[] = { 1, 2, 3, 4 };
        tc_csr *w;
        tc_error err;
        ok(tc_csr_from_coo(&w, 3, INT32_MAX, 4, ri, ci, v, 1, &err) == TC_OK &&
               tc_csr_validate(w, "w", &err) == TC_OK && w->nnz == 3 &&
               w->colidx[1] == 5 && w->colidx[2] == INT32_MAX - 1 && w->val[2] == 5,
           "3 x (2^31-1) matrix: sorted, duplicates summed, no O(cols) memory");
        tc_csr_free(w);
    }
    /* Empty 0 x 0 matrix. */
    tc_csr *e;
    tc_error err;
    ok(tc_csr_from_coo(&e, 0, 0, 0, NULL, NULL, NULL, 1, &err) == TC_OK &&
           tc_csr_validate(e, "e", &err) == TC_OK && e->nnz == 0,
       "0 x 0 matrix builds and validates");
    tc_csr_free(e);
    check_sym(TC_SYM_SYMMETRIC, 1, 3);
    check_sym(TC_SYM_SYMMETRIC, 1100, 30000);
    check_sym(TC_SYM_SKEW, 37, 500);
    check_sym(TC_SYM_HERMITIAN, 300, 2000);
    check_invalid();
    return done_testing();
}
