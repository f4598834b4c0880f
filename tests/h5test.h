/*
 * h5test.h: what the tests of the .tcf.h5 container share (t_h5file.c,
 * t_h5bad.c): a scratch directory, files and their bytes, random matrices
 * and permutations, the check of an exact refusal, and raw HDF5 writers
 * for hand-made files. Include after tap.h, tcsparse.h and <hdf5.h>.
 */
#ifndef TC_H5TEST_H
#define TC_H5TEST_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


__attribute__((unused)) static char dir[256];

/* A path in the scratch directory (a few live at once, hence the ring). */
__attribute__((unused)) static const char *in_dir(const char *name)
{
    static char ring[8][512];
    static int next;
    char *p = ring[next++ % 8];
    snprintf(p, sizeof ring[0], "%s/%s", dir, name);
    return p;
}

__attribute__((unused)) static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

__attribute__((unused)) static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (dp)
        closedir(dp);
    return n;
}


__attribute__((unused)) static int same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = tap_slurp(a, &la), *y = tap_slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

__attribute__((unused)) static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

/* The scratch directory: made at start, removed at the end. */
__attribute__((unused)) static void scratch_open(const char *test)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/%s.XXXXXX", tmp, test);
    if (!mkdtemp(dir))
        skip_all("cannot make a scratch directory");
}

__attribute__((unused)) static void scratch_close(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}



/* nnz random entries (duplicates summed), plus a dense row and a dense
   column when asked; integer matrices get whole values. */
__attribute__((unused)) static tc_csr *random_csr(int32_t rows, int32_t cols, int64_t nnz,
                                                  tc_field field, int dense_lines)
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

__attribute__((unused)) static tc_perm *random_perm(int32_t n)
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

__attribute__((unused)) static tc_tcf *tcf_of(tc_csr *a)
{
    tc_tcf *f = tc_tcf_new();
    f->matrix = a;
    return f;
}

/* The call returned `want` with the message fmt, in which the one %s
   (if any) stands for `subject` (the file or group). */
__attribute__((unused)) static void fails(tc_status got, const tc_error *err, tc_status want,
                                          const char *subject, const char *fmt, const char *name)
{
    char expect[1024];
    snprintf(expect, sizeof expect, fmt, subject);
    ok(got == want && strcmp(err->msg, expect) == 0, "%s", name);
    if (got != want || strcmp(err->msg, expect) != 0)
        diag("  got  %s (%s)\n#   want %s (%s)", err->msg, tc_status_name(got), expect,
             tc_status_name(want));
}

/* A hand-made file: root attribute, then what each case wants. */

/* A hand-made file: root attribute, then what each case wants. */
__attribute__((unused)) static hid_t raw_create(const char *path, const char *version)
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

__attribute__((unused)) static void raw_attr_str(hid_t loc, const char *name, const char *v)
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

__attribute__((unused)) static void raw_attr_i64(hid_t loc, const char *name, int n,
                                                 const int64_t *v)
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
__attribute__((unused)) static void raw_dataset(hid_t loc, const char *name, hid_t t, hsize_t n,
                                                const void *v)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0)
        H5Ldelete(loc, name, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(s);
}

#endif
