/*
 * t_h5stream.c: tc_h5_write_rows (lib/h5stream.c), the streaming writer of
 * matrices too large for memory. A streamed file must read back as the
 * same matrix tc_h5_write gives, whatever the slabs (several of them, a
 * row longer than a slab, empty rows), compressed or not; a bad slab or
 * bad row pointers must be refused with nothing left at the path.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "tcsparse.h"
#include "testmat.h"

static char dir[256];

static const char *in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The rows of a whole matrix handed out slab by slab, with an optional
   fault: the first entry of row `swap_row` exchanged with the second. */
struct source {
    const tc_csr *a;
    int32_t swap_row;
    int calls;
};

static tc_status fill_from(void *ctx, int32_t r0, int32_t r1, int32_t *colidx, double *val,
                           tc_error *err)
{
    (void)err;
    struct source *s = ctx;
    const int64_t k0 = s->a->rowptr[r0], n = s->a->rowptr[r1] - k0;
    memcpy(colidx, s->a->colidx + k0, (size_t)n * sizeof *colidx);
    if (val)
        memcpy(val, s->a->val + k0, (size_t)n * sizeof *val);
    if (s->swap_row >= r0 && s->swap_row < r1) {
        int32_t *c = colidx + (s->a->rowptr[s->swap_row] - k0), t = c[0];
        c[0] = c[1];
        c[1] = t;
    }
    s->calls++;
    return TC_OK;
}

/* The header tc_h5_write_rows reads from a: everything but the entries. */
static tc_csr shape_of(const tc_csr *a)
{
    tc_csr s = *a;
    s.colidx = NULL;
    s.val = NULL;
    return s;
}

/* Streams a, reads it back and compares with a; returns the fill calls. */
static int streams_back(const char *name, const tc_csr *a, int compress)
{
    const char *path = in_dir("s.tcf.h5");
    struct source src = { a, -1, 0 };
    tc_csr shape = shape_of(a);
    tc_h5_write_opts opts = { compress };
    tc_provenance prov = { .creator = "t_h5stream", .command = "t_h5stream" };
    tc_error err;
    tc_tcf *f = NULL;
    tc_status st = tc_h5_write_rows(path, &shape, fill_from, &src, &prov, &opts, NULL, &err);
    if (!ok(st == TC_OK, "%s: streamed", name))
        diag("%s", err.msg);
    st = st == TC_OK ? tc_h5_read(path, 0, &f, &err) : st;
    if (!ok(st == TC_OK && tc_csr_equal(f->matrix, a) && f->matrix->field == a->field &&
                f->matrix->symmetry == a->symmetry && strcmp(f->prov.creator, "t_h5stream") == 0,
            "%s: reads back as the same matrix, field, symmetry and provenance", name) &&
        st != TC_OK)
        diag("%s", err.msg);
    tc_tcf_free(f);
    unlink(path);
    return src.calls;
}

static void test_roundtrips(void)
{
    tc_csr *a = tap_random_matrix(1000, 77, 5, 400, 3, 0);
    streams_back("real 1000x77", a, 0);
    streams_back("real 1000x77, compressed", a, 1);
    tc_csr_free(a);
    /* the attribute must travel; the reader checks that the matrix has it */
    int32_t idx[100];
    double v[100];
    for (int i = 0; i < 100; i++) {
        idx[i] = i;
        v[i] = i + 1;
    }
    tc_error err;
    if (tc_csr_from_coo(&a, 100, 100, 100, idx, idx, v, 1, &err) != TC_OK)
        diag("%s", err.msg);
    a->symmetry = TC_SYM_SYMMETRIC;
    streams_back("real 100x100 diagonal, symmetry attribute", a, 0);
    tc_csr_free(a);
    a = tap_random_matrix(333, 1000, 3, -1, -1, 1);
    streams_back("pattern 333x1000", a, 1);
    tc_csr_free(a);
    tc_csr *e = NULL;
    if (tc_csr_alloc(&e, 40, 9, 0, 1, &err) == TC_OK) {
        streams_back("empty 40x9", e, 0);
        tc_csr_free(e);
    }
}

/* Slabs are 2^24 entries: a matrix of three rows of 10, 17 million and 5
   million entries takes three slabs, the middle one longer than a slab. */
static void test_slabs(void)
{
    const int64_t len[3] = { 10, 17000000, 5000000 };
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_alloc(&a, 3, 1 << 26, len[0] + len[1] + len[2], 0, &err) != TC_OK) {
        ok(0, "allocate the slab matrix: %s", err.msg);
        return;
    }
    a->field = TC_FIELD_PATTERN;
    a->rowptr[0] = 0;
    for (int i = 0; i < 3; i++) {
        a->rowptr[i + 1] = a->rowptr[i] + len[i];
        for (int64_t k = 0; k < len[i]; k++)
            a->colidx[a->rowptr[i] + k] = (int32_t)(k * (i + 1));
    }
    is_int(streams_back("22 million entries, a row longer than a slab", a, 0), 3,
           "three slabs, one per row");
    tc_csr_free(a);
}

static void refused(const char *name, const tc_csr *shape, struct source *src,
                    tc_status want, const char *msg)
{
    const char *path = in_dir("bad.tcf.h5");
    tc_error err;
    tc_status st = tc_h5_write_rows(path, shape, fill_from, src, NULL, NULL, NULL, &err);
    ok(st == want, "%s: refused (status %d)", name, st);
    is_str(st == TC_OK ? "" : err.msg, msg, "  its message");
    ok(!exists(path), "  nothing left at the path");
}

static void test_refusals(void)
{
    tc_csr *a = tap_random_matrix(50, 40, 4, -1, -1, 0);
    struct source src = { a, 30, 0 };
    tc_csr shape = shape_of(a);
    char want[600];
    snprintf(want, sizeof want,
             "%s: /matrix: row 30: column indices not strictly increasing (%d after %d)",
             in_dir("bad.tcf.h5"), a->colidx[a->rowptr[30]], a->colidx[a->rowptr[30] + 1]);
    refused("columns out of order in a slab", &shape, &src, TC_ERR_INVALID, want);

    src.swap_row = -1;
    shape.rowptr = malloc((size_t)(a->rows + 1) * sizeof *shape.rowptr);
    memcpy(shape.rowptr, a->rowptr, (size_t)(a->rows + 1) * sizeof *shape.rowptr);
    shape.rowptr[7] = shape.rowptr[8] + 1;
    snprintf(want, sizeof want, "%s: row pointers decrease at row 7", in_dir("bad.tcf.h5"));
    refused("row pointers decreasing", &shape, &src, TC_ERR_ARG, want);
    shape.rowptr[7] = a->rowptr[7];
    shape.nnz++;
    snprintf(want, sizeof want, "%s: row pointers run from 0 to %lld, expected 0 to nnz %lld",
             in_dir("bad.tcf.h5"), (long long)a->nnz, (long long)a->nnz + 1);
    refused("row pointers not ending at nnz", &shape, &src, TC_ERR_ARG, want);
    free(shape.rowptr);
    shape = shape_of(a);
    tc_error err;
    ok(tc_h5_write_rows("-", &shape, fill_from, &src, NULL, NULL, NULL, &err) == TC_ERR_ARG &&
           strcmp(err.msg, "cannot write HDF5 to standard output (it needs a seekable file)") == 0,
       "standard output refused");
    tc_csr_free(a);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/t_h5stream.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        skip_all("cannot make a scratch directory");
    test_roundtrips();
    test_slabs();
    test_refusals();
    if (rmdir(dir) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
