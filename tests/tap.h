/*
 * tap.h: a minimal TAP producer for the C unit tests (Automake's
 * tap-driver.sh reads it). Header-only: each test program includes it once.
 *
 *   plan(n);  ok(cond, "fmt", ...);  is_int(got, want, "name");
 *   is_str(got, want, "name");  skip_all("reason");  return done_testing();
 */
#ifndef TC_TAP_H
#define TC_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run, tap_failed, tap_planned = -1;

__attribute__((unused)) static void plan(int n)
{
    tap_planned = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

__attribute__((unused)) static void skip_all(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
    exit(0);
}

static int vok(int cond, const char *fmt, va_list ap)
{
    tap_run++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_run);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

__attribute__((format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vok(cond, fmt, ap);
    va_end(ap);
    return r;
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

__attribute__((unused)) static int is_int(int64_t got, int64_t want, const char *name)
{
    int r = ok(got == want, "%s", name);
    if (!r)
        diag("  got %" PRId64 ", want %" PRId64, got, want);
    return r;
}

__attribute__((unused)) static int is_str(const char *got, const char *want, const char *name)
{
    int r = ok(got && want && strcmp(got, want) == 0, "%s", name);
    if (!r)
        diag("  got  '%s'\n#   want '%s'", got ? got : "(null)", want ? want : "(null)");
    return r;
}

__attribute__((unused)) static int done_testing(void)
{
    if (tap_planned < 0)
        printf("1..%d\n", tap_run);
    else if (tap_planned != tap_run)
        diag("planned %d tests but ran %d", tap_planned, tap_run);
    return tap_failed || (tap_planned >= 0 && tap_planned != tap_run);
}

#endif
