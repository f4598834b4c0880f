/*
 * t_h5file.c: the .tcf.h5 container (lib/tcf.c, lib/h5file.c, lib/h5group.c,
 * lib/h5dense.c): round trips of awkward matrices, permutations and
 * provenance; reproducible bytes; compression
 * policy; the h5group.h helpers formats use; atomic writes; dense
 * datasets and stored parameters. Every refusal of a bad file is
 * t_h5bad.c's; both share tests/h5test.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "tap.h"
#include "tcsparse.h"
#include "h5group.h"
#include "h5internal.h"
#include "formats.h"
#include "h5test.h"

/* ------------------------------------------------------------------------ */
/* Matrices                                                                  */
/* ------------------------------------------------------------------------ */

static int same_perm(const tc_perm *a, const tc_perm *b)
{
    if (!a || !b)
        return a == b;
    return a->n == b->n && memcmp(a->new2old, b->new2old, a->n * sizeof(int32_t)) == 0 &&
           memcmp(a->old2new, b->old2new, a->n * sizeof(int32_t)) == 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Writes f, reads it back, compares everything; frees f. */
static void roundtrip(const char *name, tc_tcf *f, int compress)
{
    const char *path = in_dir("rt.tcf.h5");
    tc_error err;
    tc_h5_write_opts o = { compress };
    tc_tcf *g = NULL;
    tc_status st = tc_h5_write(path, f, &o, &err);
    if (st == TC_OK)
        st = tc_h5_read(path, 1, &g, &err);
    if (!ok(st == TC_OK, "%s: written and read back", name)) {
        diag("%s", err.msg);
        tc_tcf_free(f);
        return;
    }
    const tc_csr *a = f->matrix, *b = g->matrix;
    ok(tc_csr_equal(a, b) && a->field == b->field && a->symmetry == b->symmetry,
       "%s: same matrix, field and symmetry", name);
    int params_same = f->perm_params.n == g->perm_params.n;
    for (int i = 0; i < f->perm_params.n; i++)
        params_same &= tc_params_get(&g->perm_params, f->perm_params.kv[i].name, NAN) ==
                       f->perm_params.kv[i].value;
    ok(same_perm(f->row_perm, g->row_perm) && same_perm(f->col_perm, g->col_perm) &&
       same_str(f->perm_method, g->perm_method) && params_same,
       "%s: same permutations, method and parameters", name);
    tc_tcf_free(f);
    tc_tcf_free(g);
}

/* A random n x n integer matrix that is symmetric, as its symmetry says
   (the reader checks): the lower triangle of one, mirrored. */
static tc_csr *symmetric_csr(int32_t n, int64_t nnz)
{
    tc_csr *r = random_csr(n, n, nnz, TC_FIELD_INTEGER, 0), *a = NULL;
    int32_t *ri = malloc((r->nnz + 1) * sizeof *ri), *ci = malloc((r->nnz + 1) * sizeof *ci);
    double *v = malloc((r->nnz + 1) * sizeof *v);
    int64_t m = 0;
    for (int32_t i = 0; i < n; i++)
        for (int64_t p = r->rowptr[i]; p < r->rowptr[i + 1]; p++)
            if (r->colidx[p] <= i) {
                ri[m] = i;
                ci[m] = r->colidx[p];
                v[m++] = r->val[p];
            }
    tc_error err;
    if (tc_csr_from_coo_sym(&a, n, n, m, ri, ci, v, TC_SYM_SYMMETRIC, 1, &err) != TC_OK)
        diag("symmetric_csr: %s", err.msg);
    else {
        a->field = TC_FIELD_INTEGER;
        a->symmetry = TC_SYM_SYMMETRIC;
    }
    tc_csr_free(r);
    free(ri);
    free(ci);
    free(v);
    return a;
}

static void test_roundtrips(void)
{
    roundtrip("real 100x80", tcf_of(random_csr(100, 80, 600, TC_FIELD_REAL, 0)), 1);
    roundtrip("integer 50x50, symmetric source", tcf_of(symmetric_csr(50, 300)), 1);
    roundtrip("pattern 70x30", tcf_of(random_csr(70, 30, 200, TC_FIELD_PATTERN, 0)), 1);
    roundtrip("empty 5x7, no nonzeros", tcf_of(random_csr(5, 7, 0, TC_FIELD_REAL, 0)), 1);
    roundtrip("0x0", tcf_of(random_csr(0, 0, 0, TC_FIELD_PATTERN, 0)), 1);
    roundtrip("1x1", tcf_of(random_csr(1, 1, 1, TC_FIELD_REAL, 0)), 1);
    roundtrip("3x1000", tcf_of(random_csr(3, 1000, 900, TC_FIELD_REAL, 0)), 1);
    roundtrip("1000x3", tcf_of(random_csr(1000, 3, 900, TC_FIELD_PATTERN, 0)), 1);
    /* > 65535 rows, a dense row (> 4096 nnz), a dense column: compressed
       datasets of several chunks */
    roundtrip("70001x5000 with dense row and column, compressed",
              tcf_of(random_csr(70001, 5000, 400000, TC_FIELD_REAL, 1)), 1);
    roundtrip("70001x5000 with dense row and column, uncompressed",
              tcf_of(random_csr(70001, 5000, 400000, TC_FIELD_REAL, 1)), 0);

    tc_tcf *f = tcf_of(random_csr(1037, 777, 5000, TC_FIELD_REAL, 1));
    f->row_perm = random_perm(1037);
    f->perm_method = strdup("rcm");
    tc_params_parse(&f->perm_params, "seed=7,alpha=0.25,big=1e300", NULL);
    roundtrip("row permutation with method and parameters", f, 1);
    f = tcf_of(random_csr(300, 200, 2000, TC_FIELD_PATTERN, 0));
    f->row_perm = random_perm(300);
    f->col_perm = random_perm(200);
    roundtrip("row and column permutations, no method", f, 1);
}

/* ------------------------------------------------------------------------ */
/* Provenance, reproducibility, compression                                 */
/* ------------------------------------------------------------------------ */

static void test_provenance(void)
{
    tc_provenance p = { 0 };
    tc_error err;
    char *argv[] = { "tcconv", "my graph.mtx", "-o", "it's.tcf.h5", "--x=a,b", "" };
    setenv("SOURCE_DATE_EPOCH", "86400", 1);
    ok(tc_provenance_set(&p, 6, argv, "my graph.mtx", &err) == TC_OK, "provenance set");
    is_str(p.creator, "tcsparse " TC_VERSION_STRING, "creator");
    is_str(p.created, "1970-01-02T00:00:00Z", "created from SOURCE_DATE_EPOCH");
    is_str(p.command, "tcconv 'my graph.mtx' -o 'it'\\''s.tcf.h5' --x=a,b ''",
           "command quoted for the shell");
    is_str(p.source, "my graph.mtx", "source");
    setenv("SOURCE_DATE_EPOCH", "soon", 1);
    ok(tc_provenance_set(&p, 1, argv, NULL, &err) == TC_ERR_ARG, "bad SOURCE_DATE_EPOCH refused");
    is_str(err.msg, "SOURCE_DATE_EPOCH: expected seconds since 1970, found 'soon'",
           "its message");
    unsetenv("SOURCE_DATE_EPOCH");
    ok(tc_provenance_set(&p, 1, argv, NULL, &err) == TC_OK && p.source == NULL &&
       strlen(p.created) == 20 && p.created[19] == 'Z', "created now, source cleared");

    tc_tcf *f = tcf_of(random_csr(20, 20, 50, TC_FIELD_REAL, 0));
    f->prov = p;
    f->prov.banner = strdup("%%MatrixMarket matrix coordinate real general");
    f->prov.comments = strdup("caf\xe9 cr\xc3\xa8me\nline 2");
    const char *path = in_dir("prov.tcf.h5");
    tc_tcf *g = NULL;
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK && tc_h5_read(path, 0, &g, &err) == TC_OK,
       "written and read with provenance");
    if (g) {
        ok(same_str(g->prov.creator, f->prov.creator) &&
           same_str(g->prov.created, f->prov.created) &&
           same_str(g->prov.command, f->prov.command) && g->prov.source == NULL &&
           same_str(g->prov.banner, f->prov.banner), "provenance read back");
        is_str(g->prov.comments, "caf\xef\xbf\xbd cr\xc3\xa8me\nline 2",
               "invalid UTF-8 stored as U+FFFD, valid UTF-8 kept");
    }
    tc_tcf_free(f);
    tc_tcf_free(g);
}

