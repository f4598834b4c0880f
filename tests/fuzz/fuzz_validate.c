/*
 * fuzz_validate.c: libFuzzer target for the `validate` of every format in
 * the registry (formats/), fed what `read_h5` hands it: arrays and
 * attributes of any content, length and type, read from a .tcf.h5.
 *
 * Why this shape. Every format's read_h5 reads its group through the
 * h5group.h helpers, from a group that tc_h5_read opens after it has read
 * and checked /matrix and the group's generic header (rows, cols, nnz,
 * has_values, parameters); validate then runs on what read_h5 built. So
 * the harness makes a real file and lets the real reader do all of that:
 *
 *   - byte 0 picks a format of the registry (modulo its size, so that a
 *     format added later is fuzzed by the same corpus); bytes 1-4 the
 *     shape of a small matrix, flags (values or pattern, integer, a dense
 *     row, a dense column, a row and a column permutation) and a count of
 *     entries; then one byte per parameter of the format (what it is built
 *     with) and three per entry;
 *   - tc_fmt_build and tc_h5_write store it (the real writer: the file has
 *     exactly the datasets and attributes that format writes, named by the
 *     format, not by this harness);
 *   - the rest of the input is a list of edits, each applied with plain
 *     HDF5 calls to one dataset or attribute of the written file: set an
 *     element (to a given, extreme or length-relative value), add to it,
 *     swap two, change the length, change the stored type, delete it, or
 *     replace a string;
 *   - tc_h5_read reads the file back with its formats, which runs
 *     read_matrix, read_h5 and validate exactly as the tools do.
 *
 * The only structures of the harness's own are the list of edit targets
 * and one array being edited; nothing mirrors a format's struct, so there
 * is nothing to keep in step when a format changes or is added. The file
 * lives in a private directory on /dev/shm (tmpfs) when there is one
 * (fuzz_temp_path): tc_h5_write and tc_h5_read take paths.
 *
 * What must hold: a refusal is a message naming the file; a file that is
 * accepted has a valid /matrix, and each format in it passes validate
 * again without /matrix, decodes (to_csr) to /matrix exactly (to its
 * pattern for a format that stores none of its values), and can be
 * multiplied (spmm_ref), reported (stats) and split (nnz_part) without a
 * fault.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "tcsparse.h"
#include "formats.h"
#include "fuzz.h"

enum {
    MAX_DIM = 72,       /* rows and columns: crosses 16-, 32- and 64-row windows */
    MAX_ENTRIES = 255 + 2 * MAX_DIM,    /* random ones, a dense row, a dense column */
    MAX_TARGETS = 64,   /* datasets and attributes of one file */
    MAX_EDITS = 16,
    EDIT_BYTES = 8      /* target, op, position (2), value (4) */
};

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    path = fuzz_temp_path("f.tcf.h5");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

/* ------------------------------------------------------------ the input */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static uint8_t next(cursor *c)
{
    return c->p < c->end ? *c->p++ : 0;
}

/* ------------------------------------------------------------ the matrix */

enum {
    F_VALUES = 1, F_INTEGER = 2, F_DENSE_ROW = 4, F_DENSE_COL = 8, F_ROW_PERM = 16,
    F_COL_PERM = 32
};

/* head: rows, cols, flags and a count of entries, which c gives (three
   bytes each: row, column, value). */
static tc_csr *make_matrix(cursor *c, const uint8_t *head, int *flags)
{
    int32_t rows = head[0] % MAX_DIM, cols = head[1] % MAX_DIM;
    int n = rows && cols ? head[3] : 0;
    *flags = head[2];
    int32_t ri[MAX_ENTRIES], ci[MAX_ENTRIES];
    double v[MAX_ENTRIES];
    int64_t k = 0;
    for (int e = 0; e < n && c->p + 3 <= c->end; e++, k++) {
        ri[k] = next(c) % rows;
        ci[k] = next(c) % cols;
        int8_t b = (int8_t)next(c);
        v[k] = *flags & F_INTEGER ? b : b / 4.0;
    }
    for (int32_t j = 0; rows && (*flags & F_DENSE_ROW) && j < cols; j++, k++) {
        ri[k] = rows / 2;
        ci[k] = j;
        v[k] = j + 1;
    }
    for (int32_t i = 0; cols && (*flags & F_DENSE_COL) && i < rows; i++, k++) {
        ri[k] = i;
        ci[k] = cols - 1;
        v[k] = -i;
    }
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, k, ri, ci, *flags & F_VALUES ? v : NULL, 1, &err))
        fuzz_fail("cannot build the matrix: %s", err.msg);
    a->field = !(*flags & F_VALUES) ? TC_FIELD_PATTERN
               : *flags & F_INTEGER ? TC_FIELD_INTEGER : TC_FIELD_REAL;
    return a;
}

