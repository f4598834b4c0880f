/*
 * h5file.c: the .tcf.h5 container (layout in man/tcf.h5.5) and the narrow
 * HDF5 interface of h5group.h that formats/ store their arrays through.
 *
 * Everything goes through one small set of helpers (groups, 1-D datasets,
 * scalar attributes), so that the checks a hostile file must pass are
 * written once: only hard links are followed, data must live in the file
 * itself, a dataset's extent is checked against its rank, against what its
 * storage can hold and against the sizes it must agree with before anything
 * is allocated, and type conversions that would lose information abort.
 *
 * Writes are reproducible: object modification times are not recorded and
 * objects are created in a fixed order, so two writes of the same content
 * are byte-identical apart from /provenance.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "tcsparse.h"
#include "h5group.h"
#include "formats.h"

/* Datasets larger than this are chunked and compressed (when asked): below
   it, compression saves too little to be worth a chunk index. */
#define COMPRESS_MIN_BYTES (64 * 1024)
/* About 1 MiB per chunk: large enough for deflate to work well and for the
   chunk index to stay small, small enough for HDF5's default chunk cache. */
#define CHUNK_BYTES (1024 * 1024)
/* zlib level 1: after the shuffle filter most of the gain is there, and
   higher levels cost more than they save (gupta2, 4.2M entries: 17.5 MB of
   arrays become 2.0 MB in 0.14 s at level 1, 1.5 MB in 0.32 s at level 6). */
#define DEFLATE_LEVEL 1
/* deflate cannot compress by more than 1032:1 (zlib technical notes), so a
   dataset whose extent needs more bytes than that times its storage (plus
   slack for tiny datasets) is corrupt or hostile. */
#define MAX_DEFLATE_RATIO 1032
#define STORAGE_SLACK_BYTES COMPRESS_MIN_BYTES

#define WHERE_MAX 1024

struct tc_h5grp {
    hid_t id;
    hid_t file;
    int owns_file;          /* opened by tc_h5grp_open: closed with the group */
    int compress;           /* datasets put here may be compressed */
    char where[WHERE_MAX];  /* "m.tcf.h5: /formats/brp" */
};

/* ------------------------------------------------------------------------ */
/* HDF5 errors                                                               */
/* ------------------------------------------------------------------------ */

static int h5_verbose;

static herr_t print_stack(hid_t stack, void *stream)
{
    return H5Eprint2(stack, stream);
}

void tc_h5_set_verbose(int on)
{
    h5_verbose = on;
    if (on)
        H5Eset_auto2(H5E_DEFAULT, print_stack, stderr);
    else
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Called on entry to every public function: HDF5 prints its error stack on
   stderr by default, and the library never prints. */
static void h5_quiet(void)
{
    if (!h5_verbose)
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    char *out = data;
    if (e->desc && e->desc[0]) {
        snprintf(out, 256, "%s", e->desc);
        return 1;   /* the first non-empty one, walking upward, is innermost */
    }
    return 0;
}

/* Formats a message, appends the innermost description on HDF5's error
   stack (the most specific reason, e.g. "truncated file: eof = ..."), and
   sets err. */
__attribute__((format(printf, 3, 4)))
static tc_status h5_fail(tc_error *err, tc_status st, const char *fmt, ...)
{
    char msg[WHERE_MAX], why[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, why);
    H5Eclear2(H5E_DEFAULT);
    if (why[0])
        return tc_error_set(err, st, "%s: %s", msg, why);
    return tc_error_set(err, st, "%s", msg);
}

/* Closes any HDF5 object, keeping the error stack as it was (every API
   call clears it, and h5_fail wants the reason of the call that failed). */
static void close_id(hid_t id)
{
    if (id < 0)
        return;
    hid_t saved = H5Eget_current_stack();
    H5Idec_ref(id);
    if (saved >= 0)
        H5Eset_current_stack(saved);
}

/* ------------------------------------------------------------------------ */
/* Types                                                                     */
/* ------------------------------------------------------------------------ */

size_t tc_dtype_size(tc_dtype t)
{
    switch (t) {
    case TC_U8: return 1;
    case TC_I32: case TC_U32: case TC_F32: return 4;
    case TC_I64: case TC_U64: case TC_F64: return 8;
    }
    return 0;
}

static const char *dtype_name(tc_dtype t)
{
    static const char *names[] = { "uint8", "int32", "uint32", "int64", "uint64",
                                   "float32", "float64" };
    return names[t];
}

static int dtype_is_float(tc_dtype t)
{
    return t == TC_F32 || t == TC_F64;
}

static hid_t dtype_mem(tc_dtype t)
{
    switch (t) {
    case TC_U8: return H5T_NATIVE_UINT8;
    case TC_I32: return H5T_NATIVE_INT32;
    case TC_U32: return H5T_NATIVE_UINT32;
    case TC_I64: return H5T_NATIVE_INT64;
    case TC_U64: return H5T_NATIVE_UINT64;
    case TC_F32: return H5T_NATIVE_FLOAT;
    case TC_F64: return H5T_NATIVE_DOUBLE;
    }
    return -1;
}

/* On disk: little-endian standard types, the same on every platform. */
static hid_t dtype_file(tc_dtype t)
{
    switch (t) {
    case TC_U8: return H5T_STD_U8LE;
    case TC_I32: return H5T_STD_I32LE;
    case TC_U32: return H5T_STD_U32LE;
    case TC_I64: return H5T_STD_I64LE;
    case TC_U64: return H5T_STD_U64LE;
    case TC_F32: return H5T_IEEE_F32LE;
    case TC_F64: return H5T_IEEE_F64LE;
    }
    return -1;
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    default: return "non-numeric";
    }
}

/* A variable-length UTF-8 string type: what h5py reads back as str. */
static hid_t str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        close_id(t);
        return -1;
    }
    return t;
}

/* ------------------------------------------------------------------------ */
/* Links and groups                                                          */
/* ------------------------------------------------------------------------ */

/* The separator between g's path and a child's name in messages. */
static const char *sep(const tc_h5grp *g)
{
    size_t n = strlen(g->where);
    return n && g->where[n - 1] == '/' ? "" : "/";
}

/* "m.tcf.h5: /formats/brp/name": a member of g, for messages. */
static void member_where(const tc_h5grp *g, const char *name, char *buf, size_t size)
{
    if (snprintf(buf, size, "%s%s%s", g->where, sep(g), name) >= (int)size)
        strcpy(buf + size - 4, "...");
}

/* Looks up `name` (one component) in loc: *found is 1 for a hard link, 0
   when there is none. Soft and external links, which could point outside
   the file, are refused. `what` names the object in messages. */
static tc_status hard_link(hid_t loc, const char *name, const char *what, int *found,
                           tc_error *err)
{
    H5L_info_t info;
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    *found = e > 0;
    if (e < 0 || (e > 0 && H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0))
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot look up", what);
    if (e > 0 && info.type != H5L_TYPE_HARD)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: is a soft or external link (only hard links are followed)",
                            what);
    return TC_OK;
}

/* Opens the group at absolute `path` of file, checking each component.
   With optional set, a missing group gives TC_OK and g->id < 0. */
