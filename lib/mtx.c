/* mtx.c: Matrix Market reading and writing: coordinate and array files;
   real, integer and pattern fields; general, symmetric, skew-symmetric and
   hermitian symmetry; plain or gzip-compressed.

   Reading is built for speed (a reader must not be the bottleneck of a
   pipeline): the text is read in large blocks and only complete lines are
   parsed (a line cut by the end of a block is carried over to the next
   one), integers are parsed by hand and reals through Clinger's exact fast
   path, with strtod only for values outside it. The fast path recognises
   the common shape of a data line only; every other line (blank lines,
   comments, anything unusual or malformed) goes to a slow path that
   tokenises the line and either accepts it or says exactly what is wrong,
   with the file name and line number.

   Choices where the specification is silent or real files stray from it:
   - blank lines are skipped anywhere after the banner, and so are % comment
     lines (only those before the size line are kept in tc_mtx_info);
   - leading blanks, CRLF line ends, "%MatrixMarket" with one %, and banner
     words in any case are accepted;
   - symmetric, skew-symmetric and hermitian files should list the lower
     triangle only; an entry above the diagonal is accepted and mirrored
     like any other, so a file giving both (i, j) and (j, i) gets both
     mirrored and summed as duplicates (what SciPy's mmread does), or
     refused as a duplicate when sum_duplicates is 0;
   - skew-symmetric files may list zeros on the diagonal (kept as stored
     entries); a nonzero diagonal entry is refused;
   - hermitian on a real field is the same as symmetric;
   - integer values are read as 64-bit integers and converted to double,
     exactly up to 2^53 and rounded to nearest-even beyond (9007199254740993
     reads as 9007199254740992); values outside 64 bits are refused;
   - reals may also be inf, infinity or nan (any case, signed): the writer
     produces them for non-finite values; decimal values that overflow a
     double are refused;
   - numbers use the "C" locale's decimal point (the library never calls
     setlocale). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "tcsparse.h"

enum {
    BLOCK_BYTES = 1 << 18,      /* read size: the block stays in L2 while parsed */
    MAX_LINE_BYTES = 1 << 26,   /* longest line accepted: a file without line
                                   ends must not take all memory */
    PROGRESS_BYTES = 1 << 22,   /* report progress every 4 MiB read */
    MIN_ENTRY_CAP = 1 << 16,    /* first size of the triplet arrays when the
                                   input size is unknown (a pipe) */
    MIN_ENTRY_BYTES = 4,        /* the shortest entry line: "1 1\n" */
    MIN_VALUE_BYTES = 2,        /* the shortest array line: "1\n" */
    DEFLATE_MAX_RATIO = 1032,   /* deflate's largest compression ratio */
    PAD_BYTES = 8,              /* zeroed bytes after the buffer: scan_index
                                   loads 8 bytes at a time */
    SHOW_CHARS = 40,            /* longest token quoted in a message */
    MAX_TOKENS = 8,             /* tokens a line keeps for the slow path */
    OUT_BYTES = 1 << 16,        /* writer buffer */
    OUT_LINE_MAX = 128          /* longest line the writer formats at once */
};

/* ------------------------------------------------------------------------ */
/* Input: blocks of text from a file, stdin or memory, plain or gzip        */
/* ------------------------------------------------------------------------ */

typedef struct mtx_reader {
    const char *name;           /* for messages */
    tc_error *err;
    gzFile gz;                  /* files and stdin: zlib looks at the first
                                   bytes and inflates only when they are the
                                   gzip magic, so detection is by content */
    const unsigned char *mem;   /* tc_mtx_read_mem */
    size_t mem_len, mem_pos;
    int64_t raw_bytes;          /* size of the file or memory, -1 unknown */
    z_stream zs;                /* gzip bytes in memory */
    int zs_open, zs_done;
    char *buf;                  /* cap bytes, one for a final '\n', PAD_BYTES */
    size_t cap;
    size_t pos, lim, end;       /* [pos, lim): complete lines not parsed yet;
                                   [lim, end): the start of a cut line */
    int eof, added_newline;     /* the last line had no '\n' of its own */
    int64_t line;               /* lines consumed so far */
    const tc_progress *prog;
    int64_t done, total;        /* entries read and declared, for progress */
    int64_t unreported;         /* bytes read since the last report */
} mtx_reader;

