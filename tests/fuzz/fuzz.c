/* fuzz.c: the checks the harnesses share (fuzz.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