static tc_status grp_open(tc_h5grp *g, hid_t file, const char *fname, const char *path,
                          int optional, tc_error *err)
{
    g->file = file;
    g->owns_file = 0;
    g->compress = 0;
    g->id = -1;
    snprintf(g->where, sizeof g->where, "%s: %s", fname, path);
    hid_t loc = H5Gopen2(file, "/", H5P_DEFAULT);
    if (loc < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot open the root group", fname);
    char part[256];
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        if (len >= sizeof part) {
            close_id(loc);
            return tc_error_set(err, TC_ERR_ARG, "%s: path component too long", g->where);
        }
        memcpy(part, p, len);
        part[len] = '\0';
        p += len;
        int found;
        tc_status st = hard_link(loc, part, g->where, &found, err);
        if (st != TC_OK || !found) {
            close_id(loc);
            if (st != TC_OK || optional)
                return st;
            return tc_error_set(err, TC_ERR_FORMAT, "%s: no such group", g->where);
        }
        hid_t next = H5Oopen(loc, part, H5P_DEFAULT);
        close_id(loc);
        if (next < 0)
            return h5_fail(err, TC_ERR_FORMAT, "%s: cannot open", g->where);
        if (H5Iget_type(next) != H5I_GROUP) {
            close_id(next);
            return tc_error_set(err, TC_ERR_FORMAT, "%s: not a group", g->where);
        }
        loc = next;
    }
    g->id = loc;
    return TC_OK;
}

static void grp_close(tc_h5grp *g)
{
    close_id(g->id);
    g->id = -1;
}

/* Group creation without modification times, so that files are
   reproducible. */
static hid_t gcpl_new(void)
{
    hid_t p = H5Pcreate(H5P_GROUP_CREATE);
    if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
        close_id(p);
        return -1;
    }
    return p;
}

/* Creates group `name` under parent (or the root when parent is NULL). */
static tc_status grp_create(tc_h5grp *g, hid_t file, const char *fname,
                            const tc_h5grp *parent, const char *name, int compress,
                            tc_error *err)
{
    g->file = file;
    g->owns_file = 0;
    g->compress = compress;
    if (parent)
        member_where(parent, name, g->where, sizeof g->where);
    else
        snprintf(g->where, sizeof g->where, "%s: /%s", fname, name);
    hid_t gcpl = gcpl_new();
    g->id = gcpl < 0 ? -1
                     : H5Gcreate2(parent ? parent->id : file, name, H5P_DEFAULT, gcpl,
                                  H5P_DEFAULT);
    close_id(gcpl);
    if (g->id < 0)
        return h5_fail(err, TC_ERR_IO, "%s: cannot create group", g->where);
    return TC_OK;
}

const char *tc_h5grp_path(const tc_h5grp *g)
{
    return g->where;
}

/* ------------------------------------------------------------------------ */
/* Datasets                                                                  */
/* ------------------------------------------------------------------------ */

/* Creates and writes dataset `name` (rank 1 or 2) from memory of type mt,
   stored as ft. Chunked, shuffled and deflated when g->compress and the
   dataset is 1-D and large; contiguous otherwise. */