static void test_reproducible(void)
{
    tc_tcf *f = tcf_of(random_csr(5000, 3000, 60000, TC_FIELD_REAL, 1));
    f->row_perm = random_perm(5000);
    f->perm_method = strdup("degree");
    char *argv[] = { "tcreorder", "x" };
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    tc_provenance_set(&f->prov, 2, argv, "x.mtx", NULL);
    unsetenv("SOURCE_DATE_EPOCH");
    tc_error err;
    const char *a = in_dir("same1.tcf.h5"), *b = in_dir("same2.tcf.h5");
    /* a second apart, so that any timestamp HDF5 recorded would differ */
    ok(tc_h5_write(a, f, NULL, &err) == TC_OK && sleep(1) == 0 &&
       tc_h5_write(b, f, NULL, &err) == TC_OK, "two writes of the same content");
    ok(same_bytes(a, b), "are byte-identical");
    tc_tcf_free(f);
}

/* The storage of dataset path in file: layout and number of filters. */
static void storage_of(const char *file, const char *path, H5D_layout_t *layout,
                       int *nfilters)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t p = H5Dget_create_plist(d);
    *layout = H5Pget_layout(p);
    *nfilters = H5Pget_nfilters(p);
    H5Pclose(p);
    H5Dclose(d);
    H5Fclose(f);
}

