/* edgelist_read.c: edge lists ("SOURCE TARGET [WEIGHT]" per line), plain
   or gzip, read at Matrix Market's speed by the same means: the input is
   mtx_source.c's (blocks of complete lines, gzip by content), numbers are
   mtx_scan.h's scanners, and a fast path takes the common line (two
   numeric ids and maybe a weight, separated by blanks or a comma) while
   every other line goes to a slow path that reads it exactly or says what
   is wrong with it, with the file name and line number.

   Ids: a token of digits is a number (at most 18 digits: 007 is 7); any
   other token, but a negative number, is a name. Numbers are used as
   indices (minus the index base) unless they are relabelled: with names
   in the file (row i: the i-th id to appear; numbers met before the first
   name are taken again as their decimal text, so the order stays the
   file's), or with numbers that would leave most rows empty (more than
   half of the range they span, and more than SPARSE_MIN_EMPTY rows), or
   with TC_RELABEL_ALWAYS (row i: the i-th smallest id). The labels keep
   the original ids. Choices where edge lists differ:
   - fields are separated by blanks, tabs, or one comma with blanks around
     it; # and % start comment lines; blank lines are skipped;
   - every edge line has the field count of the first (2 or 3);
   - the index base, when not given, is 0 when an id 0 appears, else 1
     (told back as guessed: a file whose ids start at 1 may be 0-based
     with vertex 0 isolated);
   - duplicates are summed (or refused), as in Matrix Market. */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "mtx_internal.h"
#include "mtx_scan.h"
#include "text_out.h"
#include "names.h"

enum {
    MIN_EDGE_CAP = 1 << 16,     /* first room for edges from a pipe */
    MAX_FIRST_CAP = 1 << 26,    /* first room for edges from a file (pages
                                   untouched until used) */
    MIN_EDGE_BYTES = 4,         /* the shortest edge line: "1 2\n" */
    MAX_ID_DIGITS = 18,         /* a numeric id fits in int64 */
    SPARSE_MIN_EMPTY = 1024,    /* relabel only when this many rows would be empty */
    MAX_FIELDS = 3
};

static const char header_words[] = "tcsparse edgelist:";

/* The edges read: ids (numbers) or name indices (names). */
typedef struct edges {
    uint64_t *src, *dst;
    double *w;              /* weights, with 3 fields */
    int64_t n, cap;
} edges;

typedef struct el_state {
    mtx_reader *r;
    tc_edgelist_opts o;
    int ncols;              /* fields per edge line; 0 before the first */
    int64_t ncols_line;     /* the line that set it */
    int named;              /* the ids are names: edges hold name indices */
    uint64_t max_id[2];     /* largest source and target ids */
    int64_t max_line[2];
    int64_t zero_line;      /* the first line with an id 0, 0: none */
    int header;             /* a tcsparse header gave the shape and base */
    int32_t hrows, hcols;
    int hbase;
    edges e;
    tc_names nm;            /* the ids, once they are names */
} el_state;

static tc_status edges_reserve(el_state *st, int64_t cap)
{
    edges *e = &st->e;
    tc_error *err = st->r->err;
    uint64_t *s = tc_mtx_grow_array(e->src, cap, sizeof *s, err);
    if (s)
        e->src = s;
    uint64_t *d = s ? tc_mtx_grow_array(e->dst, cap, sizeof *d, err) : NULL;
    if (d)
        e->dst = d;
    double *w = d && st->ncols == 3 ? tc_mtx_grow_array(e->w, cap, sizeof *w, err) : NULL;
    if (w)
        e->w = w;
    if (!s || !d || (st->ncols == 3 && !w))
        return TC_ERR_NOMEM;
    e->cap = cap;
    return TC_OK;
}

/* The index of the name [s, s + len), added when new; -1 on error, with
   the line (memory running out is named by read_edgelist). */
static int64_t intern(el_state *st, const char *s, size_t len)
{
    int64_t k = tc_names_intern(&st->nm, s, len, st->r->err);
    if (k < 0 && st->r->err->status != TC_ERR_NOMEM)
        tc_error_prefix(st->r->err, st->r->err->status, "%s:%" PRId64, st->r->name, st->r->line);
    return k;
}

/* A number as the name its decimal text gives. */
static int64_t intern_number(el_state *st, uint64_t v)
{
    char digits[24];
    return intern(st, digits, (size_t)(put_u64(digits, v) - digits));
}

/* Edges read so far, taken again with names for ids: numbers become the
   names their decimal text gives, in the order they appeared. */