static tc_status ds_write(tc_h5grp *g, const char *name, hid_t mt, hid_t ft, int rank,
                          const hsize_t *dims, const void *data, tc_error *err)
{
    char what[WHERE_MAX];
    member_where(g, name, what, sizeof what);
    tc_status st = TC_OK;
    size_t size = H5Tget_size(ft);
    hsize_t n = rank == 1 ? dims[0] : dims[0] * dims[1];
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = -1;
    if (space < 0 || dcpl < 0 || H5Pset_obj_track_times(dcpl, 0) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
        st = h5_fail(err, TC_ERR_IO, "%s: cannot set up", what);
        goto out;
    }
    if (g->compress && rank == 1 && n * size > COMPRESS_MIN_BYTES) {
        hsize_t chunk = CHUNK_BYTES / size < n ? CHUNK_BYTES / size : n;
        if (H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
            H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0) {
            st = h5_fail(err, TC_ERR_IO, "%s: cannot set up compression", what);
            goto out;
        }
    }
    ds = H5Dcreate2(g->id, name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
        st = h5_fail(err, TC_ERR_IO, "%s: cannot create dataset", what);
    else if (n > 0 && H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        st = h5_fail(err, TC_ERR_IO, "%s: cannot write", what);
out:
    close_id(ds);
    close_id(dcpl);
    close_id(space);
    return st;
}

tc_status tc_h5grp_put(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                       const void *data, tc_error *err)
{
    if (n < 0)
        return tc_error_set(err, TC_ERR_ARG, "%s: %s: negative length %" PRId64, g->where,
                            name, n);
    hsize_t dim = (hsize_t)n;
    return ds_write(g, name, dtype_mem(t), dtype_file(t), 1, &dim, data, err);
}

/* Opens dataset `name` of g for reading as type t: a hard link to a dataset
   whose data lives in this file, of a class that converts to t without loss
   of kind (integers from integer datasets only; floats from integer or
   float ones). With optional set, a missing dataset gives TC_OK, *out < 0. */
static tc_status ds_open(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                         hid_t *out, tc_error *err)
{
    char what[WHERE_MAX];
    member_where(g, name, what, sizeof what);
    *out = -1;
    int found;
    tc_status st = hard_link(g->id, name, what, &found, err);
    if (st != TC_OK || !found)
        return st != TC_OK || optional ? st
                                       : tc_error_set(err, TC_ERR_FORMAT, "%s: no such dataset",
                                                      what);
    hid_t ds = H5Oopen(g->id, name, H5P_DEFAULT);
    if (ds < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot open", what);
    if (H5Iget_type(ds) != H5I_DATASET) {
        close_id(ds);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not a dataset", what);
    }
    hid_t dcpl = H5Dget_create_plist(ds);
    H5D_layout_t layout = dcpl < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(dcpl);
    int external = dcpl < 0 ? 0 : H5Pget_external_count(dcpl);
    close_id(dcpl);
    hid_t ft = H5Dget_type(ds);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    close_id(ft);
    if ((layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) ||
        external != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: data stored outside the file (external or virtual "
                          "datasets are not accepted)", what);
    else if (cls != H5T_INTEGER && !(cls == H5T_FLOAT && dtype_is_float(t)))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: expected %s dataset, found %s", what,
                          dtype_is_float(t) ? "a numeric" : "an integer", class_name(cls));
    if (st != TC_OK) {
        close_id(ds);
        return st;
    }
    *out = ds;
    return TC_OK;
}

/* The extents of ds, which must have the given rank, refused when the
   storage the file gives it cannot hold that many elements: nothing is
   allocated for a size that the file does not back. */
static tc_status ds_extent(const tc_h5grp *g, const char *name, hid_t ds, int rank,
                           int64_t *dims, tc_error *err)
{
    char what[WHERE_MAX];
    member_where(g, name, what, sizeof what);
    hid_t space = H5Dget_space(ds);
    H5S_class_t sc = space < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(space);
    int r = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hsize_t d[H5S_MAX_RANK];
    if (r >= 0 && H5Sget_simple_extent_dims(space, d, NULL) < 0)
        r = -1;
    close_id(space);
    if (r < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its extent", what);
    if (r != rank || sc != H5S_SIMPLE)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: expected a %d-D dataset, found rank %d",
                            what, rank, sc == H5S_SIMPLE ? r : 0);
    hid_t ft = H5Dget_type(ds);
    int64_t bytes = ft < 0 ? 0 : (int64_t)H5Tget_size(ft);
    close_id(ft);
    for (int i = 0; i < rank; i++) {
        if (d[i] > INT64_MAX || tc_mul_overflows(bytes, (int64_t)d[i], &bytes))
            return tc_error_set(err, TC_ERR_FORMAT, "%s: absurd extent %llu", what,
                                (unsigned long long)d[i]);
        dims[i] = (int64_t)d[i];
    }
    hsize_t fsize = 0;
    hsize_t storage = H5Dget_storage_size(ds);
    if (H5Fget_filesize(g->file, &fsize) < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot get the file size", what);
    if (storage > fsize)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: claims %llu bytes of storage in a file of %llu bytes", what,
                            (unsigned long long)storage, (unsigned long long)fsize);
    if ((uint64_t)bytes > storage * MAX_DEFLATE_RATIO + STORAGE_SLACK_BYTES)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: claims %" PRId64 " bytes of data but the file holds only "
                            "%llu bytes for it (unwritten or corrupt)", what, bytes,
                            (unsigned long long)storage);
    return TC_OK;
}

/* Conversion exceptions (overflow, truncation, NaN or Inf into an integer)
   abort the read; int64 to float64 rounding (precision) is accepted. */
static H5T_conv_ret_t conv_cb(H5T_conv_except_t e, hid_t src, hid_t dst, void *sbuf,
                              void *dbuf, void *data)
{
    if (e == H5T_CONV_EXCEPT_PRECISION)
        return H5T_CONV_UNHANDLED;
    *(int *)data = 1;
    return H5T_CONV_ABORT;
}

/* Reads all of ds into buf (already sized from ds_extent) as type t. */
static tc_status ds_read(const tc_h5grp *g, const char *name, hid_t ds, tc_dtype t,
                         void *buf, tc_error *err)
{
    int lossy = 0;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    herr_t r = dxpl < 0 || H5Pset_type_conv_cb(dxpl, conv_cb, &lossy) < 0
                   ? -1
                   : H5Dread(ds, dtype_mem(t), H5S_ALL, H5S_ALL, dxpl, buf);
    close_id(dxpl);
    char what[WHERE_MAX];
    member_where(g, name, what, sizeof what);
    if (lossy) {
        H5Eclear2(H5E_DEFAULT);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: a value does not fit in %s", what,
                            dtype_name(t));
    }
    if (r < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot read", what);
    return TC_OK;
}

/* Opens a 1-D dataset and checks its length against `want` (>= 0; `why`,
   if not NULL, says where that number comes from), without reading it. */
static tc_status ds_open_1d(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                            int64_t want, const char *why, hid_t *ds, int64_t *n,
                            tc_error *err)
{
    tc_status st = ds_open(g, name, t, optional, ds, err);
    if (st != TC_OK || *ds < 0)
        return st;
    st = ds_extent(g, name, *ds, 1, n, err);
    if (st == TC_OK && want >= 0 && *n != want) {
        char what[WHERE_MAX];
        member_where(g, name, what, sizeof what);
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: expected %" PRId64 " entries%s%s%s, found %"
                          PRId64, what, want, why ? " (" : "", why ? why : "", why ? ")" : "",
                          *n);
    }
    if (st != TC_OK) {
        close_id(*ds);
        *ds = -1;
    }
    return st;
}

/* The whole of a 1-D dataset into a new array; want < 0 takes any length. */
static tc_status get_1d(tc_h5grp *g, const char *name, tc_dtype t, int64_t want,
                        const char *why, int optional, int64_t *n, void **data, tc_error *err)
{
    hid_t ds;
    *data = NULL;
    *n = -1;
    tc_status st = ds_open_1d(g, name, t, optional, want, why, &ds, n, err);
    if (st != TC_OK || ds < 0)
        return st;
    *data = tc_malloc_array(*n, tc_dtype_size(t), err);
    if (*data)
        st = ds_read(g, name, ds, t, *data, err);
    else {
        char what[WHERE_MAX];
        member_where(g, name, what, sizeof what);
        tc_error_prefix(err, "%s", what);
        st = TC_ERR_NOMEM;
    }
    close_id(ds);
    if (st != TC_OK) {
        free(*data);
        *data = NULL;
        *n = -1;
    }
    return st;
}

tc_status tc_h5grp_get(tc_h5grp *g, const char *name, tc_dtype t, int64_t *n,
                       void **data, int optional, tc_error *err)
{
    return get_1d(g, name, t, -1, NULL, optional, n, data, err);
}

tc_status tc_h5grp_get_n(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                         void **data, tc_error *err)
{
    int64_t got;
    return get_1d(g, name, t, n, NULL, 0, &got, data, err);
}

int tc_h5grp_has(tc_h5grp *g, const char *name)
{
    htri_t e = H5Lexists(g->id, name, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return e > 0;
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                                */
/* ------------------------------------------------------------------------ */

static tc_status attr_write(tc_h5grp *g, const char *name, hid_t ft, hid_t mt, int rank,
                            hsize_t n, const void *v, tc_error *err)
{
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = space < 0 ? -1 : H5Acreate2(g->id, name, ft, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : H5Awrite(a, mt, v);
    close_id(a);
    close_id(space);
    if (r < 0)
        return h5_fail(err, TC_ERR_IO, "%s: attribute %s: cannot write", g->where, name);
    return TC_OK;
}

tc_status tc_h5grp_put_attr_i64(tc_h5grp *g, const char *name, int64_t v, tc_error *err)
{
    return attr_write(g, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 1, &v, err);
}

tc_status tc_h5grp_put_attr_f64(tc_h5grp *g, const char *name, double v, tc_error *err)
{
    return attr_write(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, 1, &v, err);
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
        tc_error_prefix(err, "%s: attribute %s", g->where, name);
        return TC_ERR_NOMEM;
    }
    hid_t t = str_type();
    tc_status st = t < 0 ? h5_fail(err, TC_ERR_IO, "%s: attribute %s: cannot make its type",
                                   g->where, name)
                         : attr_write(g, name, t, t, 0, 1, &clean, err);
    close_id(t);
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
        return h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot look up", g->where, name);
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
    close_id(t);
    close_id(space);
    if (a < 0 || npoints < 0 || rank < 0) {
        close_id(a);
        return h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot open", g->where, name);
    }
    if (npoints != count || rank > 1) {
        close_id(a);
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: attribute %s: expected %lld value%s, found %lld", g->where,
                            name, (long long)count, count == 1 ? "" : "s", (long long)npoints);
    }
    *out = a;
    return TC_OK;
}

/* Reads `count` numbers from attribute `name` into v as memory type mt
   (integers only when `integer`). */
static tc_status attr_read_num(const tc_h5grp *g, const char *name, hssize_t count,
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
                          class_name(cls));
    else if (H5Aread(a, mt, v) < 0)
        st = h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot read", g->where, name);
    close_id(a);
    return st;
}

tc_status tc_h5grp_get_attr_i64(tc_h5grp *g, const char *name, int64_t *v, tc_error *err)
{
    return attr_read_num(g, name, 1, 1, H5T_NATIVE_INT64, v, err);
}

tc_status tc_h5grp_get_attr_f64(tc_h5grp *g, const char *name, double *v, tc_error *err)
{
    return attr_read_num(g, name, 1, 0, H5T_NATIVE_DOUBLE, v, err);
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

/* Reads a string attribute, variable-length or fixed-size, ASCII or UTF-8
   (h5py and anndata write either). Optional: a missing one gives *v NULL. */
static tc_status attr_read_str(const tc_h5grp *g, const char *name, int optional, char **v,
                               tc_error *err)
{
    hid_t a;
    H5T_class_t cls;
    *v = NULL;
    tc_status st = attr_open(g, name, 1, optional, &a, &cls, err);
    if (st != TC_OK || a < 0)
        return st;
    if (cls != H5T_STRING) {
        close_id(a);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: attribute %s: expected a string, found %s",
                            g->where, name, class_name(cls));
    }
    hid_t ft = H5Aget_type(a);
    hid_t mt = H5Tcopy(H5T_C_S1);
    htri_t var = ft < 0 ? -1 : H5Tis_variable_str(ft);
    /* the file's character set: HDF5 does not convert between ASCII and UTF-8 */
    herr_t r = ft < 0 || mt < 0 || var < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ? -1
               : var ? read_vlen_str(a, mt, v)
                     : read_fixed_str(a, mt, H5Tget_size(ft), v);
    if (r < 0)
        st = h5_fail(err, TC_ERR_FORMAT, "%s: attribute %s: cannot read", g->where, name);
    else if (!*v)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: attribute %s: out of memory", g->where, name);
    close_id(mt);
    close_id(ft);
    close_id(a);
    return st;
}

tc_status tc_h5grp_get_attr_str(tc_h5grp *g, const char *name, char **v, tc_error *err)
{
    return attr_read_str(g, name, 0, v, err);
}

/* Parameters are numbers: whole ones are stored as int64 attributes (so
   that h5dump shows h=16, not 1.6e+01), others as float64; both read back
   as double. */
static tc_status put_params(tc_h5grp *g, const tc_params *p, tc_error *err)
{
    tc_status st = TC_OK;
    for (int i = 0; i < p->n && st == TC_OK; i++) {
        double v = p->kv[i].value;
        if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v)
            st = tc_h5grp_put_attr_i64(g, p->kv[i].name, (int64_t)v, err);
        else
            st = tc_h5grp_put_attr_f64(g, p->kv[i].name, v, err);
    }
    return st;
}

