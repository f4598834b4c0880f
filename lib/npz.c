/*
 * npz.c: SciPy's sparse matrix files, scipy.sparse.save_npz: a zip archive
 * (read and written by libzip) of .npy arrays (npy.c): format ('csr',
 * 'csc' or 'coo'), shape, data, and indices + indptr or row + col. The
 * arrays become a tc_csr through tc_csr_from_arrays, like every other
 * container's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "tcsparse.h"
#include "npy.h"
#include "sparse_arrays.h"

/* A deflated member inflates at most about 1032 times; more claimed is a
   lie that would make us allocate what the archive does not hold. */
enum { DEFLATE_MAX_RATIO = 1032, SIZE_SLACK = 1 << 16 };

/* Members are dated 2000-01-01 00:00 UTC, not now, so that the same matrix
   gives the same bytes. */
static const time_t MEMBER_MTIME = 946684800;

/* One member read and parsed: a.data points into buf. */
typedef struct member {
    char what[1024];        /* "m.npz: indices.npy" */
    void *buf;
    tc_npy a;
} member;

static tc_status archive_error(const char *name, int code, tc_error *err)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    tc_status st = code == ZIP_ER_NOENT || code == ZIP_ER_OPEN || code == ZIP_ER_READ
                       ? TC_ERR_IO : code == ZIP_ER_MEMORY ? TC_ERR_NOMEM : TC_ERR_FORMAT;
    if (code == ZIP_ER_NOZIP)
        tc_error_set(err, st, "%s: not a zip archive, or a truncated one (a .npz file is "
                     "the zip archive scipy.sparse.save_npz writes)", name);
    else
        tc_error_set(err, st, "%s: cannot read the zip archive: %s", name,
                     zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return st;
}

/* Standard input is read whole first: a zip archive's directory is at its
   end, and a pipe cannot seek there. */
static tc_status open_stdin(zip_t **za, tc_error *err)
{
    const char *name = "standard input";
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, stdin);
        if (n < cap)
            break;
        unsigned char *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap *= 2);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (!buf)
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", name);
    if (ferror(stdin)) {
        free(buf);
        return tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot read", name);
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(buf, n, 1, &ze);
    *za = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze) : NULL;
    int code = zip_error_code_zip(&ze);
    zip_error_fini(&ze);
    if (*za)
        return TC_OK;
    if (src)
        zip_source_free(src);
    else
        free(buf);
    return archive_error(name, code, err);
}

/* path, or standard input for "-", as an archive; *name is what messages
   call it. */
static tc_status open_archive(const char *path, zip_t **za, const char **name, tc_error *err)
{
    if (strcmp(path, "-") == 0) {
        *name = "standard input";
        return open_stdin(za, err);
    }
    *name = path;
    int code = 0;
    *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &code);
    return *za ? TC_OK : archive_error(path, code, err);
}

/* Reads member NAME.npy whole, checking its sizes against the archive
   before allocating and its CRC as it is read. */
static tc_status read_member(zip_t *za, const char *path, const char *name, member *m,
                             tc_error *err)
{
    snprintf(m->what, sizeof m->what, "%s: %s.npy", path, name);
    m->buf = NULL;
    char file[64];
    snprintf(file, sizeof file, "%s.npy", name);
    zip_int64_t idx = zip_name_locate(za, file, 0);
    if (idx < 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: no such member (scipy.sparse.save_npz "
                            "writes one)", m->what);
    zip_stat_t sb;
    zip_stat_init(&sb);
    if (zip_stat_index(za, (zip_uint64_t)idx, 0, &sb) != 0 ||
        !(sb.valid & ZIP_STAT_SIZE) || !(sb.valid & ZIP_STAT_COMP_SIZE))
        return tc_error_set(err, TC_ERR_FORMAT, "%s: cannot read its size: %s", m->what,
                            zip_strerror(za));
    if (sb.size > (zip_uint64_t)INT64_MAX / 2 ||
        sb.size > sb.comp_size * DEFLATE_MAX_RATIO + SIZE_SLACK)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: claims %" PRIu64 " bytes from %" PRIu64
                            " compressed (corrupt archive)", m->what, (uint64_t)sb.size,
                            (uint64_t)sb.comp_size);
    if (!(m->buf = tc_malloc_array((int64_t)sb.size, 1, err))) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", m->what);
        return TC_ERR_NOMEM;
    }
    zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)idx, 0);
    zip_int64_t got = 0, r = 0;
    char extra;
    while (zf && (zip_uint64_t)got < sb.size &&
           (r = zip_fread(zf, (char *)m->buf + got, sb.size - (zip_uint64_t)got)) > 0)
        got += r;
    /* the CRC is checked when the end is read */
    if (zf && r >= 0 && (zip_uint64_t)got == sb.size)
        r = zip_fread(zf, &extra, 1);
    tc_status st = TC_OK;
    if (!zf || r != 0 || (zip_uint64_t)got != sb.size)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: cannot read (%s)", m->what,
                          !zf ? zip_strerror(za) : r < 0 ? zip_file_strerror(zf)
                                                          : "its length differs from the "
                                                            "archive's directory");
    if (zf)
        zip_fclose(zf);
    if (st == TC_OK)
        st = tc_npy_parse(m->buf, (size_t)sb.size, m->what, &m->a, err);
    if (st != TC_OK) {
        free(m->buf);
        m->buf = NULL;
    }
    return st;
}

