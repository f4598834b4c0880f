/* matrix.c: the CSR type: building from triplets, validating, comparing,
   transposing and permuting. Passes are count / prefix-sum / fill passes,
   O(nnz + rows + cols); the only sort is of rows given out of order. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"

static const char *const field_names[] = { "real", "integer", "pattern" };
static const char *const sym_names[] = { "general", "symmetric", "skew-symmetric", "hermitian" };

const char *tc_field_name(tc_field f)
{
    return (unsigned)f < 3 ? field_names[f] : "unknown";
}

const char *tc_symmetry_name(tc_symmetry s)
{
    return (unsigned)s < 4 ? sym_names[s] : "unknown";
}

int tc_field_parse(const char *s, tc_field *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, field_names[i]) == 0) {
            *out = (tc_field)i;
            return 0;
        }
    return -1;
}

int tc_symmetry_parse(const char *s, tc_symmetry *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, sym_names[i]) == 0) {
            *out = (tc_symmetry)i;
            return 0;
        }
    return -1;
}

tc_status tc_csr_alloc(tc_csr **out, int32_t rows, int32_t cols, int64_t nnz,
                       int with_values, tc_error *err)
{
    *out = NULL;
    if (rows < 0 || cols < 0 || nnz < 0)
        return tc_error_set(err, TC_ERR_ARG, "negative matrix size %d x %d, %lld nonzeros",
                            rows, cols, (long long)nnz);
    tc_csr *a = calloc(1, sizeof *a);
    if (!a)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    a->rows = rows;
    a->cols = cols;
    a->nnz = nnz;
    a->field = with_values ? TC_FIELD_REAL : TC_FIELD_PATTERN;
    a->symmetry = TC_SYM_GENERAL;
    a->rowptr = tc_calloc_array((int64_t)rows + 1, sizeof *a->rowptr, err);
    a->colidx = a->rowptr ? tc_malloc_array(nnz, sizeof *a->colidx, err) : NULL;
    if (a->colidx && with_values)
        a->val = tc_malloc_array(nnz, sizeof *a->val, err);
    if (!a->rowptr || !a->colidx || (with_values && !a->val)) {
        tc_csr_free(a);
        return TC_ERR_NOMEM;
    }
    *out = a;
    return TC_OK;
}

void tc_csr_free(tc_csr *a)
{
    if (!a)
        return;
    free(a->rowptr);
    free(a->colidx);
    free(a->val);
    free(a);
}

tc_status tc_csr_copy(const tc_csr *a, tc_csr **out, tc_error *err)
{
    tc_status st = tc_csr_alloc(out, a->rows, a->cols, a->nnz, a->val != NULL, err);
    if (st)
        return st;
    tc_csr *b = *out;
    memcpy(b->rowptr, a->rowptr, ((size_t)a->rows + 1) * sizeof *a->rowptr);
    memcpy(b->colidx, a->colidx, (size_t)a->nnz * sizeof *a->colidx);
    if (a->val)
        memcpy(b->val, a->val, (size_t)a->nnz * sizeof *a->val);
    b->field = a->field;
    b->symmetry = a->symmetry;
    return TC_OK;
}

/* Exclusive prefix sum of counts[0..n) into ptr[0..n] (ptr[0] = 0). */
static void prefix_sum(const int64_t *counts, int64_t *ptr, int64_t n)
{
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) {
        ptr[i] = s;
        s += counts[i];
    }
    ptr[n] = s;
}

typedef struct col_pos { int32_t col; int32_t pos; } col_pos;