static tc_status params_add(tc_params *p, const char *name, double v, const char *where,
                            tc_error *err)
{
    if (p->n >= TC_MAX_PARAMS)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: more than %d parameters", where,
                            TC_MAX_PARAMS);
    if (strlen(name) >= sizeof p->kv[0].name)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: parameter name too long: %s", where, name);
    strcpy(p->kv[p->n].name, name);
    p->kv[p->n].value = v;
    p->n++;
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Files                                                                     */
/* ------------------------------------------------------------------------ */

static const unsigned char h5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

/* Whether fp holds the HDF5 signature where a superblock may start: at 0,
   or at 512, 1024, 2048, ... after a user block. -1 on a read error. */
static int has_signature(FILE *fp)
{
    unsigned char buf[8];
    for (long off = 0; off >= 0 && off < (1L << 40); off = off ? off * 2 : 512) {
        if (fseek(fp, off, SEEK_SET) != 0)
            return 0;
        size_t got = fread(buf, 1, sizeof buf, fp);
        if (got < sizeof buf)
            return ferror(fp) ? -1 : 0;
        if (memcmp(buf, h5_signature, sizeof buf) == 0)
            return 1;
    }
    return 0;
}

int tc_h5_is_hdf5(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    int r = has_signature(fp);
    fclose(fp);
    return r == 1;
}

/* Opens path read-only, with a plain error when it cannot be read or is
   not HDF5 at all (HDF5's own messages for those are obscure). */
