/* matrix.c: the CSR type: building from triplets, validating, comparing,
   transposing and permuting. Passes are count / prefix-sum / fill passes,
   O(nnz + rows + cols); the only sort is of rows given out of order. */
#include "config.h"
#include <inttypes.h>
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

/* Replaces a's colidx and val by room (uninitialised) for nnz entries; val
   only with values. */
static tc_status alloc_entries(tc_csr *a, int64_t nnz, int with_values, tc_error *err)
{
    free(a->colidx);
    free(a->val);
    a->val = NULL;
    a->nnz = nnz;
    a->colidx = tc_malloc_array(nnz, sizeof *a->colidx, err);
    if (a->colidx && with_values)
        a->val = tc_malloc_array(nnz, sizeof *a->val, err);
    return !a->colidx || (with_values && !a->val) ? TC_ERR_NOMEM : TC_OK;
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
    a->field = with_values ? TC_FIELD_REAL : TC_FIELD_PATTERN;
    a->symmetry = TC_SYM_GENERAL;
    a->rowptr = tc_calloc_array((int64_t)rows + 1, sizeof *a->rowptr, err);
    if (!a->rowptr || alloc_entries(a, nnz, with_values, err)) {
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

/* Scratch for sorting long rows, grown to the longest and kept across rows. */
typedef struct row_sorter {
    col_pos *key;
    double *tmp;
    int64_t cap;
} row_sorter;

/* Sorts the columns of one row (values along), stably: duplicates stay in
   input order, so they are summed in the order the input gives them.
   Short rows by insertion, long ones through a (col, position) key array. */
static tc_status sort_row(row_sorter *so, int32_t *col, double *val, int64_t len,
                          tc_error *err)
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
        return TC_OK;
    }
    if (len > so->cap) {
        free(so->key);
        free(so->tmp);
        so->key = tc_malloc_array(len, sizeof *so->key, err);
        so->tmp = val ? tc_malloc_array(len, sizeof *so->tmp, err) : NULL;
        so->cap = so->key && (!val || so->tmp) ? len : 0;
        if (!so->cap)
            return TC_ERR_NOMEM;
    }
    col_pos *key = so->key;
    for (int64_t k = 0; k < len; k++)
        key[k] = (col_pos){ col[k], (int32_t)k };
    qsort(key, (size_t)len, sizeof *key, col_pos_cmp);
    for (int64_t k = 0; k < len; k++) {
        col[k] = key[k].col;
        if (val)
            so->tmp[k] = val[key[k].pos];
    }
    if (val)
        memcpy(val, so->tmp, (size_t)len * sizeof *so->tmp);
    return TC_OK;
}

/* The first k in (s, e) where col[k] does not exceed col[k - 1], else e. */
static int64_t first_unordered(const int32_t *col, int64_t s, int64_t e)
{
    for (int64_t k = s + 1; k < e; k++)
        if (col[k - 1] >= col[k])
            return k;
    return e;
}

/* 1 when col[k - 1] <= col[k] <= ... <= col[e - 1]. */
static int is_sorted(const int32_t *col, int64_t k, int64_t e)
{
    for (; k < e; k++)
        if (col[k - 1] > col[k])
            return 0;
    return 1;
}

/* Moves row [s, e), sorted, down to w (w <= s) with duplicates summed; the
   columns in [s, k) are known to be unique. Returns the row's new end. */
static int64_t merge_row(tc_csr *a, int64_t s, int64_t k, int64_t e, int64_t w)
{
    int32_t *c = a->colidx;
    double *v = a->val;
    if (w != s) {
        memmove(c + w, c + s, (size_t)(k - s) * sizeof *c);
        if (v)
            memmove(v + w, v + s, (size_t)(k - s) * sizeof *v);
    }
    w += k - s;
    for (; k < e; k++) {
        if (c[k] == c[w - 1]) {
            if (v)
                v[w - 1] += v[k];
            continue;
        }
        c[w] = c[k];
        if (v)
            v[w] = v[k];
        w++;
    }
    return w;
}

/* Puts every row in column order and merges duplicates, moving each row
   down over the room that merged duplicates left; rowptr[i + 1] holds the
   end of row i on entry. Sorting is stable, so duplicates are summed in
   input order. Matrix Market files list entries row by row or column by
   column, so after bucketing nearly every row is already in order without
   duplicates, and this is one read of the columns that writes none. */
