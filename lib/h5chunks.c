/*
 * h5chunks.c: the chunks of a compressed dataset, checked before HDF5
 * reads them.
 *
 * HDF5 1.10 copies a whole chunk out of what its filters give back, even
 * when a corrupted deflate stream inflates to fewer bytes than the chunk
 * holds: a read past the end of its buffer, which a tool would take for
 * data (a bitmap of bcsr, say, that no other check can tell from a real
 * one). So each chunk of a filtered dataset is read raw (H5Dread_chunk)
 * and inflated here, and must give exactly the chunk's size, from a place
 * inside the file. Only deflate, with or without shuffle (which keeps the
 * size), is accepted: what tcsparse, h5py and anndata write. The chunks
 * are read raw in order, a batch at a time, and the batch inflated at
 * once on $TC_THREADS threads.
 *
 * A whole read of a 1-D dataset (tc_h5ds_read_chunks: every array of a
 * matrix and its formats) is that same walk, each chunk placed, inflated
 * and unshuffled on its thread, straight into the caller's array: one
 * inflate of each chunk, on threads, instead of the check's and then
 * HDF5's pipeline's, one chunk after another on the reading thread (on a
 * large compressed matrix, most of a tool's read: bench/NOTES.md,
 * "Reordering at scale"). What it does not take (other ranks, a type to
 * convert, chunks never written and so HDF5's fill values) is only
 * checked by that walk, which costs one more inflate of each chunk
 * (tcf.h5(5), SECURITY), and then read by HDF5; a dataset shuffled after
 * deflate fails that check (its stored chunks are no deflate streams).
 */
#include "config.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tcsparse.h"
#include "h5internal.h"
#include "threads.h"

/* Inflates the size bytes at in into out (room for want bytes and one
   more): the bytes it gives, or -1 when the stream is malformed. */
static int64_t inflated_size(const unsigned char *in, size_t size, unsigned char *out,
                             size_t want)
{
    z_stream z = { 0 };
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (unsigned char *)in;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)(want + 1);
    int r = inflate(&z, Z_FINISH);
    int64_t got = r == Z_STREAM_END || r == Z_BUF_ERROR || r == Z_OK ? (int64_t)z.total_out : -1;
    inflateEnd(&z);
    return got;
}

/* The filters of dcpl: *deflate the bit of deflate in a chunk's filter
   mask (0 without deflate); *shuffle 1 when the bytes are shuffled before
   deflate (undone after inflating), -1 when after it (left to HDF5), 0
   without shuffle; an error for any filter but deflate and shuffle. */