static tc_status file_open(const char *path, hid_t *out, tc_error *err)
{
    *out = -1;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s", path);
    int sig = has_signature(fp);
    int errnum = errno;
    fclose(fp);
    if (sig < 0)
        return tc_error_errno(err, TC_ERR_IO, errnum, "%s", path);
    if (sig == 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not an HDF5 file", path);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* strong close: closing the file also closes whatever an error path
       left open in it */
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        *out = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    close_id(fapl);
    if (*out < 0)
        return h5_fail(err, TC_ERR_FORMAT, "%s: cannot open as HDF5", path);
    return TC_OK;
}

tc_status tc_h5grp_open(const char *file, const char *path, tc_h5grp **out, tc_error *err)
{
    h5_quiet();
    *out = NULL;
    tc_h5grp *g = calloc(1, sizeof *g);
    if (!g)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    hid_t fid;
    tc_status st = file_open(file, &fid, err);
    if (st == TC_OK) {
        st = grp_open(g, fid, file, path, 0, err);
        if (st != TC_OK)
            close_id(fid);
    }
    if (st != TC_OK) {
        free(g);
        return st;
    }
    g->owns_file = 1;
    *out = g;
    return TC_OK;
}

void tc_h5grp_close(tc_h5grp *g)
{
    if (!g)
        return;
    grp_close(g);
    if (g->owns_file)
        close_id(g->file);
    free(g);
}

/* Creates tmp for writing, reproducibly: no modification times on any
   object, the oldest file-format versions that hold what we write (the
   library's default, readable by every HDF5 1.8 and later). */
static tc_status file_create(const char *tmp, const char *target, hid_t *out, tc_error *err)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    *out = -1;
    if (fcpl >= 0 && fapl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0 &&
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        *out = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    close_id(fcpl);
    close_id(fapl);
    if (*out < 0)
        return h5_fail(err, TC_ERR_IO, "%s: cannot create", target);
    return TC_OK;
}

/* Closes file (written to a.tmp) and commits a, or on failure (st) aborts
   it: nothing partial is ever left at the target. The data reaches the
   disk before the rename (HDF5 does not sync), so that a crash cannot leave
   an empty file under the target's name. */
static tc_status file_finish(hid_t file, tc_atomic *a, const char *target, tc_status st,
                             tc_error *err)
{
    if (file >= 0 && H5Fclose(file) < 0 && st == TC_OK)
        st = h5_fail(err, TC_ERR_IO, "%s: cannot finish writing", target);
    if (st == TC_OK) {
        int fd = open(a->tmp, O_RDONLY);
        if (fd < 0 || fsync(fd) != 0)
            st = tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot sync", target);
        if (fd >= 0)
            close(fd);
    }
    if (st == TC_OK)
        return tc_atomic_commit(a, err);
    tc_atomic_abort(a);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Writing a .tcf.h5                                                         */
/* ------------------------------------------------------------------------ */

static tc_status write_matrix(hid_t file, const char *fname, const tc_csr *a, int compress,
                              tc_error *err)
{
    tc_h5grp g;
    tc_status st = grp_create(&g, file, fname, NULL, "matrix", compress, err);
    if (st != TC_OK)
        return st;
    hsize_t two = 2;
    int64_t shape[2] = { a->rows, a->cols };
    st = tc_h5grp_put_attr_str(&g, "encoding-type", "csr_matrix", err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(&g, "encoding-version", "0.1.0", err);
    if (st == TC_OK)
        st = attr_write(&g, "shape", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, two, shape, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(&g, "field", tc_field_name(a->field), err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_str(&g, "symmetry", tc_symmetry_name(a->symmetry), err);
    if (st == TC_OK && a->val)
        st = tc_h5grp_put(&g, "data", TC_F64, a->nnz, a->val, err);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indices", TC_I32, a->nnz, a->colidx, err);
    if (st == TC_OK)
        st = tc_h5grp_put(&g, "indptr", TC_I64, (int64_t)a->rows + 1, a->rowptr, err);
    grp_close(&g);
    return st;
}

static tc_status write_perm_pair(tc_h5grp *g, const char *which, const tc_perm *p,
                                 tc_error *err)
{
    char name[32];
    snprintf(name, sizeof name, "%s_new_to_old", which);
    tc_status st = tc_h5grp_put(g, name, TC_I32, p->n, p->new2old, err);
    snprintf(name, sizeof name, "%s_old_to_new", which);
    return st != TC_OK ? st : tc_h5grp_put(g, name, TC_I32, p->n, p->old2new, err);
}

static tc_status write_perm(hid_t file, const char *fname, const tc_tcf *f, int compress,
                            tc_error *err)
{
    tc_h5grp g;
    tc_status st = grp_create(&g, file, fname, NULL, "permutation", compress, err);
    if (st != TC_OK)
        return st;
    if (f->row_perm)
        st = write_perm_pair(&g, "row", f->row_perm, err);
    if (st == TC_OK && f->col_perm)
        st = write_perm_pair(&g, "col", f->col_perm, err);
    if (st == TC_OK && f->perm_method)
        st = tc_h5grp_put_attr_str(&g, "method", f->perm_method, err);
    if (st == TC_OK)
        st = put_params(&g, &f->perm_params, err);
    grp_close(&g);
    return st;
}

/* The generic header every format group carries, then the format's own
   arrays (written by the format). */
static tc_status write_format(tc_h5grp *parent, hid_t file, const char *fname,
                              const tc_fmt *m, int compress, tc_error *err)
{
    tc_h5grp g;
    tc_status st = grp_create(&g, file, fname, parent, m->kind->name, compress, err);
    if (st != TC_OK)
        return st;
    st = tc_h5grp_put_attr_i64(&g, "rows", m->rows, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "cols", m->cols, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "nnz", m->nnz, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "has_values", m->has_values != 0, err);
    if (st == TC_OK)
        st = put_params(&g, &m->params, err);
    if (st == TC_OK)
        st = m->kind->write_h5(m, &g, err);
    grp_close(&g);
    return st;
}

static tc_status write_formats(hid_t file, const char *fname, const tc_tcf *f, int compress,
                               tc_error *err)
{
    int stored = 0;
    for (int i = 0; i < f->nformats; i++)
        stored += !f->formats[i]->kind->canonical;
    if (stored == 0)
        return TC_OK;
    tc_h5grp g;
    tc_status st = grp_create(&g, file, fname, NULL, "formats", compress, err);
    for (int i = 0; i < f->nformats && st == TC_OK; i++)
        if (!f->formats[i]->kind->canonical)
            st = write_format(&g, file, fname, f->formats[i], compress, err);
    grp_close(&g);
    return st;
}

static tc_status write_provenance(hid_t file, const char *fname, const tc_provenance *p,
                                  tc_error *err)
{
    const char *names[] = { "creator", "created", "command", "source", "banner", "comments" };
    const char *values[] = { p->creator, p->created, p->command, p->source, p->banner,
                             p->comments };
    tc_h5grp g;
    tc_status st = grp_create(&g, file, fname, NULL, "provenance", 0, err);
    for (int i = 0; i < 6 && st == TC_OK; i++)
        if (values[i])
            st = tc_h5grp_put_attr_str(&g, names[i], values[i], err);
    grp_close(&g);
    return st;
}

static tc_status write_tcf(hid_t file, const char *fname, const tc_tcf *f, int compress,
                           tc_error *err)
{
    tc_h5grp root = { .file = file };
    snprintf(root.where, sizeof root.where, "%s: /", fname);
    root.id = H5Gopen2(file, "/", H5P_DEFAULT);
    if (root.id < 0)
        return h5_fail(err, TC_ERR_IO, "%s: cannot open the root group", fname);
    tc_status st = tc_h5grp_put_attr_str(&root, "tcf_layout_version", TC_LAYOUT_VERSION, err);
    grp_close(&root);
    if (st == TC_OK)
        st = write_matrix(file, fname, f->matrix, compress, err);
    if (st == TC_OK && (f->row_perm || f->col_perm))
        st = write_perm(file, fname, f, compress, err);
    if (st == TC_OK)
        st = write_formats(file, fname, f, compress, err);
    if (st == TC_OK)
        st = write_provenance(file, fname, &f->prov, err);
    return st;
}

/* What a written file must satisfy for readers to accept it, checked
   before anything is created: a bad argument leaves no trace. */
static tc_status check_tcf(const char *path, const tc_tcf *f, tc_error *err)
{
    if (!f || !f->matrix)
        return tc_error_set(err, TC_ERR_ARG, "%s: no matrix to write", path);
    const tc_csr *a = f->matrix;
    tc_status st = tc_csr_validate(a, path, err);
    if (st != TC_OK)
        return st;
    if (f->row_perm && f->row_perm->n != a->rows)
        return tc_error_set(err, TC_ERR_ARG, "%s: row permutation of %d for %d rows", path,
                            f->row_perm->n, a->rows);
    if (f->col_perm && f->col_perm->n != a->cols)
        return tc_error_set(err, TC_ERR_ARG, "%s: column permutation of %d for %d columns",
                            path, f->col_perm->n, a->cols);
    for (int i = 0; i < f->nformats; i++) {
        const tc_fmt *m = f->formats[i];
        if (m->rows != a->rows || m->cols != a->cols || m->nnz != a->nnz)
            return tc_error_set(err, TC_ERR_ARG, "%s: format %s is of another matrix", path,
                                m->kind->name);
    }
    return TC_OK;
}

tc_status tc_h5_write(const char *path, const tc_tcf *f, const tc_h5_write_opts *opts,
                      tc_error *err)
{
    static const tc_h5_write_opts defaults = TC_H5_WRITE_DEFAULTS;
    h5_quiet();
    if (!opts)
        opts = &defaults;
    if (strcmp(path, "-") == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "cannot write HDF5 to standard output (it needs a seekable file)");
    tc_status st = check_tcf(path, f, err);
    if (st != TC_OK)
        return st;
    tc_atomic a;
    st = tc_atomic_open(&a, path, 0, err);
    if (st != TC_OK)
        return st;
    hid_t file;
    st = file_create(a.tmp, path, &file, err);
    if (st == TC_OK)
        st = write_tcf(file, path, f, opts->compress, err);
    return file_finish(file, &a, path, st, err);
}

/* ------------------------------------------------------------------------ */
/* Reading a .tcf.h5                                                         */
/* ------------------------------------------------------------------------ */

static tc_status check_version(hid_t file, const char *fname, tc_error *err)
{
    tc_h5grp root;
    tc_status st = grp_open(&root, file, fname, "/", 0, err);
    char *v = NULL;
    if (st == TC_OK)
        st = attr_read_str(&root, "tcf_layout_version", 1, &v, err);
    grp_close(&root);
    if (st != TC_OK)
        return st;
    if (!v)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: not a .tcf.h5 file (no tcf_layout_version attribute on /)",
                            fname);
    char *end;
    errno = 0;
    long major = strtol(v, &end, 10);
    int ok = isdigit((unsigned char)v[0]) && *end == '.' && isdigit((unsigned char)end[1]) &&
             errno == 0;
    if (ok) {
        strtol(end + 1, &end, 10);
        ok = *end == '\0';
    }
    if (!ok)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: malformed tcf_layout_version '%s' (expected MAJOR.MINOR)",
                          fname, v);
    else if (major != TC_LAYOUT_MAJOR)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED,
                          "%s: tcf layout version %s is not supported (tcsparse "
                          TC_VERSION_STRING " reads %d.x and writes " TC_LAYOUT_VERSION ")",
                          fname, v, TC_LAYOUT_MAJOR);
    free(v);
    return st;
}

/* field and symmetry are optional, so that an anndata-written csr_matrix
   is accepted: field then follows from whether data is present. */
static tc_status read_matrix_kind(tc_h5grp *g, int has_data, tc_field *field,
                                  tc_symmetry *sym, tc_error *err)
{
    char *fs = NULL, *ss = NULL;
    *field = has_data ? TC_FIELD_REAL : TC_FIELD_PATTERN;
    *sym = TC_SYM_GENERAL;
    tc_status st = attr_read_str(g, "field", 1, &fs, err);
    if (st == TC_OK)
        st = attr_read_str(g, "symmetry", 1, &ss, err);
    if (st == TC_OK && fs && tc_field_parse(fs, field) != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: attribute field: unknown value '%s' (expected real, integer "
                          "or pattern)", g->where, fs);
    else if (st == TC_OK && ss && tc_symmetry_parse(ss, sym) != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: attribute symmetry: unknown value '%s' (expected general, "
                          "symmetric, skew-symmetric or hermitian)", g->where, ss);
    else if (st == TC_OK && has_data && *field == TC_FIELD_PATTERN)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/data: present, but field is pattern",
                          g->where);
    else if (st == TC_OK && !has_data && *field != TC_FIELD_PATTERN)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s/data: no such dataset (field is %s)",
                          g->where, tc_field_name(*field));
    free(fs);
    free(ss);
    return st;
}

/* An integer matrix holds whole numbers (its values are written back to
   Matrix Market as integers). */
static tc_status check_integer_values(const tc_csr *a, const char *where, tc_error *err)
{
    for (int64_t k = 0; k < a->nnz; k++)
        if (!isfinite(a->val[k]) || floor(a->val[k]) != a->val[k])
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s/data: entry %" PRId64 " is %.17g, not a whole number "
                                "(field is integer)", where, k, a->val[k]);
    return TC_OK;
}

/* Reads the three arrays straight into a, whose sizes were checked
   against shape and against each other. */
static tc_status read_matrix_arrays(tc_h5grp *g, hid_t ds[3], tc_csr *a, tc_error *err)
{
    tc_status st = ds_read(g, "indptr", ds[0], TC_I64, a->rowptr, err);
    if (st == TC_OK)
        st = ds_read(g, "indices", ds[1], TC_I32, a->colidx, err);
    if (st == TC_OK && a->val)
        st = ds_read(g, "data", ds[2], TC_F64, a->val, err);
    return st;
}

static tc_status read_matrix(hid_t file, const char *fname, tc_csr **out, tc_error *err)
{
    tc_h5grp g;
    hid_t ds[3] = { -1, -1, -1 };   /* indptr, indices, data */
    tc_csr *a = NULL;
    char *enc = NULL;
    int64_t shape[2], n[3];
    tc_status st = grp_open(&g, file, fname, "/matrix", 0, err);
    if (st != TC_OK)
        return st;
    st = tc_h5grp_get_attr_str(&g, "encoding-type", &enc, err);
    if (st == TC_OK && strcmp(enc, "csr_matrix") != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: encoding-type is '%s', expected 'csr_matrix'", g.where, enc);
    if (st == TC_OK)
        st = attr_read_num(&g, "shape", 2, 1, H5T_NATIVE_INT64, shape, err);
    if (st == TC_OK && (shape[0] < 0 || shape[0] > INT32_MAX || shape[1] < 0 ||
                        shape[1] > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: shape [%" PRId64 ", %" PRId64 "] out of range (0 to %d)",
                          g.where, shape[0], shape[1], INT32_MAX);
    if (st == TC_OK)
        st = ds_open_1d(&g, "indptr", TC_I64, 0, shape[0] + 1, "shape[0]+1", &ds[0], &n[0],
                        err);
    if (st == TC_OK)
        st = ds_open_1d(&g, "indices", TC_I32, 0, -1, NULL, &ds[1], &n[1], err);
    if (st == TC_OK)
        st = ds_open_1d(&g, "data", TC_F64, 1, n[1], "as many as indices", &ds[2], &n[2], err);
    tc_field field;
    tc_symmetry sym;
    if (st == TC_OK)
        st = read_matrix_kind(&g, ds[2] >= 0, &field, &sym, err);
    if (st == TC_OK &&
        tc_csr_alloc(&a, (int32_t)shape[0], (int32_t)shape[1], n[1], ds[2] >= 0, err) != TC_OK) {
        tc_error_prefix(err, "%s", g.where);
        st = TC_ERR_NOMEM;
    }
    if (st == TC_OK)
        st = read_matrix_arrays(&g, ds, a, err);
    if (st == TC_OK) {
        a->field = field;
        a->symmetry = sym;
        st = tc_csr_validate(a, g.where, err);
    }
    if (st == TC_OK && a->field == TC_FIELD_INTEGER)
        st = check_integer_values(a, g.where, err);
    for (int i = 0; i < 3; i++)
        close_id(ds[i]);
    free(enc);
    grp_close(&g);
    if (st != TC_OK) {
        tc_csr_free(a);
        return st;
    }
    *out = a;
    return TC_OK;
}

/* which_new_to_old and which_old_to_new, both or neither: validated as a
   bijection on n (the matrix's rows or columns) and as each other's
   inverse. */
static tc_status read_perm_pair(tc_h5grp *g, const char *which, int32_t n, const char *why,
                                tc_perm **out, tc_error *err)
{
    char n2o_name[32], o2n_name[32], what[WHERE_MAX];
    snprintf(n2o_name, sizeof n2o_name, "%s_new_to_old", which);
    snprintf(o2n_name, sizeof o2n_name, "%s_old_to_new", which);
    member_where(g, n2o_name, what, sizeof what);
    int32_t *n2o = NULL, *o2n = NULL;
    int64_t got;
    *out = NULL;
    tc_status st = get_1d(g, n2o_name, TC_I32, n, why, 1, &got, (void **)&n2o, err);
    if (st != TC_OK || !n2o) {
        if (st == TC_OK && tc_h5grp_has(g, o2n_name))
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: no such dataset (%s is present)", what,
                              o2n_name);
        return st;
    }
    st = tc_perm_from_array(out, n, n2o, TC_PERM_NEW2OLD, what, err);
    if (st == TC_OK)
        st = get_1d(g, o2n_name, TC_I32, n, why, 0, &got, (void **)&o2n, err);
    for (int32_t i = 0; st == TC_OK && i < n; i++)
        if (o2n[i] != (*out)->old2new[i])
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s/%s: entry %d is %d, but %s gives %d (not its inverse)",
                              g->where, o2n_name, i, o2n[i], n2o_name, (*out)->old2new[i]);
    free(n2o);
    free(o2n);
    if (st != TC_OK) {
        tc_perm_free(*out);
        *out = NULL;
    }
    return st;
}

struct param_ctx {
    tc_h5grp *g;
    tc_params *params;
    tc_error *err;
    tc_status st;
};

/* Every attribute of /permutation but method is a numeric parameter. */
static herr_t perm_param_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    struct param_ctx *c = data;
    double v;
    if (strcmp(name, "method") == 0)
        return 0;
    c->st = tc_h5grp_get_attr_f64(c->g, name, &v, c->err);
    if (c->st == TC_OK)
        c->st = params_add(c->params, name, v, c->g->where, c->err);
    return c->st == TC_OK ? 0 : -1;
}

