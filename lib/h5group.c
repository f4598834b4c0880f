/*
 * h5group.c: the generic HDF5 layer: the narrow interface of h5group.h that
 * formats/ store their arrays through, and the hid_t-level helpers of
 * h5internal.h that the container (h5file.c) and dense datasets
 * (h5dense.c) are built from.
 *
 * Everything goes through one small set of helpers (groups, 1-D datasets,
 * scalar attributes), so that the checks a hostile file must pass are
 * written once: only hard links are followed, data must live in the file
 * itself, a dataset's extent is checked against its rank, against what its
 * storage can hold and against the sizes it must agree with before anything
 * is allocated, and type conversions that would lose information abort.
 *
 * Nothing written here records a modification time, so that files are
 * reproducible. Attributes are h5attr.c's, files h5open.c's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"

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

void tc_h5_skip_exit_cleanup(void)
{
    H5dont_atexit();
}

void tc_h5_quiet(void)
{
    if (!h5_verbose)
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* HDF5's file driver describes a failed system call at length ("file write
   failed: time = ..., filename = '...', file descriptor = 3, errno = 28,
   error message = 'No space left on device', buf = 0x..., ..."): a date, a
   temporary file's name and addresses, on two lines, that differ from run
   to run. Such a description is cut to its first words and the system's
   message: "file write failed: No space left on device". */
static void describe(const char *desc, char *out, size_t size)
{
    static const char key[] = "error message = '";
    const char *m = strstr(desc, key);
    if (!m) {
        snprintf(out, size, "%s", desc);
        return;
    }
    m += sizeof key - 1;
    snprintf(out, size, "%.*s: %.*s", (int)strcspn(desc, ",:"), desc, (int)strcspn(m, "'"), m);
}

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    if (e->desc && e->desc[0]) {
        describe(e->desc, data, 256);
        return 1;   /* the first non-empty one, walking upward, is innermost */
    }
    return 0;
}

tc_status tc_h5_fail(tc_error *err, tc_status st, const char *fmt, ...)
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

void tc_h5_close(hid_t id)
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

const char *tc_h5_class_name(H5T_class_t c)
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

/* ------------------------------------------------------------------------ */
/* Links and groups                                                          */
/* ------------------------------------------------------------------------ */

/* The separator between g's path and a child's name in messages. */
static const char *sep(const tc_h5grp *g)
{
    size_t n = strlen(g->where);
    return n && g->where[n - 1] == '/' ? "" : "/";
}

void tc_h5grp_member(const tc_h5grp *g, const char *name, char *buf, size_t size)
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
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot look up", what);
    if (e > 0 && info.type != H5L_TYPE_HARD)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: is a soft or external link (only hard links are followed)",
                            what);
    return TC_OK;
}

tc_status tc_h5grp_open_at(tc_h5grp *g, hid_t file, const char *fname, const char *path,
                           int optional, tc_error *err)
{
    g->file = file;
    g->owns_file = 0;
    g->compress = 0;
    g->id = -1;
    snprintf(g->where, sizeof g->where, "%s: %s", fname, path);
    hid_t loc = H5Gopen2(file, "/", H5P_DEFAULT);
    if (loc < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot open the root group", fname);
    char part[256];
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len == 0)
            break;
        if (len >= sizeof part) {
            tc_h5_close(loc);
            return tc_error_set(err, TC_ERR_ARG, "%s: path component too long", g->where);
        }
        memcpy(part, p, len);
        part[len] = '\0';
        p += len;
        int found;
        tc_status st = hard_link(loc, part, g->where, &found, err);
        if (st != TC_OK || !found) {
            tc_h5_close(loc);
            if (st != TC_OK || optional)
                return st;
            return tc_error_set(err, TC_ERR_FORMAT, "%s: no such group", g->where);
        }
        hid_t next = H5Oopen(loc, part, H5P_DEFAULT);
        tc_h5_close(loc);
        if (next < 0)
            return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot open", g->where);
        if (H5Iget_type(next) != H5I_GROUP) {
            tc_h5_close(next);
            return tc_error_set(err, TC_ERR_FORMAT, "%s: not a group", g->where);
        }
        loc = next;
    }
    g->id = loc;
    return TC_OK;
}

