/*
 * h5attr.c: scalar and small attributes through the generic HDF5 layer
 * (h5group.h, h5internal.h): numbers, and strings written as UTF-8
 * (invalid sequences replaced) and read back whether stored variable or
 * fixed length, each read checked against the count and type it must have.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"

/* A variable-length UTF-8 string type: what h5py reads back as str. */
static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        tc_h5_close(t);
        return -1;
    }
    return t;
}

tc_status tc_h5attr_write(tc_h5grp *g, const char *name, hid_t ft, hid_t mt, int rank,
                          hsize_t n, const void *v, tc_error *err)
{
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = space < 0 ? -1 : H5Acreate2(g->id, name, ft, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : H5Awrite(a, mt, v);
    tc_h5_close(a);
    tc_h5_close(space);
    if (r < 0)
        return tc_h5_fail(err, TC_ERR_IO, "%s: attribute %s: cannot write", g->where, name);
    return TC_OK;
}

tc_status tc_h5grp_put_attr_i64(tc_h5grp *g, const char *name, int64_t v, tc_error *err)
{
    return tc_h5attr_write(g, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 1, &v, err);
}

tc_status tc_h5grp_put_attr_f64(tc_h5grp *g, const char *name, double v, tc_error *err)
{
    return tc_h5attr_write(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, 1, &v, err);
}

/* Length of the valid UTF-8 sequence starting at s (1 to 4), or 0. */
static int utf8_seq(const unsigned char *s)
{
    int len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
            : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
    for (int i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF */
    if ((len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) ||
        (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))))
        return 0;
    return len;
}

/* A copy of s in which every byte that is not part of valid UTF-8 becomes
   U+FFFD: attributes are declared UTF-8, and Matrix Market comments of old
   files are often Latin-1. */
static char *utf8_clean(const char *s, tc_error *err)
{
    size_t n = strlen(s);
    char *out = tc_malloc_array((int64_t)n * 3 + 1, 1, err);
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    char *o = out;
    while (*p) {
        int len = utf8_seq(p);
        if (len) {
            memcpy(o, p, len);
            o += len;
            p += len;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    return out;
}

tc_status tc_h5grp_put_attr_str(tc_h5grp *g, const char *name, const char *v, tc_error *err)
{
    char *clean = utf8_clean(v, err);
    if (!clean) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s: attribute %s", g->where, name);
        return TC_ERR_NOMEM;
    }
    hid_t t = str_type();
    tc_status st = t < 0 ? tc_h5_fail(err, TC_ERR_IO, "%s: attribute %s: cannot make its type",
                                      g->where, name)
                         : tc_h5attr_write(g, name, t, t, 0, 1, &clean, err);
    tc_h5_close(t);
    free(clean);
    return st;
}

/* Opens attribute `name` of g holding exactly `count` elements (a scalar
   when count is 1, or a 1-D array); *cls gets its type class. With optional
   set, a missing attribute gives TC_OK and *out < 0. */
static tc_status attr_open(const tc_h5grp *g, const char *name, hssize_t count, int optional,
                           hid_t *out, H5T_class_t *cls, tc_error *err)
{
    *out = -1;
    htri_t e = H5Aexists(g->id, name);
    if (e < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot look up", g->where,
                          name);
    if (!e)
        return optional ? TC_OK
                        : tc_error_set(err, TC_ERR_FORMAT, "%s: missing attribute %s",
                                       g->where, name);
    hid_t a = H5Aopen(g->id, name, H5P_DEFAULT);
    hid_t space = a < 0 ? -1 : H5Aget_space(a);
    hid_t t = a < 0 ? -1 : H5Aget_type(a);
    hssize_t npoints = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    *cls = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    tc_h5_close(t);
    tc_h5_close(space);
    if (a < 0 || npoints < 0 || rank < 0) {
        tc_h5_close(a);
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot open", g->where, name);
    }
    if (npoints != count || rank > 1) {
        tc_h5_close(a);
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: attribute %s: expected %lld value%s, found %lld", g->where,
                            name, (long long)count, count == 1 ? "" : "s", (long long)npoints);
    }
    *out = a;
    return TC_OK;
}

