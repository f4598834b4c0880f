/*
 * fmttest.h: what the tests of a tensor-core format share: the awkward
 * shapes to build, matrices from triplets, SpMM from the format's own
 * arrays against the CSR reference, array comparisons, .tcf.h5 files
 * holding one format and tampering with them, and the real matrices of
 * $TC_SHARED_DATA. Include after tap.h, testmat.h and tcsparse.h (and
 * <hdf5.h>, <dirent.h>, <math.h>, <unistd.h>).
 */
#ifndef TC_FMTTEST_H
#define TC_FMTTEST_H

#include "formats.h"

__attribute__((unused)) static void bail(const char *msg)
{
    printf("Bail out! %s\n", msg);
    exit(1);
}

__attribute__((unused)) static tc_csr *from_coo(int32_t rows, int32_t cols, int64_t n,
                                                const int32_t *ri, const int32_t *ci,
                                                const double *v)
{
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, v, 1, &err))
        bail(err.msg);
    return a;
}

/* The example t_bcsr and t_hrpb work by hand (and fmtlib.sh's
   fmt_hand_20x40 writes): 20 x 40, value of (r, c) = 100 r + c + 1 but
   (3, 5), an explicit zero: (0, 0) (0, 17) (3, 5)=0 (15, 39) (16, 16)
   (19, 0). */
__attribute__((unused)) static tc_csr *fmt_hand_20x40(void)
{
    static const int32_t ri[] = { 0, 0, 3, 15, 16, 19 }, ci[] = { 0, 17, 5, 39, 16, 0 };
    double v[6];
    for (int k = 0; k < 6; k++)
        v[k] = 100 * ri[k] + ci[k] + 1;
    v[2] = 0;
    return from_coo(20, 40, 6, ri, ci, v);
}

/* The awkward shapes of DESIGN.md, as arguments of tap_random_matrix
   (testmat.h), that the generic tests (t_formats, t_formats_gpu) run every
   format and kernel on: empty, 1x1, rows not a multiple of 16, rows of
   more than 32, 256 and 4096 nonzeros, a dense column, rows crossing 1024
   and 65535, empty rows and columns, pattern and real. */
typedef struct fmt_shape {
    const char *name;
    int32_t rows, cols;
    int per_row;
    int32_t dense_row, dense_col;
    int pattern;
} fmt_shape;
__attribute__((unused)) static const fmt_shape fmt_shapes[] = {
    { "empty 0x0", 0, 0, 0, -1, -1, 0 },
    { "no nonzeros 37x5", 37, 5, 0, -1, -1, 1 },
    { "1x1", 1, 1, 1, -1, -1, 0 },
    { "1x1 pattern", 1, 1, 1, -1, -1, 1 },
    { "1000x777 (rows not a multiple of 16)", 1000, 777, 9, -1, -1, 0 },
    { "1000x777 pattern", 1000, 777, 9, -1, -1, 1 },
    { "a row of 33 among rows of 2", 50, 33, 2, 20, -1, 0 },
    { "a row of 257, pattern", 20, 257, 3, 19, -1, 1 },
    { "a dense row of 5000", 40, 5000, 2, 17, -1, 0 },
    { "a dense column", 3001, 60, 3, -1, 59, 1 },
    { "dense row and column, 1025 rows", 1025, 4099, 40, 1024, 0, 0 },
    { "70001 rows (> 65535)", 70001, 500, 3, -1, -1, 0 },
    { "70001 rows, pattern", 70001, 70001, 2, 3, 70000, 1 },
    { "1x5000 one dense row", 1, 5000, 0, 0, -1, 0 },
    { "5000x1 one dense column", 5000, 1, 0, -1, 0, 0 },
};

/* The matrix of shape s (tap_random_matrix's arguments). */
__attribute__((unused)) static tc_csr *fmt_shape_matrix(const fmt_shape *s)
{
    return tap_random_matrix(s->rows, s->cols, s->per_row, s->dense_row, s->dense_col,
                             s->pattern);
}

/* Calls fn(name, matrix) for every shape of fmt_shapes. */
__attribute__((unused)) static void for_each_shape(void (*fn)(const char *, const tc_csr *))
{
    for (size_t i = 0; i < sizeof fmt_shapes / sizeof fmt_shapes[0]; i++) {
        const fmt_shape *s = &fmt_shapes[i];
        tc_csr *a = fmt_shape_matrix(s);
        if (!a)
            bail("cannot make a shape");
        fn(s->name, a);
        tc_csr_free(a);
    }
}

/* Figure `key` of section `section` of a report, as a double (integers
   too); NAN when it is not there or not a number. */
__attribute__((unused)) static double fmt_figure(const tc_report *r, const char *section,
                                                 const char *key)
{
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (!strcmp(e->section, section) && !strcmp(e->key, key) && !e->is_str)
            return e->is_int ? (double)e->ival : e->num;
    }
    return NAN;
}