static tc_status finish_rows(tc_csr *a, int sum_duplicates, tc_error *err)
{
    row_sorter so = { 0 };
    tc_status st = TC_OK;
    int64_t w = 0, s = 0;
    for (int32_t i = 0; i < a->rows && !st; i++) {
        int64_t e = a->rowptr[i + 1], k = first_unordered(a->colidx, s, e);
        if (k < e && !is_sorted(a->colidx, k, e)) {
            if ((st = sort_row(&so, a->colidx + s, a->val ? a->val + s : NULL, e - s, err)))
                break;
            k = first_unordered(a->colidx, s, e);
        }
        a->rowptr[i] = w;
        if (k < e && !sum_duplicates)
            st = tc_error_set(err, TC_ERR_INVALID, "duplicate entry (%d, %d)", i + 1,
                              a->colidx[k] + 1);
        else
            w = merge_row(a, s, k, e, w);
        s = e;
    }
    a->rowptr[a->rows] = w;
    a->nnz = w;
    free(so.key);
    free(so.tmp);
    return st;
}

/* Counts the entries of each row into rowptr[i + 1], mirrors included, and
   checks every index on the way (the pass reads them anyway). */
static tc_status count_rows(tc_csr *a, int64_t n, const int32_t *ri, const int32_t *ci,
                            int mirror, tc_error *err)
{
    int64_t *cnt = a->rowptr + 1;
    for (int64_t k = 0; k < n; k++) {
        if ((uint32_t)ri[k] >= (uint32_t)a->rows || (uint32_t)ci[k] >= (uint32_t)a->cols)
            return tc_error_set(err, TC_ERR_INVALID,
                                "entry %lld: index (%d, %d) outside the %d x %d matrix",
                                (long long)k, ri[k], ci[k], a->rows, a->cols);
        cnt[ri[k]]++;
        if (mirror)
            cnt[ci[k]] += ri[k] != ci[k];
    }
    return TC_OK;
}

/* Buckets the triplets by row in input order, an entry's mirror right
   after it (negated when skew-symmetric): a row then lists its entries in
   the order of the expanded triplets, so the sums of duplicates do not
   depend on the expansion being done here. rowptr[i + 1] holds the start
   of row i on entry, its end on return: it serves as the cursor, so no
   array of cursors is allocated. */
static void scatter_rows(tc_csr *a, int64_t n, const int32_t *ri, const int32_t *ci,
                         const double *v, int mirror, int negate)
{
    int64_t *next = a->rowptr + 1;
    for (int64_t k = 0; k < n; k++) {
        int32_t i = ri[k], j = ci[k];
        int64_t p = next[i]++;
        a->colidx[p] = j;
        if (v)
            a->val[p] = v[k];
        if (mirror && i != j) {
            int64_t q = next[j]++;
            a->colidx[q] = i;
            if (v)
                a->val[q] = negate ? -v[k] : v[k];
        }
    }
}

tc_status tc_csr_from_coo_sym(tc_csr **out, int32_t rows, int32_t cols, int64_t n,
                              const int32_t *ri, const int32_t *ci, const double *v,
                              tc_symmetry symmetry, int sum_duplicates, tc_error *err)
{
    *out = NULL;
    if (rows < 0 || cols < 0 || n < 0)
        return tc_error_set(err, TC_ERR_ARG, "negative size in tc_csr_from_coo");
    if ((unsigned)symmetry > TC_SYM_HERMITIAN)
        return tc_error_set(err, TC_ERR_ARG, "unknown symmetry %d in tc_csr_from_coo_sym",
                            (int)symmetry);
    int mirror = symmetry != TC_SYM_GENERAL;
    if (mirror && rows != cols)
        return tc_error_set(err, TC_ERR_ARG, "a %s matrix must be square, not %d x %d",
                            tc_symmetry_name(symmetry), rows, cols);
    /* colidx and val get their room once the rows are counted, mirrors
       included. */
    tc_csr *a = NULL;
    tc_status st = tc_csr_alloc(&a, rows, cols, 0, v != NULL, err);
    if (st || (st = count_rows(a, n, ri, ci, mirror, err)))
        goto fail;
    /* The exclusive prefix sum, shifted up one place: rowptr[i + 1] becomes
       the start of row i, where scatter_rows begins filling it. */
    int64_t total = 0;
    for (int32_t i = 0; i < rows; i++) {
        int64_t c = a->rowptr[i + 1];
        a->rowptr[i + 1] = total;
        total += c;
    }
    if ((st = alloc_entries(a, total, v != NULL, err)))
        goto fail;
    scatter_rows(a, n, ri, ci, v, mirror, symmetry == TC_SYM_SKEW);
    if ((st = finish_rows(a, sum_duplicates, err)))
        goto fail;
    a->symmetry = symmetry;
    if (a->nnz < total) {
        /* Give back the memory of merged duplicates (a failed shrink keeps
           the old, larger block: nothing is lost). */
        int64_t w = a->nnz;
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

tc_status tc_csr_from_coo(tc_csr **out, int32_t rows, int32_t cols, int64_t n,
                          const int32_t *ri, const int32_t *ci, const double *v,
                          int sum_duplicates, tc_error *err)
{
    return tc_csr_from_coo_sym(out, rows, cols, n, ri, ci, v, TC_SYM_GENERAL, sum_duplicates,
                               err);
}

tc_status tc_csr_validate_rows(const int64_t *rowptr, const int32_t *colidx, int32_t r0,
                               int32_t r1, int32_t cols, int64_t nnz, const char *what,
                               tc_error *err)
{
    const int64_t off = rowptr[r0];
    for (int32_t i = r0; i < r1; i++) {
        int64_t s = rowptr[i], e = rowptr[i + 1];
        if (e < s || e > nnz)
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s: row pointers not monotone at row %d (%lld then %lld, nnz %lld)",
                                what, i, (long long)s, (long long)e, (long long)nnz);
        for (int64_t k = s; k < e; k++) {
            int32_t c = colidx[k - off];
            if (c < 0 || c >= cols)
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: row %d: column index %d outside 0..%d", what, i, c,
                                    cols - 1);
            if (k > s && c <= colidx[k - 1 - off])
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: row %d: column indices not strictly increasing (%d after %d)",
                                    what, i, c, colidx[k - 1 - off]);
        }
    }
    return TC_OK;
}

