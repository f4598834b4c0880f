/* csr.c: the `csr` format, the canonical matrix itself. It is stored as
   /matrix in a .tcf.h5 (nothing under /formats), and it is what the cuSPARSE
   baseline multiplies. */
#include "config.h"
#include <stdlib.h>
#include "formats.h"

extern const tc_format tc_format_csr;

typedef struct csr_fmt {
    tc_fmt base;
    tc_csr *a;
} csr_fmt;

static tc_status csr_build(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err)
{
    csr_fmt *m = calloc(1, sizeof *m);
    if (!m)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    tc_fmt_init(&m->base, &tc_format_csr, a, p);
    tc_status st = tc_csr_copy(a, &m->a, err);
    if (st) {
        free(m);
        return st;
    }
    *out = &m->base;
    return TC_OK;
}

static tc_status csr_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    return tc_csr_copy(((const csr_fmt *)m)->a, out, err);
}

static tc_status csr_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                              double *C, int64_t ldc, tc_error *err)
{
    return tc_spmm_ref_f64(((const csr_fmt *)m)->a, B, ldb, n, C, ldc, 1, err);
}

/* The GPU layout (cuSPARSE's upload). */
static int64_t csr_bytes(const tc_fmt *m)
{
    return tc_csr_device_bytes(((const csr_fmt *)m)->a);
}

static tc_status csr_validate(const tc_fmt *m, const tc_csr *a, const char *what,
                              tc_error *err)
{
    const tc_csr *mine = ((const csr_fmt *)m)->a;
    tc_status st = tc_csr_validate(mine, what, err);
    if (!st && a && !tc_csr_equal(mine, a))
        st = tc_error_set(err, TC_ERR_INVALID, "%s: does not encode /matrix", what);
    return st;
}

static void csr_free(tc_fmt *m)
{
    if (!m)
        return;
    tc_csr_free(((csr_fmt *)m)->a);
    free(m);
}

const tc_format tc_format_csr = {
    .name = "csr",
    .description = "compressed sparse rows: the canonical matrix, multiplied by cuSPARSE",
    .params = NULL,
    .nparams = 0,
    .canonical = 1,
    .build = csr_build,
    .to_csr = csr_to_csr,
    .spmm_ref = csr_spmm_ref,
    .bytes = csr_bytes,
    .write_h5 = NULL,
    .read_h5 = NULL,
    .validate = csr_validate,
    .stats = NULL,
    .free = csr_free,
};