/* Builds format f of a with params ("name=value,..." or NULL). */
__attribute__((unused)) static tc_fmt *build_fmt(const tc_format *f, const tc_csr *a,
                                                 const char *params)
{
    tc_params p = { 0 };
    tc_error err;
    tc_fmt *m;
    if ((params && tc_params_parse(&p, params, &err)) || tc_fmt_build(f, a, &p, &m, &err))
        bail(err.msg);
    return m;
}

/* C equals R within tol relative to R's largest finite magnitude, with a
   NaN exactly where R has one and the same infinity where R has one. */
static int same_product(const double *C, const double *R, int64_t count, double tol)
{
    double scale = 1;
    for (int64_t i = 0; i < count; i++)
        if (isfinite(R[i]))
            scale = fmax(scale, fabs(R[i]));
    for (int64_t i = 0; i < count; i++) {
        int same = isnan(R[i]) ? isnan(C[i])
                   : isinf(R[i]) ? C[i] == R[i]
                   : isfinite(C[i]) && fabs(C[i] - R[i]) <= tol * scale;
        if (!same) {
            diag("element %" PRId64 ": %g, CSR's SpMM %g", i, C[i], R[i]);
            return 0;
        }
    }
    return 1;
}

/* Format f's spmm_ref of m times B (ref->cols x n) equals ref's float64
   CSR SpMM (same_product), C poisoned first so that an unwritten row
   shows. f is m's format, or a test-only one standing in for it. */
__attribute__((unused)) static int spmm_agrees(const tc_format *f, const tc_fmt *m,
                                               const tc_csr *ref, const double *B, int32_t n,
                                               double tol)
{
    int64_t count = (int64_t)ref->rows * n;
    double *C = malloc((size_t)(count + 1) * sizeof *C);
    double *R = malloc((size_t)(count + 1) * sizeof *R);
    for (int64_t i = 0; i < count; i++)
        C[i] = NAN;
    tc_error err;
    int good = f->spmm_ref(m, B, n, n, C, n, &err) == TC_OK &&
               tc_spmm_ref_f64(ref, B, n, n, R, n, 1, &err) == TC_OK;
    if (!good)
        diag("%s", err.msg);
    good = good && same_product(C, R, count, tol);
    free(C);
    free(R);
    return good;
}

/* What every format passes on a matrix it was built from: m validates
   against a, to_csr gives ref back exactly (a itself, or what the format
   keeps of it: the pattern of a binary format), and spmm_ref agrees with
   ref's CSR SpMM at N = 1 and 7 within tol. `what` opens each test's name
   ("cora, h=16"). */
__attribute__((unused)) static void check_decodes(const tc_fmt *m, const tc_csr *a,
                                                  const tc_csr *ref, double tol,
                                                  const char *what)
{
    tc_error err;
    tc_csr *back = NULL;
    int valid = tc_fmt_format(m)->validate(m, a, "t", &err) == TC_OK;
    ok(valid, "%s: validates against the matrix", what);
    if (!valid)
        diag("%s", err.msg);
    ok(tc_fmt_to_csr(m, &back, &err) == TC_OK && tc_csr_equal(back, ref),
       "%s: to_csr gives the %s back exactly", what, ref == a ? "matrix" : "pattern");
    double *B = malloc(((size_t)ref->cols * 7 + 1) * sizeof *B);
    for (int32_t n = 1; n <= 7; n += 6) {
        tc_random_fill(B, (int64_t)ref->cols * n, 42, -1, 1);
        ok(spmm_agrees(tc_fmt_format(m), m, ref, B, n, tol),
           "%s: spmm_ref equals CSR SpMM (N = %d)", what, n);
    }
    free(B);
    tc_csr_free(back);
}

