/* mtx_read.c: Matrix Market reading: coordinate and array files; real,
   integer and pattern fields; general, symmetric, skew-symmetric and
   hermitian symmetry; plain or gzip-compressed. The data lines and the
   matrix built from them are here; the input is in mtx_source.c, the
   header in mtx_header.c, the scanners in mtx_scan.h.

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
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mtx_internal.h"
#include "mtx_scan.h"
#include "search.h"

enum {
    MIN_ENTRY_CAP = 1 << 16,    /* first size of the triplet arrays when the
                                   input size is unknown (a pipe) */
    MIN_ENTRY_BYTES = 4,        /* the shortest entry line: "1 1\n" */
    MIN_VALUE_BYTES = 2         /* the shortest array line: "1\n" */
};

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
        int64_t *s = tc_mtx_grow_array(m->skip, cap, sizeof *s, r->err);
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
        return tc_mtx_fail(r, line, TC_ERR_PARSE,
                           "expected a positive integer %s index, found '%s'", index_names[k],
                           show(t->s[k], t->len[k]).s);
    if (bad == 2 || v == 0 || v > (uint64_t)bound)
        return tc_mtx_fail(r, line, TC_ERR_PARSE,
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
            return tc_mtx_fail(r, line, TC_ERR_PARSE, "expected an integer value, found '%s'",
                               tok.s);
        if (bad == 2)
            return tc_mtx_fail(r, line, TC_ERR_PARSE, "integer value %s does not fit in 64 bits",
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
        return tc_mtx_fail(r, line, TC_ERR_PARSE, "value %s is out of the range of a double",
                           tok.s);
    return tc_mtx_fail(r, line, TC_ERR_PARSE, "expected a real value, found '%s'", tok.s);
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
        return tc_mtx_fail(r, line, TC_ERR_PARSE, "expected %d field%s, found %d", want,
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
    int32_t *ri = tc_mtx_grow_array(k->ri, cap, sizeof *ri, err);
    if (ri)
        k->ri = ri;
    int32_t *ci = ri ? tc_mtx_grow_array(k->ci, cap, sizeof *ci, err) : NULL;
    if (ci)
        k->ci = ci;
    double *v = ci && values ? tc_mtx_grow_array(k->v, cap, sizeof *v, err) : NULL;
    if (v)
        k->v = v;
    if (!ri || !ci || (values && !v))
        return TC_ERR_NOMEM;
    k->cap = cap;
    return TC_OK;
}

/* Room for the entries first reserved. The size line is trusted only as
   far as the input size bounds it, so that a hostile size line gets no
   huge allocation, while a genuine file gets its arrays at once, without
   growing them (which copies and faults pages again). A pipe starts small
   and grows. */
static int64_t first_capacity(const mtx_reader *r, const mtx_header *h)
{
    int64_t bound = tc_mtx_lines_bound(r, MIN_ENTRY_BYTES);
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
        return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
                           "too many values: a %" PRId32 " x %" PRId32 " %s array lists %" PRId64,
                           h->rows, h->cols, tc_symmetry_name(h->symmetry), h->entries);
    return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
                       "too many entries: the size line declares %" PRId64, h->entries);
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
            int more = tc_mtx_refill(r);
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
        /* The fast path stops at a NUL (no digit, blank or line end): name
           it here, where the slow path would call it a bad number or skip
           it in a comment. Only refused lines pay for the search. */
        if ((st = tc_mtx_refuse_nul(r, r->line, p, eol)))
            return st;
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
            return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
                               "skew-symmetric matrix with a nonzero diagonal entry (%" PRIu32
                               ", %" PRIu32 ") = %.17g", x.i, x.j, x.v);
        put_entry(k, h, &x);
    }
    if (k->n < h->entries)
        return tc_mtx_fail(r, tc_mtx_eof_line(r), TC_ERR_PARSE,
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
    return tc_lower_bound_i32(a->colidx, a->rowptr[i], a->rowptr[i + 1] - 1, j);
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
                st = tc_mtx_fail(r, line_of(lm, e), TC_ERR_INVALID,
                                 "duplicate entry (%" PRId32 ", %" PRId32 "), first given at line %"
                                 PRId64, i + 1, j + 1, line_of(lm, f));
            else
                st = tc_mtx_fail(r, line_of(lm, e), TC_ERR_INVALID,
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
    int64_t bound = tc_mtx_lines_bound(r, MIN_VALUE_BYTES);
    if (bound >= 0 && h->entries > bound)
        return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
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
    tc_status st = tc_mtx_read_header(r, &h, &local);
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
        tc_error_prefix(r->err, st, "%s", r->name);
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
    tc_status st = tc_mtx_reader_open_path(&r, path, err);
    r.prog = prog;
    if (!st)
        st = name_nomem(&r, read_csr(&r, opts, out, info));
    tc_mtx_reader_close(&r);
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
    tc_status st = tc_mtx_reader_open_mem(&r, buf, len, name ? name : "<memory>", err);
    if (!st)
        st = name_nomem(&r, read_csr(&r, opts, out, info));
    tc_mtx_reader_close(&r);
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
    tc_status st = tc_mtx_read_header(r, &h, &info);
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
    tc_status st = tc_mtx_reader_open_path(&r, path, err);
    if (!st)
        st = name_nomem(&r, read_dense(&r, rows, cols, data));
    tc_mtx_reader_close(&r);
    return st;
}