static tc_status filters(hid_t dcpl, const char *what, unsigned *deflate, int *shuffle,
                         tc_error *err)
{
    int n = H5Pget_nfilters(dcpl);
    *deflate = 0;
    *shuffle = 0;
    if (n < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot list its filters", what);
    for (int i = 0; i < n; i++) {
        unsigned flags, cd[8];
        size_t ncd = 8;
        char name[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name,
                                         name, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            *deflate = 1u << i;
        else if (id == H5Z_FILTER_SHUFFLE)
            *shuffle = *deflate ? -1 : 1;
        else
            return tc_error_set(err, TC_ERR_UNSUPPORTED,
                                "%s: compressed with filter %d%s%s%s (only deflate and "
                                "shuffle are read)", what, (int)id, name[0] ? " (" : "", name,
                                name[0] ? ")" : "");
    }
    return TC_OK;
}

/* Where a whole read puts the chunks: the caller's array of n elements of
   esize bytes, chunks of `chunk` elements, each stored shuffled or not. */
typedef struct chunk_dest {
    unsigned char *buf;
    int64_t n, chunk;
    size_t esize;
    int shuffled;
} chunk_dest;

/* The elements of the chunk that starts at element start that lie inside
   the dataset, to their place in d->buf, unshuffled. */
static void place_chunk(const chunk_dest *d, int64_t start, const unsigned char *in)
{
    const int64_t count = d->n - start < d->chunk ? d->n - start : d->chunk;
    unsigned char *out = d->buf + start * (int64_t)d->esize;
    if (!d->shuffled || d->esize == 1)
        memcpy(out, in, (size_t)count * d->esize);
    else
        tc_h5_shuffle(in, out, (size_t)count, d->esize, (size_t)d->chunk, 1);
}

/* Chunks read raw, waiting to be inflated on threads, a batch at a time. */
typedef struct inflate_batch {
    unsigned char **raw;        /* per chunk of the batch: its stored bytes */
    size_t *size, *cap;         /* their lengths; their buffers' */
    hsize_t *index;             /* which chunk of the dataset */
    int64_t *start;             /* its first element (a whole read) */
    unsigned char *stored;      /* 1: kept as it is, without deflate */
    int64_t *got;               /* what each inflates to (-1: malformed) */
    int64_t count, want;
    const chunk_dest *dest;     /* NULL: the check alone */
    _Atomic int64_t next;
} inflate_batch;

typedef struct inflate_worker {
    inflate_batch *b;
    unsigned char *out;         /* want + 1 bytes */
} inflate_worker;

static void *inflate_chunks(void *arg)
{
    inflate_worker *w = arg;
    inflate_batch *b = w->b;
    for (int64_t k; (k = atomic_fetch_add(&b->next, 1)) < b->count;) {
        const unsigned char *plain = b->raw[k];
        if (b->stored[k])
            b->got[k] = (int64_t)b->size[k];
        else {
            b->got[k] = inflated_size(b->raw[k], b->size[k], w->out, (size_t)b->want);
            plain = w->out;
        }
        if (b->dest && b->got[k] == b->want)
            place_chunk(b->dest, b->start[k], plain);
    }
    return NULL;
}

/* Inflates the batch's chunks on threads; the first (in the dataset's
   order) that does not give exactly want bytes is the error. */
static tc_status inflate_batch_check(inflate_batch *b, inflate_worker *wk, int threads,
                                     const char *what, tc_error *err)
{
    atomic_store(&b->next, 0);
    tc_run_jobs(inflate_chunks, wk, sizeof wk[0], b->count < threads ? (int)b->count : threads);
    int64_t count = b->count;
    b->count = 0;
    for (int64_t k = 0; k < count; k++) {
        if (b->got[k] < 0)
            return tc_error_set(err, TC_ERR_FORMAT, "%s: chunk %llu: not a valid deflate stream",
                                what, (unsigned long long)b->index[k]);
        if (b->got[k] != b->want)
            return tc_error_set(err, TC_ERR_FORMAT,
                                "%s: chunk %llu: inflates to %" PRId64 " bytes, not %" PRId64,
                                what, (unsigned long long)b->index[k], b->got[k], b->want);
    }
    return TC_OK;
}

/* Room for one more chunk of size bytes in the batch: its buffer. */
static unsigned char *batch_room(inflate_batch *b, size_t size)
{
    int64_t k = b->count;
    if (size > b->cap[k]) {
        unsigned char *more = realloc(b->raw[k], size);
        if (!more)
            return NULL;
        b->raw[k] = more;
        b->cap[k] = size;
    }
    return b->raw[k];
}

static void batch_free(inflate_batch *b, inflate_worker *wk, int64_t per_batch, int threads)
{
    for (int64_t k = 0; b->raw && k < per_batch; k++)
        free(b->raw[k]);
    free(b->raw);
    free(b->size);
    free(b->cap);
    free(b->index);
    free(b->start);
    free(b->stored);
    free(b->got);
    for (int i = 0; i < threads; i++)
        free(wk[i].out);
}

/* A chunk starting at element start, in a whole read: on the chunk grid,
   inside the dataset, and not seen before (seen: a flag per chunk), so
   that the chunks the walk places cover the array once. */
static int chunk_in_place(const chunk_dest *d, hsize_t start, unsigned char *seen)
{
    if (start % (hsize_t)d->chunk || start >= (hsize_t)d->n || seen[start / (hsize_t)d->chunk])
        return 0;
    seen[start / (hsize_t)d->chunk] = 1;
    return 1;
}

/* The walk of tc_h5ds_read_chunks: every chunk of ds checked, and with
   dest placed in its array. deflate and want as found by the caller; n
   chunks. */
static tc_status walk_chunks(hid_t ds, hid_t space, hsize_t n, unsigned deflate, int64_t want,
                             const char *what, uint64_t fsize, const chunk_dest *dest,
                             tc_error *err)
{
    /* the chunks are read in the dataset's order (HDF5 is not for threads)
       and inflated a batch at a time on threads */
    int threads;
    const int64_t per_batch = tc_h5_chunk_batch((int64_t)n, &threads);
    inflate_batch b = { .want = want, .dest = dest };
    inflate_worker wk[TC_MAX_JOBS] = { { 0 } };
    unsigned char *seen = dest ? calloc((size_t)n, 1) : NULL;
    tc_status st = TC_OK;
    b.raw = calloc((size_t)per_batch, sizeof *b.raw);
    b.size = calloc((size_t)per_batch, sizeof *b.size);
    b.cap = calloc((size_t)per_batch, sizeof *b.cap);
    b.index = calloc((size_t)per_batch, sizeof *b.index);
    b.start = calloc((size_t)per_batch, sizeof *b.start);
    b.stored = calloc((size_t)per_batch, sizeof *b.stored);
    b.got = calloc((size_t)per_batch, sizeof *b.got);
    for (int i = 0; i < threads; i++)
        wk[i] = (inflate_worker){ .b = &b, .out = malloc((size_t)want + 1) };
    int room = b.raw && b.size && b.cap && b.index && b.start && b.stored && b.got &&
               (seen || !dest);
    for (int i = 0; i < threads; i++)
        room &= wk[i].out != NULL;
    if (!room)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", what);
    for (hsize_t i = 0; st == TC_OK && i < n; i++) {
        hsize_t offset[H5S_MAX_RANK], size;
        unsigned mask;
        haddr_t addr;
        if (H5Dget_chunk_info(ds, space, i, offset, &mask, &addr, &size) < 0) {
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: chunk %llu: cannot read its place", what,
                            (unsigned long long)i);
            break;
        }
        /* zlib takes a 32-bit length: a stored chunk past it is no
           deflate output of a chunk under 4 GiB */
        if (addr == HADDR_UNDEF || addr > fsize || size > fsize - addr || size > UINT32_MAX) {
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: %llu bytes at %llu in a file of %llu bytes",
                              what, (unsigned long long)i, (unsigned long long)size,
                              (unsigned long long)addr, (unsigned long long)fsize);
            break;
        }
        /* HDF5 stores a chunk that deflate cannot shrink as it is, with
           deflate's bit set in its mask: then it must be the whole chunk */
        if ((mask & ~deflate) || ((mask & deflate) && size != (hsize_t)want)) {
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: %llu bytes stored with filter mask %u, for a "
                              "chunk of %" PRId64, what, (unsigned long long)i,
                              (unsigned long long)size, mask, want);
            break;
        }
        if (dest && !chunk_in_place(dest, offset[0], seen)) {
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: chunk %llu: starts at element %llu, not a chunk of its "
                              "own inside the dataset's %" PRId64, what, (unsigned long long)i,
                              (unsigned long long)offset[0], dest->n);
            break;
        }
        if ((mask & deflate) && !dest)
            continue;
        unsigned char *raw = batch_room(&b, size);
        if (!raw) {
            st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", what);
            break;
        }
        if (H5Dread_chunk(ds, H5P_DEFAULT, offset, &mask, raw) < 0) {
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: chunk %llu: cannot read", what,
                            (unsigned long long)i);
            break;
        }
        b.size[b.count] = size;
        b.start[b.count] = (int64_t)offset[0];
        b.stored[b.count] = (mask & deflate) != 0;
        b.index[b.count++] = i;
        if (b.count == per_batch)
            st = inflate_batch_check(&b, wk, threads, what, err);
    }
    /* the chunks read before an error found in the loop come first, as
       they would one chunk at a time */
    tc_error first;
    if (b.count && inflate_batch_check(&b, wk, threads, what, &first)) {
        *err = first;
        st = first.status;
    }
    batch_free(&b, wk, per_batch, threads);
    free(seen);
    return st;
}