tc_status tc_csr_validate(const tc_csr *a, const char *what, tc_error *err)
{
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: negative size", what);
    if (a->rowptr[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: row pointer 0 is %lld, expected 0", what,
                            (long long)a->rowptr[0]);
    tc_status st = tc_csr_validate_rows(a->rowptr, a->colidx, 0, a->rows, a->cols, a->nnz, what,
                                        err);
    if (st != TC_OK)
        return st;
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

/* Compares a with its transpose entry by entry (values bit for bit, so
   that mirrored entries written as one triangle read back identical). */
tc_status tc_csr_check_symmetry(const tc_csr *a, tc_symmetry sym, const char *why,
                                tc_error *err)
{
    if (a->rows != a->cols)
        return tc_error_set(err, TC_ERR_INVALID, "%s: it is %" PRId32 " x %" PRId32
                            ", not square", why, a->rows, a->cols);
    tc_csr *t;
    tc_status st = tc_csr_transpose(a, &t, err);
    if (st)
        return st;
    int skew = sym == TC_SYM_SKEW;
    for (int32_t i = 0; i < a->rows && !st; i++) {
        int64_t p = a->rowptr[i], q = t->rowptr[i];
        int64_t pe = a->rowptr[i + 1], qe = t->rowptr[i + 1];
        for (; (p < pe || q < qe) && !st; p++, q++) {
            /* row i of t lists the j with a(j, i) stored */
            int32_t ja = p < pe ? a->colidx[p] : INT32_MAX;
            int32_t jt = q < qe ? t->colidx[q] : INT32_MAX;
            if (ja != jt) {
                int32_t j = ja < jt ? ja : jt;
                int32_t si = ja < jt ? i : j, sj = ja < jt ? j : i;
                st = tc_error_set(err, TC_ERR_INVALID,
                                  "%s: entry (%" PRId32 ", %" PRId32 ") is stored but (%"
                                  PRId32 ", %" PRId32 ") is not", why, si + 1, sj + 1, sj + 1, si + 1);
            } else if (a->val && skew && ja == i && a->val[p] != 0.0) {
                st = tc_error_set(err, TC_ERR_INVALID,
                                  "%s: diagonal entry (%" PRId32 ", %" PRId32 ") = %.17g "
                                  "is not zero", why, i + 1, i + 1,
                                  a->val[p]);
            } else if (a->val && ja != i) {
                double want = skew ? -t->val[q] : t->val[q];
                if (memcmp(&a->val[p], &want, sizeof want) != 0)
                    st = tc_error_set(err, TC_ERR_INVALID,
                                      "%s: entry (%" PRId32 ", %" PRId32 ") = %.17g but (%"
                                      PRId32 ", %" PRId32 ") = %.17g", why, i + 1, ja + 1, a->val[p], ja + 1, i + 1, t->val[q]);
            }
        }
    }
    tc_csr_free(t);
    return st;
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
