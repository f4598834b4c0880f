/*
 * binsparse.c: the GraphBLAS community's binsparse format, version 0.1,
 * in its HDF5 binding: a group whose string attribute "binsparse" is a
 * JSON document {"binsparse": {version, format, shape,
 * number_of_stored_values, data_types, [structure], [fill]}} (parsed and
 * written with jansson) and the arrays the format names (pointers_to_1,
 * indices_0, indices_1, values). The arrays become a tc_csr through
 * tc_csr_from_arrays, like every other container's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tcsparse.h"
#include "h5internal.h"
#include "sparse_arrays.h"

/* A data_types entry: "int32", "iso[float64]", ... */
typedef struct bsp_type {
    char name[16];          /* the element type, without iso[] */
    H5T_class_t cls;        /* integer or float */
    size_t size;
    int is_signed;
    int iso;
} bsp_type;

/* What the descriptor says, checked. */
typedef struct bsp_desc {
    char format[16];
    int64_t shape[2];
    int64_t nsv;            /* number_of_stored_values */
    bsp_type ptr, idx0, idx1, val;
    tc_symmetry symmetry;
    tc_triangle tri;
    int fill;
} bsp_desc;

static const struct { const char *name; H5T_class_t cls; size_t size; int is_signed; }
    TYPES[] = {
    { "uint8", H5T_INTEGER, 1, 0 }, { "uint16", H5T_INTEGER, 2, 0 },
    { "uint32", H5T_INTEGER, 4, 0 }, { "uint64", H5T_INTEGER, 8, 0 },
    { "int8", H5T_INTEGER, 1, 1 }, { "int16", H5T_INTEGER, 2, 1 },
    { "int32", H5T_INTEGER, 4, 1 }, { "int64", H5T_INTEGER, 8, 1 },
    { "float32", H5T_FLOAT, 4, 1 }, { "float64", H5T_FLOAT, 8, 1 },
    { "bint8", H5T_INTEGER, 1, 0 },
};

/* The format's arrays: which of them it has. */
enum { HAS_PTR = 1, HAS_IDX0 = 2 };
static const struct { const char *name; tc_sparse_layout layout; int arrays; } FORMATS[] = {
    { "CSR", TC_LAYOUT_CSR, HAS_PTR }, { "CSC", TC_LAYOUT_CSC, HAS_PTR },
    { "DCSR", TC_LAYOUT_DCSR, HAS_PTR | HAS_IDX0 }, { "DCSC", TC_LAYOUT_DCSC, HAS_PTR | HAS_IDX0 },
    { "COO", TC_LAYOUT_COO, HAS_IDX0 }, { "COOR", TC_LAYOUT_COO, HAS_IDX0 },
    { "COOC", TC_LAYOUT_COO, HAS_IDX0 },
};
#define NFORMATS (sizeof FORMATS / sizeof FORMATS[0])

static const struct { const char *name; tc_symmetry sym; tc_triangle tri; } STRUCTURES[] = {
    { "symmetric_lower", TC_SYM_SYMMETRIC, TC_TRI_LOWER },
    { "symmetric_upper", TC_SYM_SYMMETRIC, TC_TRI_UPPER },
    { "skew_symmetric_lower", TC_SYM_SKEW, TC_TRI_LOWER },
    { "skew_symmetric_upper", TC_SYM_SKEW, TC_TRI_UPPER },
};

/* ------------------------------------------------------------------------ */
/* The descriptor                                                           */
/* ------------------------------------------------------------------------ */

static tc_status parse_type(const char *where, const char *array, const char *text,
                            int values, bsp_type *t, tc_error *err)
{
    size_t len = strlen(text);
    t->iso = values && len > 5 && strncmp(text, "iso[", 4) == 0 && text[len - 1] == ']';
    const char *base = t->iso ? text + 4 : text;
    size_t blen = t->iso ? len - 5 : len;
    if (values && strncmp(text, "complex[", 8) == 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: data_types.%s is '%s': complex "
                            "values are not supported", where, array, text);
    for (size_t i = 0; i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (strlen(TYPES[i].name) == blen && strncmp(TYPES[i].name, base, blen) == 0 &&
            (values || (TYPES[i].cls == H5T_INTEGER && strcmp(TYPES[i].name, "bint8") != 0))) {
            snprintf(t->name, sizeof t->name, "%s", TYPES[i].name);
            t->cls = TYPES[i].cls;
            t->size = TYPES[i].size;
            t->is_signed = TYPES[i].is_signed;
            return TC_OK;
        }
    return tc_error_set(err, TC_ERR_FORMAT, "%s: data_types.%s is '%s' (expected %s)", where,
                        array, text, values ? "int8 to int64, uint8 to uint64, float32, "
                        "float64 or bint8, or iso[...] of one" : "an integer type such as "
                        "int32, int64 or uint64");
}

static tc_status get_type(const char *where, json_t *types, const char *array, int values,
                          bsp_type *t, tc_error *err)
{
    json_t *v = json_object_get(types, array);
    if (!json_is_string(v))
        return tc_error_set(err, TC_ERR_FORMAT, "%s: data_types.%s: %s (expected a type name "
                            "string)", where, array, v ? "not a string" : "missing");
    return parse_type(where, array, json_string_value(v), values, t, err);
}

/* A non-negative integer member of the descriptor. */
static tc_status get_count(const char *where, json_t *v, const char *name, int64_t *out,
                           tc_error *err)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.%s: %s (expected a non-negative "
                            "integer)", where, name, v ? "not a non-negative integer"
                                                       : "missing");
    *out = json_integer_value(v);
    return TC_OK;
}

