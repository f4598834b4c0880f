/*
 * h5file.c: the .tcf.h5 container on disk (layout in man/tcf.h5.5), all
 * but /formats: the layout version, /matrix, /permutation and /provenance,
 * the pieces of tc_h5_write and tc_h5_read (formats/tcf_formats.c, which
 * adds /formats/<name>: a format's group is the format's own business).
 * Built on the HDF5 layer of h5group.c, which holds the checks that a
 * hostile file must pass and writes files atomically.
 *
 * Writes are reproducible: object modification times are not recorded and
 * objects are created in a fixed order, so two writes of the same content
 * are byte-identical apart from /provenance.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */
/* ------------------------------------------------------------------------ */

/* Parameters are numbers: whole ones are stored as int64 attributes (so
   that h5dump shows h=16, not 1.6e+01), others as float64; both read back
   as double. */
tc_status tc_h5_put_params(tc_h5grp *g, const tc_params *p, tc_error *err)
{
    tc_status st = TC_OK;
    for (int i = 0; i < p->n && st == TC_OK; i++) {
        double v = p->kv[i].value;
        if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v)
            st = tc_h5grp_put_attr_i64(g, p->kv[i].name, (int64_t)v, err);
        else
            st = tc_h5grp_put_attr_f64(g, p->kv[i].name, v, err);
    }
    return st;
}

tc_status tc_h5_params_add(tc_params *p, const char *name, double v, const char *where,
                            tc_error *err)
{
    if (p->n >= TC_MAX_PARAMS)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: more than %d parameters", where,
                            TC_MAX_PARAMS);
    if (strlen(name) >= sizeof p->kv[0].name)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: parameter name too long: %s", where, name);
    strcpy(p->kv[p->n].name, name);
    p->kv[p->n].value = v;
    p->n++;
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Writing a .tcf.h5                                                         */
/* ------------------------------------------------------------------------ */

tc_status tc_h5_matrix_attrs(tc_h5grp *g, const tc_csr *a, tc_error *err)
{
    hsize_t two = 2;
    int64_t shape[2] = { a->rows, a->cols };
    tc_status st = tc_h5grp_put_attr_str(g, "encoding-type", "csr_matrix", err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(g, "encoding-version", "0.1.0", err);
    if (st == TC_OK)
        st = tc_h5attr_write(g, "shape", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, two, shape, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(g, "field", tc_field_name(a->field), err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(g, "symmetry", tc_symmetry_name(a->symmetry), err);
    return st;
}

static tc_status write_matrix(hid_t file, const char *fname, const tc_csr *a, int compress,
                              tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, NULL, "matrix", compress, err);
    if (st != TC_OK)
        return st;
    st = tc_h5_matrix_attrs(&g, a, err);
    if (st == TC_OK && a->val)
        st = tc_h5grp_put(&g, "data", TC_F64, a->nnz, a->val, err);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indices", TC_I32, a->nnz, a->colidx, err);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indptr", TC_I64, (int64_t)a->rows + 1, a->rowptr, err);
    tc_h5grp_release(&g);
    return st;
}

static tc_status write_perm_pair(tc_h5grp *g, const char *which, const tc_perm *p,
                                 tc_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "%s_new_to_old", which);
    tc_status st = tc_h5grp_put(g, name, TC_I32, p->n, p->new2old, err);
    snprintf(name, sizeof name, "%s_old_to_new", which);
    return st != TC_OK ? st : tc_h5grp_put(g, name, TC_I32, p->n, p->old2new, err);
}

static tc_status write_perm(hid_t file, const char *fname, const tc_tcf *f, int compress,
                            tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, NULL, "permutation", compress, err);
    if (st != TC_OK)
        return st;
    if (f->row_perm)
        st = write_perm_pair(&g, "row", f->row_perm, err);
    if (st == TC_OK && f->col_perm)
        st = write_perm_pair(&g, "col", f->col_perm, err);
    if (st == TC_OK && f->perm_method)
        st = tc_h5grp_put_attr_str(&g, "method", f->perm_method, err);
    if (st == TC_OK)
        st = tc_h5_put_params(&g, &f->perm_params, err);
    tc_h5grp_release(&g);
    return st;
}

