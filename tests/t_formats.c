/* t_formats: what every format of the registry (formats/format_registry.h)
   must do, run on each by being registered, with its defaults and with
   every parameter at its minimum and at its maximum: the round trip (built
   from CSR, to_csr gives the matrix back exactly), spmm_ref against CSR's
   float64 SpMM at odd and even n, NaN and Inf in B reaching C exactly where
   CSR's SpMM puts them, on the awkward shapes of fmttest.h and a matrix of
   explicit zeros; the same stored arrays for 1 and 8 threads and after a
   trip through a file; validate refusing arrays edited one element at a
   time unless the edit leaves the matrix unchanged; a pattern matrix's
   file refused when it gains a value array; one step past a parameter's
   range refused; the real matrices of $TC_SHARED_DATA. Then the same
   checks on the test-only formats of broken_formats.h, each wrong in one
   function: a check that must catch one is reported as a pass only when
   it fails on it. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"
#include "broken_formats.h"

/* A format under test; a broken one counts the failures of the checks
   that must catch it. */
typedef struct subject {
    const tc_format *f;
    unsigned must_fail;
    int64_t failures[NCHECKS];
} subject;

static const char *const check_names[NCHECKS] = {
    [CHECK_DECODE] = "round trip",
    [CHECK_SPMM] = "spmm_ref",
    [CHECK_NONFINITE] = "NaN/Inf in B",
    [CHECK_MUTATION] = "mutated arrays",
};

/* One check of s: its own test for a format of the registry; for a broken
   one, a failure counted (reported in check_caught). */
__attribute__((format(printf, 4, 5)))
static void verdict(subject *s, enum fmt_check c, int good, const char *fmt, ...)
{
    if (s->must_fail) {
        s->failures[c] += !good;
        return;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ok(good, "%s: %s", s->f->name, what);
}

/* ------------------------------------------------------------ SpMM */

enum { NONFINITE_N = 5 };
#define TOL 1e-12   /* the formats add in other orders than CSR's SpMM */

/* spmm_ref against CSR at n = 1, 7 (odd) and 8, and with NaN and Inf in B:
   row 0 (which rows that do not use column 0 must not see), the last
   column of the matrix's last nonzero, and a middle one. */
static void check_spmm(subject *s, const char *what, const tc_fmt *m, const tc_csr *ref)
{
    static const int32_t ns[] = { 1, 7, 8 };
    int64_t lb = (int64_t)ref->cols * 8 + 1;
    double *B = malloc((size_t)lb * sizeof *B);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        tc_random_fill(B, lb, 42 + ns[i], -1, 1);
        verdict(s, CHECK_SPMM, spmm_agrees(s->f, m, ref, B, ns[i], TOL),
                "%s: spmm_ref equals CSR SpMM (n = %d)", what, ns[i]);
    }
    if (ref->cols > 0) {
        const int32_t n = NONFINITE_N;
        int32_t last = ref->nnz ? ref->colidx[ref->nnz - 1] : ref->cols - 1;
        tc_random_fill(B, lb, 7, -1, 1);
        B[0] = INFINITY;
        B[1] = NAN;
        B[(int64_t)last * n + 2] = -INFINITY;
        B[(int64_t)(ref->cols / 2) * n + 3] = NAN;
        verdict(s, CHECK_NONFINITE, spmm_agrees(s->f, m, ref, B, n, TOL),
                "%s: NaN and Inf of B reach C as in CSR SpMM (n = %d)", what, n);
    }
    free(B);
}

/* ------------------------------------------------------------ stored arrays */

/* Path of a file holding s's format of a built with p under $TC_THREADS
   threads (NULL: unset), in a static buffer of slot (two files at once). */
static const char *stored(const subject *s, const tc_csr *a, const tc_params *p,
                          const char *threads, int slot)
{
    static char path[2][32];
    tc_error err;
    tc_fmt *m;
    if (threads)
        setenv("TC_THREADS", threads, 1);
    if (tc_fmt_build(s->f, a, p, &m, &err))
        bail(err.msg);
    unsetenv("TC_THREADS");
    snprintf(path[slot], sizeof path[slot], "%s", fmt_file(a, m, 0));
    return path[slot];
}