/* "0.1", or the number 0.1 that early writers put. */
static tc_status check_version(const char *where, json_t *v, tc_error *err)
{
    if ((json_is_string(v) && strcmp(json_string_value(v), "0.1") == 0) ||
        (json_is_real(v) && json_real_value(v) == 0.1))
        return TC_OK;
    char shown[64] = "missing";
    if (json_is_string(v))
        snprintf(shown, sizeof shown, "'%.40s'", json_string_value(v));
    else if (v)
        snprintf(shown, sizeof shown, "not a string");
    return tc_error_set(err, json_is_string(v) ? TC_ERR_UNSUPPORTED : TC_ERR_FORMAT,
                        "%s: binsparse.version %s is not supported (expected \"0.1\")", where,
                        shown);
}

static tc_status get_structure(const char *where, json_t *d, bsp_desc *o, tc_error *err)
{
    json_t *v = json_object_get(d, "structure");
    o->symmetry = TC_SYM_GENERAL;
    o->tri = TC_TRI_ALL;
    if (!v)
        return TC_OK;
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    for (size_t i = 0; i < sizeof STRUCTURES / sizeof STRUCTURES[0]; i++)
        if (strcmp(s, STRUCTURES[i].name) == 0) {
            o->symmetry = STRUCTURES[i].sym;
            o->tri = STRUCTURES[i].tri;
            return TC_OK;
        }
    if (strncmp(s, "hermitian_", 10) == 0)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: binsparse.structure '%s' needs "
                            "complex values, which are not supported", where, s);
    return tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.structure '%.40s' is unknown "
                        "(expected symmetric_lower, symmetric_upper, skew_symmetric_lower "
                        "or skew_symmetric_upper)", where, s);
}

static tc_status get_format(const char *where, json_t *d, bsp_desc *o, int *arrays,
                            tc_error *err)
{
    if (json_object_get(d, "custom"))
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: binsparse.custom formats are not "
                            "supported (expected a pre-defined format)", where);
    json_t *v = json_object_get(d, "format");
    const char *f = json_is_string(v) ? json_string_value(v) : NULL;
    for (size_t i = 0; f && i < NFORMATS; i++)
        if (strcmp(f, FORMATS[i].name) == 0) {
            snprintf(o->format, sizeof o->format, "%s", f);
            *arrays = FORMATS[i].arrays;
            return TC_OK;
        }
    if (!f)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.format: %s (expected a format "
                            "name string)", where, v ? "not a string" : "missing");
    return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: binsparse.format '%.40s' is not "
                        "supported (expected CSR, CSC, DCSR, DCSC, COO, COOR or COOC)", where, f);
}

static tc_status get_shape(const char *where, json_t *d, bsp_desc *o, tc_error *err)
{
    json_t *v = json_object_get(d, "shape");
    if (!json_is_array(v) || json_array_size(v) != 2)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.shape: expected [rows, "
                            "columns]", where);
    tc_status st = get_count(where, json_array_get(v, 0), "shape[0]", &o->shape[0], err);
    return st == TC_OK ? get_count(where, json_array_get(v, 1), "shape[1]", &o->shape[1], err)
                       : st;
}

