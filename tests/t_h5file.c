/*
 * t_h5file.c: the .tcf.h5 container (lib/tcf.c, lib/h5file.c, lib/h5group.c, lib/h5dense.c): round trips of awkward
 * matrices, permutations and provenance; reproducible bytes; compression
 * policy; the h5group.h helpers formats use; atomic writes; and every
 * refusal of a bad file, with its exact message. Bad files are made here
 * with raw HDF5 calls.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "tap.h"
#include "tcsparse.h"
#include "h5group.h"
#include "formats.h"

static char dir[256];

/* A path in the scratch directory (a few live at once, hence the ring). */
static const char *in_dir(const char *name)
{
    static char ring[8][512];
    static int next;
    char *p = ring[next++ % 8];
    snprintf(p, sizeof ring[0], "%s/%s", dir, name);
    return p;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dp)
        closedir(dp);
    return n;
}


static int same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = tap_slurp(a, &la), *y = tap_slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

/* ------------------------------------------------------------------------ */
/* Matrices                                                                  */
/* ------------------------------------------------------------------------ */


/* nnz random entries (duplicates summed), plus a dense row and a dense
   column when asked; integer matrices get whole values. */
static tc_csr *random_csr(int32_t rows, int32_t cols, int64_t nnz, tc_field field,
                          int dense_lines)
{
    int64_t extra = dense_lines ? (int64_t)rows + cols : 0, n = 0;
    int32_t *ri = malloc((nnz + extra + 1) * sizeof *ri);
    int32_t *ci = malloc((nnz + extra + 1) * sizeof *ci);
    double *v = malloc((nnz + extra + 1) * sizeof *v);
    for (int64_t k = 0; k < nnz; k++, n++) {
        ri[n] = (int32_t)(tap_rand64() % (uint64_t)rows);
        ci[n] = (int32_t)(tap_rand64() % (uint64_t)cols);
        v[n] = field == TC_FIELD_INTEGER ? (double)(int)(tap_rand64() % 19) - 9
                                         : (double)(tap_rand64() >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int64_t k = 0; k < extra; k++, n++) {
        ri[n] = k < cols ? rows / 2 : (int32_t)(k - cols);
        ci[n] = k < cols ? (int32_t)k : cols / 3;
        v[n] = 1;
    }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, field == TC_FIELD_PATTERN ? NULL : v, 1,
                        &err) != TC_OK)
        diag("random_csr: %s", err.msg);
    else
        a->field = field;
    free(ri);
    free(ci);
    free(v);
    return a;
}