static void test_compression(void)
{
    tc_tcf *f = tcf_of(random_csr(20000, 20000, 200000, TC_FIELD_PATTERN, 0));
    const char *a = in_dir("z.tcf.h5"), *b = in_dir("plain.tcf.h5");
    tc_h5_write_opts off = { 0 };
    tc_error err;
    ok(tc_h5_write(a, f, NULL, &err) == TC_OK && tc_h5_write(b, f, &off, &err) == TC_OK,
       "written with and without compression");
    H5D_layout_t layout;
    int nf;
    storage_of(a, "/matrix/indices", &layout, &nf);
    ok(layout == H5D_CHUNKED && nf == 2, "large dataset: chunked, shuffle + deflate");
    storage_of(b, "/matrix/indices", &layout, &nf);
    ok(layout == H5D_CONTIGUOUS && nf == 0, "compress off: contiguous");
    struct stat sa, sb;
    stat(a, &sa);
    stat(b, &sb);
    ok(sa.st_size * 2 < sb.st_size, "compressed %lld bytes, uncompressed %lld",
       (long long)sa.st_size, (long long)sb.st_size);
    tc_tcf_free(f);
    f = tcf_of(random_csr(100, 100, 1000, TC_FIELD_REAL, 0));
    tc_h5_write(a, f, NULL, &err);
    storage_of(a, "/matrix/data", &layout, &nf);
    ok(layout == H5D_CONTIGUOUS && nf == 0, "small dataset: contiguous even when compressing");
    tc_tcf_free(f);
}

/* Dataset path of file read through HDF5's own filter pipeline, as type
   mt, into buf (n elements). */
static int read_through_hdf5(const char *file, const char *path, hid_t mt, void *buf)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    herr_t r = H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    H5Fclose(f);
    return r >= 0;
}

/* Chunks shuffled and deflated on threads, stored raw (lib/h5deflate.c):
   HDF5's own filters read them back, the last, partial chunk too, and the
   file's bytes do not depend on the thread count. */
static void test_threaded_compression(void)
{
    /* indices: 2 chunks of 262144 entries, the second partial; data: 3
       chunks of 131072 */
    tc_csr *m = random_csr(30000, 30000, 300001, TC_FIELD_REAL, 0);
    tc_tcf *f = tcf_of(m);
    const char *one = in_dir("one.tcf.h5"), *three = in_dir("three.tcf.h5");
    tc_error err;
    setenv("TC_THREADS", "1", 1);
    tc_status st = tc_h5_write(one, f, NULL, &err);
    setenv("TC_THREADS", "3", 1);
    if (st == TC_OK)
        st = tc_h5_write(three, f, NULL, &err);
    unsetenv("TC_THREADS");
    if (!ok(st == TC_OK, "%" PRId64 " nonzeros written on 1 and on 3 threads", m->nnz))
        diag("%s", err.msg);
    ok(same_bytes(one, three), "the same bytes");
    H5D_layout_t layout;
    int nf;
    storage_of(three, "/matrix/data", &layout, &nf);
    ok(layout == H5D_CHUNKED && nf == 2, "chunked, shuffle + deflate");
    int32_t *idx = malloc((size_t)m->nnz * sizeof *idx);
    double *val = malloc((size_t)m->nnz * sizeof *val);
    ok(read_through_hdf5(three, "/matrix/indices", H5T_NATIVE_INT32, idx) &&
       !memcmp(idx, m->colidx, (size_t)m->nnz * sizeof *idx), "HDF5 inflates the indices");
    ok(read_through_hdf5(three, "/matrix/data", H5T_NATIVE_DOUBLE, val) &&
       !memcmp(val, m->val, (size_t)m->nnz * sizeof *val), "HDF5 inflates the values");
    free(idx);
    free(val);
    tc_tcf *g = NULL;
    ok(tc_h5_read(three, 1, &g, &err) == TC_OK && tc_csr_equal(m, g->matrix),
       "read back: the same matrix");
    tc_tcf_free(g);
    tc_tcf_free(f);
}

/* How test_threaded_read's datasets are filtered. */
enum { SHUFFLE_DEFLATE, DEFLATE_ONLY, DEFLATE_SHUFFLE };

/* Dataset /x of file, written by HDF5 itself: the n int32 of data in
   chunks of `chunk`, filtered as `order` says; with `first_only`, only the
   first chunk is written (the others are never allocated). */
static void write_filtered(const char *file, int order, const int32_t *data, hsize_t n,
                           hsize_t chunk, int first_only)
{
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 1, &chunk);
    if (order == SHUFFLE_DEFLATE)
        H5Pset_shuffle(p);
    H5Pset_deflate(p, 4);
    if (order == DEFLATE_SHUFFLE)
        H5Pset_shuffle(p);
    hid_t d = H5Dcreate2(f, "/x", H5T_STD_I32LE, sp, H5P_DEFAULT, p, H5P_DEFAULT);
    if (first_only) {
        hsize_t zero = 0;
        hid_t ms = H5Screate_simple(1, &chunk, NULL);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &zero, NULL, &chunk, NULL);
        H5Dwrite(d, H5T_NATIVE_INT32, ms, sp, H5P_DEFAULT, data);
        H5Sclose(ms);
    } else {
        H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    }
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(sp);
    H5Fclose(f);
}