static tc_status check_descriptor(const char *where, json_t *d, bsp_desc *o, tc_error *err)
{
    int arrays = 0;
    json_t *types = json_object_get(d, "data_types");
    json_t *fill = json_object_get(d, "fill");
    tc_status st = check_version(where, json_object_get(d, "version"), err);
    if (st == TC_OK)
        st = get_format(where, d, o, &arrays, err);
    if (st == TC_OK)
        st = get_shape(where, d, o, err);
    if (st == TC_OK)
        st = get_count(where, json_object_get(d, "number_of_stored_values"),
                       "number_of_stored_values", &o->nsv, err);
    if (st == TC_OK && !json_is_object(types))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.data_types: expected an object "
                          "naming the type of each array", where);
    if (st == TC_OK && (arrays & HAS_PTR))
        st = get_type(where, types, "pointers_to_1", 0, &o->ptr, err);
    if (st == TC_OK && (arrays & HAS_IDX0))
        st = get_type(where, types, "indices_0", 0, &o->idx0, err);
    if (st == TC_OK)
        st = get_type(where, types, "indices_1", 0, &o->idx1, err);
    if (st == TC_OK)
        st = get_type(where, types, "values", 1, &o->val, err);
    if (st == TC_OK && fill && !json_is_boolean(fill))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: binsparse.fill: expected true or false",
                          where);
    o->fill = json_is_true(fill);
    return st == TC_OK ? get_structure(where, d, o, err) : st;
}

static tc_status parse_descriptor(const char *where, const char *text, bsp_desc *o,
                                  tc_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: attribute binsparse: bad JSON at line %d, "
                            "column %d: %s", where, je.line, je.column, je.text);
    /* The specification namespaces the descriptor as {"binsparse": {...}}
       (the reference implementations write that), but prints its examples
       bare ({"version": ..., "format": ...}): both are read. */
    json_t *d = json_object_get(root, "binsparse");
    if (!d && json_object_get(root, "format"))
        d = root;
    tc_status st = json_is_object(d)
                       ? check_descriptor(where, d, o, err)
                       : tc_error_set(err, TC_ERR_FORMAT, "%s: attribute binsparse: expected a "
                                      "JSON object with a \"binsparse\" object in it", where);
    json_decref(root);
    return st;
}

/* ------------------------------------------------------------------------ */
/* The arrays                                                               */
/* ------------------------------------------------------------------------ */

/* Dataset `name` holds the type data_types declares for it. */
static tc_status check_declared(const tc_h5grp *g, const char *name, const bsp_type *t,
                                tc_error *err)
{
    hid_t ds = H5Dopen2(g->id, name, H5P_DEFAULT);
    hid_t ft = ds < 0 ? -1 : H5Dget_type(ds);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    size_t size = ft < 0 ? 0 : H5Tget_size(ft);
    int is_signed = cls == H5T_INTEGER ? H5Tget_sign(ft) == H5T_SGN_2 : 1;
    tc_h5_close(ft);
    tc_h5_close(ds);
    if (cls == t->cls && size == t->size && is_signed == t->is_signed)
        return TC_OK;
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    return tc_error_set(err, TC_ERR_FORMAT, "%s: a %zu-byte %s%s dataset, but data_types "
                        "declares %s", what, size, cls == H5T_INTEGER && !is_signed
                        ? "unsigned " : "", tc_h5_class_name(cls), t->name);
}

static tc_status get_array(tc_h5grp *g, const char *name, tc_dtype dt, const bsp_type *t,
                           int64_t want, const char *why, tc_sparse_array *a, void **data,
                           tc_error *err)
{
    a->name = name;
    tc_status st = tc_h5ds_get_1d(g, name, dt, want, why, 0, &a->n, data, err);
    if (st == TC_OK)
        st = check_declared(g, name, t, err);
    if (dt == TC_F64)
        a->f64 = *data;
    else
        a->i64 = *data;
    return st;
}

/* fill true: a fill_value array, whose one value must be the implicit 0
   of every sparse matrix here. */
static tc_status check_fill(tc_h5grp *g, tc_error *err)
{
    void *v;
    int64_t n;
    tc_status st = tc_h5ds_get_1d(g, "fill_value", TC_F64, 1, "fill is true", 0, &n, &v, err);
    char what[WHERE_MAX];
    tc_h5grp_member(g, "fill_value", what, sizeof what);
    if (st == TC_OK && ((double *)v)[0] != 0)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: %g is not supported (expected 0: "
                          "entries not stored are zeros)", what, ((double *)v)[0]);
    free(v);
    return st;
}