__attribute__((format(printf, 4, 5)))
static tc_status fail_at(const mtx_reader *r, int64_t line, tc_status st, const char *fmt, ...)
{
    char what[sizeof r->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tc_error_set(r->err, st, "%s:%" PRId64 ": %s", r->name, line, what);
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
    r->err = err;
    r->cap = BLOCK_BYTES;
    r->buf = calloc(1, r->cap + 1 + PAD_BYTES);
    if (!r->buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", name);
    return TC_OK;
}

static tc_status reader_open_path(mtx_reader *r, const char *path, tc_error *err)
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

static tc_status reader_open_mem(mtx_reader *r, const void *buf, size_t len, const char *name,
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

static void reader_close(mtx_reader *r)
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

/* Doubles the buffer for a line longer than it. */
static tc_status grow_buffer(mtx_reader *r)
{
    if (r->cap >= MAX_LINE_BYTES)
        return fail_at(r, r->line + 1, TC_ERR_PARSE, "line longer than %d bytes",
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

/* Called when [pos, lim) is used up: moves the cut line at [lim, end) to the
   front and reads until the buffer holds at least one complete line (the
   last line of the input gets a '\n' if it has none). Returns 1 when lines
   are available, 0 at the end of the input, -1 on error (r->err set). */
static int refill(mtx_reader *r)
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

/* The next line as [*s, *e) with *e at its '\n'. Returns 1, 0 at the end of
   the input, -1 on error. */
static int next_line(mtx_reader *r, const char **s, const char **e)
{
    if (r->pos == r->lim) {
        int more = refill(r);
        if (more <= 0)
            return more;
    }
    *s = r->buf + r->pos;
    *e = memchr(*s, '\n', r->lim - r->pos);
    r->pos = (size_t)(*e + 1 - r->buf);
    r->line++;
    return 1;
}

/* The line number to quote when the input ended early. */
static int64_t eof_line(const mtx_reader *r)
{
    return r->added_newline ? r->line : r->line + 1;
}

/* ------------------------------------------------------------------------ */
/* Lexing                                                                   */
/* ------------------------------------------------------------------------ */

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
static int is_skip_line(const char *s)
{
    s = skip_blanks(s);
    return *s == '\n' || *s == '%';
}

typedef struct tokens {
    int n;                          /* every token on the line */
    const char *s[MAX_TOKENS];      /* the first MAX_TOKENS of them */
    size_t len[MAX_TOKENS];
} tokens;

static void tokenize(const char *s, const char *e, tokens *t)
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

static shown show(const char *s, size_t len)
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
        if ((unsigned char)*x - '0' >= 10)
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
static const char *scan_long_index(const char *s, uint32_t *out)
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
static int parse_unsigned(const char *s, size_t len, uint64_t max, uint64_t *out)
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
static int parse_nonfinite(const char *s, size_t len, double *out)
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

/* ------------------------------------------------------------------------ */
/* Header: banner, comments, size line                                      */
/* ------------------------------------------------------------------------ */

typedef struct mtx_header {
    int is_array;
    tc_field field;
    tc_symmetry symmetry;
    int32_t rows, cols;
    int64_t entries;        /* entries the file lists */
} mtx_header;

/* Lower-cases a banner word into w (empty when too long to be one). */
static void banner_word(const tokens *t, int k, char w[32])
{
    w[0] = '\0';
    if (t->len[k] >= 32)
        return;
    for (size_t i = 0; i < t->len[k]; i++)
        w[i] = (char)(t->s[k][i] | (t->s[k][i] >= 'A' && t->s[k][i] <= 'Z' ? 0x20 : 0));
    w[t->len[k]] = '\0';
}

static tc_status parse_banner_words(mtx_reader *r, const tokens *t, mtx_header *h)
{
    char w[32];
    banner_word(t, 1, w);
    if (strcmp(w, "matrix") != 0)
        return fail_at(r, 1, TC_ERR_UNSUPPORTED, "unsupported object '%s' (expected 'matrix')",
                       show(t->s[1], t->len[1]).s);
    banner_word(t, 2, w);
    if (strcmp(w, "coordinate") != 0 && strcmp(w, "array") != 0)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "unknown format '%s' (expected 'coordinate' or 'array')",
                       show(t->s[2], t->len[2]).s);
    h->is_array = strcmp(w, "array") == 0;
    banner_word(t, 3, w);
    if (strcmp(w, "complex") == 0)
        return fail_at(r, 1, TC_ERR_UNSUPPORTED,
                       "complex matrices are not supported (field 'complex')");
    if (tc_field_parse(w, &h->field) != 0)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "unknown field '%s' (expected 'real', 'integer' or 'pattern')",
                       show(t->s[3], t->len[3]).s);
    banner_word(t, 4, w);
    if (tc_symmetry_parse(w, &h->symmetry) != 0)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "unknown symmetry '%s' (expected 'general', 'symmetric', "
                       "'skew-symmetric' or 'hermitian')", show(t->s[4], t->len[4]).s);
    if (h->is_array && h->field == TC_FIELD_PATTERN)
        return fail_at(r, 1, TC_ERR_PARSE, "field 'pattern' is not allowed with format 'array'");
    if (h->field == TC_FIELD_PATTERN && h->symmetry == TC_SYM_SKEW)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "symmetry 'skew-symmetric' is not allowed with field 'pattern'");
    return TC_OK;
}

static tc_status read_banner(mtx_reader *r, mtx_header *h, tc_mtx_info *info)
{
    const char *s, *e;
    int more = next_line(r, &s, &e);
    if (more < 0)
        return r->err->status;
    if (more == 0)
        return fail_at(r, 1, TC_ERR_PARSE, "empty file: expected a %%%%MatrixMarket banner");
    const char *end = e;
    while (end > s && is_blank(end[-1]))
        end--;
    snprintf(info->banner, sizeof info->banner, "%.*s", (int)(end - s), s);
    tokens t;
    tokenize(s, e, &t);
    char w[32] = "";
    if (t.n > 0)
        banner_word(&t, 0, w);
    if (strcmp(w, "%%matrixmarket") != 0 && strcmp(w, "%matrixmarket") != 0)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "expected a '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner, "
                       "found '%s'", show(s, (size_t)(end - s)).s);
    if (t.n != 5)
        return fail_at(r, 1, TC_ERR_PARSE,
                       "expected 5 words in the banner (%%%%MatrixMarket matrix FORMAT FIELD "
                       "SYMMETRY), found %d", t.n);
    return parse_banner_words(r, &t, h);
}