/* The chunk layout of ds: *deflate and *shuffle (filters), and when it is
   deflated, its rank, chunk dimensions, and *want the bytes a chunk
   inflates to; TC_OK with *deflate 0 for anything not deflated. */
static tc_status chunk_layout(hid_t ds, const char *what, unsigned *deflate, int *shuffle,
                              int *rank, hsize_t *cdims, int64_t *want, tc_error *err)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    if (dcpl < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its layout", what);
    *deflate = 0;
    *shuffle = 0;
    tc_status st = H5Pget_layout(dcpl) == H5D_CHUNKED ? filters(dcpl, what, deflate, shuffle, err)
                                                        : TC_OK;
    *rank = *deflate ? H5Pget_chunk(dcpl, H5S_MAX_RANK, cdims) : 0;
    tc_h5_close(dcpl);
    if (st != TC_OK || !*deflate)
        return st;
    hid_t t = H5Dget_type(ds);
    *want = t < 0 ? 0 : (int64_t)H5Tget_size(t);
    tc_h5_close(t);
    for (int i = 0; i < *rank; i++)
        if (cdims[i] > INT64_MAX || tc_mul_overflows(*want, (int64_t)cdims[i], want))
            *want = -1;
    if (*rank <= 0 || *want <= 0 || *want > UINT32_MAX - 1)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its chunk index", what);
    return TC_OK;
}