tc_status tc_h5_write_provenance(hid_t file, const char *fname, const tc_provenance *p,
                                 tc_error *err)
{
    const char *names[] = { "creator", "created", "command", "source", "banner", "comments" };
    const char *values[] = { p->creator, p->created, p->command, p->source, p->banner,
                             p->comments };
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, NULL, "provenance", 0, err);
    for (int i = 0; i < 6 && st == TC_OK; i++)
        if (values[i])
            st = tc_h5grp_put_attr_str(&g, names[i], values[i], err);
    tc_h5grp_release(&g);
    return st;
}

tc_status tc_h5_write_layout_version(hid_t file, const char *fname, tc_error *err)
{
    tc_h5grp root = { .file = file };
    snprintf(root.where, sizeof root.where, "%s: /", fname);
    root.id = H5Gopen2(file, "/", H5P_DEFAULT);
    if (root.id < 0)
        return tc_h5_fail(err, TC_ERR_IO, "%s: cannot open the root group", fname);
    tc_status st = tc_h5grp_put_attr_str(&root, "tcf_layout_version", TC_LAYOUT_VERSION, err);
    tc_h5grp_release(&root);
    return st;
}

tc_status tc_h5_write_base(hid_t file, const char *fname, const tc_tcf *f, int compress,
                           tc_error *err)
{
    tc_status st = tc_h5_write_layout_version(file, fname, err);
    if (st == TC_OK)
        st = write_matrix(file, fname, f->matrix, compress, err);
    if (st == TC_OK && (f->row_perm || f->col_perm))
        st = write_perm(file, fname, f, compress, err);
    if (st == TC_OK && f->labels)
        st = tc_h5_write_labels(file, fname, NULL, "labels", f->labels, compress, err);
    return st;
}

tc_status tc_h5_check_base(const char *path, const tc_tcf *f, tc_error *err)
{
    if (!f || !f->matrix)
        return tc_error_set(err, TC_ERR_ARG, "%s: no matrix to write", path);
    const tc_csr *a = f->matrix;
    tc_status st = tc_csr_validate(a, path, err);
    if (st != TC_OK)
        return st;
    if (f->row_perm && f->row_perm->n != a->rows)
        return tc_error_set(err, TC_ERR_ARG, "%s: row permutation of %d for %d rows", path,
                            f->row_perm->n, a->rows);
    if (f->col_perm && f->col_perm->n != a->cols)
        return tc_error_set(err, TC_ERR_ARG, "%s: column permutation of %d for %d columns",
                            path, f->col_perm->n, a->cols);
    if (f->labels && (f->labels->n != a->rows || f->labels->n != a->cols))
        return tc_error_set(err, TC_ERR_ARG, "%s: %d labels for a %d x %d matrix", path,
                            f->labels->n, a->rows, a->cols);
    return TC_OK;
}

tc_status tc_h5_write_start(const char *path, const tc_h5_write_opts **opts, tc_error *err)
{
    static const tc_h5_write_opts defaults = TC_H5_WRITE_DEFAULTS;
    tc_h5_quiet();
    if (!*opts)
        *opts = &defaults;
    if (strcmp(path, "-") == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "cannot write HDF5 to standard output (it needs a seekable file)");
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Reading a .tcf.h5                                                         */
/* ------------------------------------------------------------------------ */

static tc_status check_version(hid_t file, const char *fname, tc_error *err)
{
    tc_h5grp root;
    tc_status st = tc_h5grp_open_at(&root, file, fname, "/", 0, err);
    char *v = NULL;
    if (st == TC_OK)
        st = tc_h5attr_read_str(&root, "tcf_layout_version", 1, &v, err);
    tc_h5grp_release(&root);
    if (st != TC_OK)
        return st;
    if (!v)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: not a .tcf.h5 file (no tcf_layout_version attribute on /)",
                            fname);
    char *end;
    errno = 0;
    long major = strtol(v, &end, 10);
    int ok = isdigit((unsigned char)v[0]) && *end == '.' && isdigit((unsigned char)end[1]) &&
             errno == 0;
    if (ok) {
        strtol(end + 1, &end, 10);
        ok = *end == '\0';
    }
    if (!ok)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: malformed tcf_layout_version '%s' (expected MAJOR.MINOR)",
                          fname, v);
    else if (major != TC_LAYOUT_MAJOR)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED,
                          "%s: tcf layout version %s is not supported (tcsparse "
                          TC_VERSION_STRING " reads %d.x and writes " TC_LAYOUT_VERSION ")",
                          fname, v, TC_LAYOUT_MAJOR);
    free(v);
    return st;
}