void tc_h5grp_release(tc_h5grp *g)
{
    tc_h5_close(g->id);
    g->id = -1;
}

hid_t tc_h5_gcpl_new(void)
{
    hid_t p = H5Pcreate(H5P_GROUP_CREATE);
    if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
        tc_h5_close(p);
        return -1;
    }
    return p;
}

tc_status tc_h5grp_create_at(tc_h5grp *g, hid_t file, const char *fname,
                             const tc_h5grp *parent, const char *name, int compress,
                             tc_error *err)
{
    g->file = file;
    g->owns_file = 0;
    g->compress = compress;
    if (parent)
        tc_h5grp_member(parent, name, g->where, sizeof g->where);
    else
        snprintf(g->where, sizeof g->where, "%s: /%s", fname, name);
    hid_t gcpl = tc_h5_gcpl_new();
    g->id = gcpl < 0 ? -1
                     : H5Gcreate2(parent ? parent->id : file, name, H5P_DEFAULT, gcpl,
                                  H5P_DEFAULT);
    tc_h5_close(gcpl);
    if (g->id < 0)
        return tc_h5_fail(err, TC_ERR_IO, "%s: cannot create group", g->where);
    return TC_OK;
}

const char *tc_h5grp_path(const tc_h5grp *g)
{
    return g->where;
}

/* ------------------------------------------------------------------------ */
/* Datasets                                                                  */
/* ------------------------------------------------------------------------ */

/* The chunk length, in elements, of a dataset of g of n elements of size
   bytes: 0 (contiguous) unless g->compress and the dataset is 1-D and
   large. */
static hsize_t chunk_length(const tc_h5grp *g, int rank, hsize_t n, size_t size)
{
    if (!g->compress || rank != 1 || n * size <= COMPRESS_MIN_BYTES)
        return 0;
    return CHUNK_BYTES / size < n ? CHUNK_BYTES / size : n;
}

/* Creates dataset `name` of g with its full extent: chunked, shuffled and
   deflated when chunk_length says so (its length in *chunk_out, if not
   NULL; 0: contiguous); contiguous otherwise. */