static tc_status read_perm(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_h5grp g;
    tc_status st = grp_open(&g, file, fname, "/permutation", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    st = read_perm_pair(&g, "row", f->matrix->rows, "rows of /matrix", &f->row_perm, err);
    if (st == TC_OK)
        st = read_perm_pair(&g, "col", f->matrix->cols, "columns of /matrix", &f->col_perm,
                            err);
    if (st == TC_OK && !f->row_perm && !f->col_perm)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: holds neither row_new_to_old nor col_new_to_old", g.where);
    if (st == TC_OK)
        st = attr_read_str(&g, "method", 1, &f->perm_method, err);
    if (st == TC_OK) {
        struct param_ctx c = { &g, &f->perm_params, err, TC_OK };
        if (H5Aiterate2(g.id, H5_INDEX_NAME, H5_ITER_INC, NULL, perm_param_cb, &c) < 0)
            st = c.st != TC_OK ? c.st
                               : h5_fail(err, TC_ERR_FORMAT, "%s: cannot list attributes",
                                         g.where);
    }
    grp_close(&g);
    return st;
}

/* The generic header of a format group: rows, cols, nnz, has_values must
   describe /matrix; each parameter of the format is read when present (a
   file from before a parameter existed gets its default) and range
   checked. */
static tc_status read_format_header(tc_h5grp *g, const tc_format *kind, const tc_csr *a,
                                    tc_fmt *hdr, tc_error *err)
{
    int64_t rows, cols, nnz, hv;
    tc_status st = tc_h5grp_get_attr_i64(g, "rows", &rows, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "cols", &cols, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "nnz", &nnz, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "has_values", &hv, err);
    if (st != TC_OK)
        return st;
    if (rows != a->rows || cols != a->cols || nnz != a->nnz || hv != (a->val != NULL))
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: header says %" PRId64 "x%" PRId64 ", %" PRId64 " nonzeros, "
                            "has_values %" PRId64 "; /matrix is %dx%d, %" PRId64
                            " nonzeros, has_values %d", g->where, rows, cols, nnz, hv,
                            a->rows, a->cols, a->nnz, a->val != NULL);
    memset(hdr, 0, sizeof *hdr);
    hdr->kind = kind;
    hdr->rows = a->rows;
    hdr->cols = a->cols;
    hdr->nnz = a->nnz;
    hdr->has_values = a->val != NULL;
    for (int i = 0; i < kind->nparams && st == TC_OK; i++) {
        const tc_param_def *d = &kind->params[i];
        double v = d->def;
        if (H5Aexists(g->id, d->name) > 0)
            st = tc_h5grp_get_attr_f64(g, d->name, &v, err);
        if (st == TC_OK)
            st = params_add(&hdr->params, d->name, v, g->where, err);
    }
    if (st == TC_OK)
        st = tc_params_check(&hdr->params, kind->params, kind->nparams, g->where, err);
    return st;
}