/* A rotation of 0..n-1 by shift: not the identity, so that /permutation
   holds two different arrays. */
static tc_perm *rotation(int32_t n, int shift)
{
    int32_t idx[MAX_DIM];
    for (int32_t i = 0; i < n; i++)
        idx[i] = (i + shift) % n;
    tc_perm *p;
    tc_error err;
    if (tc_perm_from_array(&p, n, idx, TC_PERM_NEW2OLD, "rotation", &err))
        fuzz_fail("%s", err.msg);
    return p;
}

/* One byte per parameter of f: its default, its minimum, its maximum or a
   small value above the minimum. */
static void make_params(cursor *c, const tc_format *f, tc_params *p)
{
    int n;
    const tc_param_def *d = tc_format_params(f, &n);
    memset(p, 0, sizeof *p);
    for (int i = 0; i < n && i < TC_MAX_PARAMS; i++) {
        uint8_t b = next(c);
        double span = fmin(d[i].max - d[i].min, 63) + 1;
        double v = (b & 3) == 0 ? d[i].def : (b & 3) == 1 ? d[i].min : (b & 3) == 2 ? d[i].max
                 : d[i].min + fmod(b >> 2, span);
        snprintf(p->kv[p->n].name, sizeof p->kv[p->n].name, "%s", d[i].name);
        p->kv[p->n++].value = v;
    }
}

/* Writes a in format f (built with parameters p, or the defaults when the
   format refuses them) to path, taking a; 0 when f cannot hold a at
   all. */
static int write_file(const tc_format *f, const tc_params *p, tc_csr *a, int flags)
{
    tc_params none = { 0 };
    tc_tcf *t = tc_tcf_new();
    tc_fmt *m = NULL;
    tc_error err;
    if (!t)
        fuzz_fail("out of memory");
    t->matrix = a;
    if (flags & F_ROW_PERM && a->rows > 1)
        t->row_perm = rotation(a->rows, 1 + flags % (a->rows - 1));
    if (flags & F_COL_PERM && a->cols > 1)
        t->col_perm = rotation(a->cols, 1 + flags % (a->cols - 1));
    int ok = 1;
    if (!tc_format_is_canonical(f)) {
        ok = tc_fmt_build(f, a, p, &m, &err) == TC_OK || tc_fmt_build(f, a, &none, &m, &err) == TC_OK;
        ok = ok && tc_tcf_add_format(t, m, &err) == TC_OK;
    }
    static const tc_h5_write_opts opts = { 0 };
    if (ok && tc_h5_write(path, t, &opts, &err) != TC_OK)
        fuzz_fail("cannot write %s: %s", path, err.msg);
    tc_tcf_free(t);
    return ok;
}

/* ------------------------------------------------------------ the edits */

/* A dataset (attr empty) or an attribute of the object at obj. */
typedef struct target {
    char obj[128], attr[64];
} target;

typedef struct targets {
    int n;
    target t[MAX_TARGETS];
} targets;

static void add_target(targets *ts, const char *obj, const char *attr)
{
    if (ts->n == MAX_TARGETS)
        return;
    snprintf(ts->t[ts->n].obj, sizeof ts->t[ts->n].obj, "/%s", obj);
    snprintf(ts->t[ts->n].attr, sizeof ts->t[ts->n].attr, "%s", attr);
    ts->n++;
}

struct attr_ctx {
    targets *ts;
    const char *obj;
};

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    struct attr_ctx *c = data;
    add_target(c->ts, c->obj, name);
    return 0;
}

static herr_t object_cb(hid_t file, const char *name, const H5O_info_t *info, void *data)
{
    targets *ts = data;
    const char *obj = strcmp(name, ".") == 0 ? "" : name;
    if (info->type == H5O_TYPE_DATASET)
        add_target(ts, obj, "");
    struct attr_ctx c = { ts, obj };
    H5Aiterate_by_name(file, name, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &c, H5P_DEFAULT);
    return 0;
}

/* One numeric dataset or attribute in memory: n elements, integers or
   doubles, stored as type ftype, a scalar attribute when scalar. */
typedef struct array {
    hid_t ftype;
    int is_float, scalar;
    int64_t n;
    int64_t *i;
    double *f;
} array;