static tc_status dataset_create(tc_h5grp *g, const char *name, hid_t ft, int rank,
                                const hsize_t *dims, const char *what, hid_t *out,
                                hsize_t *chunk_out, tc_error *err)
{
    tc_status st = TC_OK;
    size_t size = H5Tget_size(ft);
    hsize_t n = rank == 1 ? dims[0] : dims[0] * dims[1], chunk = chunk_length(g, rank, n, size);
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    *out = -1;
    if (chunk_out)
        *chunk_out = chunk;
    if (space < 0 || dcpl < 0 || H5Pset_obj_track_times(dcpl, 0) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
        st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot set up", what);
        goto out;
    }
    if (chunk) {
        if (H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
            H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0) {
            st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot set up compression", what);
            goto out;
        }
    }
    *out = H5Dcreate2(g->id, name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (*out < 0)
        st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot create dataset", what);
out:
    tc_h5_close(dcpl);
    tc_h5_close(space);
    return st;
}

tc_status tc_h5ds_write(tc_h5grp *g, const char *name, hid_t mt, hid_t ft, int rank,
                        const hsize_t *dims, const void *data, tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    hsize_t n = rank == 1 ? dims[0] : dims[0] * dims[1];
    hid_t ds;
    hsize_t chunk;
    tc_status st = dataset_create(g, name, ft, rank, dims, what, &ds, &chunk, err);
    if (st != TC_OK || n == 0)
        ;
    else if (chunk && H5Tequal(mt, ft) > 0)     /* the bytes in memory are the file's */
        st = tc_h5ds_write_deflated(ds, data, (int64_t)n, H5Tget_size(ft), (int64_t)chunk,
                                    DEFLATE_LEVEL, what, err);
    else if (H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot write", what);
    tc_h5_close(ds);
    return st;
}

tc_status tc_h5ds_create_1d(tc_h5grp *g, const char *name, tc_dtype t, int64_t n, hid_t *ds,
                            tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    if (n < 0)
        return tc_error_set(err, TC_ERR_ARG, "%s: negative length %" PRId64, what, n);
    hsize_t dim = (hsize_t)n;
    return dataset_create(g, name, dtype_file(t), 1, &dim, what, ds, NULL, err);
}

tc_status tc_h5ds_write_at(tc_h5grp *g, const char *name, hid_t ds, tc_dtype t, int64_t at,
                           int64_t count, const void *data, tc_error *err)
{
    if (count == 0)
        return TC_OK;
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    hsize_t start = (hsize_t)at, n = (hsize_t)count;
    hid_t fspace = H5Dget_space(ds);
    hid_t mspace = H5Screate_simple(1, &n, NULL);
    herr_t r = fspace < 0 || mspace < 0 ||
                       H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &n, NULL) < 0
                   ? -1
                   : H5Dwrite(ds, dtype_mem(t), mspace, fspace, H5P_DEFAULT, data);
    tc_h5_close(mspace);
    tc_h5_close(fspace);
    if (r < 0)
        return tc_h5_fail(err, TC_ERR_IO, "%s: cannot write entries %" PRId64 " to %" PRId64,
                          what, at, at + count - 1);
    return TC_OK;
}

tc_status tc_h5grp_put(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                       const void *data, tc_error *err)
{
    if (n < 0)
        return tc_error_set(err, TC_ERR_ARG, "%s: %s: negative length %" PRId64, g->where,
                            name, n);
    hsize_t dim = (hsize_t)n;
    return tc_h5ds_write(g, name, dtype_mem(t), dtype_file(t), 1, &dim, data, err);
}

tc_status tc_h5ds_open(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                       hid_t *out, tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    *out = -1;
    int found;
    tc_status st = hard_link(g->id, name, what, &found, err);
    if (st != TC_OK || !found)
        return st != TC_OK || optional ? st
                                       : tc_error_set(err, TC_ERR_FORMAT, "%s: no such dataset",
                                                      what);
    hid_t ds = H5Oopen(g->id, name, H5P_DEFAULT);
    if (ds < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot open", what);
    if (H5Iget_type(ds) != H5I_DATASET) {
        tc_h5_close(ds);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not a dataset", what);
    }
    hid_t dcpl = H5Dget_create_plist(ds);
    H5D_layout_t layout = dcpl < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(dcpl);
    int external = dcpl < 0 ? 0 : H5Pget_external_count(dcpl);
    tc_h5_close(dcpl);
    hid_t ft = H5Dget_type(ds);
    H5T_class_t cls = ft < 0 ? H5T_NO_CLASS : H5Tget_class(ft);
    tc_h5_close(ft);
    if ((layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) ||
        external != 0)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: data stored outside the file (external or virtual "
                          "datasets are not accepted)", what);
    else if (cls != H5T_INTEGER && !(cls == H5T_FLOAT && dtype_is_float(t)))
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: expected %s dataset, found %s", what,
                          dtype_is_float(t) ? "a numeric" : "an integer",
                          tc_h5_class_name(cls));
    if (st != TC_OK) {
        tc_h5_close(ds);
        return st;
    }
    *out = ds;
    return TC_OK;
}

tc_status tc_h5ds_extent(const tc_h5grp *g, const char *name, hid_t ds, int rank,
                         int64_t *dims, tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    hid_t space = H5Dget_space(ds);
    H5S_class_t sc = space < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(space);
    int r = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hsize_t d[H5S_MAX_RANK];
    if (r >= 0 && H5Sget_simple_extent_dims(space, d, NULL) < 0)
        r = -1;
    tc_h5_close(space);
    if (r < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its extent", what);
    if (r != rank || sc != H5S_SIMPLE)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: expected a %d-D dataset, found rank %d",
                            what, rank, sc == H5S_SIMPLE ? r : 0);
    hid_t ft = H5Dget_type(ds);
    int64_t bytes = ft < 0 ? 0 : (int64_t)H5Tget_size(ft);
    tc_h5_close(ft);
    for (int i = 0; i < rank; i++) {
        if (d[i] > INT64_MAX || tc_mul_overflows(bytes, (int64_t)d[i], &bytes))
            return tc_error_set(err, TC_ERR_FORMAT, "%s: absurd extent %llu", what,
                                (unsigned long long)d[i]);
        dims[i] = (int64_t)d[i];
    }
    hsize_t fsize = 0;
    hsize_t storage = H5Dget_storage_size(ds);
    if (H5Fget_filesize(g->file, &fsize) < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot get the file size", what);
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

tc_status tc_h5ds_read(const tc_h5grp *g, const char *name, hid_t ds, tc_dtype t,
                       void *buf, tc_error *err)
{
    char what[WHERE_MAX];
    tc_h5grp_member(g, name, what, sizeof what);
    /* a deflated array checked and inflated on threads in one walk;
       anything else has its chunks checked there before HDF5 reads it */
    hsize_t fsize = 0;
    int done = 0;
    if (H5Fget_filesize(g->file, &fsize) < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot get the file size", what);
    tc_status st = tc_h5ds_read_chunks(ds, dtype_mem(t), buf, what, fsize, &done, err);
    if (st != TC_OK || done)
        return st;
    int lossy = 0;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    herr_t r = dxpl < 0 || H5Pset_type_conv_cb(dxpl, conv_cb, &lossy) < 0
                   ? -1
                   : H5Dread(ds, dtype_mem(t), H5S_ALL, H5S_ALL, dxpl, buf);
    tc_h5_close(dxpl);
    if (lossy) {
        H5Eclear2(H5E_DEFAULT);
        return tc_error_set(err, TC_ERR_FORMAT, "%s: a value does not fit in %s", what,
                            dtype_name(t));
    }
    if (r < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read", what);
    return TC_OK;
}

tc_status tc_h5ds_open_1d(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                          int64_t want, const char *why, hid_t *ds, int64_t *n,
                          tc_error *err)
{
    tc_status st = tc_h5ds_open(g, name, t, optional, ds, err);
    if (st != TC_OK || *ds < 0)
        return st;
    st = tc_h5ds_extent(g, name, *ds, 1, n, err);
    if (st == TC_OK && want >= 0 && *n != want) {
        char what[WHERE_MAX];
        tc_h5grp_member(g, name, what, sizeof what);
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: expected %" PRId64 " entries%s%s%s, found %"
                          PRId64, what, want, why ? " (" : "", why ? why : "", why ? ")" : "",
                          *n);
    }
    if (st != TC_OK) {
        tc_h5_close(*ds);
        *ds = -1;
    }
    return st;
}

tc_status tc_h5ds_get_1d(tc_h5grp *g, const char *name, tc_dtype t, int64_t want,
                         const char *why, int optional, int64_t *n, void **data, tc_error *err)
{
    hid_t ds;
    *data = NULL;
    *n = -1;
    tc_status st = tc_h5ds_open_1d(g, name, t, optional, want, why, &ds, n, err);
    if (st != TC_OK || ds < 0)
        return st;
    *data = tc_malloc_array(*n, tc_dtype_size(t), err);
    if (*data)
        st = tc_h5ds_read(g, name, ds, t, *data, err);
    else {
        char what[WHERE_MAX];
        tc_h5grp_member(g, name, what, sizeof what);
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", what);
        st = TC_ERR_NOMEM;
    }
    tc_h5_close(ds);
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
    return tc_h5ds_get_1d(g, name, t, -1, NULL, optional, n, data, err);
}

tc_status tc_h5grp_get_n(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                         void **data, tc_error *err)
{
    int64_t got;
    return tc_h5ds_get_1d(g, name, t, n, NULL, 0, &got, data, err);
}

int tc_h5grp_has(tc_h5grp *g, const char *name)
{
    htri_t e = H5Lexists(g->id, name, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return e > 0;
}