/* field and symmetry are optional, so that an anndata-written csr_matrix
   is accepted: field then follows from whether data is present. */
static tc_status read_matrix_kind(tc_h5grp *g, int has_data, tc_field *field,
                                  tc_symmetry *sym, tc_error *err)
{
    char *fs = NULL, *ss = NULL;
    *field = has_data ? TC_FIELD_REAL : TC_FIELD_PATTERN;
    *sym = TC_SYM_GENERAL;
    tc_status st = tc_h5attr_read_str(g, "field", 1, &fs, err);
    if (st == TC_OK)
        st = tc_h5attr_read_str(g, "symmetry", 1, &ss, err);
    if (st == TC_OK && fs && tc_field_parse(fs, field) != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: attribute field: unknown value '%s' (expected real, integer "
                          "or pattern)", g->where, fs);
    else if (st == TC_OK && ss && tc_symmetry_parse(ss, sym) != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: attribute symmetry: unknown value '%s' (expected general, "
                          "symmetric, skew-symmetric or hermitian)", g->where, ss);
    else if (st == TC_OK && has_data && *field == TC_FIELD_PATTERN)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/data: present, but field is pattern",
                          g->where);
    else if (st == TC_OK && !has_data && *field != TC_FIELD_PATTERN)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/data: no such dataset (field is %s)",
                          g->where, tc_field_name(*field));
    free(fs);
    free(ss);
    return st;
}

/* An integer matrix holds whole numbers (its values are written back to
   Matrix Market as integers). */
static tc_status check_integer_values(const tc_csr *a, const char *where, tc_error *err)
{
    for (int64_t k = 0; k < a->nnz; k++)
        if (!isfinite(a->val[k]) || floor(a->val[k]) != a->val[k])
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/data: entry %" PRId64 " is %.17g, not a whole number "
                                "(field is integer)", where, k, a->val[k]);
    return TC_OK;
}

/* Reads the three arrays straight into a, whose sizes were checked
   against shape and against each other. */
static tc_status read_matrix_arrays(tc_h5grp *g, hid_t ds[3], tc_csr *a, tc_error *err)
{
    tc_status st = tc_h5ds_read(g, "indptr", ds[0], TC_I64, a->rowptr, err);
    if (st == TC_OK)
        st = tc_h5ds_read(g, "indices", ds[1], TC_I32, a->colidx, err);
    if (st == TC_OK && a->val)
        st = tc_h5ds_read(g, "data", ds[2], TC_F64, a->val, err);
    return st;
}