/* /x of file through tc_h5ds_read_chunks as mt into buf; *stored: its
   chunks kept without deflate. */
static tc_status read_direct(const char *file, const char *path, hid_t mt, void *buf,
                             int *done, int *stored, tc_error *err)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hsize_t fsize = 0, nchunks = 0;
    H5Fget_filesize(f, &fsize);
    hid_t sp = H5Dget_space(d);
    H5Dget_num_chunks(d, sp, &nchunks);
    *stored = 0;
    for (hsize_t i = 0; i < nchunks; i++) {
        hsize_t off, size;
        unsigned mask = 0;
        haddr_t addr;
        H5Dget_chunk_info(d, sp, i, &off, &mask, &addr, &size);
        *stored += mask != 0;
    }
    H5Sclose(sp);
    tc_status st = tc_h5ds_read_chunks(d, mt, buf, path, fsize, done, err);
    H5Dclose(d);
    H5Fclose(f);
    return st;
}

/* A whole read of a deflated 1-D dataset inflates and unshuffles its
   chunks on threads into the array (lib/h5chunks.c), the same values as
   HDF5's own pipeline, the last, partial chunk too; HDF5 keeps what that
   does not take. */
static void test_threaded_read(void)
{
    enum { N = 3 * 4096 + 7, CHUNK = 4096 };
    static int32_t data[N], got[N], want[N];
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < N; i++)
        data[i] = (int32_t)(i * 2654435761u) >> (i % 7);
    const char *file = in_dir("filtered.h5");
    static const char *const threads[] = { "1", "3", "16" };
    static const char *const orders[] = { "shuffle + deflate", "deflate" };
    tc_error err;
    int done, stored;
    for (int o = SHUFFLE_DEFLATE; o <= DEFLATE_ONLY; o++) {
        write_filtered(file, o, data, N, CHUNK, 0);
        for (int t = 0; t < 3; t++) {
            setenv("TC_THREADS", threads[t], 1);
            memset(got, 0x5a, sizeof got);
            ok(read_direct(file, "/x", H5T_NATIVE_INT32, got, &done, &stored, &err) == TC_OK &&
               done && !memcmp(got, data, sizeof got),
               "%s, TC_THREADS=%s: read on threads, 4 chunks, the last partial", orders[o],
               threads[t]);
        }
        unsetenv("TC_THREADS");
    }
    /* a chunk kept as it is, shuffled but not deflated (deflate's bit in
       its mask), as a writer does when deflate cannot shrink it */
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (int32_t)x;
    }
    write_filtered(file, SHUFFLE_DEFLATE, data, N, CHUNK, 0);
    static unsigned char shuffled[CHUNK * 4];
    const unsigned char *plain = (const unsigned char *)(data + CHUNK);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < CHUNK; i++)
            shuffled[j * CHUNK + i] = plain[i * 4 + j];
    hid_t h = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(h, "/x", H5P_DEFAULT);
    hsize_t at = CHUNK;
    H5Dwrite_chunk(d, H5P_DEFAULT, 1u << 1, &at, sizeof shuffled, shuffled);
    H5Dclose(d);
    H5Fclose(h);
    memset(got, 0x5a, sizeof got);
    tc_status st = read_direct(file, "/x", H5T_NATIVE_INT32, got, &done, &stored, &err);
    ok(st == TC_OK && done && !memcmp(got, data, sizeof got) && stored == 1 &&
       read_through_hdf5(file, "/x", H5T_NATIVE_INT32, want) && !memcmp(want, data, sizeof want),
       "a chunk stored without deflate (%d): read on threads, as HDF5 reads it", stored);
    /* what HDF5 reads instead */
    ok(read_direct(file, "/x", H5T_NATIVE_INT64, got, &done, &stored, &err) == TC_OK && !done,
       "another type (int64 from int32): left to HDF5");
    write_filtered(file, DEFLATE_SHUFFLE, data, N, CHUNK, 0);
    ok(read_direct(file, "/x", H5T_NATIVE_INT32, got, &done, &stored, &err) == TC_ERR_FORMAT &&
       !done && strcmp(err.msg, "/x: chunk 0: not a valid deflate stream") == 0 &&
       read_through_hdf5(file, "/x", H5T_NATIVE_INT32, want) && !memcmp(want, data, sizeof want),
       "shuffle after deflate: refused by the chunk check (its chunks are no deflate streams), "
       "though HDF5 itself reads it");
    write_filtered(file, SHUFFLE_DEFLATE, data, N, CHUNK, 1);
    ok(read_direct(file, "/x", H5T_NATIVE_INT32, got, &done, &stored, &err) == TC_OK && !done,
       "chunks never written (fill values): left to HDF5");
    /* a matrix as tcsparse writes it: int64 row pointers, int32 columns,
       float64 values, each read on threads */
    tc_csr *m = random_csr(30000, 30000, 300001, TC_FIELD_REAL, 0);
    tc_tcf *f = tcf_of(m);
    const char *mfile = in_dir("direct.tcf.h5");
    int written = tc_h5_write(mfile, f, NULL, &err) == TC_OK;
    int32_t *idx = malloc((size_t)m->nnz * sizeof *idx);
    double *val = malloc((size_t)m->nnz * sizeof *val);
    ok(written && read_direct(mfile, "/matrix/indices", H5T_NATIVE_INT32, idx, &done, &stored,
                              &err) == TC_OK &&
       done && !memcmp(idx, m->colidx, (size_t)m->nnz * sizeof *idx),
       "a matrix's column indices read on threads");
    ok(read_direct(mfile, "/matrix/data", H5T_NATIVE_DOUBLE, val, &done, &stored, &err) ==
           TC_OK && done && !memcmp(val, m->val, (size_t)m->nnz * sizeof *val),
       "and its values");
    free(idx);
    free(val);
    tc_tcf_free(f);
}