static tc_perm *random_perm(int32_t n)
{
    int32_t *idx = malloc((n + 1) * sizeof *idx);
    for (int32_t i = 0; i < n; i++)
        idx[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(tap_rand64() % (uint64_t)(i + 1)), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
    tc_perm *p = NULL;
    tc_perm_from_array(&p, n, idx, TC_PERM_NEW2OLD, "random", NULL);
    free(idx);
    return p;
}

static int same_perm(const tc_perm *a, const tc_perm *b)
{
    if (!a || !b)
        return a == b;
    return a->n == b->n && memcmp(a->new2old, b->new2old, a->n * sizeof(int32_t)) == 0 &&
           memcmp(a->old2new, b->old2new, a->n * sizeof(int32_t)) == 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Writes f, reads it back, compares everything; frees f. */
static void roundtrip(const char *name, tc_tcf *f, int compress)
{
    const char *path = in_dir("rt.tcf.h5");
    tc_error err;
    tc_h5_write_opts o = { compress };
    tc_tcf *g = NULL;
    tc_status st = tc_h5_write(path, f, &o, &err);
    if (st == TC_OK)
        st = tc_h5_read(path, 1, &g, &err);
    if (!ok(st == TC_OK, "%s: written and read back", name)) {
        diag("%s", err.msg);
        tc_tcf_free(f);
        return;
    }
    const tc_csr *a = f->matrix, *b = g->matrix;
    ok(tc_csr_equal(a, b) && a->field == b->field && a->symmetry == b->symmetry,
       "%s: same matrix, field and symmetry", name);
    int params_same = f->perm_params.n == g->perm_params.n;
    for (int i = 0; i < f->perm_params.n; i++)
        params_same &= tc_params_get(&g->perm_params, f->perm_params.kv[i].name, NAN) ==
                       f->perm_params.kv[i].value;
    ok(same_perm(f->row_perm, g->row_perm) && same_perm(f->col_perm, g->col_perm) &&
       same_str(f->perm_method, g->perm_method) && params_same,
       "%s: same permutations, method and parameters", name);
    tc_tcf_free(f);
    tc_tcf_free(g);
}

static tc_tcf *tcf_of(tc_csr *a)
{
    tc_tcf *f = tc_tcf_new();
    f->matrix = a;
    return f;
}

/* A random n x n integer matrix that is symmetric, as its symmetry says
   (the reader checks): the lower triangle of one, mirrored. */
static tc_csr *symmetric_csr(int32_t n, int64_t nnz)
{
    tc_csr *r = random_csr(n, n, nnz, TC_FIELD_INTEGER, 0), *a = NULL;
    int32_t *ri = malloc((r->nnz + 1) * sizeof *ri), *ci = malloc((r->nnz + 1) * sizeof *ci);
    double *v = malloc((r->nnz + 1) * sizeof *v);
    int64_t m = 0;
    for (int32_t i = 0; i < n; i++)
        for (int64_t p = r->rowptr[i]; p < r->rowptr[i + 1]; p++)
            if (r->colidx[p] <= i) {
                ri[m] = i;
                ci[m] = r->colidx[p];
                v[m++] = r->val[p];
            }
    tc_error err;
    if (tc_csr_from_coo_sym(&a, n, n, m, ri, ci, v, TC_SYM_SYMMETRIC, 1, &err) != TC_OK)
        diag("symmetric_csr: %s", err.msg);
    else {
        a->field = TC_FIELD_INTEGER;
        a->symmetry = TC_SYM_SYMMETRIC;
    }
    tc_csr_free(r);
    free(ri);
    free(ci);
    free(v);
    return a;
}

static void test_roundtrips(void)
{
    roundtrip("real 100x80", tcf_of(random_csr(100, 80, 600, TC_FIELD_REAL, 0)), 1);
    roundtrip("integer 50x50, symmetric source", tcf_of(symmetric_csr(50, 300)), 1);
    roundtrip("pattern 70x30", tcf_of(random_csr(70, 30, 200, TC_FIELD_PATTERN, 0)), 1);
    roundtrip("empty 5x7, no nonzeros", tcf_of(random_csr(5, 7, 0, TC_FIELD_REAL, 0)), 1);
    roundtrip("0x0", tcf_of(random_csr(0, 0, 0, TC_FIELD_PATTERN, 0)), 1);
    roundtrip("1x1", tcf_of(random_csr(1, 1, 1, TC_FIELD_REAL, 0)), 1);
    roundtrip("3x1000", tcf_of(random_csr(3, 1000, 900, TC_FIELD_REAL, 0)), 1);
    roundtrip("1000x3", tcf_of(random_csr(1000, 3, 900, TC_FIELD_PATTERN, 0)), 1);
    /* > 65535 rows, a dense row (> 4096 nnz), a dense column: compressed
       datasets of several chunks */
    roundtrip("70001x5000 with dense row and column, compressed",
              tcf_of(random_csr(70001, 5000, 400000, TC_FIELD_REAL, 1)), 1);
    roundtrip("70001x5000 with dense row and column, uncompressed",
              tcf_of(random_csr(70001, 5000, 400000, TC_FIELD_REAL, 1)), 0);

    tc_tcf *f = tcf_of(random_csr(1037, 777, 5000, TC_FIELD_REAL, 1));
    f->row_perm = random_perm(1037);
    f->perm_method = strdup("rcm");
    tc_params_parse(&f->perm_params, "seed=7,alpha=0.25,big=1e300", NULL);
    roundtrip("row permutation with method and parameters", f, 1);
    f = tcf_of(random_csr(300, 200, 2000, TC_FIELD_PATTERN, 0));
    f->row_perm = random_perm(300);
    f->col_perm = random_perm(200);
    roundtrip("row and column permutations, no method", f, 1);
}

/* ------------------------------------------------------------------------ */
/* Provenance, reproducibility, compression                                 */
/* ------------------------------------------------------------------------ */

static void test_provenance(void)
{
    tc_provenance p = { 0 };
    tc_error err;
    char *argv[] = { "tcconv", "my graph.mtx", "-o", "it's.tcf.h5", "--x=a,b", "" };
    setenv("SOURCE_DATE_EPOCH", "86400", 1);
    ok(tc_provenance_set(&p, 6, argv, "my graph.mtx", &err) == TC_OK, "provenance set");
    is_str(p.creator, "tcsparse " TC_VERSION_STRING, "creator");
    is_str(p.created, "1970-01-02T00:00:00Z", "created from SOURCE_DATE_EPOCH");
    is_str(p.command, "tcconv 'my graph.mtx' -o 'it'\\''s.tcf.h5' --x=a,b ''",
           "command quoted for the shell");
    is_str(p.source, "my graph.mtx", "source");
    setenv("SOURCE_DATE_EPOCH", "soon", 1);
    ok(tc_provenance_set(&p, 1, argv, NULL, &err) == TC_ERR_ARG, "bad SOURCE_DATE_EPOCH refused");
    is_str(err.msg, "SOURCE_DATE_EPOCH: expected seconds since 1970, found 'soon'",
           "its message");
    unsetenv("SOURCE_DATE_EPOCH");
    ok(tc_provenance_set(&p, 1, argv, NULL, &err) == TC_OK && p.source == NULL &&
       strlen(p.created) == 20 && p.created[19] == 'Z', "created now, source cleared");

    tc_tcf *f = tcf_of(random_csr(20, 20, 50, TC_FIELD_REAL, 0));
    f->prov = p;
    f->prov.banner = strdup("%%MatrixMarket matrix coordinate real general");
    f->prov.comments = strdup("caf\xe9 cr\xc3\xa8me\nline 2");
    const char *path = in_dir("prov.tcf.h5");
    tc_tcf *g = NULL;
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK && tc_h5_read(path, 0, &g, &err) == TC_OK,
       "written and read with provenance");
    if (g) {
        ok(same_str(g->prov.creator, f->prov.creator) &&
           same_str(g->prov.created, f->prov.created) &&
           same_str(g->prov.command, f->prov.command) && g->prov.source == NULL &&
           same_str(g->prov.banner, f->prov.banner), "provenance read back");
        is_str(g->prov.comments, "caf\xef\xbf\xbd cr\xc3\xa8me\nline 2",
               "invalid UTF-8 stored as U+FFFD, valid UTF-8 kept");
    }
    tc_tcf_free(f);
    tc_tcf_free(g);
}

static void test_reproducible(void)
{
    tc_tcf *f = tcf_of(random_csr(5000, 3000, 60000, TC_FIELD_REAL, 1));
    f->row_perm = random_perm(5000);
    f->perm_method = strdup("degree");
    char *argv[] = { "tcreorder", "x" };
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    tc_provenance_set(&f->prov, 2, argv, "x.mtx", NULL);
    unsetenv("SOURCE_DATE_EPOCH");
    tc_error err;
    const char *a = in_dir("same1.tcf.h5"), *b = in_dir("same2.tcf.h5");
    /* a second apart, so that any timestamp HDF5 recorded would differ */
    ok(tc_h5_write(a, f, NULL, &err) == TC_OK && sleep(1) == 0 &&
       tc_h5_write(b, f, NULL, &err) == TC_OK, "two writes of the same content");
    ok(same_bytes(a, b), "are byte-identical");
    tc_tcf_free(f);
}

/* The storage of dataset path in file: layout and number of filters. */
static void storage_of(const char *file, const char *path, H5D_layout_t *layout,
                       int *nfilters)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t p = H5Dget_create_plist(d);
    *layout = H5Pget_layout(p);
    *nfilters = H5Pget_nfilters(p);
    H5Pclose(p);
    H5Dclose(d);
    H5Fclose(f);
}