static tc_status read_matrix(hid_t file, const char *fname, tc_csr **out, tc_error *err)
{
    tc_h5grp g;
    hid_t ds[3] = { -1, -1, -1 };   /* indptr, indices, data */
    tc_csr *a = NULL;
    char *enc = NULL;
    int64_t shape[2], n[3];
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/matrix", 0, err);
    if (st != TC_OK)
        return st;
    st = tc_h5grp_get_attr_str(&g, "encoding-type", &enc, err);
    if (st == TC_OK && strcmp(enc, "csr_matrix") != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: encoding-type is '%s', expected 'csr_matrix'", g.where, enc);
    if (st == TC_OK)
        st = tc_h5attr_read_num(&g, "shape", 2, 1, H5T_NATIVE_INT64, shape, err);
    if (st == TC_OK && (shape[0] < 0 || shape[0] > INT32_MAX || shape[1] < 0 ||
                        shape[1] > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: shape [%" PRId64 ", %" PRId64 "] out of range (0 to %d)",
                          g.where, shape[0], shape[1], INT32_MAX);
    if (st == TC_OK)
        st = tc_h5ds_open_1d(&g, "indptr", TC_I64, 0, shape[0] + 1, "shape[0]+1", &ds[0],
                             &n[0], err);
    if (st == TC_OK)
        st = tc_h5ds_open_1d(&g, "indices", TC_I32, 0, -1, NULL, &ds[1], &n[1], err);
    if (st == TC_OK)
        st = tc_h5ds_open_1d(&g, "data", TC_F64, 1, n[1], "as many as indices", &ds[2], &n[2],
                             err);
    tc_field field;
    tc_symmetry sym;
    if (st == TC_OK)
        st = read_matrix_kind(&g, ds[2] >= 0, &field, &sym, err);
    if (st == TC_OK &&
        tc_csr_alloc(&a, (int32_t)shape[0], (int32_t)shape[1], n[1], ds[2] >= 0, err) != TC_OK) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", g.where);
        st = TC_ERR_NOMEM;
    }
    if (st == TC_OK)
        st = read_matrix_arrays(&g, ds, a, err);
    if (st == TC_OK) {
        a->field = field;
        a->symmetry = sym;
        st = tc_csr_validate(a, g.where, err);
    }
    if (st == TC_OK && a->field == TC_FIELD_INTEGER)
        st = check_integer_values(a, g.where, err);
    for (int i = 0; i < 3; i++)
        tc_h5_close(ds[i]);
    free(enc);
    tc_h5grp_release(&g);
    if (st != TC_OK) {
        tc_csr_free(a);
        return st;
    }
    *out = a;
    return TC_OK;
}

/* which_new_to_old and which_old_to_new, both or neither: validated as a
   bijection on n (the matrix's rows or columns) and as each other's
   inverse. */
static tc_status read_perm_pair(tc_h5grp *g, const char *which, int32_t n, const char *why,
                                tc_perm **out, tc_error *err)
{
    char n2o_name[32], o2n_name[32], what[WHERE_MAX];
    snprintf(n2o_name, sizeof n2o_name, "%s_new_to_old", which);
    snprintf(o2n_name, sizeof o2n_name, "%s_old_to_new", which);
    tc_h5grp_member(g, n2o_name, what, sizeof what);
    int32_t *n2o = NULL, *o2n = NULL;
    int64_t got;
    *out = NULL;
    tc_status st = tc_h5ds_get_1d(g, n2o_name, TC_I32, n, why, 1, &got, (void **)&n2o, err);
    if (st != TC_OK || !n2o) {
        if (st == TC_OK && tc_h5grp_has(g, o2n_name))
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: no such dataset (%s is present)", what,
                              o2n_name);
        return st;
    }
    st = tc_perm_from_array(out, n, n2o, TC_PERM_NEW2OLD, what, err);
    if (st == TC_OK)
        st = tc_h5ds_get_1d(g, o2n_name, TC_I32, n, why, 0, &got, (void **)&o2n, err);
    for (int32_t i = 0; st == TC_OK && i < n; i++)
        if (o2n[i] != (*out)->old2new[i])
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s/%s: entry %d is %d, but %s gives %d (not its inverse)",
                              g->where, o2n_name, i, o2n[i], n2o_name, (*out)->old2new[i]);
    free(n2o);
    free(o2n);
    if (st != TC_OK) {
        tc_perm_free(*out);
        *out = NULL;
    }
    return st;
}

struct param_ctx {
    tc_h5grp *g;
    tc_params *params;
    tc_error *err;
    tc_status st;
};