tc_status tc_h5ds_read_chunks(hid_t ds, hid_t mem_type, void *buf, const char *what,
                              uint64_t fsize, int *done, tc_error *err)
{
    *done = 0;
    unsigned deflate = 0;
    int shuffle = 0, rank = 0;
    hsize_t cdims[H5S_MAX_RANK], n = 0, dim = 0;
    int64_t want = 0;
    tc_status st = chunk_layout(ds, what, &deflate, &shuffle, &rank, cdims, &want, err);
    if (st != TC_OK || !deflate)
        return st;
    /* inflated here: one dimension, deflated after any shuffle */
    const int one_d = rank == 1 && shuffle >= 0;
    hid_t t = one_d ? H5Dget_type(ds) : H5I_INVALID_HID, space = H5Dget_space(ds);
    const int same_type = t >= 0 && H5Tequal(t, mem_type) > 0;
    tc_h5_close(t);
    if (space < 0 || H5Dget_num_chunks(ds, space, &n) < 0 ||
        (one_d && (H5Sget_simple_extent_ndims(space) != 1 ||
                   H5Sget_simple_extent_dims(space, &dim, NULL) < 0))) {
        tc_h5_close(space);
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its chunk index", what);
    }
    /* of mem_type, and every chunk written, so that no element is HDF5's
       fill value; else the chunks are only checked */
    const int here = one_d && same_type && dim > 0 && dim <= INT64_MAX &&
                     n == (dim + cdims[0] - 1) / cdims[0];
    chunk_dest dest = { 0 };
    if (here)
        dest = (chunk_dest){ buf, (int64_t)dim, (int64_t)cdims[0],
                             (size_t)(want / (int64_t)cdims[0]), shuffle > 0 };
    st = walk_chunks(ds, space, n, deflate, want, what, fsize, here ? &dest : NULL, err);
    *done = st == TC_OK && here;
    tc_h5_close(space);
    return st;
}
