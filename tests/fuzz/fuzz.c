/* fuzz.c: the checks the harnesses share (fuzz.h). */
#include "config.h"

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
