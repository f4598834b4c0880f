/*
 * sparse_arrays.c: the arrays of a .npz, binsparse or AnnData matrix
 * checked and turned into the canonical tc_csr (sparse_arrays.h). Every
 * entry becomes a triplet and the triplets go through tc_csr_from_coo_sym,
 * as Matrix Market entries do, so that unsorted columns, duplicates
 * (summed) and stored triangles behave the same whatever the container.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "sparse_arrays.h"

/* The dimensions the pointers run over (major) and the indices name
   (minor), and which of the two the rows are. */
static int by_columns(tc_sparse_layout l)
{
    return l == TC_LAYOUT_CSC || l == TC_LAYOUT_DCSC;
}

static tc_status check_length(const tc_sparse_arrays *s, const tc_sparse_array *a,
                              int64_t want, const char *why, tc_error *err)
{
    if (a->n == want)
        return TC_OK;
    return tc_error_set(err, TC_ERR_FORMAT, "%s: %s: expected %" PRId64 " entries (%s), found %"
                        PRId64, s->what, a->name, want, why, a->n);
}

static tc_status check_index(const tc_sparse_arrays *s, const tc_sparse_array *a, int64_t k,
                             int64_t limit, const char *dim, tc_error *err)
{
    int64_t v = a->i64[k];
    if (v >= 0 && v < limit)
        return TC_OK;
    return tc_error_set(err, TC_ERR_FORMAT, "%s: %s[%" PRId64 "] is %" PRId64 ", out of range "
                        "(expected 0 to %" PRId64 ", the number of %s less one)", s->what,
                        a->name, k, v, limit - 1, dim);
}

/* Pointers start at 0, never decrease and end at nnz. */
static tc_status check_pointers(const tc_sparse_arrays *s, int64_t nnz, tc_error *err)
{
    const tc_sparse_array *p = &s->ptr;
    if (p->i64[0] != 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: %s[0] is %" PRId64 ", expected 0",
                            s->what, p->name, p->i64[0]);
    for (int64_t m = 1; m < p->n; m++)
        if (p->i64[m] < p->i64[m - 1])
            return tc_error_set(err, TC_ERR_FORMAT, "%s: %s[%" PRId64 "] is %" PRId64 ", less "
                                "than %s[%" PRId64 "] = %" PRId64 " (pointers must not "
                                "decrease)", s->what, p->name, m, p->i64[m], p->name, m - 1,
                                p->i64[m - 1]);
    if (p->i64[p->n - 1] != nnz)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: %s ends at %" PRId64 ", expected %" PRId64
                            " (the length of %s)", s->what, p->name, p->i64[p->n - 1], nnz,
                            s->minor.name);
    return TC_OK;
}

/* Every array's length, pointers and majors, before any entry is read. */
static tc_status check_structure(const tc_sparse_arrays *s, int64_t nmaj, tc_error *err)
{
    int64_t nnz = s->minor.n;
    const char *majname = by_columns(s->layout) ? "columns" : "rows";
    tc_status st = TC_OK;
    if (s->val.f64)
        st = check_length(s, &s->val, s->iso ? 1 : nnz,
                          s->iso ? "one value for every entry" : "one per stored entry", err);
    switch (s->layout) {
    case TC_LAYOUT_CSR:
    case TC_LAYOUT_CSC:
        if (st == TC_OK)
            st = check_length(s, &s->ptr, nmaj + 1, by_columns(s->layout)
                              ? "the number of columns plus one" : "the number of rows plus one",
                              err);
        return st == TC_OK ? check_pointers(s, nnz, err) : st;
    case TC_LAYOUT_DCSR:
    case TC_LAYOUT_DCSC:
        if (st == TC_OK)
            st = check_length(s, &s->ptr, s->major_ids.n + 1,
                              "one more than the non-empty majors", err);
        for (int64_t m = 0; st == TC_OK && m < s->major_ids.n; m++) {
            st = check_index(s, &s->major_ids, m, nmaj, majname, err);
            if (st == TC_OK && m > 0 && s->major_ids.i64[m] <= s->major_ids.i64[m - 1])
                st = tc_error_set(err, TC_ERR_FORMAT, "%s: %s[%" PRId64 "] is %" PRId64 ", not "
                                  "above the one before (expected increasing %s)", s->what,
                                  s->major_ids.name, m, s->major_ids.i64[m], majname);
        }
        return st == TC_OK ? check_pointers(s, nnz, err) : st;
    case TC_LAYOUT_COO:
        return st == TC_OK ? check_length(s, &s->major_ids, nnz, "one per stored entry", err)
                           : st;
    }
    return tc_error_set(err, TC_ERR_ARG, "%s: unknown layout %d", s->what, (int)s->layout);
}

/* Entry k's major coordinate: its row (or column) for the compressed
   layouts, advancing *m past the majors that end at or before k. */
