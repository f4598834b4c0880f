/* broken_formats.c: the wrong-on-purpose formats of broken_formats.h. Each
   wrong function calls the real one it replaces (model's) and then makes
   the one mistake a real format could make. */
#include "config.h"

#include <string.h>

#include "broken_formats.h"

static const tc_format *model;

/* A decoder that gets the last nonzero's value wrong. */
static tc_status decode_off_by_one(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    tc_status st = model->to_csr(m, out, err);
    if (st == TC_OK && (*out)->val && (*out)->nnz > 0)
        (*out)->val[(*out)->nnz - 1] += 1;
    return st;
}

/* A multiply that does B's columns in pairs and forgets the last one of an
   odd n (its column of C stays 0). */
static tc_status spmm_in_pairs(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                               double *C, int64_t ldc, tc_error *err)
{
    tc_status st = model->spmm_ref(m, B, ldb, n, C, ldc, err);
    for (int32_t r = 0; st == TC_OK && n % 2 == 1 && r < m->rows; r++)
        C[r * ldc + n - 1] = 0;
    return st;
}

/* A multiply that adds padding zeros times B's row 0 into every row (the
   pitfall of DESIGN.md): the same C for a finite B, a NaN or Inf of B's
   row 0 spread to every row. */
static tc_status spmm_spreading(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                                double *C, int64_t ldc, tc_error *err)
{
    tc_status st = model->spmm_ref(m, B, ldb, n, C, ldc, err);
    for (int32_t r = 0; st == TC_OK && m->cols > 0 && r < m->rows; r++)
        for (int32_t j = 0; j < n; j++)
            C[r * ldc + j] += 0.0 * B[j];
    return st;
}

/* A validate that checks the arrays' bounds but never that they encode the
   matrix they are stored with. */
static tc_status validate_bounds_only(const tc_fmt *m, const tc_csr *a, const char *what,
                                      tc_error *err)
{
    (void)a;
    return model->validate(m, NULL, what, err);
}

int broken_formats(broken_format out[NBROKEN])
{
    for (int i = 0; i < tc_format_count() && !model; i++)
        if (!tc_format_is_canonical(tc_format_at(i)))
            model = tc_format_at(i);
    if (!model)
        return 0;
    static const struct {
        const char *name;
        enum fmt_check check;
    } wrong[NBROKEN] = {
        { "broken-to_csr", CHECK_DECODE },
        { "broken-spmm_ref", CHECK_SPMM },
        { "broken-nonfinite", CHECK_NONFINITE },
        { "broken-validate", CHECK_MUTATION },
    };
    for (int i = 0; i < NBROKEN; i++) {
        out[i].f = *model;
        out[i].f.name = wrong[i].name;
        out[i].must_fail = 1u << wrong[i].check;
    }
    out[0].f.to_csr = decode_off_by_one;
    out[1].f.spmm_ref = spmm_in_pairs;
    out[2].f.spmm_ref = spmm_spreading;
    out[3].f.validate = validate_bounds_only;
    return 1;
}
