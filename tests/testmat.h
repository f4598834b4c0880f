/*
 * testmat.h: random test matrices with the awkward structure DESIGN.md asks
 * for (a dense row, a dense column, empty rows, pattern or real), drawn from
 * tap.h's deterministic generator. Include after tap.h and tcsparse.h.
 */
#ifndef TC_TESTMAT_H
#define TC_TESTMAT_H

/* A rows x cols matrix with about per_row nonzeros a row (duplicates
   summed), plus a dense row (row dense_row, -1 for none) and a dense
   column (dense_col, -1 for none); values in [-1, 1), or pattern. NULL
   (with a diagnostic) if it cannot be built. */
__attribute__((unused)) static tc_csr *tap_random_matrix(int32_t rows, int32_t cols, int per_row,
                                                         int32_t dense_row, int32_t dense_col,
                                                         int pattern)
{
    int64_t n = (int64_t)rows * per_row + (dense_row >= 0 ? cols : 0) +
                (dense_col >= 0 ? rows : 0);
    int32_t *ri = malloc((size_t)(n + 1) * sizeof *ri), *ci = malloc((size_t)(n + 1) * sizeof *ci);
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < rows && cols > 0; i++)
        for (int j = 0; j < per_row; j++, k++) {
            ri[k] = i;
            ci[k] = (int32_t)tap_rand((uint32_t)cols);
        }
    for (int32_t j = 0; dense_row >= 0 && j < cols; j++, k++) {
        ri[k] = dense_row;
        ci[k] = j;
    }
    for (int32_t i = 0; dense_col >= 0 && i < rows; i++, k++) {
        ri[k] = i;
        ci[k] = dense_col;
    }
    for (int64_t i = 0; i < k; i++)
        v[i] = (double)tap_rand(2000001) / 1e6 - 1;
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, k, ri, ci, pattern ? NULL : v, 1, &err))
        diag("tc_csr_from_coo: %s", err.msg);
    free(ri);
    free(ci);
    free(v);
    return a;
}

/* Stops the test plan: a set-up step failed. */
__attribute__((unused, noreturn)) static void tap_bail(const char *msg)
{
    printf("Bail out! %s\n", msg);
    exit(1);
}

/* A random permutation of n (new-to-old), from tap_rand. */
__attribute__((unused)) static tc_perm *tap_shuffled(int32_t n)
{
    int32_t *idx = malloc(sizeof *idx * ((size_t)n + 1));
    for (int32_t i = 0; i < n; i++)
        idx[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        const int32_t j = (int32_t)tap_rand((uint32_t)i + 1), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    tc_perm *p;
    tc_error err;
    if (tc_perm_from_array(&p, n, idx, TC_PERM_NEW2OLD, "test", &err))
        tap_bail(err.msg);
    free(idx);
    return p;
}

/* n floats uniform in [-1, 1], from tap_rand. */
__attribute__((unused)) static float *tap_random_floats(int64_t n)
{
    float *x = malloc(sizeof *x * ((size_t)n + 1));
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((double)tap_rand(2000001) / 1e6 - 1.0);
    return x;
}

/* x widened to double (a new array). */
__attribute__((unused)) static double *tap_widen(const float *x, int64_t n)
{
    double *y = malloc(sizeof *y * ((size_t)n + 1));
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i];
    return y;
}

/* 1 when every x[i] is ref[i] rounded to float. */
__attribute__((unused)) static int tap_same_f32(const float *x, const double *ref, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (x[i] != (float)ref[i])
            return 0;
    return 1;
}

/* 1 when a (not NULL) and b have the same shape and nonzero pattern. */
__attribute__((unused)) static int tap_same_pattern(const tc_csr *a, const tc_csr *b)
{
    return a && a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz &&
           memcmp(a->rowptr, b->rowptr, sizeof *a->rowptr * ((size_t)a->rows + 1)) == 0 &&
           memcmp(a->colidx, b->colidx, sizeof *a->colidx * (size_t)a->nnz) == 0;
}

/* p and q hold the same order. */
__attribute__((unused)) static int tap_same_perm(const tc_perm *p, const tc_perm *q)
{
    return p && q && p->n == q->n &&
           memcmp(p->new2old, q->new2old, sizeof(int32_t) * (size_t)p->n) == 0;
}

