/*
 * tap.h: a minimal TAP producer for the C unit tests (Automake's
 * tap-driver.sh reads it). Header-only: each test program includes it once.
 *
 *   plan(n);  ok(cond, "fmt", ...);  is_int(got, want, "name");
 *   is_str(got, want, "name");  skip_all("reason");  return done_testing();
 *   tap_rand(n), tap_rand64(), tap_shuffle(p, n): deterministic randomness;
 *   tap_slurp(path, &len): a whole file in memory.
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

/* xorshift64: the same pseudo-random sequence on every run and platform. */
static uint64_t tap_rng = 0x9e3779b97f4a7c15u;

__attribute__((unused)) static uint64_t tap_rand64(void)
{
    tap_rng ^= tap_rng << 13;
    tap_rng ^= tap_rng >> 7;
    tap_rng ^= tap_rng << 17;
    return tap_rng;
}

/* Uniform-ish in [0, n), n > 0. */
__attribute__((unused)) static uint32_t tap_rand(uint32_t n)
{
    return (uint32_t)((tap_rand64() >> 11) % n);
}

/* p[0..n) = a random permutation of 0..n-1 (Fisher-Yates). */
__attribute__((unused)) static void tap_shuffle(int32_t *p, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        p[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)tap_rand((uint32_t)i + 1), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* The whole file in memory, NUL-terminated (NULL if it cannot be read);
   *len its size. */
__attribute__((unused)) static char *tap_slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 4096 + 1 > cap) {
            char *bigger = realloc(buf, cap = 2 * cap + 4096 + 1);
            if (!bigger) {
                free(buf);
                fclose(fp);
                return NULL;
            }
            buf = bigger;
        }
        got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
    } while (got > 0);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
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