/* The group m is stored in: its kind's name (a broken format stores what
   the real one it copies builds). */
static void group_of(const tc_fmt *m, char *group, size_t size)
{
    snprintf(group, size, "/formats/%s", tc_format_name(tc_fmt_format(m)));
}

/* 1 when dataset `name` holds the same type, length and bytes in x and y. */
static int same_dataset(hid_t x, hid_t y, const char *name)
{
    hid_t dx = H5Dopen2(x, name, H5P_DEFAULT), dy = H5Dopen2(y, name, H5P_DEFAULT);
    hid_t tx = H5Dget_type(dx), ty = H5Dget_type(dy);
    hid_t sx = H5Dget_space(dx), sy = H5Dget_space(dy);
    hssize_t n = H5Sget_simple_extent_npoints(sx);
    int same = dy >= 0 && H5Tequal(tx, ty) > 0 && n == H5Sget_simple_extent_npoints(sy);
    if (same && n > 0) {
        hid_t mt = H5Tget_native_type(tx, H5T_DIR_DEFAULT);
        size_t bytes = (size_t)n * H5Tget_size(mt);
        char *bx = malloc(bytes), *by = malloc(bytes);
        same = H5Dread(dx, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, bx) >= 0 &&
               H5Dread(dy, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, by) >= 0 && !memcmp(bx, by, bytes);
        free(bx);
        free(by);
        H5Tclose(mt);
    }
    H5Sclose(sx);
    H5Sclose(sy);
    H5Tclose(tx);
    H5Tclose(ty);
    H5Dclose(dx);
    H5Dclose(dy);
    return same;
}

/* 1 when group `group` of files px and py holds the same datasets, byte
   for byte: the same arrays, compared without knowing the format's
   struct. */
static int same_arrays(const char *px, const char *py, const char *group)
{
    hid_t fx = H5Fopen(px, H5F_ACC_RDONLY, H5P_DEFAULT), fy = H5Fopen(py, H5F_ACC_RDONLY,
                                                                      H5P_DEFAULT);
    hid_t gx = H5Gopen2(fx, group, H5P_DEFAULT), gy = H5Gopen2(fy, group, H5P_DEFAULT);
    H5G_info_t ix, iy;
    int same = gx >= 0 && gy >= 0 && H5Gget_info(gx, &ix) >= 0 && H5Gget_info(gy, &iy) >= 0 &&
               ix.nlinks == iy.nlinks && ix.nlinks > 0;
    for (hsize_t i = 0; same && i < ix.nlinks; i++) {
        char name[256];
        H5Lget_name_by_idx(gx, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                           H5P_DEFAULT);
        same = same_dataset(gx, gy, name);
        if (!same)
            diag("%s/%s differs", group, name);
    }
    H5Gclose(gx);
    H5Gclose(gy);
    H5Fclose(fx);
    H5Fclose(fy);
    return same;
}

/* The same arrays with 1 thread and with 8, and after tc_h5_read and
   tc_h5_write; what the file gives back decodes to ref (ref_fmt: one
   build, which names the group). */
static void check_stored(subject *s, const char *what, const tc_csr *a, const tc_params *p,
                         const tc_fmt *ref_fmt, const tc_csr *ref)
{
    char group[300];
    group_of(ref_fmt, group, sizeof group);
    const char *one = stored(s, a, p, "1", 0), *eight = stored(s, a, p, "8", 1);
    ok(same_arrays(one, eight, group), "%s: %s: the same arrays with 1 and 8 threads",
       s->f->name, what);
    remove(eight);
    tc_tcf *t = NULL;
    tc_error err;
    tc_csr *back = NULL;
    int read = tc_h5_read(one, 1, &t, &err) == TC_OK && t->nformats == 1;
    static const tc_h5_write_opts opts = { 0 };
    int good = read && tc_h5_write("t_formats.again.tcf.h5", t, &opts, &err) == TC_OK &&
               same_arrays(one, "t_formats.again.tcf.h5", group);
    ok(good, "%s: %s: read from a file and written again, the same arrays", s->f->name, what);
    if (!read)
        diag("%s", err.msg);
    good = read && s->f->to_csr(t->formats[0], &back, &err) == TC_OK && tc_csr_equal(back, ref);
    verdict(s, CHECK_DECODE, good, "%s: read from a file, to_csr gives it back", what);
    tc_csr_free(back);
    tc_tcf_free(t);
    remove(one);
    remove("t_formats.again.tcf.h5");
}

