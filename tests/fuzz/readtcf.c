/*
 * readtcf.c: what the .tcf.h5 harnesses (fuzz_validate, fuzz_tcf) check on
 * a file they made: it is read as the tools read it (tc_h5_read, whose
 * guard walks its metadata in a child process first), with its formats,
 * and either refused with a message naming it or accepted whole and sound.
 */
#include "config.h"

#include <stdlib.h>

#include "tcsparse.h"
#include "formats.h"
#include "fuzz.h"

enum { SPMM_N = 3 };   /* columns of B: odd */

/* An accepted format passes validate alone, decodes to /matrix, and can be
   multiplied (spmm_ref), reported (stats) and split (nnz_part). */
static void check_format(const tc_fmt *m, const tc_csr *a)
{
    const char *name = tc_format_name(tc_fmt_format(m));
    tc_error err;
    tc_csr *back;
    if (m->kind->validate(m, NULL, name, &err) != TC_OK)
        fuzz_fail("%s: accepted against /matrix, refused alone: %s", name, err.msg);
    if (tc_fmt_to_csr(m, &back, &err) != TC_OK)
        fuzz_fail("%s: to_csr: %s", name, err.msg);
    /* a binary format (bsb values=0) decodes to the pattern of /matrix */
    tc_csr pattern = *a;
    if (!back->val)
        pattern.val = NULL;
    if (!tc_csr_equal(back, &pattern))
        fuzz_fail("%s: accepted, but does not decode to /matrix", name);
    tc_csr_free(back);
    double *B = calloc((size_t)a->cols * SPMM_N + 1, sizeof *B);
    double *C = calloc((size_t)a->rows * SPMM_N + 1, sizeof *C);
    uint8_t *part = calloc((size_t)a->nnz + 1, 1);
    if (!B || !C || !part)
        fuzz_fail("out of memory");
    for (int64_t k = 0; k < (int64_t)a->cols * SPMM_N; k++)
        B[k] = k % 7 - 3;
    if (tc_fmt_spmm_ref(m, B, SPMM_N, SPMM_N, C, SPMM_N, &err) != TC_OK)
        fuzz_fail("%s: spmm_ref: %s", name, err.msg);
    tc_report *r = tc_report_new();
    if (!r || tc_format_stats_report(m, a, r, &err) != TC_OK)
        fuzz_fail("%s: stats: %s", name, r ? err.msg : "out of memory");
    tc_report_free(r);
    if (tc_format_has_parts(m->kind) && tc_fmt_nnz_part(m, a, part, &err) != TC_OK)
        fuzz_fail("%s: nnz_part: %s", name, err.msg);
    free(B);
    free(C);
    free(part);
}

void fuzz_read_tcf(const char *path)
{
    tc_tcf *t;
    tc_error err;
    tc_status st = tc_h5_read(path, 1, &t, &err);
    if (st != TC_OK) {
        fuzz_check_message(err.msg, path);
        return;
    }
    const tc_csr *a = t->matrix;
    if (tc_csr_validate(a, path, &err) != TC_OK)
        fuzz_fail("accepted /matrix is invalid: %s", err.msg);
    for (int i = 0; i < t->nformats; i++)
        check_format(t->formats[i], a);
    tc_tcf_free(t);
}