static tc_status switch_to_names(el_state *st)
{
    edges *e = &st->e;
    for (int64_t k = 0; k < e->n; k++) {
        int64_t s = intern_number(st, e->src[k]), d = s < 0 ? -1 : intern_number(st, e->dst[k]);
        if (d < 0)
            return st->r->err->status;
        e->src[k] = (uint64_t)s;
        e->dst[k] = (uint64_t)d;
    }
    st->named = 1;
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                    */
/* ------------------------------------------------------------------------ */

/* The separator between two fields: blanks, or one comma with blanks
   around it. Its end, or NULL when there is none. */
static inline const char *skip_sep(const char *s)
{
    if (*s == ' ' || *s == '\t') {
        s = skip_blanks(s);
        return *s == ',' ? skip_blanks(s + 1) : s;
    }
    return *s == ',' ? skip_blanks(s + 1) : NULL;
}

static inline const char *line_end(const char *s)
{
    s = skip_blanks(s);
    return *s == '\n' ? s + 1 : NULL;
}

/* An id's number: its largest and first zero tracked, with line. */
static inline void note_id(el_state *st, int which, uint64_t v, int64_t line)
{
    if (v == 0 && !st->zero_line)
        st->zero_line = line;
    if (v > st->max_id[which] || !st->max_line[which]) {
        st->max_id[which] = v;
        st->max_line[which] = line;
    }
}

/* A numeric id: up to 7 digits eight bytes at a time (scan_index, the
   Matrix Market reader's), longer ones digit by digit. */
static inline const char *scan_id(const char *s, uint64_t *v)
{
    uint32_t small;
    const char *e = scan_index(s, &small);
    if (e) {
        *v = small;
        return e;
    }
    return scan_digits(s, MAX_ID_DIGITS, v);
}

/* The fast path: lines of two numeric ids (and a weight, with 3 fields)
   stored from p on until a line it does not take, lim, or full room.
   Returns where it stopped; the lines it took are counted into r->line. */
static const char *fast_edges(el_state *st, const char *p, const char *lim)
{
    edges *e = &st->e;
    const int weighted = st->ncols == 3;
    int64_t n = e->n, line = st->r->line;
    while (p < lim && n < e->cap) {
        uint64_t u, v;
        double w = 1.0;
        const char *s = scan_id(skip_blanks(p), &u);
        if (!s || !(s = skip_sep(s)) || !(s = scan_id(s, &v)))
            break;
        if (weighted && (!(s = skip_sep(s)) || !(s = scan_real(s, &w))))
            break;
        if (!(s = line_end(s)))
            break;
        line++;
        note_id(st, 0, u, line);
        note_id(st, 1, v, line);
        e->src[n] = u;
        e->dst[n] = v;
        if (weighted)
            e->w[n] = w;
        n++;
        p = s;
    }
    e->n = n;
    st->r->line = line;
    return p;
}

typedef struct fields {
    int n;
    const char *s[MAX_FIELDS + 1];
    size_t len[MAX_FIELDS + 1];
} fields;

/* Splits [s, e) into fields; a comma with no field before or after it is
   an error. */
static tc_status split(const el_state *st, int64_t line, const char *s, const char *e, fields *f)
{
    f->n = 0;
    s = skip_blanks(s);
    while (s < e) {
        if (*s == ',')
            return tc_mtx_fail(st->r, line, TC_ERR_PARSE, "empty field before a ','");
        const char *start = s;
        while (s < e && !is_blank(*s) && *s != ',')
            s++;
        if (f->n <= MAX_FIELDS) {
            f->s[f->n] = start;
            f->len[f->n] = (size_t)(s - start);
        }
        f->n++;
        s = skip_blanks(s);
        if (s < e && *s == ',') {
            s = skip_blanks(s + 1);
            if (s == e)
                return tc_mtx_fail(st->r, line, TC_ERR_PARSE, "empty field after the last ','");
        }
    }
    return TC_OK;
}

/* "# tcsparse edgelist: rows=R cols=C base=B" (text after the comment
   character), before the first edge: the shape and base. */
static tc_status read_header(el_state *st, int64_t line, const char *s, const char *e)
{
    s = skip_blanks(s);
    size_t hw = sizeof header_words - 1;
    if ((size_t)(e - s) < hw || memcmp(s, header_words, hw) != 0 || st->ncols)
        return TC_OK;
    char text[160];
    size_t len = (size_t)(e - s) < sizeof text - 1 ? (size_t)(e - s) : sizeof text - 1;
    memcpy(text, s, len);
    text[len] = '\0';
    int32_t rows, cols;
    int base, used = -1;
    if (sscanf(text + hw, " rows=%" SCNd32 " cols=%" SCNd32 " base=%d %n", &rows, &cols, &base,
               &used) != 3 || used < 0 || text[hw + (size_t)used] != '\0' || rows < 0 ||
        cols < 0 || (base != 0 && base != 1))
        return tc_mtx_fail(st->r, line, TC_ERR_PARSE,
                           "malformed header: expected '# %s rows=R cols=C base=0|1'",
                           header_words);
    st->header = 1;
    st->hrows = rows;
    st->hcols = cols;
    st->hbase = base;
    return TC_OK;
}

static int is_digits(const char *s, size_t len)
{
    for (size_t k = 0; k < len; k++)
        if ((unsigned)((unsigned char)s[k] - '0') >= 10)
            return 0;
    return len > 0;
}

static const char *const end_names[] = { "source", "target" };

/* One id field: a number (into *v; noted) or, as a name, its index. */
static tc_status slow_id(el_state *st, int64_t line, int which, const char *s, size_t len,
                         uint64_t *v)
{
    shown tok = show(s, len);
    if (!is_digits(s, len)) {
        int64_t k = intern(st, s, len);
        if (k < 0)
            return st->r->err->status;
        *v = (uint64_t)k;
        return TC_OK;
    }
    if (parse_unsigned(s, len, INT64_MAX, v))
        return tc_mtx_fail(st->r, line, TC_ERR_PARSE, "%s id %s does not fit in 64 bits",
                           end_names[which], tok.s);
    if (!st->named) {
        note_id(st, which, *v, line);
        return TC_OK;
    }
    int64_t k = intern_number(st, *v);
    if (k < 0)
        return st->r->err->status;
    *v = (uint64_t)k;
    return TC_OK;
}

static tc_status slow_weight(const el_state *st, int64_t line, const char *s, size_t len,
                             double *w)
{
    if (parse_nonfinite(s, len, w) || scan_real(s, w) == s + len)
        return TC_OK;
    char *end;
    if (isinf(strtod(s, &end)) && end == s + len)
        return tc_mtx_fail(st->r, line, TC_ERR_PARSE, "weight %s is out of the range of a double",
                           show(s, len).s);
    return tc_mtx_fail(st->r, line, TC_ERR_PARSE, "expected a real weight, found '%s'",
                       show(s, len).s);
}

/* The authoritative reading of one line: a comment (maybe the header), a
   blank line, or an edge, or what is wrong with it. */
static tc_status slow_line(el_state *st, int64_t line, const char *s, const char *e)
{
    const char *t = skip_blanks(s);
    if (*t == '#' || *t == '%')
        return read_header(st, line, t + 1, e);
    if (t == e)
        return TC_OK;
    fields f;
    tc_status rc = split(st, line, t, e, &f);
    if (rc)
        return rc;
    if (!st->ncols && f.n != 2 && f.n != 3)
        return tc_mtx_fail(st->r, line, TC_ERR_PARSE,
                           "expected 2 or 3 fields (SOURCE TARGET [WEIGHT]), found %d", f.n);
    if (st->ncols && f.n != st->ncols)
        return tc_mtx_fail(st->r, line, TC_ERR_PARSE,
                           "expected %d fields as on line %" PRId64 ", found %d", st->ncols,
                           st->ncols_line, f.n);
    int has_names = 0;
    for (int k = 0; k < 2; k++) {
        if (f.s[k][0] == '-' && f.len[k] > 1 && is_digits(f.s[k] + 1, f.len[k] - 1))
            return tc_mtx_fail(st->r, line, TC_ERR_PARSE,
                               "negative %s id %s (ids are numbers from 0, or names)",
                               end_names[k], show(f.s[k], f.len[k]).s);
        if (!is_digits(f.s[k], f.len[k])) {
            if (st->o.relabel == TC_RELABEL_NEVER || st->header)
                return tc_mtx_fail(st->r, line, TC_ERR_PARSE,
                                   "expected a numeric %s id (%s), found '%s'", end_names[k],
                                   st->header ? "the tcsparse header makes ids indices"
                                              : "ids are not relabelled",
                                   show(f.s[k], f.len[k]).s);
            has_names = 1;
        }
    }
    if (!st->ncols) {
        st->ncols = f.n;
        st->ncols_line = line;
        if ((rc = edges_reserve(st, st->e.cap)))
            return rc;
    }
    if (has_names && !st->named && (rc = switch_to_names(st)))
        return rc;
    uint64_t u, v;
    double w = 1.0;
    if ((rc = slow_id(st, line, 0, f.s[0], f.len[0], &u)) ||
        (rc = slow_id(st, line, 1, f.s[1], f.len[1], &v)) ||
        (f.n == 3 && (rc = slow_weight(st, line, f.s[2], f.len[2], &w))))
        return rc;
    edges *ed = &st->e;
    ed->src[ed->n] = u;
    ed->dst[ed->n] = v;
    if (f.n == 3)
        ed->w[ed->n] = w;
    ed->n++;
    return TC_OK;
}

/* Every line: the fast path takes what it can (numeric ids once the
   field count is known), the slow path the rest one at a time. */
static tc_status read_lines(el_state *st)
{
    mtx_reader *r = st->r;
    const char *p = r->buf + r->pos, *lim = r->buf + r->lim;
    tc_status rc;
    for (;;) {
        if (p == lim) {
            r->pos = r->lim;
            int more = tc_mtx_refill(r);
            if (more < 0)
                return r->err->status;
            if (more == 0)
                return TC_OK;
            p = r->buf + r->pos;
            lim = r->buf + r->lim;
        }
        if (st->e.n == st->e.cap && (rc = edges_reserve(st, 2 * st->e.cap)))
            return rc;
        if (st->ncols && !st->named) {
            p = fast_edges(st, p, lim);
            if (p == lim || st->e.n == st->e.cap)
                continue;
        }
        r->line++;
        const char *eol = memchr(p, '\n', (size_t)(lim - p));
        if ((rc = tc_mtx_refuse_nul(r, r->line, p, eol)) || (rc = slow_line(st, r->line, p, eol)))
            return rc;
        p = eol + 1;
    }
}

/* ------------------------------------------------------------------------ */
/* Indices                                                                  */
/* ------------------------------------------------------------------------ */

/* Sorts x[0..n) (LSD radix, a byte at a time up to the largest's top
   byte), using tmp of n elements. */
static void radix_sort(uint64_t *x, uint64_t *tmp, int64_t n, uint64_t max)
{
    for (int shift = 0; shift < 64 && (max >> shift); shift += 8) {
        int64_t count[257] = { 0 };
        for (int64_t k = 0; k < n; k++)
            count[(x[k] >> shift & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (int64_t k = 0; k < n; k++)
            tmp[count[x[k] >> shift & 0xff]++] = x[k];
        memcpy(x, tmp, (size_t)n * sizeof *x);
    }
}

static int32_t rank_of(const uint64_t *sorted, int32_t n, uint64_t v)
{
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The distinct ids, increasing, into labels, and each id replaced by its
   rank. */
static tc_status relabel_numbers(el_state *st, tc_labels *l)
{
    edges *e = &st->e;
    tc_error *err = st->r->err;
    uint64_t max = st->max_id[0] > st->max_id[1] ? st->max_id[0] : st->max_id[1];
    uint64_t *all = tc_malloc_array(2 * e->n, sizeof *all, err);
    uint64_t *tmp = all ? tc_malloc_array(2 * e->n, sizeof *tmp, err) : NULL;
    if (!tmp) {
        free(all);
        return TC_ERR_NOMEM;
    }
    memcpy(all, e->src, (size_t)e->n * sizeof *all);
    memcpy(all + e->n, e->dst, (size_t)e->n * sizeof *all);
    radix_sort(all, tmp, 2 * e->n, max);
    free(tmp);
    int64_t n = 0;
    for (int64_t k = 0; k < 2 * e->n; k++)
        if (k == 0 || all[k] != all[n - 1])
            all[n++] = all[k];
    if (n >= INT32_MAX) {
        free(all);
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: more than %d distinct ids",
                            st->r->name, INT32_MAX - 1);
    }
    for (int64_t k = 0; k < e->n; k++) {
        e->src[k] = (uint64_t)rank_of(all, (int32_t)n, e->src[k]);
        e->dst[k] = (uint64_t)rank_of(all, (int32_t)n, e->dst[k]);
    }
    l->n = (int32_t)n;
    l->id = (int64_t *)all;     /* ids are below 2^63 */
    return TC_OK;
}

/* Whether numeric ids from lo on, spanning span indices, would leave most
   rows empty: more than half of them, and more than SPARSE_MIN_EMPTY. */
static tc_status ids_are_sparse(el_state *st, uint64_t lo, uint64_t span, int *sparse)
{
    edges *e = &st->e;
    *sparse = 1;
    if (span > (uint64_t)(4 * e->n + 2 * SPARSE_MIN_EMPTY))
        return TC_OK;   /* 2 n ids at most: fewer than half */
    uint8_t *seen = tc_calloc_array((int64_t)span, 1, st->r->err);
    if (!seen)
        return TC_ERR_NOMEM;
    uint64_t distinct = 0;
    for (int64_t k = 0; k < e->n; k++) {
        uint64_t a = e->src[k] - lo, b = e->dst[k] - lo;
        distinct += !seen[a];
        seen[a] = 1;
        distinct += !seen[b];
        seen[b] = 1;
    }
    free(seen);
    uint64_t empty = span - distinct;
    *sparse = empty > distinct && empty > SPARSE_MIN_EMPTY;
    return TC_OK;
}

/* Numeric ids used as indices from base: checked against the shape
   (the header's, else the int32 range) at the line of the largest. */
static tc_status check_indices(el_state *st, int base, int32_t *rows, int32_t *cols)
{
    uint64_t n = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t index = st->max_id[k] - (uint64_t)base;
        int32_t bound = st->header ? (k ? st->hcols : st->hrows) : INT32_MAX;
        if (index >= (uint64_t)bound && st->header)
            return tc_mtx_fail(st->r, st->max_line[k], TC_ERR_PARSE,
                               "%s id %" PRIu64 " is past the %" PRId32 " %s that the tcsparse "
                               "header declares (%d-based)", end_names[k], st->max_id[k],
                               bound, k ? "columns" : "rows", base);
        if (index >= (uint64_t)bound)
            return tc_mtx_fail(st->r, st->max_line[k], TC_ERR_PARSE,
                               "%s id %" PRIu64 " is past the largest index, %" PRId32
                               " (%d-based; ids are not relabelled)", end_names[k],
                               st->max_id[k], bound - 1 + base, base);
        n = index + 1 > n ? index + 1 : n;
    }
    *rows = st->header ? st->hrows : (int32_t)n;
    *cols = st->header ? st->hcols : (int32_t)n;
    return TC_OK;
}

/* The ids as indices: relabelled (into *l) or numbers less the base; the
   shape, and the base used (-1: relabelled). */
static tc_status index_ids(el_state *st, tc_labels *l, int32_t *rows, int32_t *cols, int *base,
                           int *guessed)
{
    if (st->named) {
        l->n = st->nm.n;
        l->text = st->nm.text;
        l->offset = st->nm.offset;
        st->nm.text = NULL;
        st->nm.offset = NULL;
        *rows = *cols = l->n;
        *base = -1;
        return TC_OK;
    }
    const int given = st->o.index_base >= 0;
    *base = given ? st->o.index_base : st->header ? st->hbase : st->zero_line ? 0 : 1;
    if (*base == 1 && st->zero_line)
        return tc_mtx_fail(st->r, st->zero_line, TC_ERR_PARSE,
                           "id 0 where ids are 1-based (%s)",
                           given ? "--index-base 1" : "as the tcsparse header says");
    uint64_t max = st->max_id[0] > st->max_id[1] ? st->max_id[0] : st->max_id[1];
    int relabel = st->o.relabel == TC_RELABEL_ALWAYS;
    tc_status rc;
    if (st->o.relabel == TC_RELABEL_AUTO && !st->header) {
        if (max - (uint64_t)*base >= (uint64_t)INT32_MAX)
            relabel = 1;
        else if ((rc = ids_are_sparse(st, (uint64_t)*base, max - (uint64_t)*base + 1, &relabel)))
            return rc;
    }
    if (relabel) {
        *base = -1;
        if ((rc = relabel_numbers(st, l)))
            return rc;
        *rows = *cols = l->n;
        return TC_OK;
    }
    *guessed = !given && !st->header && !st->zero_line;
    return check_indices(st, *base, rows, cols);
}

/* The edges as a CSR matrix (the id arrays become int32 indices in
   place: entry k's 4 bytes land on bytes already read). */
static tc_status build(el_state *st, tc_csr **out, tc_labels **labels, tc_edgelist_info *info)
{
    mtx_reader *r = st->r;
    edges *e = &st->e;
    if (e->n == 0)
        return tc_mtx_fail(r, tc_mtx_eof_line(r), TC_ERR_PARSE,
                           "no edges: expected lines 'SOURCE TARGET [WEIGHT]'");
    tc_labels *l = calloc(1, sizeof *l);
    if (!l)
        return tc_error_set(r->err, TC_ERR_NOMEM, "out of memory");
    int32_t rows = 0, cols = 0;
    int base = -1, guessed = 0;
    tc_status rc = index_ids(st, l, &rows, &cols, &base, &guessed);
    if (!rc && st->o.undirected && rows != cols)
        rc = tc_error_set(r->err, TC_ERR_INVALID, "%s: an undirected graph needs a square "
                          "matrix, not %" PRId32 " x %" PRId32, r->name, rows, cols);
    if (rc) {
        tc_labels_free(l);
        return rc;
    }
    uint64_t shift = base > 0 ? (uint64_t)base : 0;
    int32_t *ri = (int32_t *)e->src, *ci = (int32_t *)e->dst;
    for (int64_t k = 0; k < e->n; k++) {
        ri[k] = (int32_t)(e->src[k] - shift);
        ci[k] = (int32_t)(e->dst[k] - shift);
    }
    rc = tc_csr_from_coo_sym(out, rows, cols, e->n, ri, ci, e->w,
                             st->o.undirected ? TC_SYM_SYMMETRIC : TC_SYM_GENERAL,
                             st->o.sum_duplicates, r->err);
    if (rc) {
        tc_error_prefix(r->err, rc, "%s", r->name);
        tc_labels_free(l);
        return rc;
    }
    (*out)->field = e->w ? TC_FIELD_REAL : TC_FIELD_PATTERN;
    if (labels && (l->id || l->text))
        *labels = l;
    else
        tc_labels_free(l);
    if (info) {
        info->edges = e->n;
        info->weighted = e->w != NULL;
        info->base = base;
        info->base_guessed = guessed;
    }
    return TC_OK;
}

/* ------------------------------------------------------------------------ */

static tc_status read_edgelist(mtx_reader *r, const tc_edgelist_opts *opts, tc_csr **out,
                               tc_labels **labels, tc_edgelist_info *info)
{
    static const tc_edgelist_opts defaults = TC_EDGELIST_DEFAULTS;
    el_state st = { .r = r, .o = opts ? *opts : defaults };
    r->what = "an edge list";
    int64_t bound = tc_mtx_lines_bound(r, MIN_EDGE_BYTES);
    int64_t cap = bound < 0 ? MIN_EDGE_CAP : bound < MAX_FIRST_CAP ? bound : MAX_FIRST_CAP;
    tc_status rc = edges_reserve(&st, cap > 0 ? cap : 1);
    if (!rc)
        rc = read_lines(&st);
    if (!rc)
        rc = build(&st, out, labels, info);
    if (rc == TC_ERR_NOMEM)
        tc_error_prefix(r->err, rc, "%s", r->name);
    free(st.e.src);
    free(st.e.dst);
    free(st.e.w);
    tc_names_clear(&st.nm);
    return rc;
}

static void start(tc_csr **out, tc_labels **labels, tc_edgelist_info *info)
{
    *out = NULL;
    if (labels)
        *labels = NULL;
    if (info)
        memset(info, 0, sizeof *info);
}

tc_status tc_edgelist_read(const char *path, const tc_edgelist_opts *opts, tc_csr **out,
                           tc_labels **labels, tc_edgelist_info *info, tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    start(out, labels, info);
    if (!path)
        return tc_error_set(err, TC_ERR_ARG, "tc_edgelist_read: no path");
    mtx_reader r;
    tc_status rc = tc_mtx_reader_open_path(&r, path, err);
    if (!rc)
        rc = read_edgelist(&r, opts, out, labels, info);
    tc_mtx_reader_close(&r);
    return rc;
}

tc_status tc_edgelist_read_mem(const void *buf, size_t len, const char *name,
                               const tc_edgelist_opts *opts, tc_csr **out, tc_labels **labels,
                               tc_edgelist_info *info, tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    start(out, labels, info);
    if (!buf && len > 0)
        return tc_error_set(err, TC_ERR_ARG, "tc_edgelist_read_mem: no buffer");
    mtx_reader r;
    tc_status rc = tc_mtx_reader_open_mem(&r, buf, len, name ? name : "<memory>", err);
    if (!rc)
        rc = read_edgelist(&r, opts, out, labels, info);
    tc_mtx_reader_close(&r);
    return rc;
}