/* ------------------------------------------------------------ one matrix */

enum { STORED = 1 };    /* check_matrix: the stored-array checks too */

/* Everything about format s of a built with p (NULL: defaults). */
static void check_matrix(subject *s, const char *what, const tc_csr *a, const tc_params *p,
                         int flags)
{
    tc_params none = { 0 };
    tc_error err;
    tc_fmt *m = NULL;
    if (!ok(tc_fmt_build(s->f, a, p ? p : &none, &m, &err) == TC_OK, "%s: %s: builds",
            s->f->name, what)) {
        diag("%s", err.msg);
        return;
    }
    tc_error verr = { 0 };
    int valid = s->f->validate(m, a, "t", &verr) == TC_OK;
    verdict(s, CHECK_DECODE, valid, "%s: validates against the matrix", what);
    if (!valid)
        diag("%s", verr.msg);
    /* a format that keeps no values (bsb values=0) stands for a's pattern */
    tc_csr *back = NULL, ref = *a;
    int decoded = s->f->to_csr(m, &back, &err) == TC_OK;
    if (decoded && !back->val)
        ref.val = NULL;
    verdict(s, CHECK_DECODE, decoded && tc_csr_equal(back, &ref),
            "%s: to_csr gives the %s back exactly", what, ref.val == a->val ? "matrix" : "pattern");
    check_spmm(s, what, m, &ref);
    if ((flags & STORED) && !s->f->canonical && !s->must_fail)
        check_stored(s, what, a, p ? p : &none, m, &ref);
    tc_csr_free(back);
    tc_fmt_free(m);
}

/* ------------------------------------------------------------ parameters */

/* p = one parameter of f at v, the others at their defaults (low 0) or at
   their minimum (low 1). */
static void one_param(const tc_format *f, int which, double v, int low, tc_params *p)
{
    int n;
    const tc_param_def *d = tc_format_params(f, &n);
    memset(p, 0, sizeof *p);
    for (int i = 0; i < n; i++) {
        snprintf(p->kv[i].name, sizeof p->kv[i].name, "%s", d[i].name);
        p->kv[i].value = i == which ? v : low ? d[i].min : d[i].def;
    }
    p->n = n;
}

/* A format's variants on the CPU: its defaults, then each parameter at its
   minimum and at its maximum, the others at their defaults or, where a
   rule between parameters refuses that (brp's h*w), at their minimum. */
typedef struct variant {
    char label[96];
    tc_params p;
} variant;
enum { MAX_VARIANTS = 1 + 2 * TC_MAX_PARAMS };

static int variants_of(const tc_format *f, variant *out)
{
    int n, nv = 1;
    const tc_param_def *d = tc_format_params(f, &n);
    tc_csr *probe = tap_random_matrix(40, 40, 3, -1, -1, 0);
    snprintf(out[0].label, sizeof out[0].label, "defaults");
    memset(&out[0].p, 0, sizeof out[0].p);
    for (int i = 0; i < n; i++)
        for (int hi = 0; hi < 2 && (hi == 0 || d[i].max > d[i].min); hi++, nv++) {
            double v = hi ? d[i].max : d[i].min;
            tc_fmt *m = NULL;
            tc_error err;
            one_param(f, i, v, 0, &out[nv].p);
            if (tc_fmt_build(f, probe, &out[nv].p, &m, &err) == TC_ERR_ARG)
                one_param(f, i, v, 1, &out[nv].p);
            tc_fmt_free(m);
            snprintf(out[nv].label, sizeof out[nv].label, "%s=%.17g", d[i].name, v);
        }
    tc_csr_free(probe);
    return nv;
}

