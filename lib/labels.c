/* labels.c: the original ids of relabelled rows and columns (tc_labels):
   copying, reordering, checking what a file gave, and a permutation of a
   labelled matrix as text: written as ids, one a line, and read back. */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "text_out.h"
#include "names.h"
#include "mtx_internal.h"

void tc_labels_free(tc_labels *l)
{
    if (!l)
        return;
    free(l->id);
    free(l->text);
    free(l->offset);
    free(l);
}

tc_status tc_labels_copy(const tc_labels *l, tc_labels **out, tc_error *err)
{
    tc_labels *c = calloc(1, sizeof *c);
    if (!c)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    c->n = l->n;
    int ok = 1;
    if (l->id && (ok = (c->id = tc_malloc_array(l->n, sizeof *c->id, err)) != NULL))
        memcpy(c->id, l->id, (size_t)l->n * sizeof *c->id);
    if (ok && l->text) {
        int64_t bytes = l->offset[l->n];
        ok = (c->offset = tc_malloc_array((int64_t)l->n + 1, sizeof *c->offset, err)) &&
             (c->text = tc_malloc_array(bytes, 1, err));
        if (ok) {
            memcpy(c->offset, l->offset, ((size_t)l->n + 1) * sizeof *c->offset);
            memcpy(c->text, l->text, (size_t)bytes);
        }
    }
    if (!ok) {
        tc_labels_free(c);
        return TC_ERR_NOMEM;
    }
    *out = c;
    return TC_OK;
}

const char *tc_labels_get(const tc_labels *l, int32_t i, char *buf, size_t size)
{
    if (l->id)
        snprintf(buf, size, "%" PRId64, l->id[i]);
    else
        snprintf(buf, size, "%.*s", (int)(l->offset[i + 1] - l->offset[i]),
                 l->text + l->offset[i]);
    return buf;
}

tc_status tc_labels_permute(const tc_labels *l, const tc_perm *p, tc_labels **out,
                            tc_error *err)
{
    if (p->n != l->n)
        return tc_error_set(err, TC_ERR_ARG, "a permutation of %" PRId32 " for %" PRId32
                            " labels", p->n, l->n);
    tc_labels *c = calloc(1, sizeof *c);
    if (!c)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    c->n = l->n;
    int ok;
    if (l->id) {
        if ((ok = (c->id = tc_malloc_array(l->n, sizeof *c->id, err)) != NULL))
            for (int32_t i = 0; i < l->n; i++)
                c->id[i] = l->id[p->new2old[i]];
    } else {
        ok = (c->offset = tc_malloc_array((int64_t)l->n + 1, sizeof *c->offset, err)) &&
             (c->text = tc_malloc_array(l->offset[l->n], 1, err));
        if (ok)
            c->offset[0] = 0;
        for (int32_t i = 0; ok && i < l->n; i++) {
            int64_t from = l->offset[p->new2old[i]], len = l->offset[p->new2old[i] + 1] - from;
            c->offset[i + 1] = c->offset[i] + len;
            memcpy(c->text + c->offset[i], l->text + from, (size_t)len);
        }
    }
    if (!ok) {
        tc_labels_free(c);
        return TC_ERR_NOMEM;
    }
    *out = c;
    return TC_OK;
}

tc_status tc_labels_write(const char *path, const tc_labels *l, tc_error *err)
{
    text_out o;
    tc_status st = tc_text_out_open(&o, path, err);
    if (st)
        return st;
    for (int32_t i = 0; !st && i < l->n; i++) {
        if (l->id) {
            char *p = tc_text_out_room(&o);
            if (!p) {
                st = err->status;
                break;
            }
            p = put_i64(p, l->id[i]);
            *p++ = '\n';
            o.n = (size_t)(p - o.buf);
        } else if (!(st = tc_text_out_text(&o, l->text + l->offset[i],
                                            (size_t)(l->offset[i + 1] - l->offset[i])))) {
            st = tc_text_out_text(&o, "\n", 1);
        }
    }
    return tc_text_out_close(&o, st);
}