static tc_status read_format(hid_t file, const char *fname, const char *name, tc_tcf *f,
                             tc_error *err)
{
    char path[300];
    snprintf(path, sizeof path, "/formats/%s", name);
    tc_h5grp g;
    tc_status st = grp_open(&g, file, fname, path, 0, err);
    if (st != TC_OK)
        return st;
    const tc_format *kind = tc_format_find(name);
    tc_fmt hdr, *m = NULL;
    if (!kind)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED,
                          "%s: unknown format '%s' (written by a newer tcsparse?)", g.where,
                          name);
    else if (kind->canonical)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: format %s is /matrix itself, not a group",
                          g.where, name);
    else
        st = read_format_header(&g, kind, f->matrix, &hdr, err);
    if (st == TC_OK)
        st = kind->read_h5(&g, &hdr, &m, err);
    if (st == TC_OK)
        st = kind->validate(m, f->matrix, g.where, err);
    if (st == TC_OK) {
        st = tc_tcf_add_format(f, m, err);
        m = NULL;
    }
    tc_fmt_free(m);
    grp_close(&g);
    return st;
}

static tc_status read_formats(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_h5grp g;
    H5G_info_t info;
    tc_status st = grp_open(&g, file, fname, "/formats", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    if (H5Gget_info(g.id, &info) < 0)
        st = h5_fail(err, TC_ERR_FORMAT, "%s: cannot list", g.where);
    for (hsize_t i = 0; st == TC_OK && i < info.nlinks; i++) {
        char name[256];
        ssize_t len = H5Lget_name_by_idx(g.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                         sizeof name, H5P_DEFAULT);
        if (len < 0)
            st = h5_fail(err, TC_ERR_FORMAT, "%s: cannot list", g.where);
        else if ((size_t)len >= sizeof name)
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: a member's name is too long", g.where);
        else
            st = read_format(file, fname, name, f, err);
    }
    grp_close(&g);
    return st;
}

static tc_status read_provenance(hid_t file, const char *fname, tc_provenance *p,
                                 tc_error *err)
{
    const char *names[] = { "creator", "created", "command", "source", "banner", "comments" };
    char **values[] = { &p->creator, &p->created, &p->command, &p->source, &p->banner,
                        &p->comments };
    tc_h5grp g;
    tc_status st = grp_open(&g, file, fname, "/provenance", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    for (int i = 0; i < 6 && st == TC_OK; i++)
        st = attr_read_str(&g, names[i], 1, values[i], err);
    grp_close(&g);
    return st;
}

tc_status tc_h5_read(const char *path, int formats, tc_tcf **out, tc_error *err)
{
    h5_quiet();
    *out = NULL;
    hid_t file;
    tc_status st = file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    tc_tcf *f = tc_tcf_new();
    if (!f)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path);
    if (st == TC_OK)
        st = check_version(file, path, err);
    if (st == TC_OK)
        st = read_matrix(file, path, &f->matrix, err);
    if (st == TC_OK)
        st = read_perm(file, path, f, err);
    if (st == TC_OK && formats)
        st = read_formats(file, path, f, err);
    if (st == TC_OK)
        st = read_provenance(file, path, &f->prov, err);
    close_id(file);
    H5Eclear2(H5E_DEFAULT);
    if (st != TC_OK) {
        tc_tcf_free(f);
        return st;
    }
    *out = f;
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* The container in memory                                                   */
/* ------------------------------------------------------------------------ */

tc_tcf *tc_tcf_new(void)
{
    return calloc(1, sizeof(tc_tcf));
}

static void provenance_clear(tc_provenance *p)
{
    free(p->creator);
    free(p->created);
    free(p->command);
    free(p->source);
    free(p->banner);
    free(p->comments);
    memset(p, 0, sizeof *p);
}

void tc_tcf_free(tc_tcf *f)
{
    if (!f)
        return;
    tc_csr_free(f->matrix);
    tc_perm_free(f->row_perm);
    tc_perm_free(f->col_perm);
    free(f->perm_method);
    for (int i = 0; i < f->nformats; i++)
        tc_fmt_free(f->formats[i]);
    free(f->formats);
    provenance_clear(&f->prov);
    free(f);
}

tc_status tc_tcf_add_format(tc_tcf *f, tc_fmt *m, tc_error *err)
{
    for (int i = 0; i < f->nformats; i++)
        if (f->formats[i]->kind == m->kind) {
            tc_status st = tc_error_set(err, TC_ERR_ARG, "format %s added twice",
                                        m->kind->name);
            tc_fmt_free(m);
            return st;
        }
    /* keep registry order: m goes after the formats that precede it there */
    int at = 0;
    for (int r = 0; r < tc_format_count() && tc_format_at(r) != m->kind; r++)
        for (int i = 0; i < f->nformats; i++)
            at += f->formats[i]->kind == tc_format_at(r);
    tc_fmt **grown = realloc(f->formats, (size_t)(f->nformats + 1) * sizeof *grown);
    if (!grown) {
        tc_fmt_free(m);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory adding format");
    }
    memmove(grown + at + 1, grown + at, (size_t)(f->nformats - at) * sizeof *grown);
    grown[at] = m;
    f->formats = grown;
    f->nformats++;
    return TC_OK;
}

/* Whether a command-line word needs quoting to be pasted back into sh. */
static int needs_quoting(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("%+,-./:=@_", *s))
            return 1;
    return 0;
}

/* argv joined by spaces, each word single-quoted when the shell would not
   take it as is (' itself becomes '\''). */
static char *join_command(int argc, char **argv, tc_error *err)
{
    int64_t len = 1;
    for (int i = 0; i < argc; i++)
        len += (int64_t)strlen(argv[i]) * 4 + 3;
    char *cmd = tc_malloc_array(len, 1, err);
    if (!cmd)
        return NULL;
    char *o = cmd;
    for (int i = 0; i < argc; i++) {
        if (i)
            *o++ = ' ';
        if (!needs_quoting(argv[i])) {
            o = stpcpy(o, argv[i]);
            continue;
        }
        *o++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'')
                o = stpcpy(o, "'\\''");
            else
                *o++ = *s;
        }
        *o++ = '\'';
    }
    *o = '\0';
    return cmd;
}

