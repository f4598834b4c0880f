/* text_out.c: buffered, atomic, optionally gzip-compressed text output
   (text_out.h), shared by the Matrix Market and edge-list writers. */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "text_out.h"

static void out_free(text_out *o)
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
   which is what the readers (mtx_source.c) and gzip itself expect. */
static tc_status out_start_gzip(text_out *o, const char *path)
{
    const size_t len = strlen(path);
    if (len < 3 || strcmp(path + len - 3, ".gz") != 0)
        return TC_OK;
    z_stream *zs = calloc(1, sizeof *zs);
    o->zbuf = malloc(TEXT_OUT_BYTES);
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

tc_status tc_text_out_open(text_out *o, const char *path, tc_error *err)
{
    memset(o, 0, sizeof *o);
    o->name = strcmp(path, "-") == 0 ? "<stdout>" : path;
    o->err = err;
    o->buf = malloc(TEXT_OUT_BYTES);
    if (!o->buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", o->name);
    tc_status st = out_start_gzip(o, path);
    if (!st)
        st = tc_atomic_open(&o->at, path, 1, err);
    if (st)
        out_free(o);
    return st;
}

static tc_status out_write(text_out *o, const void *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, o->at.fp) != n)
        return tc_error_errno(o->err, TC_ERR_IO, errno, "%s: cannot write", o->name);
    return TC_OK;
}

/* The buffered text through deflate (flush Z_NO_FLUSH, or Z_FINISH to end
   the stream), its output written as it comes. */
static tc_status out_deflate(text_out *o, int flush)
{
    z_stream *zs = o->zs;
    zs->next_in = (Bytef *)o->buf;
    zs->avail_in = (uInt)o->n;
    do {
        zs->next_out = o->zbuf;
        zs->avail_out = TEXT_OUT_BYTES;
        if (deflate(zs, flush) == Z_STREAM_ERROR)
            return tc_error_set(o->err, TC_ERR_IO, "%s: cannot compress", o->name);
        tc_status st = out_write(o, o->zbuf, TEXT_OUT_BYTES - zs->avail_out);
        if (st)
            return st;
    } while (zs->avail_out == 0);
    return TC_OK;
}

static tc_status out_flush(text_out *o)
{
    tc_status st = o->zs ? out_deflate(o, Z_NO_FLUSH) : out_write(o, o->buf, o->n);
    o->n = 0;
    return st;
}

char *tc_text_out_room(text_out *o)
{
    if (o->n + TEXT_LINE_MAX > TEXT_OUT_BYTES && out_flush(o))
        return NULL;
    return o->buf + o->n;
}

tc_status tc_text_out_text(text_out *o, const char *s, size_t len)
{
    while (len > 0) {
        if (o->n == TEXT_OUT_BYTES && out_flush(o))
            return o->err->status;
        size_t n = TEXT_OUT_BYTES - o->n < len ? TEXT_OUT_BYTES - o->n : len;
        memcpy(o->buf + o->n, s, n);
        o->n += n;
        s += n;
        len -= n;
    }
    return TC_OK;
}

tc_status tc_text_out_close(text_out *o, tc_status st)
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
