/* h5labels.c: /labels of a .tcf.h5 (layout 1.1, man/tcf.h5.5): the
   original ids of rows and columns, for matrices read from an edge list
   whose ids were relabelled. Integer ids are one int64 dataset; names are
   their UTF-8 bytes end to end in `text`, cut by `offset` (n + 1 entries),
   which plain h5py reads without a string type of HDF5's. */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "h5internal.h"

tc_status tc_h5_write_labels(hid_t file, const char *fname, const tc_h5grp *parent,
                             const char *name, const tc_labels *l, int compress, tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, parent, name, compress, err);
    if (st)
        return st;
    st = tc_h5grp_put_attr_str(&g, "kind", l->id ? "integer" : "string", err);
    if (!st && l->id)
        st = tc_h5grp_put(&g, "id", TC_I64, l->n, l->id, err);
    if (!st && l->text)
        st = tc_h5grp_put(&g, "offset", TC_I64, (int64_t)l->n + 1, l->offset, err);
    if (!st && l->text)
        st = tc_h5grp_put(&g, "text", TC_U8, l->offset[l->n], l->text, err);
    tc_h5grp_release(&g);
    return st;
}

static tc_status read_strings(tc_h5grp *g, tc_labels *l, tc_error *err)
{
    int64_t bytes;
    tc_status st = tc_h5grp_get_n(g, "offset", TC_I64, (int64_t)l->n + 1, (void **)&l->offset,
                                  err);
    if (!st)
        st = tc_h5grp_get(g, "text", TC_U8, &bytes, (void **)&l->text, 0, err);
    if (!st && bytes != l->offset[l->n])
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/text: %" PRId64 " bytes where the last "
                          "offset says %" PRId64, tc_h5grp_path(g), bytes, l->offset[l->n]);
    return st;
}

tc_status tc_h5_read_labels(hid_t file, const char *fname, const tc_csr *a, tc_labels **out,
                            tc_error *err)
{
    *out = NULL;
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/labels", 1, err);
    if (st || g.id < 0)
        return st;
    char *kind = NULL;
    tc_labels *l = calloc(1, sizeof *l);
    if (!l)
        st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    if (!st && a->rows != a->cols)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: labels for a %" PRId32 " x %" PRId32
                          " matrix (labels name rows and columns alike: it must be square)",
                          tc_h5grp_path(&g), a->rows, a->cols);
    if (!st)
        st = tc_h5attr_read_str(&g, "kind", 0, &kind, err);
    if (!st) {
        l->n = a->rows;
        if (strcmp(kind, "integer") == 0)
            st = tc_h5grp_get_n(&g, "id", TC_I64, l->n, (void **)&l->id, err);
        else if (strcmp(kind, "string") == 0)
            st = read_strings(&g, l, err);
        else
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: kind '%s' (expected integer or string)",
                              tc_h5grp_path(&g), kind);
    }
    if (!st)
        st = tc_labels_validate(l, tc_h5grp_path(&g), err);
    free(kind);
    tc_h5grp_release(&g);
    if (st)
        tc_labels_free(l);
    else
        *out = l;
    return st;
}

int tc_h5_is_tcf(const char *path)
{
    return tc_h5_root_attr(path, "tcf_layout_version", NULL);
}