static void test_compression(void)
{
    tc_tcf *f = tcf_of(random_csr(20000, 20000, 200000, TC_FIELD_PATTERN, 0));
    const char *a = in_dir("z.tcf.h5"), *b = in_dir("plain.tcf.h5");
    tc_h5_write_opts off = { 0 };
    tc_error err;
    ok(tc_h5_write(a, f, NULL, &err) == TC_OK && tc_h5_write(b, f, &off, &err) == TC_OK,
       "written with and without compression");
    H5D_layout_t layout;
    int nf;
    storage_of(a, "/matrix/indices", &layout, &nf);
    ok(layout == H5D_CHUNKED && nf == 2, "large dataset: chunked, shuffle + deflate");
    storage_of(b, "/matrix/indices", &layout, &nf);
    ok(layout == H5D_CONTIGUOUS && nf == 0, "compress off: contiguous");
    struct stat sa, sb;
    stat(a, &sa);
    stat(b, &sb);
    ok(sa.st_size * 2 < sb.st_size, "compressed %lld bytes, uncompressed %lld",
       (long long)sa.st_size, (long long)sb.st_size);
    tc_tcf_free(f);
    f = tcf_of(random_csr(100, 100, 1000, TC_FIELD_REAL, 0));
    tc_h5_write(a, f, NULL, &err);
    storage_of(a, "/matrix/data", &layout, &nf);
    ok(layout == H5D_CONTIGUOUS && nf == 0, "small dataset: contiguous even when compressing");
    tc_tcf_free(f);
}

/* ------------------------------------------------------------------------ */
/* Formats and the h5group.h helpers                                         */
/* ------------------------------------------------------------------------ */

/* A format outside the registry: writes one array of each type, and can
   be told to fail half-way through a write. */
static int fake_fail;

static tc_status fake_write(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    static const uint8_t u8[] = { 0, 1, 255 };
    static const int32_t i32[] = { -5, 0, 7 };
    static const uint32_t u32[] = { 0, 4000000000u };
    static const int64_t i64[] = { -1, 5000000000ll, 3 };
    static const uint64_t u64[] = { 18000000000000000000ull };
    static const float f32[] = { 0.5f, -2.0f };
    static const double f64[] = { 1.25, 1e300, -0.0 };
    if (fake_fail)
        return tc_error_set(err, TC_ERR_IO, "fake: deliberate failure");
    tc_status st = tc_h5grp_put(g, "u8", TC_U8, 3, u8, err);
    if (!st) st = tc_h5grp_put(g, "i32", TC_I32, 3, i32, err);
    if (!st) st = tc_h5grp_put(g, "u32", TC_U32, 2, u32, err);
    if (!st) st = tc_h5grp_put(g, "i64", TC_I64, 3, i64, err);
    if (!st) st = tc_h5grp_put(g, "u64", TC_U64, 1, u64, err);
    if (!st) st = tc_h5grp_put(g, "f32", TC_F32, 2, f32, err);
    if (!st) st = tc_h5grp_put(g, "f64", TC_F64, 3, f64, err);
    if (!st) st = tc_h5grp_put(g, "empty", TC_I32, 0, NULL, err);
    if (!st) st = tc_h5grp_put_attr_str(g, "precision", "tf32", err);
    if (!st) st = tc_h5grp_put_attr_f64(g, "ratio", 0.125, err);
    return st;
}

static void fake_free(tc_fmt *m)
{
    free(m);
}

static const tc_param_def fake_params[] = {
    { "h", "window height", 16, 1, 64, 1 },
    { "thr", "threshold", 0.25, 0, 1, 0 },
};

static const tc_format fake_format = {
    .name = "fake",
    .description = "test format",
    .params = fake_params,
    .nparams = 2,
    .write_h5 = fake_write,
    .free = fake_free,
};

static tc_fmt *fake_fmt(const tc_csr *a)
{
    tc_fmt *m = calloc(1, sizeof *m);
    tc_fmt_init(m, &fake_format, a, NULL);
    return m;
}

/* Reads attribute `name` of g and compares. */
static void attr_is(tc_h5grp *g, const char *name, double want)
{
    double v = -1;
    tc_error err;
    ok(tc_h5grp_get_attr_f64(g, name, &v, &err) == TC_OK && v == want, "attribute %s = %g",
       name, want);
}

static void fails(tc_status got, const tc_error *err, tc_status want, const char *subject,
                  const char *fmt, const char *name);

