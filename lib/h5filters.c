/*
 * h5filters.c: what the threaded deflate of a written dataset
 * (h5deflate.c) and the threaded inflate of a read one (h5chunks.c)
 * share: HDF5's shuffle filter, both ways, and how many chunks a batch
 * over the threads holds.
 */
#include "config.h"

#include "h5internal.h"
#include "threads.h"

/* Chunks per thread in a batch: enough that a slow chunk does not leave
   the others idle, few enough that a batch's buffers stay small; and at
   most MAX_BATCH chunks (of about 1 MiB) on a machine of many CPUs. */
#define CHUNKS_PER_THREAD 4
#define MAX_BATCH 256

int64_t tc_h5_chunk_batch(int64_t nchunks, int *threads)
{
    *threads = tc_threads_for(nchunks);
    int64_t per_batch = (int64_t)*threads * CHUNKS_PER_THREAD;
    per_batch = per_batch < MAX_BATCH ? per_batch : MAX_BATCH;
    per_batch = per_batch < nchunks ? per_batch : nchunks;
    return per_batch > 0 ? per_batch : 1;
}

void tc_h5_shuffle(const unsigned char *from, unsigned char *to, size_t count, size_t esize,
                   size_t stride, int undo)
{
    for (size_t j = 0; j < esize; j++)
        for (size_t i = 0; i < count; i++)
            if (undo)
                to[i * esize + j] = from[j * stride + i];
            else
                to[j * stride + i] = from[i * esize + j];
}