tc_status tc_labels_validate(const tc_labels *l, const char *what, tc_error *err)
{
    if (l->n < 0 || !l->id == !l->text || (l->text && !l->offset))
        return tc_error_set(err, TC_ERR_INVALID, "%s: labels are neither integers nor strings",
                            what);
    if (!l->text)
        return TC_OK;
    if (l->offset[0] != 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: the first label offset is %" PRId64
                            ", not 0", what, l->offset[0]);
    for (int32_t i = 0; i < l->n; i++) {
        int64_t a = l->offset[i], b = l->offset[i + 1];
        if (b < a)
            return tc_error_set(err, TC_ERR_INVALID, "%s: label offsets decrease at %" PRId32,
                                what, i + 1);
        /* a label is one field of a text line: no blank, comma or line
           break would read back as the same label */
        for (int64_t k = a; k < b; k++)
            if (memchr(" \t\r\n,", l->text[k], 5) || l->text[k] == '\0')
                return tc_error_set(err, TC_ERR_INVALID,
                                    "%s: label %" PRId32 " holds a blank, comma, line break "
                                    "or NUL byte", what, i);
        if (a == b)
            return tc_error_set(err, TC_ERR_INVALID, "%s: label %" PRId32 " is empty", what, i);
    }
    return TC_OK;
}

tc_status tc_labels_read_perm(const char *path, const tc_labels *l, tc_perm **out,
                              tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    *out = NULL;
    tc_names nm = { 0 };
    int32_t *idx = tc_malloc_array(l->n, sizeof *idx, err);
    int64_t n = 0;
    mtx_reader r;
    tc_status st = tc_mtx_reader_open_path(&r, path, err);
    r.what = "a list of ids";
    if (!idx && !st)
        st = TC_ERR_NOMEM;
    for (int32_t i = 0; !st && i < l->n; i++) {
        char digits[24];
        const char *s = digits;
        size_t len;
        if (l->id) {
            len = (size_t)(put_i64(digits, l->id[i]) - digits);
        } else {
            s = l->text + l->offset[i];
            len = (size_t)(l->offset[i + 1] - l->offset[i]);
        }
        if (tc_names_intern(&nm, s, len, err) < 0)
            st = err->status;
    }
    while (!st) {
        const char *s, *e;
        int more = tc_mtx_next_line(&r, &s, &e);
        if (more <= 0) {
            st = more < 0 ? err->status : TC_OK;
            break;
        }
        s = skip_blanks(s);
        while (e > s && is_blank(e[-1]))
            e--;
        if (s == e || *s == '#' || *s == '%')
            continue;
        const char *blank = s;
        while (blank < e && !is_blank(*blank))
            blank++;
        int64_t k = tc_names_find(&nm, s, (size_t)(e - s));
        if (blank < e)
            st = tc_mtx_fail(&r, r.line, TC_ERR_PARSE, "expected one id, found '%s'",
                             show(s, (size_t)(e - s)).s);
        else if (k < 0)
            st = tc_mtx_fail(&r, r.line, TC_ERR_PARSE, "unknown id '%s' (not a row's)",
                             show(s, (size_t)(e - s)).s);
        else if (n == l->n)
            st = tc_mtx_fail(&r, r.line, TC_ERR_PARSE, "more ids than the %" PRId32 " rows",
                             l->n);
        else
            idx[n++] = (int32_t)k;
    }
    if (!st && n < l->n)
        st = tc_mtx_fail(&r, tc_mtx_eof_line(&r), TC_ERR_PARSE,
                         "%" PRId64 " ids for %" PRId32 " rows", n, l->n);
    if (!st)
        st = tc_perm_from_array(out, l->n, idx, TC_PERM_NEW2OLD, r.name, err);
    tc_mtx_reader_close(&r);
    tc_names_clear(&nm);
    free(idx);
    return st;
}