static void test_h5group(const char *path)
{
    tc_h5grp *g = NULL;
    tc_error err;
    if (!ok(tc_h5grp_open(path, "/formats/fake", &g, &err) == TC_OK, "open /formats/fake")) {
        diag("%s", err.msg);
        return;
    }
    char where[600];
    snprintf(where, sizeof where, "%s: /formats/fake", path);
    is_str(tc_h5grp_path(g), where, "group path for messages");
    attr_is(g, "rows", 40);
    attr_is(g, "cols", 30);
    attr_is(g, "has_values", 1);
    attr_is(g, "h", 16);
    attr_is(g, "thr", 0.25);
    attr_is(g, "ratio", 0.125);
    char *s = NULL;
    ok(tc_h5grp_get_attr_str(g, "precision", &s, &err) == TC_OK && same_str(s, "tf32"),
       "string attribute");
    free(s);
    int64_t iv;
    fails(tc_h5grp_get_attr_i64(g, "thr", &iv, &err), &err, TC_ERR_FORMAT, where,
          "%s: attribute thr: expected an integer, found float", "float attribute as integer");
    fails(tc_h5grp_get_attr_i64(g, "nope", &iv, &err), &err, TC_ERR_FORMAT, where,
          "%s: missing attribute nope", "missing attribute");

    int64_t n;
    void *d = NULL;
    ok(tc_h5grp_get(g, "u8", TC_U8, &n, &d, 0, &err) == TC_OK && n == 3 &&
       ((uint8_t *)d)[2] == 255, "uint8 dataset");
    free(d);
    ok(tc_h5grp_get(g, "i32", TC_I64, &n, &d, 0, &err) == TC_OK && n == 3 &&
       ((int64_t *)d)[0] == -5, "int32 dataset widened to int64");
    free(d);
    ok(tc_h5grp_get(g, "u32", TC_U32, &n, &d, 0, &err) == TC_OK &&
       ((uint32_t *)d)[1] == 4000000000u, "uint32 dataset");
    free(d);
    ok(tc_h5grp_get(g, "u64", TC_U64, &n, &d, 0, &err) == TC_OK &&
       ((uint64_t *)d)[0] == 18000000000000000000ull, "uint64 dataset");
    free(d);
    ok(tc_h5grp_get(g, "f32", TC_F64, &n, &d, 0, &err) == TC_OK && ((double *)d)[1] == -2.0,
       "float32 dataset as float64");
    free(d);
    ok(tc_h5grp_get(g, "i32", TC_F32, &n, &d, 0, &err) == TC_OK && ((float *)d)[2] == 7.0f,
       "int32 dataset as float32");
    free(d);
    ok(tc_h5grp_get_n(g, "f64", TC_F64, 3, &d, &err) == TC_OK && ((double *)d)[1] == 1e300,
       "float64 dataset of the expected length");
    free(d);
    ok(tc_h5grp_get(g, "empty", TC_I32, &n, &d, 0, &err) == TC_OK && n == 0 && d != NULL,
       "empty dataset: n 0, non-NULL array");
    free(d);
    ok(tc_h5grp_get(g, "nope", TC_I32, &n, &d, 1, &err) == TC_OK && n == -1 && d == NULL,
       "optional missing dataset");
    ok(tc_h5grp_has(g, "u8") && !tc_h5grp_has(g, "nope"), "has");
    fails(tc_h5grp_get(g, "nope", TC_I32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/nope: no such dataset", "required missing dataset");
    fails(tc_h5grp_get_n(g, "f64", TC_F64, 4, &d, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: expected 4 entries, found 3", "wrong length");
    fails(tc_h5grp_get(g, "f64", TC_I64, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: expected an integer dataset, found float", "float dataset as integer");
    fails(tc_h5grp_get(g, "i64", TC_I32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/i64: a value does not fit in int32", "int64 beyond int32");
    fails(tc_h5grp_get(g, "i32", TC_U32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/i32: a value does not fit in uint32", "negative into unsigned");
    fails(tc_h5grp_get(g, "f64", TC_F32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: a value does not fit in float32", "1e300 into float32");
    tc_h5grp_close(g);
}

static void test_formats(void)
{
    tc_error err;
    const char *path = in_dir("fmt.tcf.h5");
    tc_tcf *f = tcf_of(random_csr(40, 30, 100, TC_FIELD_REAL, 0));
    const tc_format *csr = tc_format_find("csr");
    tc_fmt *m = NULL;
    ok(tc_fmt_build(csr, f->matrix, NULL, &m, &err) == TC_OK &&
       tc_tcf_add_format(f, m, &err) == TC_OK, "csr added");
    tc_fmt_build(csr, f->matrix, NULL, &m, &err);
    fails(tc_tcf_add_format(f, m, &err), &err, TC_ERR_ARG, NULL, "format csr added twice",
          "a format added twice");
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with csr");
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ok(H5Lexists(h, "/formats", H5P_DEFAULT) == 0, "csr is /matrix: no /formats group");
    H5Fclose(h);

    ok(tc_tcf_add_format(f, fake_fmt(f->matrix), &err) == TC_OK, "fake format added");
    ok(f->nformats == 2 && f->formats[0]->kind == csr, "registry order kept");
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with a stored format");
    test_h5group(path);
    tc_tcf *g = NULL;
    fails(tc_h5_read(path, 1, &g, &err), &err, TC_ERR_UNSUPPORTED, path,
          "%s: /formats/fake: unknown format 'fake' (written by a newer tcsparse?)",
          "a format the registry lacks is refused");
    ok(tc_h5_read(path, 0, &g, &err) == TC_OK && g->nformats == 0,
       "formats not asked for are not read");
    tc_tcf_free(g);

    fake_fail = 1;
    size_t before_len = 0, after_len = 0;
    char *before = tap_slurp(path, &before_len);
    int entries = count_entries(dir);
    fails(tc_h5_write(path, f, NULL, &err), &err, TC_ERR_IO, NULL, "fake: deliberate failure",
          "a write failing half-way");
    char *after = tap_slurp(path, &after_len);
    ok(before && after && before_len == after_len && memcmp(before, after, before_len) == 0,
       "the previous file is untouched");
    is_int(count_entries(dir), entries, "no temporary file left");
    free(before);
    free(after);
    fake_fail = 0;
    tc_tcf_free(f);
}

/* ------------------------------------------------------------------------ */
/* Bad files                                                                 */
/* ------------------------------------------------------------------------ */

/* The call returned `want` with the message fmt, in which the one %s
   (if any) stands for `subject` (the file or group). */
static void fails(tc_status got, const tc_error *err, tc_status want, const char *subject,
                  const char *fmt, const char *name)
{
    char expect[1024];
    snprintf(expect, sizeof expect, fmt, subject);
    ok(got == want && strcmp(err->msg, expect) == 0, "%s", name);
    if (got != want || strcmp(err->msg, expect) != 0)
        diag("  got  %s (%s)\n#   want %s (%s)", err->msg, tc_status_name(got), expect,
             tc_status_name(want));
}

/* A hand-made file: root attribute, then what each case wants. */
static hid_t raw_create(const char *path, const char *version)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (version) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f, "tcf_layout_version", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &version);
        H5Aclose(a);
        H5Sclose(s);
        H5Tclose(t);
    }
    return f;
}

static void raw_attr_str(hid_t loc, const char *name, const char *v)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t s = H5Screate(H5S_SCALAR);
    if (H5Aexists(loc, name) > 0)
        H5Adelete(loc, name);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &v);
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void raw_attr_i64(hid_t loc, const char *name, int n, const int64_t *v)
{
    hsize_t dim = n;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    if (H5Aexists(loc, name) > 0)
        H5Adelete(loc, name);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT64, v);
    H5Aclose(a);
    H5Sclose(s);
}

/* Dataset `name` of type t (memory layout = t's native twin), replacing
   any existing one. */
static void raw_dataset(hid_t loc, const char *name, hid_t t, hsize_t n, const void *v)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0)
        H5Ldelete(loc, name, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
}

/* The 4x5 matrix [1 . . 2 .; . 3 . . .; . . . . .; . . 4 . 5] as /matrix. */
static const int64_t good_shape[2] = { 4, 5 };
static const int64_t good_ptr[] = { 0, 2, 3, 3, 5 };
static const int32_t good_idx[] = { 0, 3, 1, 2, 4 };
static const double good_val[] = { 1, 2, 3, 4, 5 };

static hid_t raw_matrix(hid_t f)
{
    hid_t g = H5Gcreate2(f, "matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    raw_attr_str(g, "encoding-type", "csr_matrix");
    raw_attr_str(g, "encoding-version", "0.1.0");
    raw_attr_i64(g, "shape", 2, good_shape);
    raw_attr_str(g, "field", "real");
    raw_attr_str(g, "symmetry", "general");
    raw_dataset(g, "indptr", H5T_NATIVE_INT64, 5, good_ptr);
    raw_dataset(g, "indices", H5T_NATIVE_INT32, 5, good_idx);
    raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 5, good_val);
    return g;
}

enum corruption {
    C_NONE, C_NO_MATRIX, C_PTR_NOT_MONOTONE, C_IDX_RANGE, C_PTR_LEN, C_DATA_LEN, C_IDX_FLOAT,
    C_PTR_RANK2, C_SHAPE3, C_CSC, C_HUGE, C_IDX_INT64_BIG, C_SOFT_LINK, C_EXTERNAL_MATRIX,
    C_PATTERN_DATA, C_REAL_NO_DATA, C_INTEGER_FRACTION, C_NO_INDICES, C_FIELD_COMPLEX,
    C_ANNDATA, C_ANNDATA_PATTERN, C_SHAPE_NEG,
    C_PERM_DUP, C_PERM_NOT_INVERSE, C_PERM_LEN, C_PERM_HALF, C_PERM_EMPTY, C_PERM_PARAM_STR,
    C_FMT_UNKNOWN, C_FMT_CSR
};

static void raw_perm(hid_t f, enum corruption c)
{
    int32_t n2o[] = { 2, 0, 3, 1 }, o2n[] = { 1, 3, 0, 2 };
    hid_t p = H5Gcreate2(f, "permutation", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (c == C_PERM_DUP)
        n2o[3] = 0;
    if (c == C_PERM_NOT_INVERSE)
        o2n[0] = 2, o2n[2] = 1;
    if (c != C_PERM_EMPTY && c != C_PERM_HALF)
        raw_dataset(p, "row_new_to_old", H5T_NATIVE_INT32, c == C_PERM_LEN ? 3 : 4, n2o);
    if (c != C_PERM_EMPTY)
        raw_dataset(p, "row_old_to_new", H5T_NATIVE_INT32, 4, o2n);
    if (c == C_PERM_PARAM_STR)
        raw_attr_str(p, "seed", "seven");
    H5Gclose(p);
}

static void make_bad(const char *path, enum corruption c)
{
    hid_t f = raw_create(path, "1.0");
    if (c == C_NO_MATRIX) {
        H5Fclose(f);
        return;
    }
    if (c == C_EXTERNAL_MATRIX) {
        H5Lcreate_external("elsewhere.h5", "/matrix", f, "matrix", H5P_DEFAULT, H5P_DEFAULT);
        H5Fclose(f);
        return;
    }
    hid_t g = raw_matrix(f);
    int64_t ptr[5];
    int32_t idx[5];
    memcpy(ptr, good_ptr, sizeof ptr);
    memcpy(idx, good_idx, sizeof idx);
    switch (c) {
    case C_PTR_NOT_MONOTONE:
        ptr[2] = 1;
        raw_dataset(g, "indptr", H5T_NATIVE_INT64, 5, ptr);
        break;
    case C_IDX_RANGE:
        idx[4] = 5;
        raw_dataset(g, "indices", H5T_NATIVE_INT32, 5, idx);
        break;
    case C_PTR_LEN:
        raw_dataset(g, "indptr", H5T_NATIVE_INT64, 4, ptr);
        break;
    case C_DATA_LEN:
        raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 4, good_val);
        break;
    case C_IDX_FLOAT:
        raw_dataset(g, "indices", H5T_NATIVE_DOUBLE, 5, good_val);
        break;
    case C_PTR_RANK2: {
        hsize_t dims[2] = { 5, 1 };
        H5Ldelete(g, "indptr", H5P_DEFAULT);
        hid_t s = H5Screate_simple(2, dims, NULL);
        hid_t d = H5Dcreate2(g, "indptr", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, good_ptr);
        H5Dclose(d);
        H5Sclose(s);
        break;
    }
    case C_SHAPE3: {
        int64_t s3[3] = { 4, 5, 6 };
        raw_attr_i64(g, "shape", 3, s3);
        break;
    }
    case C_SHAPE_NEG: {
        int64_t sn[2] = { -4, 5 };
        raw_attr_i64(g, "shape", 2, sn);
        break;
    }
    case C_CSC:
        raw_attr_str(g, "encoding-type", "csc_matrix");
        break;
    case C_HUGE: {
        /* a chunked dataset claiming 2^40 elements, none of them written */
        hsize_t n = 1ull << 40, chunk = 1024;
        H5Ldelete(g, "indices", H5P_DEFAULT);
        hid_t s = H5Screate_simple(1, &n, NULL);
        hid_t p = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(p, 1, &chunk);
        hid_t d = H5Dcreate2(g, "indices", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
        H5Dclose(d);
        H5Pclose(p);
        H5Sclose(s);
        break;
    }
    case C_IDX_INT64_BIG: {
        int64_t big[5] = { 0, 3, 1, 2, 1ll << 33 };
        raw_dataset(g, "indices", H5T_NATIVE_INT64, 5, big);
        break;
    }
    case C_SOFT_LINK:
        H5Ldelete(g, "indices", H5P_DEFAULT);
        H5Lcreate_soft("/matrix/indptr", g, "indices", H5P_DEFAULT, H5P_DEFAULT);
        break;
    case C_PATTERN_DATA:
        raw_attr_str(g, "field", "pattern");
        break;
    case C_REAL_NO_DATA:
    case C_ANNDATA_PATTERN:
        H5Ldelete(g, "data", H5P_DEFAULT);
        if (c == C_ANNDATA_PATTERN)
            H5Adelete(g, "field");
        break;
    case C_INTEGER_FRACTION: {
        double v[5] = { 1, 2, 3.5, 4, 5 };
        raw_attr_str(g, "field", "integer");
        raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 5, v);
        break;
    }
    case C_NO_INDICES:
        H5Ldelete(g, "indices", H5P_DEFAULT);
        break;
    case C_FIELD_COMPLEX:
        raw_attr_str(g, "field", "complex");
        break;
    case C_ANNDATA: {
        /* what anndata writes: no field or symmetry, int32 indptr, int64 data */
        int32_t p32[5] = { 0, 2, 3, 3, 5 };
        int64_t v64[5] = { 1, 2, 3, 4, 5 };
        H5Adelete(g, "field");
        H5Adelete(g, "symmetry");
        raw_dataset(g, "indptr", H5T_NATIVE_INT32, 5, p32);
        raw_dataset(g, "data", H5T_NATIVE_INT64, 5, v64);
        break;
    }
    case C_PERM_DUP: case C_PERM_NOT_INVERSE: case C_PERM_LEN: case C_PERM_HALF:
    case C_PERM_EMPTY: case C_PERM_PARAM_STR:
        raw_perm(f, c);
        break;
    case C_FMT_UNKNOWN: case C_FMT_CSR: {
        hid_t fg = H5Gcreate2(f, "formats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t x = H5Gcreate2(fg, c == C_FMT_CSR ? "csr" : "zzz", H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        H5Gclose(x);
        H5Gclose(fg);
        break;
    }
    default:
        break;
    }
    H5Gclose(g);
    H5Fclose(f);
}

static void bad(enum corruption c, tc_status want, const char *msg, const char *name)
{
    const char *path = in_dir("bad.tcf.h5");
    tc_tcf *f = NULL;
    tc_error err;
    make_bad(path, c);
    fails(tc_h5_read(path, 1, &f, &err), &err, want, path, msg, name);
    ok(f == NULL, "%s: nothing returned", name);
}

static void good(enum corruption c, tc_field field, int with_values, const char *name)
{
    const char *path = in_dir("bad.tcf.h5");
    tc_tcf *f = NULL;
    tc_error err;
    make_bad(path, c);
    tc_status st = tc_h5_read(path, 1, &f, &err);
    ok(st == TC_OK && f->matrix->field == field && (f->matrix->val != NULL) == with_values &&
       f->matrix->nnz == 5 && f->matrix->colidx[4] == 4 && f->matrix->rowptr[4] == 5 &&
       (!with_values || f->matrix->val[4] == 5), "%s", name);
    if (st != TC_OK)
        diag("%s", err.msg);
    tc_tcf_free(f);
}

static void test_bad_matrix(void)
{
    good(C_NONE, TC_FIELD_REAL, 1, "the hand-made file is accepted");
    good(C_ANNDATA, TC_FIELD_REAL, 1,
         "anndata's csr_matrix (no field, int32 indptr, int64 data) is accepted");
    good(C_ANNDATA_PATTERN, TC_FIELD_PATTERN, 0, "no field and no data: pattern");
    bad(C_NO_MATRIX, TC_ERR_FORMAT, "%s: /matrix: no such group", "no /matrix");
    bad(C_PTR_NOT_MONOTONE, TC_ERR_INVALID,
        "%s: /matrix: row pointers not monotone at row 1 (2 then 1, nnz 5)",
        "indptr not monotone");
    bad(C_IDX_RANGE, TC_ERR_INVALID, "%s: /matrix: row 3: column index 5 outside 0..4",
        "column index out of range");
    bad(C_PTR_LEN, TC_ERR_FORMAT,
        "%s: /matrix/indptr: expected 5 entries (shape[0]+1), found 4", "indptr length wrong");
    bad(C_DATA_LEN, TC_ERR_FORMAT,
        "%s: /matrix/data: expected 5 entries (as many as indices), found 4",
        "data and indices differ in length");
    bad(C_IDX_FLOAT, TC_ERR_FORMAT,
        "%s: /matrix/indices: expected an integer dataset, found float", "float indices");
    bad(C_PTR_RANK2, TC_ERR_FORMAT, "%s: /matrix/indptr: expected a 1-D dataset, found rank 2",
        "indptr of rank 2");
    bad(C_SHAPE3, TC_ERR_FORMAT, "%s: /matrix: attribute shape: expected 2 values, found 3",
        "shape of 3 values");
    bad(C_SHAPE_NEG, TC_ERR_FORMAT,
        "%s: /matrix: shape [-4, 5] out of range (0 to 2147483647)", "negative shape");
    bad(C_CSC, TC_ERR_FORMAT, "%s: /matrix: encoding-type is 'csc_matrix', expected 'csr_matrix'",
        "csc_matrix");
    bad(C_HUGE, TC_ERR_FORMAT,
        "%s: /matrix/indices: claims 4398046511104 bytes of data but the file holds only 0 "
        "bytes for it (unwritten or corrupt)", "2^40 elements claimed, nothing stored");
    bad(C_IDX_INT64_BIG, TC_ERR_FORMAT, "%s: /matrix/indices: a value does not fit in int32",
        "int64 index beyond int32");
    bad(C_SOFT_LINK, TC_ERR_FORMAT,
        "%s: /matrix/indices: is a soft or external link (only hard links are followed)",
        "soft link");
    bad(C_EXTERNAL_MATRIX, TC_ERR_FORMAT,
        "%s: /matrix: is a soft or external link (only hard links are followed)",
        "external link");
    bad(C_PATTERN_DATA, TC_ERR_FORMAT, "%s: /matrix/data: present, but field is pattern",
        "pattern with data");
    bad(C_REAL_NO_DATA, TC_ERR_FORMAT, "%s: /matrix/data: no such dataset (field is real)",
        "real without data");
    bad(C_INTEGER_FRACTION, TC_ERR_INVALID,
        "%s: /matrix/data: entry 2 is 3.5, not a whole number (field is integer)",
        "integer field with a fraction");
    bad(C_NO_INDICES, TC_ERR_FORMAT, "%s: /matrix/indices: no such dataset", "no indices");
    bad(C_FIELD_COMPLEX, TC_ERR_FORMAT,
        "%s: /matrix: attribute field: unknown value 'complex' (expected real, integer or "
        "pattern)", "complex field");
}

static void test_bad_perm_and_formats(void)
{
    bad(C_PERM_DUP, TC_ERR_INVALID,
        "%s: /permutation/row_new_to_old: index 0 appears twice (entries 1 and 3): not a "
        "permutation", "permutation with a repeated index");
    bad(C_PERM_NOT_INVERSE, TC_ERR_FORMAT,
        "%s: /permutation/row_old_to_new: entry 0 is 2, but row_new_to_old gives 1 (not its "
        "inverse)", "the two directions disagree");
    bad(C_PERM_LEN, TC_ERR_FORMAT,
        "%s: /permutation/row_new_to_old: expected 4 entries (rows of /matrix), found 3",
        "permutation of the wrong length");
    bad(C_PERM_HALF, TC_ERR_FORMAT,
        "%s: /permutation/row_new_to_old: no such dataset (row_old_to_new is present)",
        "one direction only");
    bad(C_PERM_EMPTY, TC_ERR_FORMAT,
        "%s: /permutation: holds neither row_new_to_old nor col_new_to_old",
        "empty /permutation");
    bad(C_PERM_PARAM_STR, TC_ERR_FORMAT,
        "%s: /permutation: attribute seed: expected a number, found string",
        "non-numeric permutation parameter");
    bad(C_FMT_UNKNOWN, TC_ERR_UNSUPPORTED,
        "%s: /formats/zzz: unknown format 'zzz' (written by a newer tcsparse?)",
        "unknown format");
    bad(C_FMT_CSR, TC_ERR_FORMAT, "%s: /formats/csr: format csr is /matrix itself, not a group",
        "csr under /formats");
}

static void version_case(const char *version, tc_status want, const char *msg,
                         const char *name)
{
    const char *path = in_dir("v.tcf.h5");
    hid_t f = raw_create(path, version);
    H5Gclose(raw_matrix(f));
    H5Fclose(f);
    tc_tcf *t = NULL;
    tc_error err;
    tc_status st = tc_h5_read(path, 1, &t, &err);
    if (want == TC_OK)
        ok(st == TC_OK, "%s", name);
    else
        fails(st, &err, want, path, msg, name);
    tc_tcf_free(t);
}

static void test_versions(void)
{
    version_case("2.0", TC_ERR_UNSUPPORTED,
                 "%s: tcf layout version 2.0 is not supported (tcsparse " TC_VERSION_STRING
                 " reads 1.x and writes " TC_LAYOUT_VERSION ")", "layout version 2.0 refused");
    version_case("0.9", TC_ERR_UNSUPPORTED,
                 "%s: tcf layout version 0.9 is not supported (tcsparse " TC_VERSION_STRING
                 " reads 1.x and writes " TC_LAYOUT_VERSION ")", "layout version 0.9 refused");
    version_case("1.7", TC_OK, NULL, "a later minor version (1.7) is read");
    version_case("one", TC_ERR_FORMAT,
                 "%s: malformed tcf_layout_version 'one' (expected MAJOR.MINOR)",
                 "malformed version");
    version_case(NULL, TC_ERR_FORMAT,
                 "%s: not a .tcf.h5 file (no tcf_layout_version attribute on /)",
                 "no version attribute");
}

static void test_bad_files(void)
{
    tc_tcf *f = NULL;
    tc_error err;
    const char *text = in_dir("text.mtx");
    write_text(text, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
    fails(tc_h5_read(text, 1, &f, &err), &err, TC_ERR_FORMAT, text, "%s: not an HDF5 file",
          "a text file");
    ok(!tc_h5_is_hdf5(text), "is_hdf5: text file");
    const char *absent = in_dir("absent.tcf.h5");
    fails(tc_h5_read(absent, 1, &f, &err), &err, TC_ERR_IO, absent,
          "%s: No such file or directory", "a missing file");
    ok(!tc_h5_is_hdf5(absent), "is_hdf5: missing file");
    fails(tc_h5_read(dir, 1, &f, &err), &err, TC_ERR_IO, dir, "%s: Is a directory",
          "a directory");

    /* truncated: the first half of a real file */
    const char *whole = in_dir("whole.tcf.h5"), *half = in_dir("half.tcf.h5");
    tc_tcf *t = tcf_of(random_csr(2000, 2000, 20000, TC_FIELD_REAL, 0));
    tc_h5_write(whole, t, NULL, &err);
    tc_tcf_free(t);
    size_t len = 0;
    char *bytes = tap_slurp(whole, &len);
    FILE *fp = fopen(half, "wb");
    fwrite(bytes, 1, len / 2, fp);
    fclose(fp);
    free(bytes);
    ok(tc_h5_is_hdf5(whole) && tc_h5_is_hdf5(half), "is_hdf5: written file and its first half");
    char want[1024];
    snprintf(want, sizeof want,
             "%%s: cannot open as HDF5: truncated file: eof = %zu, sblock->base_addr = 0, "
             "stored_eof = %zu", len / 2, len);
    fails(tc_h5_read(half, 1, &f, &err), &err, TC_ERR_FORMAT, half, want, "a truncated file");

    /* HDF5 prints its error stack only when asked */
    fflush(stderr);
    int saved = dup(2), fd = open(in_dir("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    tc_h5_read(half, 1, &f, &err);
    fflush(stderr);
    struct stat quiet;
    fstat(fd, &quiet);
    tc_h5_set_verbose(1);
    tc_h5_read(half, 1, &f, &err);
    tc_h5_set_verbose(0);
    fflush(stderr);
    struct stat loud;
    fstat(fd, &loud);
    dup2(saved, 2);
    close(fd);
    close(saved);
    ok(quiet.st_size == 0 && loud.st_size > 0,
       "HDF5 error stack silent by default (%lld bytes), printed when verbose (%lld bytes)",
       (long long)quiet.st_size, (long long)loud.st_size);

    /* a user block before the superblock */
    const char *ub = in_dir("userblock.h5");
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 1024);
    hid_t h = H5Fcreate(ub, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    H5Fclose(h);
    ok(tc_h5_is_hdf5(ub), "is_hdf5: superblock after a 1024-byte user block");
}

/* ------------------------------------------------------------------------ */
/* Atomic writes                                                             */
/* ------------------------------------------------------------------------ */

static void test_atomic(void)
{
    tc_tcf *f = tcf_of(random_csr(30, 30, 90, TC_FIELD_REAL, 0));
    tc_error err;
    int entries = count_entries(dir);
    const char *nodir = in_dir("no/such/dir/x.tcf.h5");
    fails(tc_h5_write(nodir, f, NULL, &err), &err, TC_ERR_IO, nodir,
          "%s: cannot create: No such file or directory", "write into a missing directory");
    ok(!exists(nodir) && count_entries(dir) == entries, "nothing left behind");

    const char *ro = in_dir("readonly");
    mkdir(ro, 0755);
    if (geteuid() == 0) {
        ok(1, "unwritable directory # SKIP running as root: permissions do not apply");
    } else {
        chmod(ro, 0555);
        char target[600];
        snprintf(target, sizeof target, "%s/x.tcf.h5", ro);
        ok(tc_h5_write(target, f, NULL, &err) == TC_ERR_IO && count_entries(ro) == 0,
           "write into an unwritable directory fails and leaves nothing");
        chmod(ro, 0755);
    }

    fails(tc_h5_write("-", f, NULL, &err), &err, TC_ERR_ARG, NULL,
          "cannot write HDF5 to standard output (it needs a seekable file)", "stdout refused");

    const char *target = in_dir("keep.tcf.h5");
    ok(tc_h5_write(target, f, NULL, &err) == TC_OK, "a first write");
    entries = count_entries(dir);
    f->row_perm = random_perm(29);
    fails(tc_h5_write(target, f, NULL, &err), &err, TC_ERR_ARG, target,
          "%s: row permutation of 29 for 30 rows", "a permutation of the wrong size");
    tc_perm_free(f->row_perm);
    f->row_perm = NULL;
    int32_t row0 = 0;   /* the row holding the first stored entry */
    while (f->matrix->rowptr[row0 + 1] == 0)
        row0++;
    f->matrix->colidx[0] = 30;
    char want[600];
    snprintf(want, sizeof want, "%s: row %d: column index 30 outside 0..29", target, row0);
    fails(tc_h5_write(target, f, NULL, &err), &err, TC_ERR_INVALID, NULL, want,
          "an invalid matrix");
    ok(count_entries(dir) == entries, "refused writes leave no file");
    tc_tcf *g = NULL;
    ok(tc_h5_read(target, 1, &g, &err) == TC_OK && g->matrix->colidx[0] != 30,
       "the first file is still there and readable");
    tc_tcf_free(g);
    tc_tcf_free(f);
}

/* ------------------------------------------------------------------------ */
/* Dense datasets                                                            */
/* ------------------------------------------------------------------------ */

static void test_dense(void)
{
    double b[12];
    for (int i = 0; i < 12; i++)
        b[i] = i * 1.1 - 3;
    const char *path = in_dir("b.h5");
    tc_error err;
    int32_t r = -1, c = -1;
    double *got = NULL;
    ok(tc_h5_write_dense(path, "B", 3, 4, b, 0, &err) == TC_OK &&
       tc_h5_read_dense(path, "/B", &r, &c, &got, &err) == TC_OK && r == 3 && c == 4 &&
       memcmp(got, b, sizeof b) == 0, "float64 3x4 round trip");
    free(got);
    ok(tc_h5_write_dense(path, "/out/sub/C", 4, 3, b, 1, &err) == TC_OK &&
       tc_h5_read_dense(path, "out/sub/C", &r, &c, &got, &err) == TC_OK && r == 4 && c == 3,
       "float32 in nested groups");
    int same = got != NULL;
    for (int i = 0; same && i < 12; i++)
        same = got[i] == (double)(float)b[i];
    ok(same, "float32 values read back as double");
    free(got);
    got = NULL;
    ok(tc_h5_write_dense(path, "Z", 0, 5, b, 0, &err) == TC_OK &&
       tc_h5_read_dense(path, "Z", &r, &c, &got, &err) == TC_OK && r == 0 && c == 5 &&
       got != NULL, "0x5");
    free(got);

    hid_t f = raw_create(path, NULL);
    raw_dataset(f, "v", H5T_NATIVE_DOUBLE, 3, b);
    int32_t iv[3] = { 1, 2, 3 };
    hsize_t dims[2] = { 1, 3 };
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "i", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    fails(tc_h5_read_dense(path, "/nope", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /nope: no such dataset", "missing dataset");
    fails(tc_h5_read_dense(path, "/g/B", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /g: no such group", "missing group");
    fails(tc_h5_read_dense(path, "/v", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /v: expected a 2-D dataset, found rank 1", "1-D dataset");
    fails(tc_h5_read_dense(path, "/i", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /i: expected a float32 or float64 dataset, found integer (4 bytes)",
          "integer dataset");
    fails(tc_h5_read_dense(path, "/", &r, &c, &got, &err), &err, TC_ERR_ARG, path,
          "%s: '/' does not name a dataset", "no dataset name");
    const char *text = in_dir("b.txt");
    write_text(text, "1 2 3\n");
    fails(tc_h5_read_dense(text, "/B", &r, &c, &got, &err), &err, TC_ERR_FORMAT, text,
          "%s: not an HDF5 file", "dense from a text file");
    ok(got == NULL, "nothing returned on failure");
}

/* A parameter stored out of range or fractional where it must be whole is
   the file's fault: TC_ERR_FORMAT (exit 1), not TC_ERR_ARG (exit 2, a
   usage error), with the group and attribute named and a whole number in
   all its digits. */
static void test_stored_params(void)
{
    static const struct {
        double g;
        const char *msg;
    } cases[] = {
        { 1000, "%s: /formats/brp: g=1000 is out of range [1, 256]" },
        { 2.5, "%s: /formats/brp: g=2.5 must be a whole number" },
        { 9502740, "%s: /formats/brp: g=9502740 is out of range [1, 256]" },
    };
    const char *path = in_dir("params.tcf.h5");
    tc_error err;
    tc_tcf *f = tcf_of(random_csr(40, 30, 100, TC_FIELD_REAL, 0));
    tc_fmt *m = NULL;
    ok(tc_fmt_build(tc_format_find("brp"), f->matrix, NULL, &m, &err) == TC_OK &&
       tc_tcf_add_format(f, m, &err) == TC_OK, "brp added");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with brp");
        hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t g = H5Gopen2(h, "/formats/brp", H5P_DEFAULT);
        H5Adelete(g, "g");
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(g, "g", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &cases[i].g);
        H5Aclose(a);
        H5Sclose(sp);
        H5Gclose(g);
        H5Fclose(h);
        tc_tcf *back = NULL;
        char name[64], value[TC_NUMBER_CHARS];
        snprintf(name, sizeof name, "g = %s stored: a bad file",
                 tc_number_text(cases[i].g, value));
        fails(tc_h5_read(path, 1, &back, &err), &err, TC_ERR_FORMAT, path, cases[i].msg, name);
        ok(back == NULL, "  nothing returned");
    }
    tc_tcf_free(f);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/t_h5file.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        skip_all("cannot make a scratch directory");
    test_roundtrips();
    test_provenance();
    test_reproducible();
    test_compression();
    test_formats();
    test_versions();
    test_bad_matrix();
    test_bad_perm_and_formats();
    test_bad_files();
    test_atomic();
    test_dense();
    test_stored_params();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
