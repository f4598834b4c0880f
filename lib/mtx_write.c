/* mtx_write.c: Matrix Market writing: a CSR matrix as a coordinate file
   (every entry, or one triangle after checking the symmetry) and a dense
   one as an array file, atomically, with every value written so that it
   reads back bit-identical; gzip-compressed when the name ends in .gz
   (the output itself is text_out.c's). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "text_out.h"

static int is_integer_value(double v)
{
    return v == trunc(v) && v >= -0x1p63 && v < 0x1p63;
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

static tc_status write_header(text_out *o, const char *format, tc_field field,
                              tc_symmetry sym, const char *comments)
{
    char line[TEXT_LINE_MAX];
    int n = snprintf(line, sizeof line, "%%%%MatrixMarket matrix %s %s %s\n", format,
                     tc_field_name(field), tc_symmetry_name(sym));
    tc_status st = tc_text_out_text(o, line, (size_t)n);
    /* each comment line gets its %; a final '\n' opens no empty comment */
    for (const char *c = comments; !st && c && *c;) {
        const char *e = strchr(c, '\n');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (!(st = tc_text_out_text(o, "%", 1)) && !(st = tc_text_out_text(o, c, len)))
            st = tc_text_out_text(o, "\n", 1);
        c += len + (e != NULL);
    }
    return st;
}

/* The size line: rows, columns and, for coordinate files (entries >= 0),
   the entry count. */
static tc_status write_size(text_out *o, int32_t rows, int32_t cols, int64_t entries)
{
    char *p = tc_text_out_room(o);
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

static tc_status write_entries(text_out *o, const tc_csr *a, tc_field field, tc_symmetry sym)
{
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int32_t j = a->colidx[k];
            if (sym != TC_SYM_GENERAL && j > i)
                continue;
            char *p = tc_text_out_room(o);
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
    if (symmetry != TC_SYM_GENERAL && a->rows != a->cols)
        return tc_error_set(err, TC_ERR_INVALID,
                            "%s: cannot write a %" PRId32 " x %" PRId32 " matrix as %s: it is "
                            "not square", name, a->rows, a->cols, tc_symmetry_name(symmetry));
    char why[4200];   /* a path and the words around it */
    snprintf(why, sizeof why, "%s: cannot write as %s", name, tc_symmetry_name(symmetry));
    if (symmetry != TC_SYM_GENERAL && (st = tc_csr_check_symmetry(a, symmetry, why, err)))
        return st;
    text_out o;
    if ((st = tc_text_out_open(&o, path, err)))
        return st;
    st = write_header(&o, "coordinate", field, symmetry, comments);
    if (!st)
        st = write_size(&o, a->rows, a->cols, count_written(a, symmetry));
    if (!st)
        st = write_entries(&o, a, field, symmetry);
    return tc_text_out_close(&o, st);
}

tc_status tc_mtx_write_dense(const char *path, int32_t rows, int32_t cols, const double *data,
                             tc_error *err)
{
    tc_error local;
    if (!err)
        err = &local;
    if (!path || rows < 0 || cols < 0 || (!data && (int64_t)rows * cols > 0))
        return tc_error_set(err, TC_ERR_ARG, "tc_mtx_write_dense: bad arguments");
    text_out o;
    tc_status st = tc_text_out_open(&o, path, err);
    if (st)
        return st;
    st = write_header(&o, "array", TC_FIELD_REAL, TC_SYM_GENERAL, NULL);
    if (!st)
        st = write_size(&o, rows, cols, -1);
    /* column by column, as the specification lists array values */
    for (int32_t j = 0; j < cols && !st; j++)
        for (int32_t i = 0; i < rows && !st; i++) {
            char *p = tc_text_out_room(&o);
            if (!p) {
                st = err->status;
                break;
            }
            p = put_real(p, data[(int64_t)i * cols + j]);
            *p++ = '\n';
            o.n = (size_t)(p - o.buf);
        }
    return tc_text_out_close(&o, st);
}