/* Replaces chunk k of dataset path of file by size raw bytes. */
static void put_raw_chunk(const char *file, const char *path, hsize_t k, hsize_t chunk,
                          const void *bytes, size_t size)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hsize_t offset = k * chunk;
    H5Dwrite_chunk(d, H5P_DEFAULT, 0, &offset, size, bytes);
    H5Dclose(d);
    H5Fclose(f);
}

/* The chunks are inflated on threads a batch at a time before HDF5 reads
   them (lib/h5chunks.c): a bad one is refused, and the first bad one in
   the file's order is named, whatever the thread count. */
static void test_bad_chunks_on_threads(void)
{
    /* /matrix/indices: 13 chunks of 262144 entries */
    tc_tcf *f = tcf_of(random_csr(100000, 100000, 3300000, TC_FIELD_PATTERN, 0));
    const char *path = in_dir("badchunks.tcf.h5");
    tc_error err;
    int written = tc_h5_write(path, f, NULL, &err) == TC_OK;
    tc_tcf_free(f);
    if (!ok(written, "3.3M nonzeros written"))
        diag("%s", err.msg);
    static unsigned char junk[100];
    memset(junk, 0xab, sizeof junk);
    unsigned char shortz[64];
    uLongf len = sizeof shortz;
    compress2(shortz, &len, junk, 10, 1);      /* a valid stream of 10 bytes */
    put_raw_chunk(path, "/matrix/indices", 11, 262144, shortz, len);
    put_raw_chunk(path, "/matrix/indices", 9, 262144, junk, sizeof junk);
    static const char *const threads[] = { "1", "3", "16" };
    for (int i = 0; i < 3; i++) {
        setenv("TC_THREADS", threads[i], 1);
        tc_tcf *g = NULL;
        ok(tc_h5_read(path, 1, &g, &err) == TC_ERR_FORMAT && !g,
           "TC_THREADS=%s: chunks 9 and 11 bad: refused", threads[i]);
        ok(strstr(err.msg, "/matrix/indices: chunk 9: not a valid deflate stream") != NULL,
           "  chunk 9 named first: %s", err.msg);
    }
    put_raw_chunk(path, "/matrix/indices", 9, 262144, shortz, len);
    setenv("TC_THREADS", "3", 1);
    tc_tcf *g = NULL;
    ok(tc_h5_read(path, 1, &g, &err) == TC_ERR_FORMAT &&
       strstr(err.msg, "chunk 9: inflates to 10 bytes, not 1048576") != NULL,
       "a chunk that inflates short: %s", err.msg);
    unsetenv("TC_THREADS");
}

/* ------------------------------------------------------------------------ */
/* Formats and the h5group.h helpers                                         */
/* ------------------------------------------------------------------------ */

/* A format outside the registry: writes one array of each type, and can
   be told to fail half-way through a write. */
static int fake_fail;

static tc_status fake_write(const tc_fmt *m, tc_h5grp *g, tc_error *err)
{
    static const uint8_t u8[] = { 0, 1, 255 };
    static const int32_t i32[] = { -5, 0, 7 };
    static const uint32_t u32[] = { 0, 4000000000u };
    static const int64_t i64[] = { -1, 5000000000ll, 3 };
    static const uint64_t u64[] = { 18000000000000000000ull };
    static const float f32[] = { 0.5f, -2.0f };
    static const double f64[] = { 1.25, 1e300, -0.0 };
    if (fake_fail)
        return tc_error_set(err, TC_ERR_IO, "fake: deliberate failure");
    tc_status st = tc_h5grp_put(g, "u8", TC_U8, 3, u8, err);
    if (!st) st = tc_h5grp_put(g, "i32", TC_I32, 3, i32, err);
    if (!st) st = tc_h5grp_put(g, "u32", TC_U32, 2, u32, err);
    if (!st) st = tc_h5grp_put(g, "i64", TC_I64, 3, i64, err);
    if (!st) st = tc_h5grp_put(g, "u64", TC_U64, 1, u64, err);
    if (!st) st = tc_h5grp_put(g, "f32", TC_F32, 2, f32, err);
    if (!st) st = tc_h5grp_put(g, "f64", TC_F64, 3, f64, err);
    if (!st) st = tc_h5grp_put(g, "empty", TC_I32, 0, NULL, err);
    if (!st) st = tc_h5grp_put_attr_str(g, "precision", "tf32", err);
    if (!st) st = tc_h5grp_put_attr_f64(g, "ratio", 0.125, err);
    return st;
}