/* One step past either end of each parameter is refused. */
static void check_out_of_range(const subject *s)
{
    int n;
    const tc_param_def *d = tc_format_params(s->f, &n);
    tc_csr *a = tap_random_matrix(40, 40, 3, -1, -1, 0);
    for (int i = 0; i < n; i++)
        for (int hi = 0; hi < 2; hi++) {
            tc_params p;
            tc_fmt *m = NULL;
            tc_error err;
            one_param(s->f, i, hi ? d[i].max + 1 : d[i].min - 1, 0, &p);
            int refused = tc_fmt_build(s->f, a, &p, &m, &err) == TC_ERR_ARG && !m;
            ok(refused && strstr(err.msg, "is out of range"), "%s: %s=%.17g is refused: %s",
               s->f->name, d[i].name, p.kv[i].value, refused ? err.msg : "built");
            tc_fmt_free(m);
        }
    tc_csr_free(a);
}

/* ------------------------------------------------------------ mutations */

/* Format m (s's, of a) read back from group of path by s's read_h5 and
   validated against a by s's validate: TC_OK, or why not. Decoded into
   *back when accepted. */
static tc_status read_back(subject *s, const char *path, const char *group, const tc_fmt *m,
                           const tc_csr *a, tc_csr **back)
{
    tc_h5grp *g;
    tc_fmt *got = NULL;
    tc_error err;
    tc_status st = tc_h5grp_open(path, group, &g, &err);
    if (st == TC_OK) {
        st = s->f->read_h5(g, m, &got, &err);
        tc_h5grp_close(g);
    }
    if (st == TC_OK)
        st = s->f->validate(got, a, "t", &err);
    if (st == TC_OK)
        st = s->f->to_csr(got, back, &err);
    tc_fmt_free(got);
    return st;
}

/* Edit e (0..NEDITS-1) of one element: integers moved by one either way
   (wrapping: a uint64 bitmap word reads as int64), made -1 and made 2^40
   (clipped to the stored type); values moved by a half either way, made
   NaN and made Inf. */
enum { NEDITS = 4, NPLACES = 3 };
static int64_t int_edit(int64_t x, int e)
{
    return e == 0 ? (int64_t)((uint64_t)x + 1) : e == 1 ? (int64_t)((uint64_t)x - 1)
           : e == 2 ? -1 : (int64_t)1 << 40;
}
static double value_edit(double x, int e)
{
    return e == 0 ? x + 0.5 : e == 1 ? x - 0.5 : e == 2 ? NAN : INFINITY;
}

/* Dataset name of path (n elements, integer or float, orig its contents)
   written back in place, its stored type kept, with edit e (-1: none) of
   element k. */
static void edit(const char *path, const char *name, int is_float, int64_t k, int e,
                 const void *orig, int64_t n)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, name, H5P_DEFAULT);
    size_t bytes = (size_t)n * (is_float ? sizeof(double) : sizeof(int64_t));
    void *buf = malloc(bytes + 1);
    memcpy(buf, orig, bytes);
    if (e >= 0 && is_float)
        ((double *)buf)[k] = value_edit(((double *)buf)[k], e);
    else if (e >= 0)
        ((int64_t *)buf)[k] = int_edit(((int64_t *)buf)[k], e);
    H5Dwrite(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
             buf);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);
}

/* Every array of s's format of a, edited one element at a time (its first,
   middle and last), read back and validated against a: refused, or
   decoding to the same matrix (an edit the format does not depend on);
   some edit is refused. */