static tc_status read_i64(zip_t *za, const char *path, const char *name, int64_t **v,
                          int64_t *n, tc_error *err)
{
    member m;
    tc_status st = read_member(za, path, name, &m, err);
    if (st == TC_OK) {
        st = tc_npy_to_i64(&m.a, m.what, v, err);
        *n = m.a.count;
    }
    free(m.buf);
    return st;
}

/* format.npy: b'csr' (save_npz) or 'csr' (a unicode string). */
static tc_status read_format(zip_t *za, const char *path, tc_sparse_layout *layout,
                             tc_error *err)
{
    member m;
    char fmt[16];
    tc_status st = read_member(za, path, "format", &m, err);
    if (st == TC_OK)
        st = tc_npy_to_text(&m.a, m.what, fmt, sizeof fmt, err);
    if (st == TC_OK) {
        if (strcmp(fmt, "csr") == 0)
            *layout = TC_LAYOUT_CSR;
        else if (strcmp(fmt, "csc") == 0)
            *layout = TC_LAYOUT_CSC;
        else if (strcmp(fmt, "coo") == 0)
            *layout = TC_LAYOUT_COO;
        else
            st = tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: format '%s' is not supported "
                              "(expected csr, csc or coo)", m.what, fmt);
    }
    free(m.buf);
    return st;
}

/* The arrays that tc_csr_from_arrays takes, owned here. */
typedef struct npz_arrays {
    int64_t *shape, *ptr, *major, *minor;
    double *val;
} npz_arrays;

static tc_status read_arrays(zip_t *za, const char *path, tc_sparse_arrays *s, npz_arrays *o,
                             tc_error *err)
{
    int64_t nshape;
    member m;
    tc_status st = read_format(za, path, &s->layout, err);
    if (st == TC_OK)
        st = read_i64(za, path, "shape", &o->shape, &nshape, err);
    if (st == TC_OK && nshape != 2)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: shape.npy: expected 2 entries (rows, "
                          "columns), found %" PRId64, path, nshape);
    if (st != TC_OK)
        return st;
    s->rows = o->shape[0];
    s->cols = o->shape[1];
    if (s->layout == TC_LAYOUT_COO) {
        s->major_ids.name = "row.npy";
        s->minor.name = "col.npy";
        st = read_i64(za, path, "row", &o->major, &s->major_ids.n, err);
        if (st == TC_OK)
            st = read_i64(za, path, "col", &o->minor, &s->minor.n, err);
    } else {
        s->ptr.name = "indptr.npy";
        s->minor.name = "indices.npy";
        st = read_i64(za, path, "indptr", &o->ptr, &s->ptr.n, err);
        if (st == TC_OK)
            st = read_i64(za, path, "indices", &o->minor, &s->minor.n, err);
    }
    if (st == TC_OK && (st = read_member(za, path, "data", &m, err)) == TC_OK) {
        st = tc_npy_to_f64(&m.a, m.what, &o->val, err);
        s->val.n = m.a.count;
        s->field = m.a.kind == 'f' ? TC_FIELD_REAL : TC_FIELD_INTEGER;
        free(m.buf);
    }
    s->ptr.i64 = o->ptr;
    s->major_ids.i64 = o->major;
    s->minor.i64 = o->minor;
    s->val.name = "data.npy";
    s->val.f64 = o->val;
    return st;
}

tc_status tc_npz_read(const char *path, tc_csr **out, tc_error *err)
{
    *out = NULL;
    zip_t *za = NULL;
    const char *name;
    tc_status st = open_archive(path, &za, &name, err);
    if (st != TC_OK)
        return st;
    tc_sparse_arrays s = { .what = name, .symmetry = TC_SYM_GENERAL, .tri = TC_TRI_ALL };
    npz_arrays o = { 0 };
    /* (libzip takes an empty file for an archive with no members) */
    if (zip_get_num_entries(za, 0) == 0)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: an empty archive (expected the members "
                          "scipy.sparse.save_npz writes)", name);
    else
        st = read_arrays(za, name, &s, &o, err);
    zip_discard(za);
    if (st == TC_OK)
        st = tc_csr_from_arrays(&s, out, err);
    free(o.shape);
    free(o.ptr);
    free(o.major);
    free(o.minor);
    free(o.val);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

/* Adds NAME.npy holding count elements of data, deflated. */
static tc_status add_member(zip_t *za, const char *path, const char *name, const char *descr,
                            int rank, int64_t count, const void *data, size_t elem_size,
                            tc_error *err)
{
    void *npy;
    size_t len;
    tc_status st = tc_npy_build(descr, rank, count, data, elem_size, &npy, &len, err);
    if (st != TC_OK) {
        tc_error_prefix(err, st, "%s: %s.npy", path, name);
        return st;
    }
    char file[64];
    snprintf(file, sizeof file, "%s.npy", name);
    zip_source_t *src = zip_source_buffer(za, npy, len, 1);
    zip_int64_t idx = src ? zip_file_add(za, file, src, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0 || zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 0) != 0 ||
        zip_file_set_mtime(za, (zip_uint64_t)idx, MEMBER_MTIME, 0) != 0) {
        st = tc_error_set(err, TC_ERR_IO, "%s: %s: %s", path, file, zip_strerror(za));
        if (idx < 0 && src)
            zip_source_free(src);
        else if (!src)
            free(npy);
    }
    return st;
}