static hid_t open_space(const target *t, hid_t file, hid_t *obj)
{
    if (t->attr[0]) {
        *obj = H5Aopen_by_name(file, t->obj, t->attr, H5P_DEFAULT, H5P_DEFAULT);
        return *obj < 0 ? -1 : H5Aget_space(*obj);
    }
    *obj = H5Dopen2(file, t->obj, H5P_DEFAULT);
    return *obj < 0 ? -1 : H5Dget_space(*obj);
}

/* Loads a numeric target; 0 when it is gone, a string or not 1-D. */
static int load(const target *t, hid_t file, array *x)
{
    hid_t obj, space = open_space(t, file, &obj);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hssize_t n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    x->ftype = obj < 0 ? -1 : t->attr[0] ? H5Aget_type(obj) : H5Dget_type(obj);
    H5T_class_t cls = x->ftype < 0 ? H5T_NO_CLASS : H5Tget_class(x->ftype);
    H5Sclose(space);
    int ok = rank >= 0 && rank <= 1 && n >= 0 && (cls == H5T_INTEGER || cls == H5T_FLOAT);
    if (ok) {
        x->is_float = cls == H5T_FLOAT;
        x->scalar = rank == 0;
        x->n = n;
        x->i = calloc(n + 1, sizeof *x->i);
        x->f = calloc(n + 1, sizeof *x->f);
        if (!x->i || !x->f)
            fuzz_fail("out of memory");
        hid_t mt = x->is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
        void *buf = x->is_float ? (void *)x->f : (void *)x->i;
        herr_t r = n == 0 ? 0 : t->attr[0] ? H5Aread(obj, mt, buf) : H5Dread(obj, mt, H5S_ALL,
                                                                           H5S_ALL, H5P_DEFAULT,
                                                                           buf);
        ok = r >= 0;
    }
    if (t->attr[0])
        H5Aclose(obj);
    else
        H5Dclose(obj);
    return ok;
}

static void drop(const target *t, hid_t file)
{
    if (t->attr[0])
        H5Adelete_by_name(file, t->obj, t->attr, H5P_DEFAULT);
    else
        H5Ldelete(file, t->obj, H5P_DEFAULT);
}