tc_status tc_h5attr_read_num(const tc_h5grp *g, const char *name, hssize_t count,
                             int integer, hid_t mt, void *v, tc_error *err)
{
    hid_t a;
    H5T_class_t cls;
    tc_status st = attr_open(g, name, count, 0, &a, &cls, err);
    if (st != TC_OK)
        return st;
    if (cls != H5T_INTEGER && (integer || cls != H5T_FLOAT))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: attribute %s: expected %s, found %s",
                          g->where, name, integer ? "an integer" : "a number",
                          tc_h5_class_name(cls));
    else if (H5Aread(a, mt, v) < 0)
        st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot read", g->where, name);
    tc_h5_close(a);
    return st;
}

tc_status tc_h5grp_get_attr_i64(tc_h5grp *g, const char *name, int64_t *v, tc_error *err)
{
    return tc_h5attr_read_num(g, name, 1, 1, H5T_NATIVE_INT64, v, err);
}

tc_status tc_h5grp_get_attr_f64(tc_h5grp *g, const char *name, double *v, tc_error *err)
{
    return tc_h5attr_read_num(g, name, 1, 0, H5T_NATIVE_DOUBLE, v, err);
}

/* A variable-length string attribute into a malloc'ed copy. */
static herr_t read_vlen_str(hid_t a, hid_t mt, char **v)
{
    char *s = NULL;
    if (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Aread(a, mt, &s) < 0)
        return -1;
    *v = strdup(s ? s : "");
    H5free_memory(s);
    return 0;
}

/* A fixed-size string attribute of `size` bytes: read with one byte more,
   so that a value filling the whole size (null-padded, as numpy writes)
   keeps its last character. */
static herr_t read_fixed_str(hid_t a, hid_t mt, size_t size, char **v)
{
    *v = calloc(size + 1, 1);
    if (!*v)
        return 0;
    if (H5Tset_size(mt, size + 1) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
        H5Aread(a, mt, *v) < 0) {
        free(*v);
        *v = NULL;
        return -1;
    }
    return 0;
}

herr_t tc_h5attr_str_value(hid_t a, int variable, char **v)
{
    *v = NULL;
    hid_t ft = H5Aget_type(a);
    hid_t mt = H5Tcopy(H5T_C_S1);
    /* the file's character set: HDF5 does not convert between ASCII and UTF-8 */
    herr_t r = ft < 0 || mt < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ? -1
               : variable ? read_vlen_str(a, mt, v)
                          : read_fixed_str(a, mt, H5Tget_size(ft), v);
    tc_h5_close(mt);
    tc_h5_close(ft);
    return r;
}

/* A variable-length value is never read from the heap here: HDF5 trusts
   the lengths stored there, and a corrupted one makes it write past its
   buffer. The guard's child read it (tc_h5_guard_string); a fixed-size
   value lives in the object header and is read directly. */
tc_status tc_h5attr_read_str(const tc_h5grp *g, const char *name, int optional, char **v,
                             tc_error *err)
{
    hid_t a;
    H5T_class_t cls;
    *v = NULL;
    tc_status st = attr_open(g, name, 1, optional, &a, &cls, err);
    if (st != TC_OK || a < 0)
        return st;
    if (cls != H5T_STRING) {
        tc_h5_close(a);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: attribute %s: expected a string, found %s",
                            g->where, name, tc_h5_class_name(cls));
    }
    hid_t ft = H5Aget_type(a);
    htri_t var = ft < 0 ? -1 : H5Tis_variable_str(ft);
    tc_h5_close(ft);
    char file[4096], obj[WHERE_MAX];
    const char *value;
    if (var > 0) {
        if (H5Fget_name(g->id, file, sizeof file) < 0 || H5Iget_name(g->id, obj, sizeof obj) < 0)
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot read", g->where, name);
        else if (!tc_h5_guard_string(file, obj, name, &value))
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: attribute %s: cannot read its variable-length value",
                              g->where, name);
        else if (!(*v = strdup(value)))
            st = tc_error_set(err, TC_ERR_NOMEM, "%s: attribute %s: out of memory", g->where,
                              name);
    } else if (var < 0 || tc_h5attr_str_value(a, 0, v) < 0)
        st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot read", g->where, name);
    else if (!*v)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: attribute %s: out of memory", g->where, name);
    tc_h5_close(a);
    return st;
}

tc_status tc_h5grp_get_attr_str(tc_h5grp *g, const char *name, char **v, tc_error *err)
{
    return tc_h5attr_read_str(g, name, 0, v, err);
}
