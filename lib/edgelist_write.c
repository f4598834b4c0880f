/* edgelist_write.c: a matrix as an edge list, one stored entry per line,
   through text_out.c (atomic, gzip for a .gz name). With labels the ids
   are the original ones; without, 0-based indices after a header comment
   that keeps the shape (tc_edgelist_read honours it), since an edge list
   alone cannot tell trailing empty rows or a rectangular shape. */
#include "config.h"
#include <inttypes.h>
#include <string.h>
#include "text_out.h"

/* A comma for names ending in .csv (before any .gz), else a tab. */
static char separator_for(const char *path)
{
    size_t n = strlen(path);
    if (n >= 3 && strcmp(path + n - 3, ".gz") == 0)
        n -= 3;
    return n >= 4 && strncmp(path + n - 4, ".csv", 4) == 0 ? ',' : '\t';
}

/* Id k: its label, or the index. Labels longer than a line's room go
   through tc_text_out_text. */
static char *put_id(text_out *o, char *p, const tc_labels *l, int32_t k)
{
    if (!l)
        return put_u64(p, (uint64_t)k);
    if (l->id)
        return put_i64(p, l->id[k]);
    size_t len = (size_t)(l->offset[k + 1] - l->offset[k]);
    if (len <= TEXT_LINE_MAX / 4) {
        memcpy(p, l->text + l->offset[k], len);
        return p + len;
    }
    o->n = (size_t)(p - o->buf);
    if (tc_text_out_text(o, l->text + l->offset[k], len) || !(p = tc_text_out_room(o)))
        return NULL;
    return p;
}

static tc_status write_edges(text_out *o, const tc_csr *a, const tc_labels *l, char sep)
{
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            char *p = tc_text_out_room(o);
            if (!p || !(p = put_id(o, p, l, i)))
                return o->err->status;
            *p++ = sep;
            if (!(p = put_id(o, p, l, a->colidx[k])))
                return o->err->status;
            if (a->val) {
                *p++ = sep;
                p = put_real(p, a->val[k]);
            }
            *p++ = '\n';
            o->n = (size_t)(p - o->buf);
        }
    return TC_OK;
}

tc_status tc_edgelist_write(const char *path, const tc_csr *a, const tc_labels *labels,
                            tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    if (!path || !a)
        return tc_error_set(err, TC_ERR_ARG, "tc_edgelist_write: no path or matrix");
    const char *name = strcmp(path, "-") == 0 ? "<stdout>" : path;
    if (labels && (labels->n != a->rows || labels->n != a->cols))
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s: %" PRId32 " labels for a %" PRId32 " x %" PRId32 " matrix",
                            name, labels->n, a->rows, a->cols);
    text_out o;
    tc_status st = tc_text_out_open(&o, path, err);
    if (st)
        return st;
    if (!labels) {
        char line[TEXT_LINE_MAX];
        int n = snprintf(line, sizeof line, "# tcsparse edgelist: rows=%" PRId32 " cols=%"
                         PRId32 " base=0\n", a->rows, a->cols);
        st = tc_text_out_text(&o, line, (size_t)n);
    }
    if (!st)
        st = write_edges(&o, a, labels, separator_for(path));
    return tc_text_out_close(&o, st);
}