static void check_mutations(subject *s, const char *what, const tc_csr *a)
{
    if (s->f->canonical)
        return;
    tc_params none = { 0 };
    tc_fmt *m = NULL;
    tc_error err;
    if (tc_fmt_build(s->f, a, &none, &m, &err))
        bail(err.msg);
    char group[300], path[64];
    group_of(m, group, sizeof group);
    snprintf(path, sizeof path, "%s", stored(s, a, &none, NULL, 0));
    tc_csr *want = NULL;
    if (read_back(s, path, group, m, a, &want) != TC_OK)
        bail("the unedited file is refused");
    int64_t edits = 0, refused = 0, wrong = 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), g = H5Gopen2(f, group, H5P_DEFAULT);
    H5G_info_t info;
    H5Gget_info(g, &info);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char name[300];
        int len = snprintf(name, sizeof name, "%s/", group);
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name + len,
                           sizeof name - (size_t)len, H5P_DEFAULT);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT), t = H5Dget_type(d), sp = H5Dget_space(d);
        int64_t n = H5Sget_simple_extent_npoints(sp);
        int is_float = H5Tget_class(t) == H5T_FLOAT;
        void *orig = malloc((size_t)(n + 1) * 8);
        H5Dread(d, is_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                H5P_DEFAULT, orig);
        H5Sclose(sp);
        H5Tclose(t);
        H5Dclose(d);
        H5Gclose(g);
        H5Fclose(f);
        const int64_t places[NPLACES] = { 0, n / 2, n - 1 };
        for (int p = 0; p < NPLACES && n > 0; p++)
            for (int e = 0; e < NEDITS; e++) {
                edit(path, name, is_float, places[p], e, orig, n);
                tc_csr *back = NULL;
                edits++;
                if (read_back(s, path, group, m, a, &back) != TC_OK)
                    refused++;
                else if (!tc_csr_equal(back, want)) {
                    wrong++;
                    if (!s->must_fail)
                        diag("%s[%" PRId64 "], edit %d: accepted, decodes to another matrix",
                             name, places[p], e);
                }
                tc_csr_free(back);
            }
        edit(path, name, is_float, 0, -1, orig, n);
        free(orig);
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        g = H5Gopen2(f, group, H5P_DEFAULT);
    }
    H5Gclose(g);
    H5Fclose(f);
    verdict(s, CHECK_MUTATION, wrong == 0 && refused > 0,
            "%s: %" PRId64 " one-element edits of %d arrays: %" PRId64
            " refused, none accepted that changes the matrix", what, edits, (int)info.nlinks,
            refused);
    remove(path);
    tc_csr_free(want);
    tc_fmt_free(m);
}

/* The floating-point datasets (names, lengths) of group in path: what a
   format stores of a matrix's values. */
static int float_datasets(const char *path, const char *group, char names[][64],
                          hsize_t *lengths, int max)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), g = H5Gopen2(f, group, H5P_DEFAULT);
    H5G_info_t info;
    int n = 0;
    H5Gget_info(g, &info);
    for (hsize_t i = 0; i < info.nlinks && n < max; i++) {
        H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, names[n], 64, H5P_DEFAULT);
        hid_t d = H5Dopen2(g, names[n], H5P_DEFAULT), t = H5Dget_type(d), sp = H5Dget_space(d);
        lengths[n] = (hsize_t)H5Sget_simple_extent_npoints(sp);
        n += H5Tget_class(t) == H5T_FLOAT;
        H5Sclose(sp);
        H5Tclose(t);
        H5Dclose(d);
    }
    H5Gclose(g);
    H5Fclose(f);
    return n;
}

/* The file of a pattern matrix is refused, the dataset named by its path,
   when it gains one of the value arrays its format writes for a valued
   matrix of the same pattern (with the length it has there). */
static void check_values_in_pattern_file(const subject *s)
{
    if (s->f->canonical || s->must_fail)
        return;
    tc_params none = { 0 };
    tc_error err;
    tc_csr *a = tap_random_matrix(120, 90, 4, 7, 11, 0), *pattern;
    if (tc_csr_copy(a, &pattern, &err))
        bail(err.msg);
    free(pattern->val);
    pattern->val = NULL;
    pattern->field = TC_FIELD_PATTERN;
    tc_fmt *m = NULL;
    if (tc_fmt_build(s->f, a, &none, &m, &err))
        bail(err.msg);
    char group[300], names[16][64];
    hsize_t lengths[16];
    group_of(m, group, sizeof group);
    tc_fmt_free(m);
    const char *valued = stored(s, a, &none, NULL, 0);
    int n = float_datasets(valued, group, names, lengths, 16);
    remove(valued);
    for (int i = 0; i < n; i++) {
        double *zeros = calloc(lengths[i] + 1, sizeof *zeros);
        const char *path = stored(s, pattern, &none, NULL, 0);
        put_dataset(path, group, names[i], H5T_NATIVE_DOUBLE, lengths[i], zeros);
        tc_tcf *t = NULL;
        char want[1400];
        snprintf(want, sizeof want, "%s/%s:", group, names[i]);
        int refused = tc_h5_read(path, 1, &t, &err) == TC_ERR_FORMAT && !t &&
                      strstr(err.msg, want);
        ok(refused, "%s: a pattern matrix's file with %s added is refused: %s", s->f->name,
           names[i], t ? "read" : err.msg);
        tc_tcf_free(t);
        remove(path);
        free(zeros);
    }
    tc_csr_free(pattern);
    tc_csr_free(a);
}

