/* text_out.h: buffered text output to a file written atomically (a
   temporary file renamed into place on success), gzip-compressed when the
   name ends in .gz, for the writers of text formats (Matrix Market, edge
   lists). Writers format a line at a time into the buffer (tc_text_out_room,
   then the put_* helpers) and the whole file is committed or removed by
   tc_text_out_close. The number formatters are static inline: they sit in
   the writers' per-entry loops. Internal to the library; not installed. */
#ifndef TC_TEXT_OUT_H
#define TC_TEXT_OUT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "tcsparse.h"
#include "mtx_scan.h"

enum {
    TEXT_OUT_BYTES = 1 << 16,   /* writer buffer */
    TEXT_LINE_MAX = 128         /* longest piece formatted at once after
                                   tc_text_out_room */
};

typedef struct text_out {
    tc_atomic at;
    const char *name;       /* for messages: the path, or "<stdout>" */
    tc_error *err;
    char *buf;
    size_t n;
    z_stream *zs;           /* a .gz name: the text goes through deflate */
    unsigned char *zbuf;    /* deflate's output before it is written */
} text_out;

/* Opens path ("-": standard output) for writing. */
tc_status tc_text_out_open(text_out *o, const char *path, tc_error *err);
/* Room for TEXT_LINE_MAX bytes at o->buf + o->n (flushing first when
   needed); the caller advances o->n past what it formats. NULL on error. */
char *tc_text_out_room(text_out *o);
/* Appends len bytes of any length. */
tc_status tc_text_out_text(text_out *o, const char *s, size_t len);
/* Commits the file when st is TC_OK, else removes it; returns the status. */
tc_status tc_text_out_close(text_out *o, tc_status st);

static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, 0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static inline char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* Writes v so that it reads back bit-identical: integral values below 2^53
   as integers, non-finite ones as inf/nan, others with the fewest of 15, 16
   or 17 significant digits that read back to v (17 always do). */
static inline char *put_real(char *p, double v)
{
    if (v == 0.0)
        return put_str(p, signbit(v) ? "-0" : "0");
    if (fabs(v) < 0x1p53 && v == (double)(int64_t)v)
        return put_i64(p, (int64_t)v);
    if (isnan(v))
        return put_str(p, signbit(v) ? "-nan" : "nan");
    if (isinf(v))
        return put_str(p, v < 0 ? "-inf" : "inf");
    for (int digits = 15; digits < 17; digits++) {
        int len = snprintf(p, 32, "%.*g", digits, v);
        double back;
        if (scan_real(p, &back) && back == v)
            return p + len;
    }
    return p + snprintf(p, 32, "%.17g", v);
}

#endif