__attribute__((unused)) static int same_i64(const int64_t *got, const int64_t *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

__attribute__((unused)) static int same_i32(const int32_t *got, const int32_t *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

/* Values arrays, NULL for a pattern matrix. */
__attribute__((unused)) static int same_f64(const double *got, const double *want, int64_t n)
{
    if (!got || !want)
        return got == want;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

/* A file holding a (copied) and m (taken), uncompressed unless compress;
   returns its path (a static buffer). */
__attribute__((unused)) static const char *fmt_file(const tc_csr *a, tc_fmt *m, int compress)
{
    static char path[32];
    snprintf(path, sizeof path, "t_fmt.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        bail("mkstemp");
    close(fd);
    tc_tcf *t = tc_tcf_new();
    tc_error err;
    tc_h5_write_opts opts = { compress };
    if (tc_csr_copy(a, &t->matrix, &err) || tc_tcf_add_format(t, m, &err) ||
        tc_h5_write(path, t, &opts, &err))
        bail(err.msg);
    tc_tcf_free(t);
    return path;
}

/* Replaces dataset NAME of group GROUP with n elements of type t (removes
   it when data is NULL). */
__attribute__((unused)) static void put_dataset(const char *file, const char *group,
                                                const char *name, hid_t t, hsize_t n,
                                                const void *data)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    if (H5Lexists(g, name, H5P_DEFAULT) > 0)
        H5Ldelete(g, name, H5P_DEFAULT);
    if (data) {
        hid_t sp = H5Screate_simple(1, &n, NULL);
        hid_t d = H5Dcreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
        H5Dclose(d);
        H5Sclose(sp);
    }
    H5Gclose(g);
    H5Fclose(f);
}

/* Sets (or, with present 0, removes) the int64 attribute NAME of GROUP. */
__attribute__((unused)) static void put_attr(const char *file, const char *group,
                                             const char *name, int present, int64_t v)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
    H5Adelete(g, name);
    if (present) {
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t at = H5Acreate2(g, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(at, H5T_NATIVE_INT64, &v);
        H5Aclose(at);
        H5Sclose(sp);
    }
    H5Gclose(g);
    H5Fclose(f);
}

/* tc_h5_read refuses path with status st and "path: GROUP" + want; the
   file is removed. */
__attribute__((unused)) static void read_refused(const char *path, const char *group,
                                                 tc_status st, const char *what,
                                                 const char *want)
{
    tc_tcf *t = NULL;
    tc_error err = { 0 };
    char full[1024];
    snprintf(full, sizeof full, "%s: %s%s", path, group, want);
    tc_status got = tc_h5_read(path, 1, &t, &err);
    ok(got == st && !t, "file refused: %s", what);
    is_str(err.msg, full, "  with the message");
    tc_tcf_free(t);
    remove(path);
}

/* tc_fmt_build of f on a with params ("name=value,...") is refused with
   TC_ERR_ARG, builds nothing, and says exactly want. */
__attribute__((unused)) static void build_refused(const tc_format *f, const tc_csr *a,
                                                  const char *params, const char *want)
{
    tc_params p = { 0 };
    tc_error err = { 0 };
    tc_fmt *m = NULL;
    tc_params_parse(&p, params, &err);
    ok(tc_fmt_build(f, a, &p, &m, &err) == TC_ERR_ARG && !m, "refused: %s", params);
    is_str(err.msg, want, "  with the message");
    tc_fmt_free(m);
}

/* Format f's validate refuses m against a's copy with one more column,
   saying exactly want ("m: does not encode /matrix (...)"). */
__attribute__((unused)) static void other_matrix_refused(const tc_format *f, const tc_fmt *m,
                                                         const tc_csr *a, const char *want)
{
    tc_csr *wider;
    tc_error err = { 0 };
    if (tc_csr_copy(a, &wider, &err))
        bail(err.msg);
    wider->cols++;
    ok(f->validate(m, wider, "m", &err) == TC_ERR_INVALID, "refused: another matrix");
    is_str(err.msg, want, "  with the message");
    tc_csr_free(wider);
}

/* Format f's validate on m against a, `what` naming it, after one change
   to m's arrays (lvalue = bad), which is then undone: refused with exactly
   the message want. FMT_REFUSED_LABEL describes the change by label (for
   wrappers: their arguments reach FMT_REFUSED macro-expanded, NULL as
   ((void *)0)). */
#define FMT_REFUSED(f, m, a, what, lvalue, bad, want) \
    FMT_REFUSED_LABEL(f, m, a, what, #lvalue " = " #bad, lvalue, bad, want)
#define FMT_REFUSED_LABEL(f, m, a, what, label, lvalue, bad, want)                       \
    do {                                                                                \
        __typeof__(lvalue) saved_ = (lvalue);                                           \
        (lvalue) = (bad);                                                               \
        tc_error e_ = { 0 };                                                            \
        tc_status st_ = (f)->validate((m), (a), (what), &e_);                          \
        (lvalue) = saved_;                                                              \
        ok(st_ == TC_ERR_INVALID, "refused: %s", label);                                \
        is_str(e_.msg, want, "  with the message");                                     \
    } while (0)

/* Calls fn(name, matrix) for every .mtx.gz of $TC_SHARED_DATA, in name
   order; one skipped test when there is none. */
__attribute__((unused)) static void for_each_shared(void (*fn)(const char *, const tc_csr *))
{
    const char *dir = getenv("TC_SHARED_DATA");
    struct dirent **list;
    int n = dir ? scandir(dir, &list, NULL, alphasort) : -1;
    if (n < 0) {
        ok(1, "shared matrices # SKIP no collection (set TC_SHARED_DATA)");
        return;
    }
    for (int i = 0; i < n; i++) {
        if (strstr(list[i]->d_name, ".mtx.gz")) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
            tc_csr *a;
            tc_error err;
            if (tc_mtx_read(path, NULL, &a, NULL, NULL, &err))
                bail(err.msg);
            fn(list[i]->d_name, a);
            tc_csr_free(a);
        }
        free(list[i]);
    }
    free(list);
}

#endif