static int col_pos_cmp(const void *x, const void *y)
{
    const col_pos *a = x, *b = y;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Sorts the columns of one row (values along), stably: duplicates stay in
   input order, so they are summed in the order the input gives them.
   Short rows by insertion, long ones through a (col, position) key array. */
static void sort_row(int32_t *col, double *val, int64_t len, col_pos *key, double *tmp)
{
    if (len <= 32) {
        for (int64_t k = 1; k < len; k++) {
            int32_t c = col[k];
            double v = val ? val[k] : 0;
            int64_t j = k;
            for (; j > 0 && col[j - 1] > c; j--) {
                col[j] = col[j - 1];
                if (val)
                    val[j] = val[j - 1];
            }
            col[j] = c;
            if (val)
                val[j] = v;
        }
        return;
    }
    for (int64_t k = 0; k < len; k++)
        key[k] = (col_pos){ col[k], (int32_t)k };
    qsort(key, (size_t)len, sizeof *key, col_pos_cmp);
    for (int64_t k = 0; k < len; k++) {
        col[k] = key[k].col;
        if (val)
            tmp[k] = val[key[k].pos];
    }
    if (val)
        memcpy(val, tmp, (size_t)len * sizeof *tmp);
}

/* Bucket the triplets by row in input order, then sort the rows that need
   it. Matrix Market files list entries row by row or column by column, so
   after bucketing nearly every row is already sorted and this costs one
   scatter pass; memory stays O(n + rows) whatever the column count. */
static tc_status fill_rows(tc_csr *a, int64_t n, const int32_t *ri, const int32_t *ci,
                           const double *v, tc_error *err)
{
    int64_t *next = tc_malloc_array(a->rows, sizeof *next, err);
    if (!next)
        return TC_ERR_NOMEM;
    memcpy(next, a->rowptr, (size_t)a->rows * sizeof *next);
    for (int64_t k = 0; k < n; k++) {
        int64_t p = next[ri[k]]++;
        a->colidx[p] = ci[k];
        if (v)
            a->val[p] = v[k];
    }
    free(next);
    col_pos *key = NULL;
    double *tmp = NULL;
    int64_t cap = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        int64_t s = a->rowptr[i], len = a->rowptr[i + 1] - s, k = 1;
        while (k < len && a->colidx[s + k - 1] <= a->colidx[s + k])
            k++;
        if (k >= len)
            continue;   /* already sorted */
        if (len > 32 && len > cap) {
            free(key);
            free(tmp);
            key = tc_malloc_array(len, sizeof *key, err);
            tmp = v ? tc_malloc_array(len, sizeof *tmp, err) : NULL;
            if (!key || (v && !tmp)) {
                free(key);
                free(tmp);
                return TC_ERR_NOMEM;
            }
            cap = len;
        }
        sort_row(a->colidx + s, v ? a->val + s : NULL, len, key, tmp);
    }
    free(key);
    free(tmp);
    return TC_OK;
}

tc_status tc_csr_from_coo(tc_csr **out, int32_t rows, int32_t cols, int64_t n,
                          const int32_t *ri, const int32_t *ci, const double *v,
                          int sum_duplicates, tc_error *err)
{
    *out = NULL;
    if (rows < 0 || cols < 0 || n < 0)
        return tc_error_set(err, TC_ERR_ARG, "negative size in tc_csr_from_coo");
    for (int64_t k = 0; k < n; k++)
        if (ri[k] < 0 || ri[k] >= rows || ci[k] < 0 || ci[k] >= cols)
            return tc_error_set(err, TC_ERR_INVALID,
                                "entry %lld: index (%d, %d) outside the %d x %d matrix",
                                (long long)k, ri[k], ci[k], rows, cols);
    tc_csr *a = NULL;
    tc_status st = tc_csr_alloc(&a, rows, cols, n, v != NULL, err);
    if (st)
        return st;
    for (int64_t k = 0; k < n; k++)
        a->rowptr[ri[k] + 1]++;
    for (int32_t i = 0; i < rows; i++)
        a->rowptr[i + 1] += a->rowptr[i];
    if ((st = fill_rows(a, n, ri, ci, v, err)))
        goto fail;

    /* Merge duplicates (now adjacent) in place. */
    int64_t w = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t start = a->rowptr[i], end = a->rowptr[i + 1];
        a->rowptr[i] = w;
        for (int64_t k = start; k < end; k++) {
            if (k > start && a->colidx[k] == a->colidx[k - 1]) {
                if (!sum_duplicates) {
                    st = tc_error_set(err, TC_ERR_INVALID, "duplicate entry (%d, %d)",
                                      i + 1, a->colidx[k] + 1);
                    goto fail;
                }
                if (v)
                    a->val[w - 1] += a->val[k];
                continue;
            }
            a->colidx[w] = a->colidx[k];
            if (v)
                a->val[w] = a->val[k];
            w++;
        }
    }
    a->rowptr[rows] = w;
    a->nnz = w;
    if (w < n) {
        /* Give back the memory of merged duplicates (a failed shrink keeps
           the old, larger block: nothing is lost). */
        int32_t *c = realloc(a->colidx, (size_t)(w ? w : 1) * sizeof *c);
        if (c)
            a->colidx = c;
        if (v) {
            double *d = realloc(a->val, (size_t)(w ? w : 1) * sizeof *d);
            if (d)
                a->val = d;
        }
    }
    *out = a;
    return TC_OK;
fail:
    tc_csr_free(a);
    return st;
}