/* Appends one comment line (without its %) to the '\n'-joined text. */
static tc_status add_comment(mtx_reader *r, char **text, size_t *len, const char *s,
                             const char *e)
{
    while (e > s && e[-1] == '\r')
        e--;
    size_t n = (size_t)(e - s);
    char *t = realloc(*text, *len + n + 2);
    if (!t)
        return tc_error_set(r->err, TC_ERR_NOMEM, "out of memory");
    if (*len > 0)
        t[(*len)++] = '\n';
    memcpy(t + *len, s, n);
    *len += n;
    t[*len] = '\0';
    *text = t;
    return TC_OK;
}

static const char *const size_names[] = { "rows", "columns", "entries" };

static tc_status parse_size_line(mtx_reader *r, const tokens *t, mtx_header *h)
{
    int want = h->is_array ? 2 : 3;
    if (t->n != want)
        return fail_at(r, r->line, TC_ERR_PARSE,
                       "expected %d fields in the size line (%s), found %d", want,
                       h->is_array ? "rows columns" : "rows columns entries", t->n);
    uint64_t v[3] = { 0, 0, 0 };
    for (int k = 0; k < want; k++) {
        uint64_t max = k < 2 ? INT32_MAX : INT64_MAX;
        int bad = parse_unsigned(t->s[k], t->len[k], max, &v[k]);
        if (bad == 1)
            return fail_at(r, r->line, TC_ERR_PARSE,
                           "expected a non-negative integer for %s, found '%s'", size_names[k],
                           show(t->s[k], t->len[k]).s);
        if (bad == 2)
            return fail_at(r, r->line, TC_ERR_PARSE, "%s %s exceeds the limit of %" PRIu64,
                           size_names[k], show(t->s[k], t->len[k]).s, max);
    }
    h->rows = (int32_t)v[0];
    h->cols = (int32_t)v[1];
    if (h->symmetry != TC_SYM_GENERAL && h->rows != h->cols)
        return fail_at(r, r->line, TC_ERR_PARSE,
                       "a %s matrix must be square, found %" PRId32 " rows and %" PRId32
                       " columns", tc_symmetry_name(h->symmetry), h->rows, h->cols);
    /* An array file lists every entry, or one triangle of the matrix. */
    int64_t n = h->rows;
    if (!h->is_array)
        h->entries = (int64_t)v[2];
    else if (h->symmetry == TC_SYM_GENERAL)
        h->entries = n * h->cols;
    else if (h->symmetry == TC_SYM_SKEW)
        h->entries = n * (n - 1) / 2;
    else
        h->entries = n * (n + 1) / 2;
    return TC_OK;
}

/* The % lines (kept in *comments) and blank lines up to the size line. */
static tc_status read_size(mtx_reader *r, mtx_header *h, char **comments)
{
    size_t len = 0;
    const char *s, *e;
    for (;;) {
        int more = next_line(r, &s, &e);
        if (more < 0)
            return r->err->status;
        if (more == 0)
            return fail_at(r, eof_line(r), TC_ERR_PARSE,
                           "expected the size line (%s), found the end of the file",
                           h->is_array ? "rows columns" : "rows columns entries");
        tokens t;
        tokenize(s, e, &t);
        if (t.n == 0)
            continue;
        if (t.s[0][0] != '%')
            return parse_size_line(r, &t, h);
        tc_status st = add_comment(r, comments, &len, t.s[0] + 1, e);
        if (st)
            return st;
    }
}

static tc_status read_header(mtx_reader *r, mtx_header *h, tc_mtx_info *info)
{
    memset(h, 0, sizeof *h);
    memset(info, 0, sizeof *info);
    tc_status st = read_banner(r, h, info);
    if (!st)
        st = read_size(r, h, &info->comments);
    info->is_array = h->is_array;
    info->field = h->field;
    info->symmetry = h->symmetry;
    info->entries = h->entries;
    return st;
}

void tc_mtx_info_clear(tc_mtx_info *info)
{
    if (!info)
        return;
    free(info->comments);
    info->comments = NULL;
}

/* ------------------------------------------------------------------------ */
/* Data lines                                                               */
/* ------------------------------------------------------------------------ */

/* Where the entries go: triplets (coordinate) or a dense row-major array
   (array files, which list values column by column). */
typedef struct sink {
    int32_t *ri, *ci;       /* coordinate: 0-based indices, as the file lists
                               them (tc_csr_from_coo_sym adds the mirrors) */
    double *v;              /* coordinate values (NULL for pattern), or the
                               dense array */
    int64_t n, cap;         /* entries read from the file, room for */
    int32_t ai, aj;         /* array: position of the next value */
} sink;

/* realloc of an int64-sized array, NULL (err set) on overflow or no memory. */
static void *grow_array(void *p, int64_t n, size_t sz, tc_error *err)
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

/* Line numbers of entries without storing one per entry: the data lines
   that carry no entry (blank, comment) are few, so they are recorded by
   the number of entries read before each. */
typedef struct line_map {
    int64_t first;          /* the line after the size line */
    int64_t *skip;
    int64_t n, cap;
} line_map;

static tc_status line_map_skip(mtx_reader *r, line_map *m, int64_t entries_before)
{
    if (m->n == m->cap) {
        int64_t cap = m->cap ? 2 * m->cap : 64;
        int64_t *s = grow_array(m->skip, cap, sizeof *s, r->err);
        if (!s)
            return TC_ERR_NOMEM;
        m->skip = s;
        m->cap = cap;
    }
    m->skip[m->n++] = entries_before;
    return TC_OK;
}

