/*
 * h5dense.c: dense 2-D datasets (row-major float32 or float64) in any HDF5
 * file, "file.h5:/path/B": tcmul's B and C. Read with the same checks as
 * the container's arrays (h5group.c); written atomically.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"

/* Splits "/a/b/B" (or "a/b/B") into the parent group path "/a/b" and the
   leaf name "B". */
static tc_status split_dataset(const char *fname, const char *dataset, char *parent,
                               size_t psize, const char **leaf, tc_error *err)
{
    const char *rel = dataset + strspn(dataset, "/");
    const char *slash = strrchr(rel, '/');
    *leaf = slash ? slash + 1 : rel;
    size_t plen = slash ? (size_t)(slash - rel) : 0;
    if (!**leaf)
        return tc_error_set(err, TC_ERR_ARG, "%s: '%s' does not name a dataset", fname,
                            dataset);
    if (plen + 2 > psize)
        return tc_error_set(err, TC_ERR_ARG, "%s: dataset path too long", fname);
    parent[0] = '/';
    memcpy(parent + 1, rel, plen);
    parent[plen + 1] = '\0';
    return TC_OK;
}

/* A dense matrix dataset: float32 or float64, rows x cols, each within
   int32. */
static tc_status dense_extent(const tc_h5grp *g, const char *leaf, hid_t ds, int64_t dims[2],
                              tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, leaf, what, sizeof what);
    hid_t ft = H5Dget_type(ds);
    size_t size = ft < 0 ? 0 : H5Tget_size(ft);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    tc_h5_close(ft);
    if (cls != H5T_FLOAT || (size != 4 && size != 8))
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: expected a float32 or float64 dataset, found %s (%zu bytes)",
                            what, tc_h5_class_name(cls), size);
    tc_status st = tc_h5ds_extent(g, leaf, ds, 2, dims, err);
    if (st == TC_OK && (dims[0] > INT32_MAX || dims[1] > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: %" PRId64 "x%" PRId64 " is too large (at "
                          "most %d rows and columns)", what, dims[0], dims[1], INT32_MAX);
    return st;
}

tc_status tc_h5_read_dense(const char *path, const char *dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err)
{
    tc_h5_quiet();
    *data = NULL;
    char parent[512];
    const char *leaf;
    hid_t file, ds = -1;
    int64_t dims[2];
    tc_h5grp g = { .id = -1 };
    tc_status st = split_dataset(path, dataset, parent, sizeof parent, &leaf, err);
    if (st != TC_OK)
        return st;
    st = tc_h5_file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    st = tc_h5grp_open_at(&g, file, path, parent, 0, err);
    if (st == TC_OK)
        st = tc_h5ds_open(&g, leaf, TC_F64, 0, &ds, err);
    if (st == TC_OK)
        st = dense_extent(&g, leaf, ds, dims, err);
    if (st == TC_OK && !(*data = tc_malloc_array(dims[0] * dims[1], sizeof(double), err))) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", g.where);
        st = TC_ERR_NOMEM;
    }
    if (st == TC_OK)
        st = tc_h5ds_read(&g, leaf, ds, TC_F64, *data, err);
    tc_h5_close(ds);
    tc_h5grp_release(&g);
    tc_h5_close(file);
    if (st != TC_OK) {
        free(*data);
        *data = NULL;
        return st;
    }
    *rows = (int32_t)dims[0];
    *cols = (int32_t)dims[1];
    return TC_OK;
}

/* Creates the groups along `parent` ("/a/b") that do not exist yet. */
static tc_status create_parents(hid_t file, const char *fname, const char *parent,
                                tc_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s", parent);
    if (strcmp(path, "/") == 0)
        return TC_OK;
    char *p = path;
    do {
        p = strchr(p + 1, '/');
        if (p)
            *p = '\0';
        htri_t e = H5Lexists(file, path, H5P_DEFAULT);
        hid_t gcpl = e == 0 ? tc_h5_gcpl_new() : -1;
        hid_t gid = gcpl < 0 ? -1 : H5Gcreate2(file, path, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        tc_h5_close(gcpl);
        tc_h5_close(gid);
        if (e < 0 || (e == 0 && gid < 0))
            return tc_h5_fail(err, TC_ERR_IO, "%s: %s: cannot create group", fname, path);
        if (p)
            *p = '/';
    } while (p);
    return TC_OK;
}

/* What tc_h5_write_dense puts in the file. */
struct dense_job {
    const char *parent;     /* "/a/b" */
    const char *leaf;       /* "B" */
    hsize_t dims[2];
    const double *data;
    int as_float32;
    const tc_labels *row_labels;   /* written as LEAF_row_labels, or NULL */
};

static tc_status write_dense(hid_t file, const char *fname, void *ctx, tc_error *err)
{
    const struct dense_job *job = ctx;
    tc_h5grp g = { .id = -1 };
    tc_status st = create_parents(file, fname, job->parent, err);
    if (st == TC_OK)
        st = tc_h5grp_open_at(&g, file, fname, job->parent, 0, err);
    if (st == TC_OK)
        st = tc_h5ds_write(&g, job->leaf, H5T_NATIVE_DOUBLE,
                           job->as_float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, 2, job->dims,
                           job->data, err);
    if (st == TC_OK && job->row_labels) {
        char name[512];
        snprintf(name, sizeof name, "%s_row_labels", job->leaf);
        st = tc_h5_write_labels(file, fname, &g, name, job->row_labels, 0, err);
    }
    tc_h5grp_release(&g);
    return st;
}

tc_status tc_h5_write_dense(const char *path, const char *dataset, int32_t rows,
                            int32_t cols, const double *data, int as_float32, tc_error *err)
{
    return tc_h5_write_dense_labelled(path, dataset, rows, cols, data, as_float32, NULL, err);
}

tc_status tc_h5_write_dense_labelled(const char *path, const char *dataset, int32_t rows,
                                     int32_t cols, const double *data, int as_float32,
                                     const tc_labels *row_labels, tc_error *err)
{
    tc_h5_quiet();
    char parent[512];
    const char *leaf;
    if (rows < 0 || cols < 0)
        return tc_error_set(err, TC_ERR_ARG, "%s: negative size %dx%d", path, rows, cols);
    if (strcmp(path, "-") == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "cannot write HDF5 to standard output (it needs a seekable file)");
    tc_status st = split_dataset(path, dataset, parent, sizeof parent, &leaf, err);
    if (st != TC_OK)
        return st;
    if (row_labels && row_labels->n != rows)
        return tc_error_set(err, TC_ERR_ARG, "%s: %d row labels for %d rows", path,
                            row_labels->n, rows);
    struct dense_job job = { parent, leaf, { (hsize_t)rows, (hsize_t)cols }, data, as_float32,
                             row_labels };
    return tc_h5_write_atomic(path, write_dense, &job, err);
}
