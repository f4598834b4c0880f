/*
 * h5deflate.c: a compressed dataset written with its chunks shuffled and
 * deflated on threads, then stored raw (H5Dwrite_chunk).
 *
 * HDF5 runs a dataset's filters on the thread that writes it, one chunk
 * after another: on an R-MAT of 128M nonzeros, tcconv spent 46 s of one
 * CPU writing its output while 15 others waited (bench/NOTES.md,
 * "Reordering at scale"), and every tcreorder after the order paid the
 * same. Here each chunk goes through the same pipeline the dataset
 * declares, the byte shuffle then zlib's compress2 at the dataset's level,
 * so that any HDF5 reader (h5py, h5dump, our own) inflates it as if HDF5
 * had written it; the last chunk is padded with zeros to the whole chunk,
 * as HDF5 stores an edge chunk. A batch of chunks is compressed at once,
 * then written in order: memory stays at a few chunks per thread.
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

typedef struct deflate_batch {
    const unsigned char *data;  /* the dataset's bytes */
    int64_t nbytes;             /* of data */
    size_t esize;               /* bytes an element */
    size_t cbytes;              /* bytes a chunk */
    int level;
    int64_t first, count;       /* the batch: chunks first .. first + count - 1 */
    unsigned char **out;        /* per chunk of the batch: its deflated bytes */
    uLongf *outlen;             /* their lengths (0: compress2 failed) */
    _Atomic int64_t next;       /* the next chunk of the batch to take */
} deflate_batch;

typedef struct deflate_worker {
    deflate_batch *b;
    unsigned char *plain, *shuffled;    /* a chunk, padded; the same shuffled */
} deflate_worker;

static void *deflate_chunks(void *arg)
{
    deflate_worker *w = arg;
    deflate_batch *b = w->b;
    for (int64_t k; (k = atomic_fetch_add(&b->next, 1)) < b->count;) {
        int64_t at = (b->first + k) * (int64_t)b->cbytes;
        size_t have = b->nbytes - at < (int64_t)b->cbytes ? (size_t)(b->nbytes - at) : b->cbytes;
        const unsigned char *in = b->data + at;
        if (have < b->cbytes) {
            memcpy(w->plain, in, have);
            memset(w->plain + have, 0, b->cbytes - have);
            in = w->plain;
        }
        if (b->esize > 1) {
            const size_t count = b->cbytes / b->esize;
            tc_h5_shuffle(in, w->shuffled, count, b->esize, count, 0);
            in = w->shuffled;
        }
        uLongf len = compressBound(b->cbytes);
        b->outlen[k] = compress2(b->out[k], &len, in, b->cbytes, b->level) == Z_OK ? len : 0;
    }
    return NULL;
}

tc_status tc_h5ds_write_deflated(hid_t ds, const void *data, int64_t n, size_t esize,
                                 int64_t chunk, int level, const char *what, tc_error *err)
{
    int64_t nchunks = (n + chunk - 1) / chunk;
    int threads;
    const int64_t per_batch = tc_h5_chunk_batch(nchunks, &threads);
    deflate_batch b = { .data = data, .nbytes = n * (int64_t)esize, .esize = esize,
                        .cbytes = (size_t)chunk * esize, .level = level };
    deflate_worker wk[TC_MAX_JOBS];
    b.out = tc_calloc_array(per_batch, sizeof *b.out, err);
    b.outlen = tc_calloc_array(per_batch, sizeof *b.outlen, err);
    tc_status st = b.out && b.outlen ? TC_OK : TC_ERR_NOMEM;
    for (int64_t k = 0; k < per_batch && st == TC_OK; k++)
        if (!(b.out[k] = malloc(compressBound(b.cbytes))))
            st = TC_ERR_NOMEM;
    for (int i = 0; i < threads; i++) {
        wk[i] = (deflate_worker){ .b = &b };
        if (st == TC_OK && (!(wk[i].plain = malloc(b.cbytes)) ||
                            !(wk[i].shuffled = malloc(b.cbytes))))
            st = TC_ERR_NOMEM;
    }
    if (st == TC_ERR_NOMEM)
        tc_error_set(err, st, "%s: out of memory for compressing chunks of %zu bytes", what,
                     b.cbytes);
    for (b.first = 0; st == TC_OK && b.first < nchunks; b.first += b.count) {
        b.count = nchunks - b.first < per_batch ? nchunks - b.first : per_batch;
        atomic_store(&b.next, 0);
        tc_run_jobs(deflate_chunks, wk, sizeof wk[0], b.count < threads ? (int)b.count : threads);
        for (int64_t k = 0; k < b.count && st == TC_OK; k++) {
            hsize_t offset = (hsize_t)((b.first + k) * chunk);
            if (!b.outlen[k])
                st = tc_error_set(err, TC_ERR_IO, "%s: cannot compress chunk %" PRId64, what,
                                  b.first + k);
            else if (H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &offset, b.outlen[k], b.out[k]) < 0)
                st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot write chunk %" PRId64, what,
                                b.first + k);
        }
    }
    for (int i = 0; i < threads; i++) {
        free(wk[i].plain);
        free(wk[i].shuffled);
    }
    for (int64_t k = 0; b.out && k < per_batch; k++)
        free(b.out[k]);
    free(b.out);
    free(b.outlen);
    return st;
}