static void fake_free(tc_fmt *m)
{
    free(m);
}

static const tc_param_def fake_params[] = {
    { "h", "window height", 16, 1, 64, 1 },
    { "thr", "threshold", 0.25, 0, 1, 0 },
};

static const tc_format fake_format = {
    .name = "fake",
    .description = "test format",
    .params = fake_params,
    .nparams = 2,
    .write_h5 = fake_write,
    .free = fake_free,
};

static tc_fmt *fake_fmt(const tc_csr *a)
{
    tc_fmt *m = calloc(1, sizeof *m);
    tc_fmt_init(m, &fake_format, a, NULL);
    return m;
}

/* Reads attribute `name` of g and compares. */
static void attr_is(tc_h5grp *g, const char *name, double want)
{
    double v = -1;
    tc_error err;
    ok(tc_h5grp_get_attr_f64(g, name, &v, &err) == TC_OK && v == want, "attribute %s = %g",
       name, want);
}

static void test_h5group(const char *path)
{
    tc_h5grp *g = NULL;
    tc_error err;
    if (!ok(tc_h5grp_open(path, "/formats/fake", &g, &err) == TC_OK, "open /formats/fake")) {
        diag("%s", err.msg);
        return;
    }
    char where[600];
    snprintf(where, sizeof where, "%s: /formats/fake", path);
    is_str(tc_h5grp_path(g), where, "group path for messages");
    attr_is(g, "rows", 40);
    attr_is(g, "cols", 30);
    attr_is(g, "has_values", 1);
    attr_is(g, "h", 16);
    attr_is(g, "thr", 0.25);
    attr_is(g, "ratio", 0.125);
    char *s = NULL;
    ok(tc_h5grp_get_attr_str(g, "precision", &s, &err) == TC_OK && same_str(s, "tf32"),
       "string attribute");
    free(s);
    int64_t iv;
    fails(tc_h5grp_get_attr_i64(g, "thr", &iv, &err), &err, TC_ERR_FORMAT, where,
          "%s: attribute thr: expected an integer, found float", "float attribute as integer");
    fails(tc_h5grp_get_attr_i64(g, "nope", &iv, &err), &err, TC_ERR_FORMAT, where,
          "%s: missing attribute nope", "missing attribute");

    int64_t n;
    void *d = NULL;
    ok(tc_h5grp_get(g, "u8", TC_U8, &n, &d, 0, &err) == TC_OK && n == 3 &&
       ((uint8_t *)d)[2] == 255, "uint8 dataset");
    free(d);
    ok(tc_h5grp_get(g, "i32", TC_I64, &n, &d, 0, &err) == TC_OK && n == 3 &&
       ((int64_t *)d)[0] == -5, "int32 dataset widened to int64");
    free(d);
    ok(tc_h5grp_get(g, "u32", TC_U32, &n, &d, 0, &err) == TC_OK &&
       ((uint32_t *)d)[1] == 4000000000u, "uint32 dataset");
    free(d);
    ok(tc_h5grp_get(g, "u64", TC_U64, &n, &d, 0, &err) == TC_OK &&
       ((uint64_t *)d)[0] == 18000000000000000000ull, "uint64 dataset");
    free(d);
    ok(tc_h5grp_get(g, "f32", TC_F64, &n, &d, 0, &err) == TC_OK && ((double *)d)[1] == -2.0,
       "float32 dataset as float64");
    free(d);
    ok(tc_h5grp_get(g, "i32", TC_F32, &n, &d, 0, &err) == TC_OK && ((float *)d)[2] == 7.0f,
       "int32 dataset as float32");
    free(d);
    ok(tc_h5grp_get_n(g, "f64", TC_F64, 3, &d, &err) == TC_OK && ((double *)d)[1] == 1e300,
       "float64 dataset of the expected length");
    free(d);
    ok(tc_h5grp_get(g, "empty", TC_I32, &n, &d, 0, &err) == TC_OK && n == 0 && d != NULL,
       "empty dataset: n 0, non-NULL array");
    free(d);
    ok(tc_h5grp_get(g, "nope", TC_I32, &n, &d, 1, &err) == TC_OK && n == -1 && d == NULL,
       "optional missing dataset");
    ok(tc_h5grp_has(g, "u8") && !tc_h5grp_has(g, "nope"), "has");
    fails(tc_h5grp_get(g, "nope", TC_I32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/nope: no such dataset", "required missing dataset");
    fails(tc_h5grp_get_n(g, "f64", TC_F64, 4, &d, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: expected 4 entries, found 3", "wrong length");
    fails(tc_h5grp_get(g, "f64", TC_I64, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: expected an integer dataset, found float", "float dataset as integer");
    fails(tc_h5grp_get(g, "i64", TC_I32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/i64: a value does not fit in int32", "int64 beyond int32");
    fails(tc_h5grp_get(g, "i32", TC_U32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/i32: a value does not fit in uint32", "negative into unsigned");
    fails(tc_h5grp_get(g, "f64", TC_F32, &n, &d, 0, &err), &err, TC_ERR_FORMAT, where,
          "%s/f64: a value does not fit in float32", "1e300 into float32");
    tc_h5grp_close(g);
}

static void test_formats(void)
{
    tc_error err;
    const char *path = in_dir("fmt.tcf.h5");
    tc_tcf *f = tcf_of(random_csr(40, 30, 100, TC_FIELD_REAL, 0));
    const tc_format *csr = tc_format_find("csr");
    tc_fmt *m = NULL;
    ok(tc_fmt_build(csr, f->matrix, NULL, &m, &err) == TC_OK &&
       tc_tcf_add_format(f, m, &err) == TC_OK, "csr added");
    tc_fmt_build(csr, f->matrix, NULL, &m, &err);
    fails(tc_tcf_add_format(f, m, &err), &err, TC_ERR_ARG, NULL, "format csr added twice",
          "a format added twice");
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with csr");
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ok(H5Lexists(h, "/formats", H5P_DEFAULT) == 0, "csr is /matrix: no /formats group");
    H5Fclose(h);

    ok(tc_tcf_add_format(f, fake_fmt(f->matrix), &err) == TC_OK, "fake format added");
    ok(f->nformats == 2 && f->formats[0]->kind == csr, "registry order kept");
    ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with a stored format");
    test_h5group(path);
    tc_tcf *g = NULL;
    fails(tc_h5_read(path, 1, &g, &err), &err, TC_ERR_UNSUPPORTED, path,
          "%s: /formats/fake: unknown format 'fake' (written by a newer tcsparse?)",
          "a format the registry lacks is refused");
    ok(tc_h5_read(path, 0, &g, &err) == TC_OK && g->nformats == 0,
       "formats not asked for are not read");
    tc_tcf_free(g);

    fake_fail = 1;
    size_t before_len = 0, after_len = 0;
    char *before = tap_slurp(path, &before_len);
    int entries = count_entries(dir);
    fails(tc_h5_write(path, f, NULL, &err), &err, TC_ERR_IO, NULL, "fake: deliberate failure",
          "a write failing half-way");
    char *after = tap_slurp(path, &after_len);
    ok(before && after && before_len == after_len && memcmp(before, after, before_len) == 0,
       "the previous file is untouched");
    is_int(count_entries(dir), entries, "no temporary file left");
    free(before);
    free(after);
    fake_fail = 0;
    tc_tcf_free(f);
}

/* ------------------------------------------------------------------------ */
/* Atomic writes                                                             */
/* ------------------------------------------------------------------------ */

static void test_atomic(void)
{
    tc_tcf *f = tcf_of(random_csr(30, 30, 90, TC_FIELD_REAL, 0));
    tc_error err;
    int entries = count_entries(dir);
    const char *nodir = in_dir("no/such/dir/x.tcf.h5");
    fails(tc_h5_write(nodir, f, NULL, &err), &err, TC_ERR_IO, nodir,
          "%s: cannot create: No such file or directory", "write into a missing directory");
    ok(!exists(nodir) && count_entries(dir) == entries, "nothing left behind");

    const char *ro = in_dir("readonly");
    mkdir(ro, 0755);
    if (geteuid() == 0) {
        ok(1, "unwritable directory # SKIP running as root: permissions do not apply");
    } else {
        chmod(ro, 0555);
        char target[600];
        snprintf(target, sizeof target, "%s/x.tcf.h5", ro);
        ok(tc_h5_write(target, f, NULL, &err) == TC_ERR_IO && count_entries(ro) == 0,
           "write into an unwritable directory fails and leaves nothing");
        chmod(ro, 0755);
    }

    fails(tc_h5_write("-", f, NULL, &err), &err, TC_ERR_ARG, NULL,
          "cannot write HDF5 to standard output (it needs a seekable file)", "stdout refused");

    const char *target = in_dir("keep.tcf.h5");
    ok(tc_h5_write(target, f, NULL, &err) == TC_OK, "a first write");
    entries = count_entries(dir);
    f->row_perm = random_perm(29);
    fails(tc_h5_write(target, f, NULL, &err), &err, TC_ERR_ARG, target,
          "%s: row permutation of 29 for 30 rows", "a permutation of the wrong size");
    tc_perm_free(f->row_perm);
    f->row_perm = NULL;
    int32_t row0 = 0;   /* the row holding the first stored entry */
    while (f->matrix->rowptr[row0 + 1] == 0)
        row0++;
    f->matrix->colidx[0] = 30;
    char want[600];
    snprintf(want, sizeof want, "%s: row %d: column index 30 outside 0..29", target, row0);
    fails(tc_h5_write(target, f, NULL, &err), &err, TC_ERR_INVALID, NULL, want,
          "an invalid matrix");
    ok(count_entries(dir) == entries, "refused writes leave no file");
    tc_tcf *g = NULL;
    ok(tc_h5_read(target, 1, &g, &err) == TC_OK && g->matrix->colidx[0] != 30,
       "the first file is still there and readable");
    tc_tcf_free(g);
    tc_tcf_free(f);
}

/* ------------------------------------------------------------------------ */
/* Dense datasets                                                            */
/* ------------------------------------------------------------------------ */

static void test_dense(void)
{
    double b[12];
    for (int i = 0; i < 12; i++)
        b[i] = i * 1.1 - 3;
    const char *path = in_dir("b.h5");
    tc_error err;
    int32_t r = -1, c = -1;
    double *got = NULL;
    ok(tc_h5_write_dense(path, "B", 3, 4, b, 0, &err) == TC_OK &&
       tc_h5_read_dense(path, "/B", &r, &c, &got, &err) == TC_OK && r == 3 && c == 4 &&
       memcmp(got, b, sizeof b) == 0, "float64 3x4 round trip");
    free(got);
    ok(tc_h5_write_dense(path, "/out/sub/C", 4, 3, b, 1, &err) == TC_OK &&
       tc_h5_read_dense(path, "out/sub/C", &r, &c, &got, &err) == TC_OK && r == 4 && c == 3,
       "float32 in nested groups");
    int same = got != NULL;
    for (int i = 0; same && i < 12; i++)
        same = got[i] == (double)(float)b[i];
    ok(same, "float32 values read back as double");
    free(got);
    got = NULL;
    ok(tc_h5_write_dense(path, "Z", 0, 5, b, 0, &err) == TC_OK &&
       tc_h5_read_dense(path, "Z", &r, &c, &got, &err) == TC_OK && r == 0 && c == 5 &&
       got != NULL, "0x5");
    free(got);

    hid_t f = raw_create(path, NULL);
    raw_dataset(f, "v", H5T_NATIVE_DOUBLE, 3, b);
    int32_t iv[3] = { 1, 2, 3 };
    hsize_t dims[2] = { 1, 3 };
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "i", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv);
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    fails(tc_h5_read_dense(path, "/nope", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /nope: no such dataset", "missing dataset");
    fails(tc_h5_read_dense(path, "/g/B", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /g: no such group", "missing group");
    fails(tc_h5_read_dense(path, "/v", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /v: expected a 2-D dataset, found rank 1", "1-D dataset");
    fails(tc_h5_read_dense(path, "/i", &r, &c, &got, &err), &err, TC_ERR_FORMAT, path,
          "%s: /i: expected a float32 or float64 dataset, found integer (4 bytes)",
          "integer dataset");
    fails(tc_h5_read_dense(path, "/", &r, &c, &got, &err), &err, TC_ERR_ARG, path,
          "%s: '/' does not name a dataset", "no dataset name");
    const char *text = in_dir("b.txt");
    write_text(text, "1 2 3\n");
    fails(tc_h5_read_dense(text, "/B", &r, &c, &got, &err), &err, TC_ERR_FORMAT, text,
          "%s: not an HDF5 file", "dense from a text file");
    ok(got == NULL, "nothing returned on failure");
}

/* A parameter stored out of range or fractional where it must be whole is
   the file's fault: TC_ERR_FORMAT (exit 1), not TC_ERR_ARG (exit 2, a
   usage error), with the group and attribute named and a whole number in
   all its digits. */
static void test_stored_params(void)
{
    static const struct {
        double g;
        const char *msg;
    } cases[] = {
        { 1000, "%s: /formats/brp: g=1000 is out of range [1, 256]" },
        { 2.5, "%s: /formats/brp: g=2.5 must be a whole number" },
        { 9502740, "%s: /formats/brp: g=9502740 is out of range [1, 256]" },
    };
    const char *path = in_dir("params.tcf.h5");
    tc_error err;
    tc_tcf *f = tcf_of(random_csr(40, 30, 100, TC_FIELD_REAL, 0));
    tc_fmt *m = NULL;
    ok(tc_fmt_build(tc_format_find("brp"), f->matrix, NULL, &m, &err) == TC_OK &&
       tc_tcf_add_format(f, m, &err) == TC_OK, "brp added");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ok(tc_h5_write(path, f, NULL, &err) == TC_OK, "written with brp");
        hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t g = H5Gopen2(h, "/formats/brp", H5P_DEFAULT);
        H5Adelete(g, "g");
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(g, "g", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, &cases[i].g);
        H5Aclose(a);
        H5Sclose(sp);
        H5Gclose(g);
        H5Fclose(h);
        tc_tcf *back = NULL;
        char name[64], value[TC_NUMBER_CHARS];
        snprintf(name, sizeof name, "g = %s stored: a bad file",
                 tc_number_text(cases[i].g, value));
        fails(tc_h5_read(path, 1, &back, &err), &err, TC_ERR_FORMAT, path, cases[i].msg, name);
        ok(back == NULL, "  nothing returned");
    }
    tc_tcf_free(f);
}


int main(void)
{
    scratch_open("t_h5file");
    test_roundtrips();
    test_provenance();
    test_reproducible();
    test_compression();
    test_threaded_compression();
    test_threaded_read();
    test_bad_chunks_on_threads();
    test_formats();
    test_atomic();
    test_dense();
    test_stored_params();
    scratch_close();
    return done_testing();
}
