/*
 * h5ad.c: AnnData's .h5ad files: the matrix X, or a layer
 * ("layers/counts"), stored as a group of encoding-type csr_matrix or
 * csc_matrix (data, indices, indptr; attribute shape) or as a dense 2-D
 * dataset. Rows are observations (cells), columns variables (genes), as
 * AnnData has them; a csc_matrix is turned, not transposed. The arrays
 * become a tc_csr through tc_csr_from_arrays, like every other
 * container's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"
#include "sparse_arrays.h"

/* A dense dataset (float32 or float64): every entry stored, as a Matrix
   Market array file gives. */
static tc_status read_dense(const char *path, const char *dataset, tc_csr **out,
                            tc_error *err)
{
    int32_t rows, cols;
    double *d;
    tc_status st = tc_h5_read_dense(path, dataset, &rows, &cols, &d, err);
    if (st != TC_OK)
        return st;
    int64_t n = (int64_t)rows * cols;
    st = tc_csr_alloc(out, rows, cols, n, 1, err);
    if (st == TC_OK) {
        for (int32_t i = 0; i <= rows; i++)
            (*out)->rowptr[i] = (int64_t)i * cols;
        for (int64_t k = 0; k < n; k++)
            (*out)->colidx[k] = (int32_t)(k % cols);   /* (no entry when cols is 0) */
        memcpy((*out)->val, d, (size_t)n * sizeof *d);
        (*out)->field = TC_FIELD_REAL;
    } else {
        tc_error_prefix(err, st, "%s: %s", path, dataset);
    }
    free(d);
    return st;
}

/* Integer data gives an integer matrix, float data a real one. */
static tc_status data_field(const tc_h5grp *g, tc_field *field, tc_error *err)
{
    hid_t ds = H5Dopen2(g->id, "data", H5P_DEFAULT);
    hid_t ft = ds < 0 ? -1 : H5Dget_type(ds);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    tc_h5_close(ft);
    tc_h5_close(ds);
    if (cls == H5T_NO_CLASS)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s/data: cannot read its type", g->where);
    *field = cls == H5T_INTEGER ? TC_FIELD_INTEGER : TC_FIELD_REAL;
    return TC_OK;
}

/* A csr_matrix or csc_matrix group. */
static tc_status read_sparse(tc_h5grp *g, tc_csr **out, tc_error *err)
{
    char *enc = NULL;
    int64_t shape[2];
    void *data[3] = { NULL, NULL, NULL };
    tc_sparse_arrays s = { .what = g->where, .symmetry = TC_SYM_GENERAL, .tri = TC_TRI_ALL,
                           .ptr.name = "indptr", .minor.name = "indices", .val.name = "data" };
    tc_status st = tc_h5attr_read_str(g, "encoding-type", 1, &enc, err);
    if (st == TC_OK && !enc)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: no encoding-type attribute (expected an "
                          "AnnData csr_matrix or csc_matrix group)", g->where);
    else if (st == TC_OK && strcmp(enc, "csr_matrix") != 0 && strcmp(enc, "csc_matrix") != 0)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: encoding-type is '%.40s' (expected "
                          "csr_matrix or csc_matrix)", g->where, enc);
    if (st == TC_OK) {
        s.layout = strcmp(enc, "csr_matrix") == 0 ? TC_LAYOUT_CSR : TC_LAYOUT_CSC;
        st = tc_h5attr_read_num(g, "shape", 2, 1, H5T_NATIVE_INT64, shape, err);
    }
    if (st == TC_OK)
        st = tc_h5ds_get_1d(g, "indptr", TC_I64, -1, NULL, 0, &s.ptr.n, &data[0], err);
    if (st == TC_OK)
        st = tc_h5ds_get_1d(g, "indices", TC_I64, -1, NULL, 0, &s.minor.n, &data[1], err);
    if (st == TC_OK)
        st = tc_h5ds_get_1d(g, "data", TC_F64, -1, NULL, 0, &s.val.n, &data[2], err);
    if (st == TC_OK)
        st = data_field(g, &s.field, err);
    if (st == TC_OK) {
        s.rows = shape[0];
        s.cols = shape[1];
        s.ptr.i64 = data[0];
        s.minor.i64 = data[1];
        s.val.f64 = data[2];
        st = tc_csr_from_arrays(&s, out, err);
    }
    for (int i = 0; i < 3; i++)
        free(data[i]);
    free(enc);
    return st;
}

tc_status tc_h5ad_read(const char *path, const char *dataset, tc_csr **out, tc_error *err)
{
    tc_h5_quiet();
    *out = NULL;
    /* "/X" whether named "X" or "/X", for messages like every HDF5 path's */
    char name[WHERE_MAX];
    snprintf(name, sizeof name, "/%s", dataset ? dataset + strspn(dataset, "/") : "X");
    hid_t file;
    tc_status st = tc_h5_file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    /* the file was guarded: asking HDF5 what the path names is safe */
    htri_t exists = H5Oexists_by_name(file, name, H5P_DEFAULT);
    hid_t obj = exists > 0 ? H5Oopen(file, name, H5P_DEFAULT) : -1;
    H5I_type_t type = obj < 0 ? H5I_BADID : H5Iget_type(obj);
    tc_h5_close(obj);
    tc_h5grp g;
    if (type == H5I_GROUP && (st = tc_h5grp_open_at(&g, file, path, name, 0, err)) == TC_OK) {
        st = read_sparse(&g, out, err);
        tc_h5grp_release(&g);
    } else if (type != H5I_GROUP && type != H5I_DATASET) {
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: %s: no such group or dataset (expected "
                          "X or a layer such as layers/counts)", path, name);
    }
    tc_h5_close(file);
    if (st == TC_OK && type == H5I_DATASET)
        st = read_dense(path, name, out, err);
    return st;
}

int tc_h5ad_is(const char *path)
{
    return tc_h5_root_attr(path, "encoding-type", "anndata");
}