/* Replaces the target by x (its length, type and values). */
static void store(const target *t, hid_t file, const array *x)
{
    drop(t, file);
    hsize_t n = (hsize_t)x->n;
    hid_t space = x->scalar && n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t mt = x->is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    const void *buf = x->is_float ? (const void *)x->f : (const void *)x->i;
    if (t->attr[0]) {
        hid_t a = H5Acreate_by_name(file, t->obj, t->attr, x->ftype, space, H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, mt, buf);
        H5Aclose(a);
    } else {
        hid_t d = H5Dcreate2(file, t->obj, x->ftype, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        if (n > 0)
            H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        H5Dclose(d);
    }
    H5Sclose(space);
}

/* Replaces a target by a string attribute (datasets are left alone). */
static void store_string(const target *t, hid_t file, uint8_t which)
{
    static const char *const strings[] = {
        "", "real", "integer", "pattern", "complex", "general", "symmetric", "skew-symmetric",
        "hermitian", "csr_matrix", "0.1.0", "1.0", "1.9", "2.0", "1.", "x", "\xff\xfe"
    };
    if (!t->attr[0])
        return;
    const char *s = strings[which % (sizeof strings / sizeof strings[0])];
    drop(t, file);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(file, t->obj, t->attr, type, space, H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT);
    H5Awrite(a, type, &s);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
}

static void resize(array *x, int delta)
{
    int64_t n = x->n + delta < 0 ? 0 : x->n + delta;
    x->i = realloc(x->i, (n + 1) * sizeof *x->i);
    x->f = realloc(x->f, (n + 1) * sizeof *x->f);
    if (!x->i || !x->f)
        fuzz_fail("out of memory");
    for (int64_t k = x->n; k < n; k++) {
        x->i[k] = k ? x->i[k - 1] : 0;
        x->f[k] = k ? x->f[k - 1] : 0;
    }
    x->n = n;
    x->scalar = 0;
}

/* Stored types an edit may switch a target to: every integer width and
   sign, both float widths, one big-endian. */
static hid_t file_type(uint8_t which)
{
    const hid_t types[] = { H5T_STD_I8LE, H5T_STD_U8LE, H5T_STD_I16LE, H5T_STD_I32LE,
                            H5T_STD_U32LE, H5T_STD_I64LE, H5T_STD_U64LE, H5T_IEEE_F32LE,
                            H5T_IEEE_F64LE, H5T_STD_I32BE };
    return types[which % (sizeof types / sizeof types[0])];
}

static void retype(array *x, uint8_t which)
{
    hid_t ft = file_type(which);
    int is_float = H5Tget_class(ft) == H5T_FLOAT;
    for (int64_t k = 0; k < x->n; k++) {
        if (is_float && !x->is_float)
            x->f[k] = (double)x->i[k];
        else if (!is_float && x->is_float)
            x->i[k] = isfinite(x->f[k]) && fabs(x->f[k]) < 9e18 ? (int64_t)x->f[k] : -1;
    }
    H5Tclose(x->ftype);
    x->ftype = H5Tcopy(ft);
    x->is_float = is_float;
}

enum { OP_SET, OP_ADD, OP_EXTREME, OP_RESIZE, OP_DELETE, OP_RETYPE, OP_SWAP, OP_RELATIVE,
       NOPS };

/* Applies op to element k of x; v is the edit's value. */
static void edit_element(array *x, int op, int64_t k, int32_t v)
{
    static const int64_t ints[] = { 0, -1, 1, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
                                    INT64_MAX, INT64_MIN, UINT32_MAX, 255, 256, 65535, 16, 15 };
    static const double floats[] = { NAN, INFINITY, -INFINITY, -0.0, 1e308, -1e308, 5e-324,
                                     0.5, 1e10, 3 };
    uint8_t b = (uint8_t)v;
    switch (op) {
    case OP_SET:
        x->i[k] = v;
        x->f[k] = v / 8.0;
        break;
    case OP_ADD:
        x->i[k] = (int64_t)((uint64_t)x->i[k] + (uint64_t)(int8_t)b);   /* wraps */
        x->f[k] += (int8_t)b;
        break;
    case OP_EXTREME:
        x->i[k] = ints[b % (sizeof ints / sizeof ints[0])];
        x->f[k] = floats[b % (sizeof floats / sizeof floats[0])];
        break;
    case OP_SWAP:
        if (k + 1 < x->n) {
            int64_t ti = x->i[k];
            double tf = x->f[k];
            x->i[k] = x->i[k + 1];
            x->f[k] = x->f[k + 1];
            x->i[k + 1] = ti;
            x->f[k + 1] = tf;
        }
        break;
    case OP_RELATIVE:   /* around the array's own length */
        x->i[k] = x->n + (int8_t)b % 4;
        x->f[k] = k ? x->f[k - 1] : x->f[k];
        break;
    }
}

static void apply_edit(const targets *ts, hid_t file, const uint8_t *e)
{
    const target *t = &ts->t[e[0] % ts->n];
    int op = e[1] % NOPS;
    int64_t pos = e[2] | e[3] << 8;
    int32_t v = (int32_t)((uint32_t)e[4] | (uint32_t)e[5] << 8 | (uint32_t)e[6] << 16 |
                          (uint32_t)e[7] << 24);
    if (op == OP_DELETE) {
        drop(t, file);
        return;
    }
    array x = { -1, 0, 0, 0, NULL, NULL };
    if (!load(t, file, &x))
        store_string(t, file, e[4]);
    else {
        if (op == OP_RESIZE)
            resize(&x, (int8_t)e[4] % 9);
        else if (op == OP_RETYPE)
            retype(&x, e[4]);
        else if (x.n > 0)
            edit_element(&x, op, pos % x.n, v);
        store(t, file, &x);
    }
    if (x.ftype >= 0)
        H5Tclose(x.ftype);
    free(x.i);
    free(x.f);
}

static void edit_file(cursor *c)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0)
        fuzz_fail("cannot reopen %s", path);
    targets ts = { 0 };
    H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, object_cb, &ts, H5O_INFO_BASIC);
    for (int i = 0; i < MAX_EDITS && ts.n > 0 && c->p + EDIT_BYTES <= c->end; i++) {
        apply_edit(&ts, file, c->p);
        c->p += EDIT_BYTES;
    }
    H5Fclose(file);
}

/* ------------------------------------------------------------ the harness */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    cursor c = { data + 5, data + size };
    const tc_format *f = tc_format_at(data[0] % tc_format_count());
    tc_params p;
    make_params(&c, f, &p);
    int flags;
    tc_csr *a = make_matrix(&c, data + 1, &flags);
    if (!write_file(f, &p, a, flags))
        return 0;
    edit_file(&c);
    fuzz_read_tcf(path);
    return 0;
}
