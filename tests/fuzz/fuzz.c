/* fuzz.c: the checks the harnesses share (fuzz.h). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcsparse.h"
#include "fuzz.h"

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fuzz_check_message(const char *msg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(msg, name, n) != 0 || msg[n] != ':')
        fuzz_fail("error message does not start with \"%s:\": \"%s\"", name, msg);
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
        fuzz_fail("cannot write %s", path);
}

void fuzz_check_read(int ok, struct tc_csr *a, const char *msg, const char *path)
{
    if (!ok) {
        fuzz_check_message(msg, path);
        return;
    }
    tc_error err;
    if (tc_csr_validate(a, path, &err) != TC_OK)
        fuzz_fail("accepted matrix is invalid: %s", err.msg);
    tc_csr_free(a);
}

static char dir[4096], path[4200];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

const char *fuzz_temp_path(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tcfuzz.XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        fuzz_fail("cannot create a directory %s", dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    atexit(cleanup);
    return path;
}

struct tc_csr *fuzz_small_matrix(const uint8_t *data, size_t size, size_t head, size_t stride,
                                 double (*value)(const uint8_t *e))
{
    const int32_t rows = data[0] % FUZZ_SMALL_DIM, cols = data[1] % FUZZ_SMALL_DIM;
    const int flags = data[2];
    enum { MOST = FUZZ_SMALL_ENTRIES + 2 * FUZZ_SMALL_DIM };
    static int32_t ri[MOST], ci[MOST];
    static double v[MOST];
    int64_t k = 0;
    for (const uint8_t *e = data + head; rows && cols && e + stride <= data + size &&
         k < FUZZ_SMALL_ENTRIES; e += stride, k++) {
        ri[k] = e[0] % rows;
        ci[k] = e[1] % cols;
        v[k] = value(e);
    }
    for (int32_t j = 0; rows && (flags & FUZZ_DENSE_ROW) && j < cols; j++, k++) {
        ri[k] = rows / 2;
        ci[k] = j;
        v[k] = j - 3;
    }
    for (int32_t i = 0; cols && (flags & FUZZ_DENSE_COL) && i < rows; i++, k++) {
        ri[k] = i;
        ci[k] = 0;
        v[k] = ldexp(1, i % 40 - 20);
    }
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, k, ri, ci, flags & FUZZ_PATTERN ? NULL : v, 1, &err))
        fuzz_fail("cannot build the matrix: %s", err.msg);
    return a;
}