/* a without the entries of its rows i with i % 4 == 1 (a freed). */
__attribute__((unused)) static tc_csr *tap_with_empty_rows(tc_csr *a)
{
    int32_t *ri = malloc(sizeof(int32_t) * (size_t)(a->nnz + 1));
    int32_t *ci = malloc(sizeof(int32_t) * (size_t)(a->nnz + 1));
    int64_t n = 0;
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1] && i % 4 != 1; e++, n++)
            ri[n] = i, ci[n] = a->colidx[e];
    tc_csr *b = NULL;
    tc_error err;
    if (tc_csr_from_coo(&b, a->rows, a->cols, n, ri, ci, NULL, 1, &err))
        diag("tc_csr_from_coo: %s", err.msg);
    tc_csr_free(a);
    free(ri);
    free(ci);
    return b;
}

/* An awkward shape for the reorderings' tests: rows x cols, about
   per_row a row, a dense row and a dense column (-1: none), and with
   holes, rows 1, 5, 9, ... empty. */
typedef struct tap_shape {
    int32_t rows, cols;
    int per_row;
    int32_t dense_row, dense_col;
    int holes;
} tap_shape;

/* The matrix of shape s (pattern or real). */
__attribute__((unused)) static tc_csr *tap_shape_matrix(const tap_shape *s, int pattern)
{
    tc_csr *a = tap_random_matrix(s->rows, s->cols, s->per_row, s->dense_row, s->dense_col,
                                  pattern);
    return s->holes ? tap_with_empty_rows(a) : a;
}

/* Reordering m's order of a with its defaults on 1, 2 and 7 threads
   (p[0 .. 2]) and on the default count (p[3]); NULL with a diagnostic
   where it failed. Then checks that p[0] is a permutation of a's rows,
   the check named after s. */
__attribute__((unused)) static void tap_orders_on_threads(const tc_reorder_method *m,
                                                           const tap_shape *s, const tc_csr *a,
                                                           tc_perm *p[4])
{
    static const char *threads[4] = { "1", "2", "7", NULL };
    for (int t = 0; t < 4; t++) {
        tc_params none = { 0 };
        tc_error err;
        if (threads[t])
            setenv("TC_THREADS", threads[t], 1);
        else
            unsetenv("TC_THREADS");
        p[t] = NULL;
        if (tc_reorder_run(m, a, &none, &p[t], NULL, &err))
            diag("%s: %s", tc_reorder_name(m), err.msg);
    }
    ok(p[0] && p[0]->n == a->rows, "%dx%d, %d a row%s%s%s: a permutation of the rows",
       a->rows, a->cols, s->per_row, s->dense_row >= 0 ? ", a dense row" : "",
       s->dense_col >= 0 ? ", a dense column" : "", s->holes ? ", a row in 4 empty" : "");
}

/* A tc_progress that records what it was told: {0, 0, 0, 1, 1} to start. */
typedef struct tap_progress_log {
    int64_t calls, last, total;
    int monotone, same_total;   /* never back nor past the total; one total */
} tap_progress_log;

__attribute__((unused)) static void tap_log_progress(void *ctx, int64_t done, int64_t total)
{
    tap_progress_log *l = ctx;
    l->monotone &= done >= l->last && done <= total;
    l->same_total &= l->calls == 0 || total == l->total;
    l->calls++;
    l->last = done;
    l->total = total;
}

/* A parameter refusal a reordering must make: the parameters given and
   the message expected. */
typedef struct tap_refusal {
    const char *given, *message;
} tap_refusal;

/* Runs reordering m on a with each of bad[0 .. n): refused (TC_ERR_ARG, no
   permutation) with its message, two checks each. */
__attribute__((unused)) static void tap_check_refusals(const tc_reorder_method *m,
                                                        const tc_csr *a, const tap_refusal *bad,
                                                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tc_params p = { 0 };
        tc_error err;
        tc_perm *perm = NULL;
        tc_params_parse(&p, bad[i].given, &err);
        tc_status st = tc_reorder_run(m, a, &p, &perm, NULL, &err);
        ok(st == TC_ERR_ARG && perm == NULL, "%s refused", bad[i].given);
        is_str(err.msg, bad[i].message, "  ... with its message");
        tc_perm_free(perm);
    }
}

#endif