/* Every attribute of /permutation but method is a numeric parameter. */
static herr_t perm_param_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    struct param_ctx *c = data;
    double v;
    if (strcmp(name, "method") == 0)
        return 0;
    c->st = tc_h5grp_get_attr_f64(c->g, name, &v, c->err);
    if (c->st == TC_OK)
        c->st = tc_h5_params_add(c->params, name, v, c->g->where, c->err);
    return c->st == TC_OK ? 0 : -1;
}

static tc_status read_perm(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/permutation", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    st = read_perm_pair(&g, "row", f->matrix->rows, "rows of /matrix", &f->row_perm, err);
    if (st == TC_OK)
        st = read_perm_pair(&g, "col", f->matrix->cols, "columns of /matrix", &f->col_perm,
                            err);
    if (st == TC_OK && !f->row_perm && !f->col_perm)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: holds neither row_new_to_old nor col_new_to_old", g.where);
    if (st == TC_OK)
        st = tc_h5attr_read_str(&g, "method", 1, &f->perm_method, err);
    if (st == TC_OK) {
        struct param_ctx c = { &g, &f->perm_params, err, TC_OK };
        if (H5Aiterate2(g.id, H5_INDEX_NAME, H5_ITER_INC, NULL, perm_param_cb, &c) < 0)
            st = c.st != TC_OK ? c.st
                               : tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot list attributes",
                                            g.where);
    }
    tc_h5grp_release(&g);
    return st;
}

/* /matrix's symmetry attribute is the source's: in the source's order
   (the permutations undone) the matrix must have it, since tools write
   one triangle of it back. */
static tc_status check_symmetry(const tc_tcf *f, const char *fname, tc_error *err)
{
    const tc_csr *a = f->matrix;
    if (a->symmetry == TC_SYM_GENERAL)
        return TC_OK;
    tc_perm *rinv = NULL, *cinv = NULL;
    tc_csr *orig = NULL;
    tc_status st = TC_OK;
    if (f->row_perm)
        st = tc_perm_from_array(&rinv, f->row_perm->n, f->row_perm->old2new, TC_PERM_NEW2OLD,
                                "permutation", err);
    if (st == TC_OK && f->col_perm)
        st = tc_perm_from_array(&cinv, f->col_perm->n, f->col_perm->old2new, TC_PERM_NEW2OLD,
                                "permutation", err);
    if (st == TC_OK && (rinv || cinv))
        st = tc_csr_permute(a, rinv, cinv, &orig, err);
    if (st == TC_OK) {
        char why[WHERE_MAX + 64];
        snprintf(why, sizeof why, "%s: /matrix: not %s as its symmetry attribute says%s", fname,
                 tc_symmetry_name(a->symmetry), orig ? " (in the original order)" : "");
        st = tc_csr_check_symmetry(orig ? orig : a, a->symmetry, why, err);
    }
    tc_csr_free(orig);
    tc_perm_free(rinv);
    tc_perm_free(cinv);
    return st;
}

tc_status tc_h5_read_provenance(hid_t file, const char *fname, tc_provenance *p,
                                tc_error *err)
{
    const char *names[] = { "creator", "created", "command", "source", "banner", "comments" };
    char **values[] = { &p->creator, &p->created, &p->command, &p->source, &p->banner,
                        &p->comments };
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/provenance", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    for (int i = 0; i < 6 && st == TC_OK; i++)
        st = tc_h5attr_read_str(&g, names[i], 1, values[i], err);
    tc_h5grp_release(&g);
    return st;
}

tc_status tc_h5_read_base(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_status st = check_version(file, fname, err);
    if (st == TC_OK)
        st = read_matrix(file, fname, &f->matrix, err);
    if (st == TC_OK)
        st = read_perm(file, fname, f, err);
    if (st == TC_OK)
        st = check_symmetry(f, fname, err);
    if (st == TC_OK)
        st = tc_h5_read_labels(file, fname, f->matrix, &f->labels, err);
    return st;
}