tc_status tc_csr_validate(const tc_csr *a, const char *what, tc_error *err)
{
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: negative size", what);
    if (a->rowptr[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: row pointer 0 is %lld, expected 0", what,
                            (long long)a->rowptr[0]);
    for (int32_t i = 0; i < a->rows; i++) {
        int64_t s = a->rowptr[i], e = a->rowptr[i + 1];
        if (e < s || e > a->nnz)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s: row pointers not monotone at row %d (%lld then %lld, nnz %lld)",
                                what, i, (long long)s, (long long)e, (long long)a->nnz);
        for (int64_t k = s; k < e; k++) {
            int32_t c = a->colidx[k];
            if (c < 0 || c >= a->cols)
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: row %d: column index %d outside 0..%d", what, i, c,
                                    a->cols - 1);
            if (k > s && c <= a->colidx[k - 1])
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: row %d: column indices not strictly increasing (%d after %d)",
                                    what, i, c, a->colidx[k - 1]);
        }
    }
    if (a->rowptr[a->rows] != a->nnz)
        return tc_error_set(err, TC_ERR_INVALID, "%s: last row pointer is %lld, expected nnz %lld",
                            what, (long long)a->rowptr[a->rows], (long long)a->nnz);
    if ((a->field == TC_FIELD_PATTERN) != (a->val == NULL))
        return tc_error_set(err, TC_ERR_INVALID, "%s: field %s but values %s", what,
                            tc_field_name(a->field), a->val ? "present" : "absent");
    return TC_OK;
}

int tc_csr_equal(const tc_csr *a, const tc_csr *b)
{
    if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz)
        return 0;
    if ((a->val == NULL) != (b->val == NULL))
        return 0;
    if (memcmp(a->rowptr, b->rowptr, ((size_t)a->rows + 1) * sizeof *a->rowptr) != 0)
        return 0;
    if (memcmp(a->colidx, b->colidx, (size_t)a->nnz * sizeof *a->colidx) != 0)
        return 0;
    return !a->val || memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) == 0;
}

tc_status tc_csr_transpose(const tc_csr *a, tc_csr **out, tc_error *err)
{
    tc_csr *t;
    tc_status st = tc_csr_alloc(&t, a->cols, a->rows, a->nnz, a->val != NULL, err);
    if (st)
        return st;
    t->field = a->field;
    t->symmetry = a->symmetry;
    int64_t *cnt = tc_calloc_array(a->cols, sizeof *cnt, err);
    if (!cnt) {
        tc_csr_free(t);
        return TC_ERR_NOMEM;
    }
    for (int64_t k = 0; k < a->nnz; k++)
        cnt[a->colidx[k]]++;
    prefix_sum(cnt, t->rowptr, a->cols);
    memcpy(cnt, t->rowptr, (size_t)a->cols * sizeof *cnt);
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t p = cnt[a->colidx[k]]++;
            t->colidx[p] = i;
            if (a->val)
                t->val[p] = a->val[k];
        }
    free(cnt);
    *out = t;
    return TC_OK;
}

static tc_status permute_rows(const tc_csr *a, const tc_perm *row, tc_csr **out,
                              tc_error *err)
{
    tc_csr *b;
    tc_status st = tc_csr_alloc(&b, a->rows, a->cols, a->nnz, a->val != NULL, err);
    if (st)
        return st;
    b->field = a->field;
    b->symmetry = a->symmetry;
    for (int32_t i = 0; i < a->rows; i++) {
        int32_t o = row->new2old[i];
        b->rowptr[i + 1] = b->rowptr[i] + (a->rowptr[o + 1] - a->rowptr[o]);
    }
    for (int32_t i = 0; i < a->rows; i++) {
        int32_t o = row->new2old[i];
        int64_t len = a->rowptr[o + 1] - a->rowptr[o];
        memcpy(b->colidx + b->rowptr[i], a->colidx + a->rowptr[o], (size_t)len * sizeof(int32_t));
        if (a->val)
            memcpy(b->val + b->rowptr[i], a->val + a->rowptr[o], (size_t)len * sizeof(double));
    }
    *out = b;
    return TC_OK;
}

tc_status tc_csr_permute(const tc_csr *a, const tc_perm *row, const tc_perm *col,
                         tc_csr **out, tc_error *err)
{
    *out = NULL;
    if (row && row->n != a->rows)
        return tc_error_set(err, TC_ERR_ARG, "row permutation of %d entries for a matrix of %d rows",
                            row->n, a->rows);
    if (col && col->n != a->cols)
        return tc_error_set(err, TC_ERR_ARG,
                            "column permutation of %d entries for a matrix of %d columns",
                            col->n, a->cols);
    tc_csr *b = NULL;
    tc_status st = row ? permute_rows(a, row, &b, err) : tc_csr_copy(a, &b, err);
    if (st || !col) {
        *out = b;
        return st;
    }
    /* Columns: permute the rows of the transpose and transpose back, which
       keeps every row's columns sorted without a comparison sort. */
    tc_csr *t = NULL, *tp = NULL;
    st = tc_csr_transpose(b, &t, err);
    if (!st)
        st = permute_rows(t, col, &tp, err);
    tc_csr_free(b);
    tc_csr_free(t);
    if (!st)
        st = tc_csr_transpose(tp, out, err);
    tc_csr_free(tp);
    return st;
}