/* Now, or $SOURCE_DATE_EPOCH when set (reproducible-builds.org), as ISO
   8601 UTC. */
static tc_status created_now(char *buf, size_t size, tc_error *err)
{
    time_t t = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!isdigit((unsigned char)sde[0]) || *end || errno || (time_t)v != v)
            return tc_error_set(err, TC_ERR_ARG,
                                "SOURCE_DATE_EPOCH: expected seconds since 1970, found '%s'",
                                sde);
        t = (time_t)v;
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return tc_error_set(err, TC_ERR_ARG, "cannot represent time %lld as a date",
                            (long long)t);
    return TC_OK;
}

static tc_status replace_str(char **dst, const char *src, tc_error *err)
{
    char *copy = NULL;
    if (src && !(copy = strdup(src)))
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    free(*dst);
    *dst = copy;
    return TC_OK;
}

tc_status tc_provenance_set(tc_provenance *p, int argc, char **argv, const char *source,
                            tc_error *err)
{
    char created[64];
    tc_status st = created_now(created, sizeof created, err);
    if (st != TC_OK)
        return st;
    char *cmd = join_command(argc, argv, err);
    if (!cmd)
        return TC_ERR_NOMEM;
    free(p->command);
    p->command = cmd;
    st = replace_str(&p->creator, "tcsparse " TC_VERSION_STRING, err);
    if (st == TC_OK)
        st = replace_str(&p->created, created, err);
    if (st == TC_OK)
        st = replace_str(&p->source, source, err);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Dense 2-D datasets                                                        */
/* ------------------------------------------------------------------------ */

/* Splits "/a/b/B" (or "a/b/B") into the parent group path "/a/b" and the
   leaf name "B". */
static tc_status split_dataset(const char *fname, const char *dataset, char *parent,
                               size_t psize, const char **leaf, tc_error *err)
{
    const char *rel = dataset + strspn(dataset, "/");
    const char *slash = strrchr(rel, '/');
    *leaf = slash ? slash + 1 : rel;
    size_t plen = slash ? (size_t)(slash - rel) : 0;
    if (!**leaf)
        return tc_error_set(err, TC_ERR_ARG, "%s: '%s' does not name a dataset", fname,
                            dataset);
    if (plen + 2 > psize)
        return tc_error_set(err, TC_ERR_ARG, "%s: dataset path too long", fname);
    parent[0] = '/';
    memcpy(parent + 1, rel, plen);
    parent[plen + 1] = '\0';
    return TC_OK;
}

/* A dense matrix dataset: float32 or float64, rows x cols, each within
   int32. */
static tc_status dense_extent(const tc_h5grp *g, const char *leaf, hid_t ds, int64_t dims[2],
                              tc_error *err)
{
    char what[WHERE_MAX];
    member_where(g, leaf, what, sizeof what);
    hid_t ft = H5Dget_type(ds);
    size_t size = ft < 0 ? 0 : H5Tget_size(ft);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    close_id(ft);
    if (cls != H5T_FLOAT || (size != 4 && size != 8))
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: expected a float32 or float64 dataset, found %s (%zu bytes)",
                            what, class_name(cls), size);
    tc_status st = ds_extent(g, leaf, ds, 2, dims, err);
    if (st == TC_OK && (dims[0] > INT32_MAX || dims[1] > INT32_MAX))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: %" PRId64 "x%" PRId64 " is too large (at "
                          "most %d rows and columns)", what, dims[0], dims[1], INT32_MAX);
    return st;
}

tc_status tc_h5_read_dense(const char *path, const char *dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err)
{
    h5_quiet();
    *data = NULL;
    char parent[512];
    const char *leaf;
    hid_t file, ds = -1;
    int64_t dims[2];
    tc_h5grp g = { .id = -1 };
    tc_status st = split_dataset(path, dataset, parent, sizeof parent, &leaf, err);
    if (st != TC_OK)
        return st;
    st = file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    st = grp_open(&g, file, path, parent, 0, err);
    if (st == TC_OK)
        st = ds_open(&g, leaf, TC_F64, 0, &ds, err);
    if (st == TC_OK)
        st = dense_extent(&g, leaf, ds, dims, err);
    if (st == TC_OK && !(*data = tc_malloc_array(dims[0] * dims[1], sizeof(double), err))) {
        tc_error_prefix(err, "%s", g.where);
        st = TC_ERR_NOMEM;
    }
    if (st == TC_OK)
        st = ds_read(&g, leaf, ds, TC_F64, *data, err);
    close_id(ds);
    grp_close(&g);
    close_id(file);
    if (st != TC_OK) {
        free(*data);
        *data = NULL;
        return st;
    }
    *rows = (int32_t)dims[0];
    *cols = (int32_t)dims[1];
    return TC_OK;
}

/* Creates the groups along `parent` ("/a/b") that do not exist yet. */
static tc_status create_parents(hid_t file, const char *fname, const char *parent,
                                tc_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s", parent);
    if (strcmp(path, "/") == 0)
        return TC_OK;
    char *p = path;
    do {
        p = strchr(p + 1, '/');
        if (p)
            *p = '\0';
        htri_t e = H5Lexists(file, path, H5P_DEFAULT);
        hid_t gcpl = e == 0 ? gcpl_new() : -1;
        hid_t gid = gcpl < 0 ? -1 : H5Gcreate2(file, path, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        close_id(gcpl);
        close_id(gid);
        if (e < 0 || (e == 0 && gid < 0))
            return h5_fail(err, TC_ERR_IO, "%s: %s: cannot create group", fname, path);
        if (p)
            *p = '/';
    } while (p);
    return TC_OK;
}

tc_status tc_h5_write_dense(const char *path, const char *dataset, int32_t rows,
                            int32_t cols, const double *data, int as_float32, tc_error *err)
{
    h5_quiet();
    char parent[512];
    const char *leaf;
    if (rows < 0 || cols < 0)
        return tc_error_set(err, TC_ERR_ARG, "%s: negative size %dx%d", path, rows, cols);
    if (strcmp(path, "-") == 0)
        return tc_error_set(err, TC_ERR_ARG,
                            "cannot write HDF5 to standard output (it needs a seekable file)");
    tc_status st = split_dataset(path, dataset, parent, sizeof parent, &leaf, err);
    if (st != TC_OK)
        return st;
    tc_atomic a;
    st = tc_atomic_open(&a, path, 0, err);
    if (st != TC_OK)
        return st;
    hid_t file;
    tc_h5grp g = { .id = -1 };
    st = file_create(a.tmp, path, &file, err);
    if (st == TC_OK)
        st = create_parents(file, path, parent, err);
    if (st == TC_OK)
        st = grp_open(&g, file, path, parent, 0, err);
    if (st == TC_OK) {
        hsize_t dims[2] = { (hsize_t)rows, (hsize_t)cols };
        st = ds_write(&g, leaf, H5T_NATIVE_DOUBLE,
                      as_float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, 2, dims, data, err);
    }
    grp_close(&g);
    return file_finish(file, &a, path, st, err);
}