/* The members scipy.sparse.save_npz writes for a CSR matrix, in its
   order: int32 indices and indptr when the entries allow (as SciPy
   chooses), int64 otherwise; float64 data (ones for a pattern). */
static tc_status add_csr(zip_t *za, const char *path, const tc_csr *a, tc_error *err)
{
    int narrow = a->nnz <= INT32_MAX;
    int64_t np = (int64_t)a->rows + 1;
    void *ptr = narrow ? tc_malloc_array(np, sizeof(int32_t), err) : (void *)a->rowptr;
    void *ind = narrow ? (void *)a->colidx : tc_malloc_array(a->nnz, sizeof(int64_t), err);
    double *ones = a->val ? NULL : tc_malloc_array(a->nnz, sizeof *ones, err);
    tc_status st = TC_OK;
    if (!ptr || !ind || (!a->val && !ones)) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", path);
        st = TC_ERR_NOMEM;
    }
    for (int64_t i = 0; st == TC_OK && narrow && i < np; i++)
        ((int32_t *)ptr)[i] = (int32_t)a->rowptr[i];
    for (int64_t k = 0; st == TC_OK && !narrow && k < a->nnz; k++)
        ((int64_t *)ind)[k] = a->colidx[k];
    for (int64_t k = 0; st == TC_OK && ones && k < a->nnz; k++)
        ones[k] = 1.0;
    const char *idt = narrow ? "<i4" : "<i8";
    size_t isz = narrow ? sizeof(int32_t) : sizeof(int64_t);
    int64_t shape[2] = { a->rows, a->cols };
    if (st == TC_OK)
        st = add_member(za, path, "indices", idt, 1, a->nnz, ind, isz, err);
    if (st == TC_OK)
        st = add_member(za, path, "indptr", idt, 1, np, ptr, isz, err);
    if (st == TC_OK)
        st = add_member(za, path, "format", "|S3", 0, 1, "csr", 3, err);
    if (st == TC_OK)
        st = add_member(za, path, "shape", "<i8", 1, 2, shape, sizeof shape[0], err);
    if (st == TC_OK)
        st = add_member(za, path, "data", "<f8", 1, a->nnz, a->val ? a->val : ones,
                        sizeof(double), err);
    if (narrow)
        free(ptr);
    else
        free(ind);
    free(ones);
    return st;
}

/* The archive built in src copied to fp. */
static tc_status copy_archive(zip_source_t *src, FILE *fp, const char *path, tc_error *err)
{
    if (zip_source_open(src) != 0)
        return tc_error_set(err, TC_ERR_IO, "%s: cannot read the archive built: %s", path,
                            zip_error_strerror(zip_source_error(src)));
    char chunk[1 << 16];
    zip_int64_t r;
    tc_status st = TC_OK;
    while (st == TC_OK && (r = zip_source_read(src, chunk, sizeof chunk)) != 0) {
        if (r < 0)
            st = tc_error_set(err, TC_ERR_IO, "%s: cannot read the archive built: %s", path,
                              zip_error_strerror(zip_source_error(src)));
        else if (fwrite(chunk, 1, (size_t)r, fp) != (size_t)r)
            st = tc_error_errno(err, TC_ERR_IO, errno, "%s: write failed", path);
    }
    zip_source_close(src);
    return st;
}

tc_status tc_npz_write(const char *path, const tc_csr *a, tc_error *err)
{
    tc_status st = tc_csr_validate(a, path, err);
    if (st != TC_OK)
        return st;
    /* the archive is built in memory, then written through tc_atomic like
       any output (a temporary file renamed into place, or stdout) */
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_TRUNCATE, &ze) : NULL;
    if (!za) {
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: cannot start a zip archive: %s", path,
                          zip_error_strerror(&ze));
        zip_error_fini(&ze);
        if (src)
            zip_source_free(src);
        return st;
    }
    zip_error_fini(&ze);
    zip_source_keep(src);
    st = add_csr(za, path, a, err);
    if (st == TC_OK && zip_close(za) != 0) {
        st = tc_error_set(err, TC_ERR_IO, "%s: cannot build the zip archive: %s", path,
                          zip_strerror(za));
        zip_discard(za);
    } else if (st != TC_OK) {
        zip_discard(za);
    }
    tc_atomic at;
    if (st == TC_OK && (st = tc_atomic_open(&at, path, 1, err)) == TC_OK) {
        st = copy_archive(src, at.fp, path, err);
        if (st == TC_OK)
            st = tc_atomic_commit(&at, err);
        else
            tc_atomic_abort(&at);
    }
    zip_source_free(src);
    return st;
}