/* The arrays of d's format into s (their memory into data[]). */
static tc_status read_arrays(tc_h5grp *g, const bsp_desc *d, tc_sparse_arrays *s,
                             void *data[4], tc_error *err)
{
    int i;
    for (i = 0; strcmp(FORMATS[i].name, d->format) != 0; i++)
        continue;
    s->layout = FORMATS[i].layout;
    int cooc = strcmp(d->format, "COOC") == 0;
    int arrays = FORMATS[i].arrays;
    /* COOC lists columns in indices_0, rows in indices_1: the minor array
       is then indices_0 */
    tc_sparse_array *i0 = cooc ? &s->minor : &s->major_ids, *i1 = cooc ? &s->major_ids
                                                                       : &s->minor;
    tc_status st = d->fill ? check_fill(g, err) : TC_OK;
    if (st == TC_OK && (arrays & HAS_PTR))
        st = get_array(g, "pointers_to_1", TC_I64, &d->ptr, -1, NULL, &s->ptr, &data[0], err);
    if (st == TC_OK && (arrays & HAS_IDX0))
        st = get_array(g, "indices_0", TC_I64, &d->idx0,
                       s->layout == TC_LAYOUT_COO ? d->nsv : -1, "number_of_stored_values",
                       i0, &data[1], err);
    if (st == TC_OK)
        st = get_array(g, "indices_1", TC_I64, &d->idx1, d->nsv, "number_of_stored_values", i1,
                       &data[2], err);
    if (st == TC_OK)
        st = get_array(g, "values", TC_F64, &d->val, d->val.iso ? 1 : d->nsv,
                       d->val.iso ? "one, iso" : "number_of_stored_values", &s->val, &data[3],
                       err);
    s->iso = d->val.iso;
    s->field = d->val.cls == H5T_FLOAT ? TC_FIELD_REAL : TC_FIELD_INTEGER;
    /* iso[bint8] true: every stored entry present, no value (a pattern, as
       the specification suggests storing one) */
    if (st == TC_OK && d->val.iso && strcmp(d->val.name, "bint8") == 0 && s->val.f64[0] != 0)
        s->val.f64 = NULL;
    return st;
}

tc_status tc_binsparse_read(const char *path, const char *group, tc_csr **out, tc_error *err)
{
    tc_h5_quiet();
    *out = NULL;
    hid_t file;
    tc_status st = tc_h5_file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    tc_h5grp g;
    char *text = NULL;
    bsp_desc d;
    void *data[4] = { NULL, NULL, NULL, NULL };
    tc_sparse_arrays s = { .what = NULL };
    char where[WHERE_MAX];   /* "/g" whether named "g" or "/g", as in messages */
    snprintf(where, sizeof where, "/%s", group ? group + strspn(group, "/") : "");
    st = tc_h5grp_open_at(&g, file, path, where, 0, err);
    if (st == TC_OK)
        st = tc_h5attr_read_str(&g, "binsparse", 1, &text, err);
    if (st == TC_OK && !text)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: no binsparse attribute (not a binsparse "
                          "file)", g.where);
    if (st == TC_OK)
        st = parse_descriptor(g.where, text, &d, err);
    if (st == TC_OK)
        st = read_arrays(&g, &d, &s, data, err);
    if (st == TC_OK) {
        s.what = g.where;
        s.rows = d.shape[0];
        s.cols = d.shape[1];
        s.symmetry = d.symmetry;
        s.tri = d.tri;
        st = tc_csr_from_arrays(&s, out, err);
    }
    for (int i = 0; i < 4; i++)
        free(data[i]);
    free(text);
    tc_h5grp_release(&g);
    tc_h5_close(file);
    return st;
}

int tc_binsparse_is(const char *path)
{
    return tc_h5_root_attr(path, "binsparse", NULL);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

static tc_status write_csr(hid_t file, const char *fname, void *ctx, tc_error *err)
{
    const tc_csr *a = ctx;
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/", 0, err);
    if (st != TC_OK)
        return st;
    g.compress = 1;
    const uint8_t one = 1;
    json_t *j = json_pack("{s:{s:s, s:s, s:[I, I], s:I, s:{s:s, s:s, s:s}}}", "binsparse",
                          "version", "0.1", "format", "CSR", "shape", (json_int_t)a->rows,
                          (json_int_t)a->cols, "number_of_stored_values", (json_int_t)a->nnz,
                          "data_types", "pointers_to_1", "int64", "indices_1", "int32",
                          "values", a->val ? "float64" : "iso[bint8]");
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (!text)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory for the descriptor", fname);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "pointers_to_1", TC_I64, (int64_t)a->rows + 1, a->rowptr, err);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indices_1", TC_I32, a->nnz, a->colidx, err);
    if (st == TC_OK)
        st = a->val ? tc_h5grp_put(&g, "values", TC_F64, a->nnz, a->val, err)
                    : tc_h5grp_put(&g, "values", TC_U8, 1, &one, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(&g, "binsparse", text, err);
    free(text);
    json_decref(j);
    tc_h5grp_release(&g);
    return st;
}

tc_status tc_binsparse_write(const char *path, const tc_csr *a, tc_error *err)
{
    tc_h5_quiet();
    tc_status st = tc_csr_validate(a, path, err);
    if (st != TC_OK)
        return st;
    if (strcmp(path, "-") == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "cannot write HDF5 to standard output (it needs a seekable file)");
    return tc_h5_write_atomic(path, write_csr, (void *)a, err);
}
