/*
 * tcmul_io.c: what both of tcmul's operations (tcmul_spmm.c,
 * tcmul_attention.c) do with their operands and results: dense operands
 * read, results written, the verify section and its failure. Apart from
 * tcmul.c (options and dispatch), which calls the operations, so that no
 * two of tcmul's files call each other.
 */
#include "config.h"
#include <stdlib.h>
#include "tcmul.h"

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */
/* ------------------------------------------------------------------------ */

tc_status tcmul_read_dense(const dense_spec *spec, const char *default_dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err)
{
    if (spec->dataset || tc_h5_is_hdf5(spec->path))
        return tc_h5_read_dense(spec->path, spec->dataset ? spec->dataset : default_dataset, rows,
                                cols, data, err);
    return tc_mtx_read_dense(spec->path, rows, cols, data, err);
}

tc_status tcmul_report_verify(tc_report *rep, const tc_compare *c, double tol, int pass,
                              int64_t row, int64_t col)
{
    tc_status st;
    (void)((st = tc_report_num(rep, "verify", "tolerance", tol,
                               "relative Frobenius, from the precision")) ||
           (st = tc_report_num(rep, "verify", "rel_fro", c->rel_fro,
                               "||out - ref||_F / ||ref||_F, float64 reference")) ||
           (st = tc_report_num(rep, "verify", "max_abs", c->max_abs, "largest |out - ref|")) ||
           (st = tc_report_int(rep, "verify", "max_row", row, "where it is (0-based)")) ||
           (st = tc_report_int(rep, "verify", "max_col", col, NULL)) ||
           (st = tc_report_int(rep, "verify", "nonfinite", c->nonfinite,
                               "NaN/Inf where the reference differs")) ||
           (st = tc_report_str(rep, "verify", "result", pass ? "pass" : "FAIL", NULL)));
    return st;
}

tc_status tcmul_verify_failed(const tc_compare *c, const char *precision, tc_error *err)
{
    return tc_error_set(err, TC_ERR_VERIFY,
                        "verification failed: relative Frobenius error %.3g (tolerance %.3g, "
                        "%s), %lld non-finite where the reference differs",
                        c->rel_fro, tc_tolerance(precision), precision, (long long)c->nonfinite);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

tc_status tcmul_write_dense(const options *o, const double *c, int32_t rows, int32_t n,
                            const tc_labels *row_ids, tc_error *err)
{
    if (row_ids && !o->out_dataset)
        tool_warn("%s: a Matrix Market array has no place for the original row ids: "
                  "write HDF5 to keep them", o->output);
    tc_status st = o->out_dataset
                       ? tc_h5_write_dense_labelled(o->out_path, o->out_dataset, rows, n, c, 1,
                                                    row_ids, err)
                       : tc_mtx_write_dense(o->out_path, rows, n, c, err);
    if (!st)
        tool_info("wrote %s: %d x %d", o->output, rows, n);
    return st;
}

tc_status tcmul_write_floats(const options *o, const float *x, int32_t rows, int32_t n,
                             const tc_labels *row_ids, tc_error *err)
{
    double *c = tc_malloc_array((int64_t)rows * n, sizeof *c, err);
    if (!c)
        return TC_ERR_NOMEM;
    for (int64_t i = 0; i < (int64_t)rows * n; i++)
        c[i] = x[i];
    tc_status st = tcmul_write_dense(o, c, rows, n, row_ids, err);
    free(c);
    return st;
}