/* ------------------------------------------------------------ subjects */

enum { MAX_SUBJECTS = 32 };
static subject subjects[MAX_SUBJECTS];
static int nsubjects;
static broken_format broken[NBROKEN];

/* The registry's formats, then the broken ones. */
static void collect(void)
{
    for (int i = 0; i < tc_format_count(); i++)
        subjects[nsubjects++] = (subject){ tc_format_at(i), 0, { 0 } };
    if (!broken_formats(broken))
        bail("no format stored in files to make the broken formats from");
    for (int i = 0; i < NBROKEN; i++)
        subjects[nsubjects++] = (subject){ &broken[i].f, broken[i].must_fail, { 0 } };
}

/* Each broken format's checks that must fail did. */
static void check_caught(const subject *s)
{
    for (int c = 0; c < NCHECKS; c++)
        if (s->must_fail & 1u << c)
            ok(s->failures[c] > 0, "%s (wrong on purpose): the %s check catches it (%" PRId64
               " failures)", s->f->name, check_names[c], s->failures[c]);
}

static variant variants[MAX_SUBJECTS][MAX_VARIANTS];
static int nvariants[MAX_SUBJECTS];

/* Every variant of every format on a, the stored-array checks included. */
static void check_variants(const char *name, const tc_csr *a)
{
    for (int i = 0; i < nsubjects; i++)
        for (int v = 0; v < nvariants[i]; v++) {
            char what[300];
            snprintf(what, sizeof what, "%s, %s", name, variants[i][v].label);
            check_matrix(&subjects[i], what, a, &variants[i][v].p, STORED);
        }
}

/* Stored zeros are nonzeros: every third value 0.0, one -0.0 (to_csr must
   keep its sign), and the last nonzero 0, whose column check_spmm gives an
   -Inf in B (0 * -Inf = NaN in that row of C, and in no other). */
static tc_csr *with_explicit_zeros(void)
{
    tc_csr *a = tap_random_matrix(333, 170, 7, 5, 169, 0);
    for (int64_t k = 0; k < a->nnz; k += 3)
        a->val[k] = 0;
    a->val[1] = -0.0;
    a->val[a->nnz - 1] = 0;
    return a;
}

/* The registry's formats on a real matrix (the broken ones are proven on
   the shapes). */
static void check_shared_one(const char *name, const tc_csr *a)
{
    for (int i = 0; i < nsubjects; i++)
        if (!subjects[i].must_fail)
            check_matrix(&subjects[i], name, a, NULL, 0);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    collect();
    for (int i = 0; i < nsubjects; i++)
        nvariants[i] = variants_of(subjects[i].f, variants[i]);
    for_each_shape(check_variants);
    tc_csr *zeros = with_explicit_zeros();
    check_variants("explicit zeros, -0.0, an Inf of B times a zero", zeros);
    tc_csr_free(zeros);
    tc_csr *real = tap_random_matrix(120, 90, 4, 7, 11, 0),
           *pattern = tap_random_matrix(120, 90, 4, 7, 11, 1);
    for (int i = 0; i < nsubjects; i++) {
        if (!subjects[i].must_fail)
            check_out_of_range(&subjects[i]);
        check_values_in_pattern_file(&subjects[i]);
        check_mutations(&subjects[i], "120x90 real", real);
        check_mutations(&subjects[i], "120x90 pattern", pattern);
    }
    tc_csr_free(real);
    tc_csr_free(pattern);
    for_each_shared(check_shared_one);
    for (int i = 0; i < nsubjects; i++)
        check_caught(&subjects[i]);
    return done_testing();
}
