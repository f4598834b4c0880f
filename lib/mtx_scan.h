/* mtx_scan.h: the lexing of Matrix Market text: blanks, tokens, and the
   numbers in them (indices, integers, reals through Clinger's fast path)
   with the exact slow paths behind them. Everything here is static inline:
   the speed of the data-line loop in mtx_read.c depends on the scanners
   being inlined into it, which a call to another file would prevent, and
   the rest is shared by the reader's files and the writer (which reads
   back what it formats) without exporting symbols. Internal to the
   library; not installed. */
#ifndef TC_MTX_SCAN_H
#define TC_MTX_SCAN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tcsparse.h"

enum {
    SHOW_CHARS = 40,            /* longest token quoted in a message */
    MAX_TOKENS = 8              /* tokens a line keeps for the slow path */
};

/* ' ', '\t' or '\r' (a CRLF line end is a blank before the '\n'), by one
   comparison and one bit test rather than three comparisons. */
static inline int is_blank(char c)
{
    const uint64_t blanks = UINT64_C(1) << ' ' | UINT64_C(1) << '\t' | UINT64_C(1) << '\r';
    return (unsigned char)c <= ' ' && (blanks >> (unsigned char)c & 1);
}

static inline const char *skip_blanks(const char *s)
{
    while (is_blank(*s))
        s++;
    return s;
}

/* Blank lines and % comments carry no entry. */
static inline int is_skip_line(const char *s)
{
    s = skip_blanks(s);
    return *s == '\n' || *s == '%';
}

typedef struct tokens {
    int n;                          /* every token on the line */
    const char *s[MAX_TOKENS];      /* the first MAX_TOKENS of them */
    size_t len[MAX_TOKENS];
} tokens;

static inline void tokenize(const char *s, const char *e, tokens *t)
{
    t->n = 0;
    for (;;) {
        while (s < e && is_blank(*s))
            s++;
        if (s == e)
            return;
        const char *start = s;
        while (s < e && !is_blank(*s))
            s++;
        if (t->n < MAX_TOKENS) {
            t->s[t->n] = start;
            t->len[t->n] = (size_t)(s - start);
        }
        t->n++;
    }
}

/* A token quoted in a message, cut at SHOW_CHARS bytes. */
typedef struct shown {
    char s[SHOW_CHARS + 4];
} shown;

static inline shown show(const char *s, size_t len)
{
    shown out;
    if (len > SHOW_CHARS)
        snprintf(out.s, sizeof out.s, "%.*s...", SHOW_CHARS, s);
    else
        snprintf(out.s, sizeof out.s, "%.*s", (int)len, s);
    return out;
}

/* Exact powers of ten: every 10^k for k <= 22 is a double. */
static const double exact_pow10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Scans a decimal number, [sign] digits [. digits] [e [sign] digits] with
   at least one digit in the mantissa, at s. Returns the end of the number,
   or NULL when s does not start with one or it overflows a double. The
   result is correctly rounded, bit-identical to strtod: when the decimal
   mantissa m fits in 53 bits and the exponent e has |e| <= 22, m and 10^|e|
   are exact doubles and the one IEEE multiplication or division m * 10^e
   rounds correctly (Clinger 1990, "How to read floating point numbers
   accurately", the fast path); strtod does the rest. */
static inline const char *scan_real(const char *s, double *out)
{
    const char *start = s;
    int neg = *s == '-';
    s += *s == '-' || *s == '+';
    const char *digits = s;
    uint64_t m = 0;
    int64_t e10 = 0;
    unsigned d;
    /* m wraps beyond 19 digits: such mantissas go to strtod (below) */
    for (; (d = (unsigned char)*s - '0') < 10; s++)
        m = m * 10 + d;
    int64_t ndigits = s - digits;
    if (*s == '.') {
        const char *frac = ++s;
        for (; (d = (unsigned char)*s - '0') < 10; s++)
            m = m * 10 + d;
        e10 = frac - s;
        ndigits += s - frac;
    }
    if (ndigits == 0)
        return NULL;
    int exact = ndigits <= 19;
    if ((*s | 0x20) == 'e') {
        const char *x = s + 1;
        int eneg = *x == '-';
        x += *x == '-' || *x == '+';
        if ((unsigned)((unsigned char)*x - '0') >= 10)   /* "1e", "1e+": no digit */
            return NULL;
        int64_t ev = 0;
        for (; (d = (unsigned char)*x - '0') < 10; x++)
            if (ev < 100000)    /* far beyond any double; stops overflow */
                ev = ev * 10 + d;
        e10 += eneg ? -ev : ev;
        s = x;
    }
    double v;
    if (exact && m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22)
        v = e10 >= 0 ? (double)m * exact_pow10[e10] : (double)m / exact_pow10[-e10];
    else if (exact && m == 0)
        v = 0.0;
    else {
        char *end;
        v = strtod(start, &end);
        if (end != s || isinf(v))
            return NULL;
        *out = v;
        return s;
    }
    *out = neg ? -v : v;
    return s;
}

/* The decimal digits at s, at most max of them: their value in *v and
   their end, or NULL when there are none or more than max (max <= 19, so
   that the value fits). */
static inline const char *scan_digits(const char *s, int max, uint64_t *v)
{
    const char *digits = s;
    uint64_t m = 0;
    unsigned d;
    for (; (d = (unsigned char)*s - '0') < 10; s++)
        m = m * 10 + d;
    if (s == digits || s - digits > max)
        return NULL;
    *v = m;
    return s;
}

/* An integer value of at most 18 digits (exact in int64), at s. */
static inline const char *scan_int_value(const char *s, double *out)
{
    int neg = *s == '-';
    uint64_t m;
    if (!(s = scan_digits(s + (*s == '-' || *s == '+'), 18, &m)))
        return NULL;
    *out = (double)(neg ? -(int64_t)m : (int64_t)m);
    return s;
}

/* A row or column index of 1 to 9 digits (below 2^31), at s. */
static inline const char *scan_long_index(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!(s = scan_digits(s, 9, &v)))
        return NULL;
    *out = (uint32_t)v;
    return s;
}