static int64_t major_of(const tc_sparse_arrays *s, int64_t k, int64_t *m)
{
    if (s->layout == TC_LAYOUT_COO)
        return s->major_ids.i64[k];
    while (s->ptr.i64[*m + 1] <= k)
        ++*m;
    return s->layout == TC_LAYOUT_DCSR || s->layout == TC_LAYOUT_DCSC ? s->major_ids.i64[*m]
                                                                       : *m;
}

/* Entry k at (i, j) lies in the stored triangle. */
static tc_status check_triangle(const tc_sparse_arrays *s, int64_t k, int64_t i, int64_t j,
                                tc_error *err)
{
    if (s->tri == TC_TRI_ALL || (s->tri == TC_TRI_LOWER ? i >= j : i <= j))
        return TC_OK;
    return tc_error_set(err, TC_ERR_FORMAT, "%s: entry %" PRId64 " at (%" PRId64 ", %" PRId64
                        ") is outside the stored %s triangle of a %s matrix", s->what, k, i, j,
                        s->tri == TC_TRI_LOWER ? "lower" : "upper",
                        tc_symmetry_name(s->symmetry));
}

/* The triplets, 0-based, as tc_csr_from_coo_sym takes them: the lower
   triangle of a symmetric matrix (an upper one is transposed, and for a
   skew-symmetric one negated, which lists the same matrix). */
static tc_status fill_triplets(const tc_sparse_arrays *s, int32_t *ri, int32_t *ci, double *v,
                               tc_error *err)
{
    int cols_major = by_columns(s->layout);
    int64_t nmaj = cols_major ? s->cols : s->rows, nmin = cols_major ? s->rows : s->cols;
    const char *minname = cols_major ? "rows" : "columns";
    int flip = s->tri == TC_TRI_UPPER;
    double sign = flip && s->symmetry == TC_SYM_SKEW ? -1.0 : 1.0;
    int64_t m = 0;
    for (int64_t k = 0; k < s->minor.n; k++) {
        tc_status st = check_index(s, &s->minor, k, nmin, minname, err);
        if (st != TC_OK)
            return st;
        int64_t maj = major_of(s, k, &m);
        if (s->layout == TC_LAYOUT_COO &&
            (st = check_index(s, &s->major_ids, k, nmaj, "rows", err)) != TC_OK)
            return st;
        int64_t i = cols_major ? s->minor.i64[k] : maj, j = cols_major ? maj : s->minor.i64[k];
        if ((st = check_triangle(s, k, i, j, err)) != TC_OK)
            return st;
        ri[k] = (int32_t)(flip ? j : i);
        ci[k] = (int32_t)(flip ? i : j);
        if (v)
            v[k] = sign * s->val.f64[s->iso ? 0 : k];
    }
    return TC_OK;
}

tc_status tc_csr_from_arrays(const tc_sparse_arrays *s, tc_csr **out, tc_error *err)
{
    *out = NULL;
    if (s->rows < 0 || s->rows > INT32_MAX || s->cols < 0 || s->cols > INT32_MAX)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: shape [%" PRId64 ", %" PRId64 "] out of "
                            "range (0 to %d)", s->what, s->rows, s->cols, INT32_MAX);
    if (s->symmetry != TC_SYM_GENERAL && s->rows != s->cols)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: a %s matrix must be square, not %" PRId64
                            " x %" PRId64, s->what, tc_symmetry_name(s->symmetry), s->rows,
                            s->cols);
    tc_status st = check_structure(s, by_columns(s->layout) ? s->cols : s->rows, err);
    if (st != TC_OK)
        return st;
    int64_t n = s->minor.n;
    int32_t *ri = tc_malloc_array(n, sizeof *ri, err);
    int32_t *ci = ri ? tc_malloc_array(n, sizeof *ci, err) : NULL;
    double *v = ci && s->val.f64 ? tc_malloc_array(n, sizeof *v, err) : NULL;
    if (!ci || (s->val.f64 && !v)) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", s->what);
        st = TC_ERR_NOMEM;
    }
    if (st == TC_OK)
        st = fill_triplets(s, ri, ci, v, err);
    if (st == TC_OK &&
        (st = tc_csr_from_coo_sym(out, (int32_t)s->rows, (int32_t)s->cols, n, ri, ci, v,
                                  s->symmetry, 1, err)) != TC_OK)
        tc_error_prefix(err, st, "%s", s->what);
    free(ri);
    free(ci);
    free(v);
    if (st != TC_OK)
        return st;
    (*out)->field = s->val.f64 ? s->field : TC_FIELD_PATTERN;
    if ((st = tc_csr_validate(*out, s->what, err)) != TC_OK) {
        tc_csr_free(*out);
        *out = NULL;
    }
    return st;
}