/* The line of entry e (0-based, in file order). */
static int64_t line_of(const line_map *m, int64_t e)
{
    int64_t lo = 0, hi = m->n;   /* skipped lines before entry e: skip[k] <= e */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (m->skip[mid] <= e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return m->first + e + lo;
}

/* Array files: the row of the first listed value of column j. */
static int32_t array_first_row(const mtx_header *h, int32_t j)
{
    if (h->symmetry == TC_SYM_GENERAL)
        return 0;
    return h->symmetry == TC_SYM_SKEW ? j + 1 : j;
}

/* Array files: stores v at the next position and mirrors it when the file
   lists one triangle. */
static void put_array_value(sink *k, const mtx_header *h, double v)
{
    int64_t cols = h->cols;
    k->v[k->ai * cols + k->aj] = v;
    if (h->symmetry != TC_SYM_GENERAL && k->ai != k->aj)
        k->v[k->aj * cols + k->ai] = h->symmetry == TC_SYM_SKEW ? -v : v;
    k->ai++;
    while (k->ai >= h->rows && k->aj < h->cols) {
        k->aj++;
        k->ai = array_first_row(h, k->aj);
    }
}

typedef struct entry {
    int skip;               /* the line carries no entry */
    uint32_t i, j;          /* 1-based */
    double v;
} entry;

static const char *const index_names[] = { "row", "column" };

static tc_status slow_index(const mtx_reader *r, const mtx_header *h, int64_t line,
                            const tokens *t, int k, uint32_t *out)
{
    uint64_t v;
    int32_t bound = k == 0 ? h->rows : h->cols;
    int bad = parse_unsigned(t->s[k], t->len[k], INT32_MAX, &v);
    if (bad == 1)
        return fail_at(r, line, TC_ERR_PARSE, "expected a positive integer %s index, found '%s'",
                       index_names[k], show(t->s[k], t->len[k]).s);
    if (bad == 2 || v == 0 || v > (uint64_t)bound)
        return fail_at(r, line, TC_ERR_PARSE,
                       "%s index %s out of range: the matrix has %" PRId32 " %s",
                       index_names[k], show(t->s[k], t->len[k]).s, bound,
                       k == 0 ? "rows" : "columns");
    *out = (uint32_t)v;
    return TC_OK;
}

static tc_status slow_value(const mtx_reader *r, const mtx_header *h, int64_t line,
                            const char *s, size_t len, double *v)
{
    shown tok = show(s, len);
    if (h->field == TC_FIELD_INTEGER) {
        int neg = *s == '-';
        size_t sign = *s == '-' || *s == '+';
        uint64_t m;
        int bad = parse_unsigned(s + sign, len - sign, (uint64_t)INT64_MAX + neg, &m);
        if (bad == 1)
            return fail_at(r, line, TC_ERR_PARSE, "expected an integer value, found '%s'", tok.s);
        if (bad == 2)
            return fail_at(r, line, TC_ERR_PARSE, "integer value %s does not fit in 64 bits",
                           tok.s);
        *v = neg && m ? -(double)m : (double)m;   /* integer zero has no sign */
        return TC_OK;
    }
    if (parse_nonfinite(s, len, v))
        return TC_OK;
    const char *end = scan_real(s, v);
    if (end == s + len)
        return TC_OK;
    char *e;
    if (end == NULL && isinf(strtod(s, &e)) && e == s + len)
        return fail_at(r, line, TC_ERR_PARSE, "value %s is out of the range of a double", tok.s);
    return fail_at(r, line, TC_ERR_PARSE, "expected a real value, found '%s'", tok.s);
}

/* The authoritative reading of one data line (the fast path in read_data
   takes the common shapes only and sends the rest here): accepts it as an
   entry or a line to skip, or says what is wrong with it. */
static tc_status slow_line(const mtx_reader *r, const mtx_header *h, const char *s,
                           const char *e, int64_t line, entry *out)
{
    out->skip = is_skip_line(s);
    if (out->skip)
        return TC_OK;
    tokens t;
    tokenize(s, e, &t);
    int nidx = h->is_array ? 0 : 2;
    int want = nidx + (h->field != TC_FIELD_PATTERN);
    if (t.n != want)
        return fail_at(r, line, TC_ERR_PARSE, "expected %d field%s, found %d", want,
                       want == 1 ? "" : "s", t.n);
    for (int k = 0; k < nidx; k++) {
        tc_status st = slow_index(r, h, line, &t, k, k == 0 ? &out->i : &out->j);
        if (st)
            return st;
    }
    out->v = 1.0;
    if (want > nidx)
        return slow_value(r, h, line, t.s[nidx], t.len[nidx], &out->v);
    return TC_OK;
}

/* The blanks between two fields, at least one: their end, or NULL when
   there are none. A single space, the common separator, costs two
   comparisons (no blank is above ' '). */
static inline const char *skip_separator(const char *s)
{
    if (*s == ' ' && (unsigned char)s[1] > ' ')
        return s + 1;
    return is_blank(*s) ? skip_blanks(s) : NULL;
}

/* The end of a line at s: blanks, then '\n'. The start of the next line,
   or NULL when something else is there. */
static inline const char *line_end(const char *s)
{
    if (*s != '\n')
        s = skip_blanks(s);
    return *s == '\n' ? s + 1 : NULL;
}

/* The fast path of coordinate files: the lines "i j [v]" with blanks
   around and between the fields, from p on, stored straight into k until
   the first line it does not take, lim (the end of the complete lines in
   the buffer), or a full k. Returns where it stopped; the slow path in
   read_data takes the line there, and reads it the same way or says what
   is wrong with it (a skew-symmetric nonzero diagonal entry, a line to
   skip, anything unusual). field is a constant where fast_lines calls
   this, so that each field gets its own loop without tests of it. */
static inline __attribute__((always_inline)) const char *
fast_coordinate(const mtx_header *h, sink *k, const char *p, const char *lim, tc_field field)
{
    const uint32_t rows = (uint32_t)h->rows, cols = (uint32_t)h->cols;
    const int skew = h->symmetry == TC_SYM_SKEW;
    int32_t *ri = k->ri, *ci = k->ci;
    double *val = k->v;
    int64_t n = k->n;
    while (p < lim && n < k->cap) {
        uint32_t i, j;
        double v = 1.0;
        const char *s = scan_index(skip_blanks(p), &i);
        if (!s || !(s = skip_separator(s)) || !(s = scan_index(s, &j)))
            break;
        if (i - 1 >= rows || j - 1 >= cols)
            break;
        if (field != TC_FIELD_PATTERN) {
            if (!(s = skip_separator(s)) || !(s = scan_value(field, s, &v)))
                break;
            if (skew && i == j && v != 0.0)
                break;
        }
        if (!(s = line_end(s)))
            break;
        ri[n] = (int32_t)i - 1;
        ci[n] = (int32_t)j - 1;
        if (field != TC_FIELD_PATTERN)
            val[n] = v;
        n++;
        p = s;
    }
    k->n = n;
    return p;
}

/* The fast path of array files: lines of one value, as fast_coordinate. */
static const char *fast_array(const mtx_header *h, sink *k, const char *p, const char *lim)
{
    while (p < lim && k->n < k->cap) {
        double v;
        const char *s = scan_value(h->field, skip_blanks(p), &v);
        if (!s || !(s = line_end(s)))
            break;
        k->n++;
        put_array_value(k, h, v);
        p = s;
    }
    return p;
}

/* The fast path for h's files: the lines it takes from p on, stored into
   k (k->n counts them: each is one entry). Returns where it stopped. */
static const char *fast_lines(const mtx_header *h, sink *k, const char *p, const char *lim)
{
    if (h->is_array)
        return fast_array(h, k, p, lim);
    switch (h->field) {
    case TC_FIELD_PATTERN:
        return fast_coordinate(h, k, p, lim, TC_FIELD_PATTERN);
    case TC_FIELD_INTEGER:
        return fast_coordinate(h, k, p, lim, TC_FIELD_INTEGER);
    default:
        return fast_coordinate(h, k, p, lim, TC_FIELD_REAL);
    }
}

/* Stores an entry as the file gives it. Symmetric, skew-symmetric and
   hermitian files list one triangle: the mirrors of off-diagonal entries
   are left to tc_csr_from_coo_sym, which adds them while building the
   rows, so the triplet arrays stay the size of the file's entries. */
static inline void put_entry(sink *k, const mtx_header *h, const entry *x)
{
    if (h->is_array) {
        k->n++;
        put_array_value(k, h, x->v);
        return;
    }
    int64_t n = k->n++;
    k->ri[n] = (int32_t)x->i - 1;
    k->ci[n] = (int32_t)x->j - 1;
    if (k->v)
        k->v[n] = x->v;
}

/* Room for cap entries of the file. */
static tc_status sink_reserve(sink *k, const mtx_header *h, int64_t cap, tc_error *err)
{
    int values = h->field != TC_FIELD_PATTERN;
    int32_t *ri = grow_array(k->ri, cap, sizeof *ri, err);
    if (ri)
        k->ri = ri;
    int32_t *ci = ri ? grow_array(k->ci, cap, sizeof *ci, err) : NULL;
    if (ci)
        k->ci = ci;
    double *v = ci && values ? grow_array(k->v, cap, sizeof *v, err) : NULL;
    if (v)
        k->v = v;
    if (!ri || !ci || (values && !v))
        return TC_ERR_NOMEM;
    k->cap = cap;
    return TC_OK;
}

/* The most lines of line_bytes bytes or more that the input can hold
   (gzip data inflates DEFLATE_MAX_RATIO times at most), or -1 when its
   size is unknown (a pipe). */
static int64_t lines_bound(const mtx_reader *r, int64_t line_bytes)
{
    if (r->raw_bytes < 0)
        return -1;
    int gz = r->gz ? !gzdirect(r->gz) : r->zs_open;
    int64_t ratio = gz ? DEFLATE_MAX_RATIO : 1;
    int64_t text = r->raw_bytes > INT64_MAX / ratio ? INT64_MAX : r->raw_bytes * ratio;
    return text / line_bytes + 1;
}

/* Room for the entries first reserved. The size line is trusted only as
   far as the input size bounds it, so that a hostile size line gets no
   huge allocation, while a genuine file gets its arrays at once, without
   growing them (which copies and faults pages again). A pipe starts small
   and grows. */
static int64_t first_capacity(const mtx_reader *r, const mtx_header *h)
{
    int64_t bound = lines_bound(r, MIN_ENTRY_BYTES);
    if (bound < 0)
        bound = MIN_ENTRY_CAP;
    return h->entries < bound ? h->entries : bound;
}

/* Grows the triplets towards the declared count, doubling. */
static tc_status sink_grow(sink *k, const mtx_header *h, tc_error *err)
{
    int64_t cap = k->cap > h->entries / 2 ? h->entries : 2 * k->cap;
    if (cap < MIN_ENTRY_CAP)
        cap = h->entries < MIN_ENTRY_CAP ? h->entries : MIN_ENTRY_CAP;
    return sink_reserve(k, h, cap, err);
}

static tc_status too_many(const mtx_reader *r, const mtx_header *h)
{
    if (h->is_array)
        return fail_at(r, r->line, TC_ERR_PARSE,
                       "too many values: a %" PRId32 " x %" PRId32 " %s array lists %" PRId64,
                       h->rows, h->cols, tc_symmetry_name(h->symmetry), h->entries);
    return fail_at(r, r->line, TC_ERR_PARSE, "too many entries: the size line declares %" PRId64,
                   h->entries);
}

/* Reads every data line into k: the fast path takes what it can, and the
   lines it does not take go to the slow path one at a time. The cursor
   lives in locals; the buffer state in r is brought up to date around
   refills. */
static tc_status read_data(mtx_reader *r, const mtx_header *h, sink *k, line_map *lm)
{
    const char *p = r->buf + r->pos, *lim = r->buf + r->lim;
    tc_status st;
    lm->first = r->line + 1;
    r->total = h->entries;
    for (;;) {
        if (p == lim) {
            r->pos = r->lim;
            r->done = k->n;
            int more = refill(r);
            if (more < 0)
                return r->err->status;
            if (more == 0)
                break;
            p = r->buf + r->pos;
            lim = r->buf + r->lim;
        }
        if (k->n == k->cap && k->cap < h->entries && (st = sink_grow(k, h, r->err)))
            return st;
        int64_t before = k->n;
        p = fast_lines(h, k, p, lim);
        r->line += k->n - before;
        if (p == lim || (k->n == k->cap && k->cap < h->entries))
            continue;   /* refill, or grow k */
        r->line++;
        const char *eol = memchr(p, '\n', (size_t)(lim - p)), *next = eol + 1;
        if (k->n == k->cap) {
            /* every declared entry is in: only lines without one may follow */
            if (!is_skip_line(p))
                return too_many(r, h);
            p = next;
            continue;
        }
        entry x;
        if ((st = slow_line(r, h, p, eol, r->line, &x)))
            return st;
        p = next;
        if (x.skip) {
            if ((st = line_map_skip(r, lm, k->n)))
                return st;
            continue;
        }
        if (h->symmetry == TC_SYM_SKEW && !h->is_array && x.i == x.j && x.v != 0.0)
            return fail_at(r, r->line, TC_ERR_PARSE,
                           "skew-symmetric matrix with a nonzero diagonal entry (%" PRIu32
                           ", %" PRIu32 ") = %.17g", x.i, x.j, x.v);
        put_entry(k, h, &x);
    }
    if (k->n < h->entries)
        return fail_at(r, eof_line(r), TC_ERR_PARSE,
                       "unexpected end of file: expected %" PRId64 " %s, found %" PRId64,
                       h->entries, h->is_array ? "values" : "entries", k->n);
    tc_progress_report(r->prog, k->n, h->entries);
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Building the matrix                                                      */
/* ------------------------------------------------------------------------ */

/* Position of (i, j) in a, which holds it. */
static int64_t csr_find(const tc_csr *a, int32_t i, int32_t j)
{
    int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1] - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->colidx[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* a was built with duplicates summed from k, which has some: names the
   first entry of the file that lands where an earlier one did, directly or
   through the symmetry's mirror. */
static tc_status report_duplicate(const mtx_reader *r, const mtx_header *h, const sink *k,
                                  const line_map *lm, const tc_csr *a)
{
    int64_t *first = tc_malloc_array(a->nnz, sizeof *first, r->err);   /* per position of a */
    if (!first)
        return TC_ERR_NOMEM;
    for (int64_t p = 0; p < a->nnz; p++)
        first[p] = -1;
    tc_status st = TC_OK;
    for (int64_t e = 0; e < k->n && !st; e++) {
        int32_t i = k->ri[e], j = k->ci[e];
        int mirrored = h->symmetry != TC_SYM_GENERAL && i != j;
        for (int side = 0; side <= mirrored && !st; side++) {
            int64_t p = side ? csr_find(a, j, i) : csr_find(a, i, j);
            int64_t f = first[p];
            first[p] = e;
            if (f < 0)
                continue;
            int32_t fi = k->ri[f], fj = k->ci[f];
            if (fi == i && fj == j)
                st = fail_at(r, line_of(lm, e), TC_ERR_INVALID,
                             "duplicate entry (%" PRId32 ", %" PRId32 "), first given at line %"
                             PRId64, i + 1, j + 1, line_of(lm, f));
            else
                st = fail_at(r, line_of(lm, e), TC_ERR_INVALID,
                             "duplicate entry (%" PRId32 ", %" PRId32 "): line %" PRId64
                             " gives (%" PRId32 ", %" PRId32 "), its mirror in a %s file",
                             i + 1, j + 1, line_of(lm, f), fi + 1, fj + 1,
                             tc_symmetry_name(h->symmetry));
        }
    }
    free(first);
    return st;
}

static tc_status coordinate_to_csr(mtx_reader *r, const mtx_header *h, int sum_duplicates,
                                   const sink *k, const line_map *lm, tc_csr **out)
{
    tc_status st = tc_csr_from_coo_sym(out, h->rows, h->cols, k->n, k->ri, k->ci, k->v,
                                       h->symmetry, sum_duplicates, r->err);
    if (st != TC_ERR_INVALID || sum_duplicates)
        return st;
    /* The parser checked every index, so the refusal is of a duplicate. Its
       message names no line: build again, summing, to find the lines that
       give it. Should none be found, the refusal's message stands. */
    tc_csr *a;
    if ((st = tc_csr_from_coo_sym(&a, h->rows, h->cols, k->n, k->ri, k->ci, k->v, h->symmetry,
                                  1, r->err)))
        return st;
    st = report_duplicate(r, h, k, lm, a);
    tc_csr_free(a);
    return st ? st : TC_ERR_INVALID;
}

/* An array file's values into dense (rows x cols, row-major, zeroed: the
   diagonal of a skew-symmetric matrix is not listed). */
static tc_status read_array(mtx_reader *r, const mtx_header *h, double *dense)
{
    sink k = { .v = dense, .cap = h->entries, .ai = array_first_row(h, 0) };
    line_map lm = { 0 };
    tc_status st = read_data(r, h, &k, &lm);
    free(lm.skip);
    return st;
}

/* Array files get their whole matrix allocated before reading: a size line
   that declares more values than the input can hold is refused first. */
static tc_status check_array_size(const mtx_reader *r, const mtx_header *h)
{
    int64_t bound = lines_bound(r, MIN_VALUE_BYTES);
    if (bound >= 0 && h->entries > bound)
        return fail_at(r, r->line, TC_ERR_PARSE,
                       "a %" PRId32 " x %" PRId32 " %s array lists %" PRId64 " values, more "
                       "than the %" PRId64 " bytes of input can hold", h->rows, h->cols,
                       tc_symmetry_name(h->symmetry), h->entries, r->raw_bytes);
    return TC_OK;
}

/* An array file's values as a CSR that stores every entry. */
static tc_status read_array_csr(mtx_reader *r, const mtx_header *h, tc_csr **out)
{
    int64_t n = (int64_t)h->rows * h->cols;
    tc_csr *a;
    tc_status st = check_array_size(r, h);
    if (st)
        return st;
    if ((st = tc_csr_alloc(&a, h->rows, h->cols, n, 1, r->err)))
        return st;
    if (st)
        return st;
    memset(a->val, 0, (size_t)n * sizeof *a->val);
    if ((st = read_array(r, h, a->val))) {
        tc_csr_free(a);
        return st;
    }
    for (int32_t i = 0; i < h->rows; i++) {
        a->rowptr[i + 1] = (int64_t)(i + 1) * h->cols;
        for (int32_t j = 0; j < h->cols; j++)
            a->colidx[(int64_t)i * h->cols + j] = j;
    }
    *out = a;
    return TC_OK;
}

static tc_status read_coordinate_csr(mtx_reader *r, const mtx_header *h, int sum_duplicates,
                                     tc_csr **out)
{
    sink k = { 0 };
    line_map lm = { 0 };
    tc_status st = sink_reserve(&k, h, first_capacity(r, h), r->err);
    if (!st)
        st = read_data(r, h, &k, &lm);
    if (!st)
        st = coordinate_to_csr(r, h, sum_duplicates, &k, &lm, out);
    free(k.ri);
    free(k.ci);
    free(k.v);
    free(lm.skip);
    return st;
}

static tc_status read_csr(mtx_reader *r, const tc_mtx_read_opts *opts, tc_csr **out,
                          tc_mtx_info *info)
{
    static const tc_mtx_read_opts defaults = TC_MTX_READ_DEFAULTS;
    if (!opts)
        opts = &defaults;
    tc_mtx_info local;
    mtx_header h;
    tc_status st = read_header(r, &h, &local);
    if (!st)
        st = h.is_array ? read_array_csr(r, &h, out)
                        : read_coordinate_csr(r, &h, opts->sum_duplicates, out);
    if (st) {
        tc_mtx_info_clear(&local);
        return st;
    }
    (*out)->field = h.field;
    (*out)->symmetry = h.symmetry;
    if (info)
        *info = local;
    else
        tc_mtx_info_clear(&local);
    return TC_OK;
}

/* Allocation failures (here or in the functions called) get the file name. */
static tc_status name_nomem(mtx_reader *r, tc_status st)
{
    if (st == TC_ERR_NOMEM)
        tc_error_prefix(r->err, "%s", r->name);
    return st;
}

tc_status tc_mtx_read(const char *path, const tc_mtx_read_opts *opts, tc_csr **out,
                      tc_mtx_info *info, const tc_progress *prog, tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    if (!path)
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_read: no path");
    mtx_reader r;
    tc_status st = reader_open_path(&r, path, err);
    r.prog = prog;
    if (!st)
        st = name_nomem(&r, read_csr(&r, opts, out, info));
    reader_close(&r);
    return st;
}

tc_status tc_mtx_read_mem(const void *buf, size_t len, const char *name,
                          const tc_mtx_read_opts *opts, tc_csr **out, tc_mtx_info *info,
                          tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    if (!buf && len > 0)
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_read_mem: no buffer");
    mtx_reader r;
    tc_status st = reader_open_mem(&r, buf, len, name ? name : "<memory>", err);
    if (!st)
        st = name_nomem(&r, read_csr(&r, opts, out, info));
    reader_close(&r);
    return st;
}

/* A matrix as a dense row-major array (pattern entries are 1). */
static tc_status csr_to_dense(const tc_csr *a, double **data, tc_error *err)
{
    double *d = tc_calloc_array((int64_t)a->rows * a->cols, sizeof *d, err);
    if (!d)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
            d[(int64_t)i * a->cols + a->colidx[p]] = a->val ? a->val[p] : 1.0;
    *data = d;
    return TC_OK;
}

static tc_status read_dense(mtx_reader *r, int32_t *rows, int32_t *cols, double **data)
{
    tc_mtx_info info;
    mtx_header h;
    tc_status st = read_header(r, &h, &info);
    tc_mtx_info_clear(&info);
    if (st)
        return st;
    if (!h.is_array) {
        tc_csr *a;
        if ((st = read_coordinate_csr(r, &h, 1, &a)))
            return st;
        st = csr_to_dense(a, data, r->err);
        tc_csr_free(a);
    } else {
        if ((st = check_array_size(r, &h)))
            return st;
        double *d = tc_calloc_array((int64_t)h.rows * h.cols, sizeof *d, r->err);
        if (!d)
            return TC_ERR_NOMEM;
        if ((st = read_array(r, &h, d)))
            free(d);
        else
            *data = d;
    }
    if (!st) {
        *rows = h.rows;
        *cols = h.cols;
    }
    return st;
}

tc_status tc_mtx_read_dense(const char *path, int32_t *rows, int32_t *cols, double **data,
                            tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    *data = NULL;
    if (!path)
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_read_dense: no path");
    mtx_reader r;
    tc_status st = reader_open_path(&r, path, err);
    if (!st)
        st = name_nomem(&r, read_dense(&r, rows, cols, data));
    reader_close(&r);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct mtx_out {
    tc_atomic at;
    const char *name;       /* for messages */
    tc_error *err;
    char *buf;
    size_t n;
} mtx_out;

static tc_status out_open(mtx_out *o, const char *path, tc_error *err)
{
    memset(o, 0, sizeof *o);
    o->name = strcmp(path, "-") == 0 ? "<stdout>" : path;
    o->err = err;
    o->buf = malloc(OUT_BYTES);
    if (!o->buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", o->name);
    tc_status st = tc_atomic_open(&o->at, path, 1, err);
    if (st) {
        free(o->buf);
        o->buf = NULL;
    }
    return st;
}

static tc_status out_flush(mtx_out *o)
{
    if (o->n > 0 && fwrite(o->buf, 1, o->n, o->at.fp) != o->n)
        return tc_error_errno(o->err, TC_ERR_IO, errno, "%s: cannot write", o->name);
    o->n = 0;
    return TC_OK;
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
        st = out_flush(o);
    if (!st)
        st = tc_atomic_commit(&o->at, o->err);
    else
        tc_atomic_abort(&o->at);
    free(o->buf);
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

/* Checks that a has the symmetry it is to be written with, by comparing it
   with its transpose entry by entry (values bit for bit, so that the
   mirrored entries read back identical). */
static tc_status check_symmetry(const tc_csr *a, tc_symmetry sym, const char *name,
                                tc_error *err)
{
    const char *what = tc_symmetry_name(sym);
    if (a->rows != a->cols)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s: cannot write a %" PRId32 " x %" PRId32 " matrix as %s: it is "
                            "not square", name, a->rows, a->cols, what);
    tc_csr *t;
    tc_status st = tc_csr_transpose(a, &t, err);
    if (st)
        return st;
    int skew = sym == TC_SYM_SKEW;
    for (int32_t i = 0; i < a->rows && !st; i++) {
        int64_t p = a->rowptr[i], q = t->rowptr[i];
        int64_t pe = a->rowptr[i + 1], qe = t->rowptr[i + 1];
        for (; (p < pe || q < qe) && !st; p++, q++) {
            /* row i of t lists the j with a(j, i) stored */
            int32_t ja = p < pe ? a->colidx[p] : INT32_MAX;
            int32_t jt = q < qe ? t->colidx[q] : INT32_MAX;
            if (ja != jt) {
                int32_t j = ja < jt ? ja : jt;
                int32_t si = ja < jt ? i : j, sj = ja < jt ? j : i;
                st = tc_error_set(err, TC_ERR_INVALID,
                                  "%s: cannot write as %s: entry (%" PRId32 ", %" PRId32
                                  ") is stored but (%" PRId32 ", %" PRId32 ") is not",
                                  name, what, si + 1, sj + 1, sj + 1, si + 1);
            } else if (a->val && skew && ja == i && a->val[p] != 0.0) {
                st = tc_error_set(err, TC_ERR_INVALID,
                                  "%s: cannot write as %s: diagonal entry (%" PRId32 ", %"
                                  PRId32 ") = %.17g is not zero", name, what, i + 1, i + 1,
                                  a->val[p]);
            } else if (a->val && ja != i) {
                double want = skew ? -t->val[q] : t->val[q];
                if (memcmp(&a->val[p], &want, sizeof want) != 0)
                    st = tc_error_set(err, TC_ERR_INVALID,
                                      "%s: cannot write as %s: entry (%" PRId32 ", %" PRId32
                                      ") = %.17g but (%" PRId32 ", %" PRId32 ") = %.17g", name,
                                      what, i + 1, ja + 1, a->val[p], ja + 1, i + 1, t->val[q]);
            }
        }
    }
    tc_csr_free(t);
    return st;
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
    if (symmetry != TC_SYM_GENERAL &&
        (st = check_symmetry(a, symmetry, name, err)))
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
