/* mtx_header.c: the header of a Matrix Market file: the banner, the
   comment lines and the size line (the choices where files stray from the
   specification are listed in mtx_read.c). */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtx_internal.h"
#include "mtx_scan.h"

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
        return tc_mtx_fail(r, 1, TC_ERR_UNSUPPORTED, "unsupported object '%s' (expected 'matrix')",
                           show(t->s[1], t->len[1]).s);
    banner_word(t, 2, w);
    if (strcmp(w, "coordinate") != 0 && strcmp(w, "array") != 0)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "unknown format '%s' (expected 'coordinate' or 'array')",
                           show(t->s[2], t->len[2]).s);
    h->is_array = strcmp(w, "array") == 0;
    banner_word(t, 3, w);
    if (strcmp(w, "complex") == 0)
        return tc_mtx_fail(r, 1, TC_ERR_UNSUPPORTED,
                           "complex matrices are not supported (field 'complex')");
    if (tc_field_parse(w, &h->field) != 0)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "unknown field '%s' (expected 'real', 'integer' or 'pattern')",
                           show(t->s[3], t->len[3]).s);
    banner_word(t, 4, w);
    if (tc_symmetry_parse(w, &h->symmetry) != 0)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "unknown symmetry '%s' (expected 'general', 'symmetric', "
                           "'skew-symmetric' or 'hermitian')", show(t->s[4], t->len[4]).s);
    if (h->is_array && h->field == TC_FIELD_PATTERN)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "field 'pattern' is not allowed with format 'array'");
    if (h->field == TC_FIELD_PATTERN && h->symmetry == TC_SYM_SKEW)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "symmetry 'skew-symmetric' is not allowed with field 'pattern'");
    return TC_OK;
}

static tc_status read_banner(mtx_reader *r, mtx_header *h, tc_mtx_info *info)
{
    const char *s, *e;
    int more = tc_mtx_next_line(r, &s, &e);
    if (more < 0)
        return r->err->status;
    if (more == 0)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE, "empty file: expected a %%%%MatrixMarket banner");
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
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
                           "expected a '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner, "
                           "found '%s'", show(s, (size_t)(end - s)).s);
    if (t.n != 5)
        return tc_mtx_fail(r, 1, TC_ERR_PARSE,
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
        return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
                           "expected %d fields in the size line (%s), found %d", want,
                           h->is_array ? "rows columns" : "rows columns entries", t->n);
    uint64_t v[3] = { 0, 0, 0 };
    for (int k = 0; k < want; k++) {
        uint64_t max = k < 2 ? INT32_MAX : INT64_MAX;
        int bad = parse_unsigned(t->s[k], t->len[k], max, &v[k]);
        if (bad == 1)
            return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
                               "expected a non-negative integer for %s, found '%s'", size_names[k],
                               show(t->s[k], t->len[k]).s);
        if (bad == 2)
            return tc_mtx_fail(r, r->line, TC_ERR_PARSE, "%s %s exceeds the limit of %" PRIu64,
                               size_names[k], show(t->s[k], t->len[k]).s, max);
    }
    h->rows = (int32_t)v[0];
    h->cols = (int32_t)v[1];
    if (h->symmetry != TC_SYM_GENERAL && h->rows != h->cols)
        return tc_mtx_fail(r, r->line, TC_ERR_PARSE,
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
        int more = tc_mtx_next_line(r, &s, &e);
        if (more < 0)
            return r->err->status;
        if (more == 0)
            return tc_mtx_fail(r, tc_mtx_eof_line(r), TC_ERR_PARSE,
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

tc_status tc_mtx_read_header(mtx_reader *r, mtx_header *h, tc_mtx_info *info)
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
