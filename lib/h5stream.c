/*
 * h5stream.c: tc_h5_write_rows, a .tcf.h5 written from a matrix that is
 * never whole in memory (the synthetic matrices past 2^31 nonzeros of
 * bench/band). /matrix's datasets are created at their full extent from
 * the row pointers, then filled slab by slab, so that the file has exactly
 * the layout tc_h5_write gives (man/tcf.h5.5) and reads back the same way.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "tcsparse.h"
#include "h5internal.h"

/* Entries per slab: 64 MiB of column indices and 128 MiB of values, large
   enough that HDF5's per-call cost vanishes, small enough to stay far
   below the memory of the matrix itself. */
#define SLAB_ENTRIES ((int64_t)1 << 24)

struct stream_job {
    const tc_csr *shape;
    tc_rows_fn fill;
    void *ctx;
    const tc_provenance *prov;
    int compress;
    const tc_progress *progress;
};

/* The row pointers must describe a matrix before any byte is written. */
static tc_status check_shape(const char *path, const tc_csr *a, tc_error *err)
{
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0 || !a->rowptr)
        return tc_error_set(err, TC_ERR_ARG, "%s: negative size or no row pointers", path);
    if (a->rowptr[0] != 0 || a->rowptr[a->rows] != a->nnz)
        return tc_error_set(err, TC_ERR_ARG,
                            "%s: row pointers run from %" PRId64 " to %" PRId64
                            ", expected 0 to nnz %" PRId64, path, a->rowptr[0],
                            a->rowptr[a->rows], a->nnz);
    for (int32_t i = 0; i < a->rows; i++)
        if (a->rowptr[i + 1] < a->rowptr[i])
            return tc_error_set(err, TC_ERR_ARG, "%s: row pointers decrease at row %d", path, i);
    return TC_OK;
}

/* The end of the slab that starts at row r0: as many rows as fit in
   SLAB_ENTRIES, at least one. */
static int32_t slab_end(const tc_csr *a, int32_t r0)
{
    int32_t lo = r0 + 1, hi = a->rows;
    const int64_t limit = a->rowptr[r0] + SLAB_ENTRIES;
    while (lo < hi) {   /* the last row end within limit, by bisection */
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (a->rowptr[mid] <= limit)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static tc_status write_slabs(tc_h5grp *g, hid_t ds_idx, hid_t ds_val,
                             const struct stream_job *job, tc_error *err)
{
    const tc_csr *a = job->shape;
    int64_t cap = 0;
    int32_t *colidx = NULL;
    double *val = NULL;
    tc_status st = TC_OK;
    for (int32_t r0 = 0; r0 < a->rows && st == TC_OK;) {
        const int32_t r1 = slab_end(a, r0);
        const int64_t at = a->rowptr[r0], count = a->rowptr[r1] - at;
        if (count > cap) {
            free(colidx);
            free(val);
            cap = count > SLAB_ENTRIES ? count : SLAB_ENTRIES;
            colidx = tc_malloc_array(cap, sizeof *colidx, err);
            val = ds_val >= 0 ? tc_malloc_array(cap, sizeof *val, err) : NULL;
            if (!colidx || (ds_val >= 0 && !val)) {
                st = TC_ERR_NOMEM;
                break;
            }
        }
        /* rows without entries have nothing to produce or check */
        st = count > 0 ? job->fill(job->ctx, r0, r1, colidx, val, err) : TC_OK;
        if (st == TC_OK && count > 0)
            st = tc_csr_validate_rows(a->rowptr, colidx, r0, r1, a->cols, a->nnz,
                                      tc_h5grp_path(g), err);
        if (st == TC_OK)
            st = tc_h5ds_write_at(g, "indices", ds_idx, TC_I32, at, count, colidx, err);
        if (st == TC_OK && val)
            st = tc_h5ds_write_at(g, "data", ds_val, TC_F64, at, count, val, err);
        tc_progress_report(job->progress, a->rowptr[r1], a->nnz);
        r0 = r1;
    }
    free(colidx);
    free(val);
    return st;
}

/* /matrix as write_matrix lays it out (data, indices, indptr), its
   entries streamed. */
static tc_status write_matrix_rows(hid_t file, const char *fname,
                                   const struct stream_job *job, tc_error *err)
{
    const tc_csr *a = job->shape;
    hid_t ds_val = -1, ds_idx = -1;
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, NULL, "matrix", job->compress, err);
    if (st != TC_OK)
        return st;
    st = tc_h5_matrix_attrs(&g, a, err);
    if (st == TC_OK && a->field != TC_FIELD_PATTERN)
        st = tc_h5ds_create_1d(&g, "data", TC_F64, a->nnz, &ds_val, err);
    if (st == TC_OK)
        st = tc_h5ds_create_1d(&g, "indices", TC_I32, a->nnz, &ds_idx, err);
    if (st == TC_OK)
        st = write_slabs(&g, ds_idx, ds_val, job, err);
    tc_h5_close(ds_idx);
    tc_h5_close(ds_val);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indptr", TC_I64, (int64_t)a->rows + 1, a->rowptr, err);
    tc_h5grp_release(&g);
    return st;
}

static tc_status fill_file(hid_t file, const char *fname, void *ctx, tc_error *err)
{
    const struct stream_job *job = ctx;
    tc_status st = tc_h5_write_layout_version(file, fname, err);
    if (st == TC_OK)
        st = write_matrix_rows(file, fname, job, err);
    if (st == TC_OK && job->prov)
        st = tc_h5_write_provenance(file, fname, job->prov, err);
    return st;
}

tc_status tc_h5_write_rows(const char *path, const tc_csr *shape, tc_rows_fn fill, void *ctx,
                           const tc_provenance *prov, const tc_h5_write_opts *opts,
                           const tc_progress *progress, tc_error *err)
{
    tc_status st = tc_h5_write_start(path, &opts, err);
    if (st == TC_OK)
        st = check_shape(path, shape, err);
    if (st != TC_OK)
        return st;
    struct stream_job job = { shape, fill, ctx, prov, opts->compress, progress };
    return tc_h5_write_atomic(path, fill_file, &job, err);
}
