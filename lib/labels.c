/* labels.c: the original ids of relabelled rows and columns (tc_labels):
   copying, reordering, checking what a file gave, and writing them as
   text, one a line (a permutation of a labelled matrix). */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "text_out.h"

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
