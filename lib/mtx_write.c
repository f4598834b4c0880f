/* mtx_write.c: Matrix Market writing: a CSR matrix as a coordinate file
   (every entry, or one triangle after checking the symmetry) and a dense
   one as an array file, atomically, with every value written so that it
   reads back bit-identical; gzip-compressed when the name ends in .gz. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tcsparse.h"
#include "mtx_scan.h"

enum {
    OUT_BYTES = 1 << 16,        /* writer buffer */
    OUT_LINE_MAX = 128          /* longest line the writer formats at once */
};

typedef struct mtx_out {
    tc_atomic at;
    const char *name;       /* for messages */
    tc_error *err;
    char *buf;
    size_t n;
    z_stream *zs;           /* a .gz name: the text goes through deflate */
    unsigned char *zbuf;    /* deflate's output before it is written */
} mtx_out;

static void out_free(mtx_out *o)
{
    if (o->zs)
        deflateEnd(o->zs);
    free(o->zs);
    free(o->zbuf);
    free(o->buf);
    o->zs = NULL;
    o->zbuf = NULL;
    o->buf = NULL;
}

/* A name ending in .gz (not standard output) is written gzip-compressed,
   which is what the reader (mtx_source.c) and gzip itself expect. */
static tc_status out_start_gzip(mtx_out *o, const char *path)
{
    const size_t len = strlen(path);
    if (len < 3 || strcmp(path + len - 3, ".gz") != 0)
        return TC_OK;
    z_stream *zs = calloc(1, sizeof *zs);
    o->zbuf = malloc(OUT_BYTES);
    if (!zs || !o->zbuf) {
        free(zs);
        return tc_error_set(o->err, TC_ERR_NOMEM, "%s: out of memory", o->name);
    }
    /* 16 + MAX_WBITS: a gzip wrapper, not zlib's */
    if (deflateInit2(zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        free(zs);
        return tc_error_set(o->err, TC_ERR_NOMEM, "%s: cannot start zlib", o->name);
    }
    o->zs = zs;
    return TC_OK;
}

static tc_status out_open(mtx_out *o, const char *path, tc_error *err)
{
    memset(o, 0, sizeof *o);
    o->name = strcmp(path, "-") == 0 ? "<stdout>" : path;
    o->err = err;
    o->buf = malloc(OUT_BYTES);
    if (!o->buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", o->name);
    tc_status st = out_start_gzip(o, path);
    if (!st)
        st = tc_atomic_open(&o->at, path, 1, err);
    if (st)
        out_free(o);
    return st;
}

static tc_status out_write(mtx_out *o, const void *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, o->at.fp) != n)
        return tc_error_errno(o->err, TC_ERR_IO, errno, "%s: cannot write", o->name);
    return TC_OK;
}

/* The buffered text through deflate (flush Z_NO_FLUSH, or Z_FINISH to end
   the stream), its output written as it comes. */
static tc_status out_deflate(mtx_out *o, int flush)
{
    z_stream *zs = o->zs;
    zs->next_in = (Bytef *)o->buf;
    zs->avail_in = (uInt)o->n;
    do {
        zs->next_out = o->zbuf;
        zs->avail_out = OUT_BYTES;
        if (deflate(zs, flush) == Z_STREAM_ERROR)
            return tc_error_set(o->err, TC_ERR_IO, "%s: cannot compress", o->name);
        tc_status st = out_write(o, o->zbuf, OUT_BYTES - zs->avail_out);
        if (st)
            return st;
    } while (zs->avail_out == 0);
    return TC_OK;
}

static tc_status out_flush(mtx_out *o)
{
    tc_status st = o->zs ? out_deflate(o, Z_NO_FLUSH) : out_write(o, o->buf, o->n);
    o->n = 0;
    return st;
}

/* Room for OUT_LINE_MAX bytes at the end of the buffer; NULL on error. */
static char *out_room(mtx_out *o)
{
    if (o->n + OUT_LINE_MAX > OUT_BYTES && out_flush(o))
        return NULL;
    return o->buf + o->n;
}

static tc_status out_text(mtx_out *o, const char *s, size_t len)
{
    while (len > 0) {
        if (o->n == OUT_BYTES && out_flush(o))
            return o->err->status;
        size_t n = OUT_BYTES - o->n < len ? OUT_BYTES - o->n : len;
        memcpy(o->buf + o->n, s, n);
        o->n += n;
        s += n;
        len -= n;
    }
    return TC_OK;
}

/* Commits the file when st is TC_OK, else removes it. */
static tc_status out_close(mtx_out *o, tc_status st)
{
    if (!st)
        st = o->zs ? out_deflate(o, Z_FINISH) : out_flush(o);
    if (!st)
        st = tc_atomic_commit(&o->at, o->err);
    else
        tc_atomic_abort(&o->at);
    out_free(o);
    return st;
}

static char *put_u64(char *p, uint64_t v)
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

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, 0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* Writes v so that it reads back bit-identical: integral values below 2^53
   as integers, non-finite ones as inf/nan, others with the fewest of 15, 16
   or 17 significant digits that read back to v (17 always do). */
static char *put_real(char *p, double v)
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

static int is_integer_value(double v)
{
    return v == trunc(v) && v >= -0x1p63 && v < 0x1p63;
}

