/* mtx_source.c: the input of the Matrix Market reader: blocks of text from
   a file, stdin or memory, plain or gzip, handed out as complete lines (a
   line cut by the end of a block is carried over to the next one), with
   progress reported as the bytes come in. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "mtx_internal.h"

enum {
    BLOCK_BYTES = 1 << 18,      /* read size: the block stays in L2 while parsed */
    MAX_LINE_BYTES = 1 << 26,   /* longest line accepted: a file without line
                                   ends must not take all memory */
    PROGRESS_BYTES = 1 << 22,   /* report progress every 4 MiB read */
    DEFLATE_MAX_RATIO = 1032    /* deflate's largest compression ratio */
};

tc_status tc_mtx_fail(const mtx_reader *r, int64_t line, tc_status st, const char *fmt, ...)
{
    char what[sizeof r->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tc_error_set(r->err, st, "%s:%" PRId64 ": %s", r->name, line, what);
}

tc_status tc_mtx_refuse_nul(const mtx_reader *r, int64_t line, const char *s, const char *e)
{
    const char *nul = memchr(s, '\0', (size_t)(e - s));
    if (!nul)
        return TC_OK;
    return tc_mtx_fail(r, line, TC_ERR_PARSE, "NUL byte at column %td (%s is text)",
                       nul - s + 1, r->what);
}

static int is_gzip(const unsigned char *b, size_t len)
{
    return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static tc_status reader_init(mtx_reader *r, const char *name, tc_error *err)
{
    memset(r, 0, sizeof *r);
    r->raw_bytes = -1;
    r->name = name;
    r->what = "Matrix Market";
    r->err = err;
    r->cap = BLOCK_BYTES;
    r->buf = calloc(1, r->cap + 1 + PAD_BYTES);
    if (!r->buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

tc_status tc_mtx_reader_open_path(mtx_reader *r, const char *path, tc_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    tc_status st = reader_init(r, is_stdin ? "<stdin>" : path, err);
    if (st)
        return st;
    int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot open", r->name);
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
        r->raw_bytes = sb.st_size;
    r->gz = gzdopen(fd, "rb");
    if (!r->gz) {
        close(fd);
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", r->name);
    }
    /* zlib copies plain input straight into the caller's buffer only for
       reads of at least twice its own buffer: keep it below BLOCK_BYTES / 2 */
    gzbuffer(r->gz, BLOCK_BYTES / 4);
    return TC_OK;
}

tc_status tc_mtx_reader_open_mem(mtx_reader *r, const void *buf, size_t len, const char *name,
                                 tc_error *err)
{
    tc_status st = reader_init(r, name, err);
    if (st)
        return st;
    r->mem = buf;
    r->mem_len = len;
    r->raw_bytes = len > INT64_MAX ? INT64_MAX : (int64_t)len;
    if (!is_gzip(r->mem, len))
        return TC_OK;
    /* 16 + MAX_WBITS: a gzip wrapper, not zlib's. */
    if (inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: cannot start zlib", name);
    r->zs_open = 1;
    r->zs.next_in = (unsigned char *)r->mem;
    return TC_OK;
}

void tc_mtx_reader_close(mtx_reader *r)
{
    if (r->gz)
        gzclose(r->gz);
    if (r->zs_open)
        inflateEnd(&r->zs);
    free(r->buf);
}

static tc_status read_gz_file(mtx_reader *r, char *dst, size_t want, size_t *got)
{
    int n = gzread(r->gz, dst, (unsigned)want);
    int errnum = errno, zerr = Z_OK;
    const char *msg = gzerror(r->gz, &zerr);
    if (zerr == Z_ERRNO)
        return tc_error_errno(r->err, TC_ERR_IO, errnum, "%s: cannot read", r->name);
    /* A truncated gzip file shows as Z_BUF_ERROR once its data is read.
       zlib prefixes its messages with the name it knows, "<fd:N>": ours
       names the file instead. */
    if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        const char *colon = strstr(msg, ": ");
        if (strncmp(msg, "<fd:", 4) == 0 && colon)
            msg = colon + 2;
        return tc_error_set(r->err, TC_ERR_IO, "%s: cannot decompress: %s", r->name, msg);
    }
    *got = (size_t)n;
    return TC_OK;
}

/* Inflates gzip bytes held in memory; concatenated gzip members are read
   one after the other (as gzip -d does), anything else after a member is
   ignored (as zlib's gzread does). */
static tc_status read_gz_mem(mtx_reader *r, char *dst, size_t want, size_t *got)
{
    z_stream *z = &r->zs;
    z->next_out = (unsigned char *)dst;
    z->avail_out = (unsigned)want;
    while (z->avail_out > 0 && !r->zs_done) {
        size_t used = (size_t)(z->next_in - r->mem);
        size_t left = r->mem_len - used;
        z->avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
        int ret = inflate(z, Z_NO_FLUSH);
        if (ret == Z_STREAM_END) {
            used = (size_t)(z->next_in - r->mem);
            if (is_gzip(z->next_in, r->mem_len - used))
                inflateReset(z);
            else
                r->zs_done = 1;
        } else if (ret == Z_BUF_ERROR && z->avail_in == 0) {
            return tc_error_set(r->err, TC_ERR_IO,
                                "%s: cannot decompress: unexpected end of file", r->name);
        } else if (ret != Z_OK) {
            return tc_error_set(r->err, TC_ERR_IO, "%s: cannot decompress: %s", r->name,
                                z->msg ? z->msg : zError(ret));
        }
    }
    *got = want - z->avail_out;
    return TC_OK;
}

static tc_status read_source(mtx_reader *r, char *dst, size_t want, size_t *got)
{
    if (r->gz)
        return read_gz_file(r, dst, want, got);
    if (r->zs_open)
        return read_gz_mem(r, dst, want, got);
    size_t n = r->mem_len - r->mem_pos;
    if (n > want)
        n = want;
    memcpy(dst, r->mem + r->mem_pos, n);
    r->mem_pos += n;
    *got = n;
    return TC_OK;
}

void *tc_mtx_grow_array(void *p, int64_t n, size_t sz, tc_error *err)
{
    int64_t bytes;
    if (tc_mul_overflows(n, (int64_t)sz, &bytes) || (uint64_t)bytes > SIZE_MAX) {
        tc_error_set(err, TC_ERR_NOMEM, "array of %" PRId64 " elements is too large", n);
        return NULL;
    }
    void *q = realloc(p, (size_t)(bytes ? bytes : 1));
    if (!q)
        tc_error_set(err, TC_ERR_NOMEM, "out of memory allocating %" PRId64 " bytes", bytes);
    return q;
}

/* Doubles the buffer for a line longer than it. */
static tc_status grow_buffer(mtx_reader *r)
{
    if (r->cap >= MAX_LINE_BYTES)
        return tc_mtx_fail(r, r->line + 1, TC_ERR_PARSE, "line longer than %d bytes",
                       MAX_LINE_BYTES);
    char *b = realloc(r->buf, 2 * r->cap + 1 + PAD_BYTES);
    if (!b)
        return tc_error_set(r->err, TC_ERR_NOMEM, "out of memory");
    memset(b + r->cap, 0, r->cap + 1 + PAD_BYTES);
    r->buf = b;
    r->cap *= 2;
    return TC_OK;
}

static void count_progress(mtx_reader *r, size_t bytes)
{
    r->unreported += (int64_t)bytes;
    if (r->unreported >= PROGRESS_BYTES) {
        tc_progress_report(r->prog, r->done, r->total);
        r->unreported = 0;
    }
}

int tc_mtx_refill(mtx_reader *r)
{
    size_t cut = r->end - r->lim;
    memmove(r->buf, r->buf + r->lim, cut);
    r->pos = r->lim = 0;
    r->end = cut;
    for (;;) {
        if (r->eof) {
            if (r->end == 0)
                return 0;
            if (r->buf[r->end - 1] != '\n') {
                r->buf[r->end++] = '\n';   /* the buffer has cap + 1 bytes */
                r->added_newline = 1;
            }
            r->lim = r->end;
            return 1;
        }
        if (r->end == r->cap && grow_buffer(r))
            return -1;
        size_t got = 0;
        if (read_source(r, r->buf + r->end, r->cap - r->end, &got))
            return -1;
        if (got == 0) {
            r->eof = 1;
            continue;
        }
        /* The cut line has no '\n', so the last one is in the new bytes. */
        const char *nl = memrchr(r->buf + r->end, '\n', got);
        r->end += got;
        count_progress(r, got);
        if (nl) {
            r->lim = (size_t)(nl + 1 - r->buf);
            return 1;
        }
    }
}

int tc_mtx_next_line(mtx_reader *r, const char **s, const char **e)
{
    if (r->pos == r->lim) {
        int more = tc_mtx_refill(r);
        if (more <= 0)
            return more;
    }
    *s = r->buf + r->pos;
    *e = memchr(*s, '\n', r->lim - r->pos);
    r->pos = (size_t)(*e + 1 - r->buf);
    r->line++;
    return tc_mtx_refuse_nul(r, r->line, *s, *e) ? -1 : 1;
}

int64_t tc_mtx_eof_line(const mtx_reader *r)
{
    return r->added_newline ? r->line : r->line + 1;
}

int64_t tc_mtx_lines_bound(const mtx_reader *r, int64_t line_bytes)
{
    if (r->raw_bytes < 0)
        return -1;
    int gz = r->gz ? !gzdirect(r->gz) : r->zs_open;
    int64_t ratio = gz ? DEFLATE_MAX_RATIO : 1;
    int64_t text = r->raw_bytes > INT64_MAX / ratio ? INT64_MAX : r->raw_bytes * ratio;
    return text / line_bytes + 1;
}