/* The same, eight bytes at a time (SWAR) for indices of up to 7 digits,
   without a branch per digit: the end of a number of varying length is
   what a byte loop mispredicts. After subtracting '0' (xor 0x30 here) a
   digit byte is 0..9: its high nibble is clear and adding 6 does not set
   it. A carry out of a non-digit byte only reaches later bytes, so the
   first non-digit byte is found exactly. The digits are then shifted to
   the top of the word (the bytes below become leading zeros) and combined
   pairwise: 8 digits in three multiplications. The reader's buffer is
   padded so that the load stays inside it. */
static inline const char *scan_index(const char *s, uint32_t *out)
{
    uint64_t w;
    memcpy(&w, s, sizeof w);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);   /* the first character in the low byte */
#endif
    uint64_t t = w ^ 0x3030303030303030u;
    uint64_t nondigit = (t | (t + 0x0606060606060606u)) & 0xF0F0F0F0F0F0F0F0u;
    if (nondigit == 0)
        return scan_long_index(s, out);
    int len = __builtin_ctzll(nondigit) / 8;
    if (len == 0)
        return NULL;
    t <<= 64 - 8 * len;
    t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFu;
    t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFu;
    t = (t * 10000 + (t >> 32)) & 0xFFFFFFFFu;
    *out = (uint32_t)t;
    return s + len;
}

static inline const char *scan_value(tc_field field, const char *s, double *v)
{
    return field == TC_FIELD_INTEGER ? scan_int_value(s, v) : scan_real(s, v);
}

/* A non-negative decimal integer token of any length (leading zeros
   allowed): 0 with the value, 1 when it is not digits, 2 when it is above
   max. */
static inline int parse_unsigned(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0)
        return 1;
    uint64_t v = 0;
    int over = 0;
    for (size_t k = 0; k < len; k++) {
        unsigned d = (unsigned char)s[k] - '0';
        if (d >= 10)
            return 1;
        if (v > (max - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    *out = v;
    return over ? 2 : 0;
}

/* inf, infinity or nan, in any case, signed. */
static inline int parse_nonfinite(const char *s, size_t len, double *out)
{
    double sign = 1.0;
    if (len > 0 && (*s == '-' || *s == '+')) {
        sign = *s == '-' ? -1.0 : 1.0;
        s++;
        len--;
    }
    if ((len == 3 || len == 8) && strncasecmp(s, "infinity", len) == 0)
        *out = copysign(INFINITY, sign);
    else if (len == 3 && strncasecmp(s, "nan", 3) == 0)
        *out = copysign(NAN, sign);
    else
        return 0;
    return 1;
}

#endif