/* Entries written: every one, or the lower triangle and diagonal. */
static int64_t count_written(const tc_csr *a, tc_symmetry sym)
{
    if (sym == TC_SYM_GENERAL)
        return a->nnz;
    int64_t n = 0;
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
            n += a->colidx[p] <= i;
    return n;
}

static tc_status write_header(mtx_out *o, const char *format, tc_field field,
                              tc_symmetry sym, const char *comments)
{
    char line[OUT_LINE_MAX];
    int n = snprintf(line, sizeof line, "%%%%MatrixMarket matrix %s %s %s\n", format,
                     tc_field_name(field), tc_symmetry_name(sym));
    tc_status st = out_text(o, line, (size_t)n);
    /* each comment line gets its %; a final '\n' opens no empty comment */
    for (const char *c = comments; !st && c && *c;) {
        const char *e = strchr(c, '\n');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (!(st = out_text(o, "%", 1)) && !(st = out_text(o, c, len)))
            st = out_text(o, "\n", 1);
        c += len + (e != NULL);
    }
    return st;
}

/* The size line: rows, columns and, for coordinate files (entries >= 0),
   the entry count. */
static tc_status write_size(mtx_out *o, int32_t rows, int32_t cols, int64_t entries)
{
    char *p = out_room(o);
    if (!p)
        return o->err->status;
    p = put_u64(p, (uint64_t)rows);
    *p++ = ' ';
    p = put_u64(p, (uint64_t)cols);
    if (entries >= 0) {
        *p++ = ' ';
        p = put_u64(p, (uint64_t)entries);
    }
    *p++ = '\n';
    o->n = (size_t)(p - o->buf);
    return TC_OK;
}

static tc_status write_entries(mtx_out *o, const tc_csr *a, tc_field field, tc_symmetry sym)
{
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int32_t j = a->colidx[k];
            if (sym != TC_SYM_GENERAL && j > i)
                continue;
            char *p = out_room(o);
            if (!p)
                return o->err->status;
            p = put_u64(p, (uint64_t)i + 1);
            *p++ = ' ';
            p = put_u64(p, (uint64_t)j + 1);
            if (field == TC_FIELD_INTEGER) {
                if (!is_integer_value(a->val[k]))
                    return tc_error_set(o->err, TC_ERR_INVALID,
                                        "%s: cannot write as integer: entry (%" PRId32 ", %"
                                        PRId32 ") = %.17g is not a 64-bit integer", o->name,
                                        i + 1, j + 1, a->val[k]);
                *p++ = ' ';
                p = put_i64(p, (int64_t)a->val[k]);
            } else if (field == TC_FIELD_REAL) {
                *p++ = ' ';
                p = put_real(p, a->val[k]);
            }
            *p++ = '\n';
            o->n = (size_t)(p - o->buf);
        }
    return TC_OK;
}

tc_status tc_mtx_write(const char *path, const tc_csr *a, tc_symmetry symmetry,
                       const char *comments, tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    if (!path || !a)
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_write: no path or matrix");
    if ((unsigned)symmetry > TC_SYM_HERMITIAN)
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_write: unknown symmetry %d", (int)symmetry);
    const char *name = strcmp(path, "-") == 0 ? "<stdout>" : path;
    tc_field field = a->val == NULL ? TC_FIELD_PATTERN : a->field;
    if (field == TC_FIELD_PATTERN && symmetry == TC_SYM_SKEW)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s: cannot write a pattern matrix as skew-symmetric (the signs "
                            "of the mirrored entries would be lost)", name);
    tc_status st = TC_OK;
    if (symmetry != TC_SYM_GENERAL && a->rows != a->cols)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s: cannot write a %" PRId32 " x %" PRId32 " matrix as %s: it is "
                            "not square", name, a->rows, a->cols, tc_symmetry_name(symmetry));
    char why[4200];   /* a path and the words around it */
    snprintf(why, sizeof why, "%s: cannot write as %s", name, tc_symmetry_name(symmetry));
    if (symmetry != TC_SYM_GENERAL && (st = tc_csr_check_symmetry(a, symmetry, why, err)))
        return st;
    mtx_out o;
    if ((st = out_open(&o, path, err)))
        return st;
    st = write_header(&o, "coordinate", field, symmetry, comments);
    if (!st)
        st = write_size(&o, a->rows, a->cols, count_written(a, symmetry));
    if (!st)
        st = write_entries(&o, a, field, symmetry);
    return out_close(&o, st);
}

tc_status tc_mtx_write_dense(const char *path, int32_t rows, int32_t cols, const double *data,
                             tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    if (!path || rows < 0 || cols < 0 || (!data && (int64_t)rows * cols > 0))
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_write_dense: bad arguments");
    mtx_out o;
    tc_status st = out_open(&o, path, err);
    if (st)
        return st;
    st = write_header(&o, "array", TC_FIELD_REAL, TC_SYM_GENERAL, NULL);
    if (!st)
        st = write_size(&o, rows, cols, -1);
    /* column by column, as the specification lists array values */
    for (int32_t j = 0; j < cols && !st; j++)
        for (int32_t i = 0; i < rows && !st; i++) {
            char *p = out_room(&o);
            if (!p) {
                st = err->status;
                break;
            }
            p = put_real(p, data[(int64_t)i * cols + j]);
            *p++ = '\n';
            o.n = (size_t)(p - o.buf);
        }
    return out_close(&o, st);
}
