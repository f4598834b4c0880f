/*
 * gpu_internal.h: what the .cu files of kernels/ share and nothing else sees:
 * the tc_gpu object and the checks that turn CUDA and cuSPARSE errors into
 * tc_status.
 */
#ifndef TC_GPU_INTERNAL_H
#define TC_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include <cusparse.h>

#include "kernels.h"
#include "half.h"

/* Timed runs are queued in batches of this many behind a holding kernel;
   each batch (a run and an event per run, plus the hold) stays well under
   the depth of a stream's launch queue, so the host never blocks on a full
   queue while the hold waits for it. */
#define TC_TIMING_BATCH 64

struct tc_gpu {
    tc_gpu_info info;
    cudaStream_t stream;        /* where everything is queued: own, or a
                                   caller's for a while (tc_gpu_set_stream) */
    cudaStream_t own;           /* the stream tc_gpu_open created */
    cusparseHandle_t sparse;
    cudaEvent_t ev[TC_TIMING_BATCH + 1];
    /* host memory the device reads and writes directly: [0] the host sets it
       to release the holding kernel, [1] the kernel sets it when it gave up
       waiting */
    volatile int *hold;
    int *hold_dev;
    /* Runs tc_gpu_time has launched on g: each timing takes the operand sets
       in turn from where the previous one stopped, so that every run finds
       the sets least recently used. Restarting at set 0 gave every timing
       after the first the same few sets, still in L2 when their B and C are
       small (with 110 runs, sets under 2 MB), and not after the poisoning of
       C: tcmul timed the chosen variant cold and cuSPARSE warm. */
    uint64_t runs;
};

/* TC_OK for cudaSuccess, else TC_ERR_CUDA with "call: error string";
   `call` is the call's source text, of which the function name is kept. */
tc_status tc_cuda_check(cudaError_t e, const char *call, tc_error *err);
tc_status tc_cusparse_check(cusparseStatus_t s, const char *call, tc_error *err);
#define TC_CUDA(err, call) tc_cuda_check((call), #call, (err))
#define TC_CUSPARSE(err, call) tc_cusparse_check((call), #call, (err))
/* After a kernel launch: the launch error, if any. */
#define TC_LAUNCHED(err, name) tc_cuda_check(cudaGetLastError(), name, (err))

/* The dynamic shared memory every launch may ask for unasked. */
#define TC_SMEM_UNASKED (48 * 1024)

/* Allows kernel fn launches of `bytes` of dynamic shared memory: past
   TC_SMEM_UNASKED by the function's attribute, within it by nothing. The
   attribute costs the host about 1 us a call (bench/NOTES.md, "The
   shared memory attribute only where a launch needs it"), and a launch
   within 48 KB runs whatever another plan set it to, since every setter
   (this function, the kernels' only way to it) asks for more than 48 KB. */
static inline tc_status tc_gpu_allow_smem(const void *fn, size_t bytes, tc_error *err)
{
    if (bytes <= TC_SMEM_UNASKED)
        return TC_OK;
    return TC_CUDA(err, cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)bytes));
}

/* A new device array holding a copy of `bytes` bytes of host memory (*dev
   NULL when bytes is 0). */
tc_status tc_gpu_upload_new(tc_gpu *g, const void *src, int64_t bytes, void **dev,
                            tc_error *err);
/* The same with `pad` zero bytes after the copy, for kernels whose vector
   loads may reach past the last element. */
tc_status tc_gpu_upload_padded(tc_gpu *g, const void *src, int64_t bytes, int64_t pad,
                               void **dev, tc_error *err);
/* A new device array of n float32 converted from float64 host values. */
tc_status tc_gpu_upload_f32(tc_gpu *g, const double *src, int64_t n, float **dev,
                            tc_error *err);
/* The same with pad zero elements after them. */
tc_status tc_gpu_upload_f32_padded(tc_gpu *g, const double *src, int64_t n, int64_t pad,
                                   float **dev, tc_error *err);

/* The start of a kernel's prepare: *out a zeroed plan of `size` bytes
   (its tc_kplan header first) with gpu, n, rows and cols set, for the
   matrix m in format `format`; TC_ERR_ARG ("FORMAT kernel: the matrix is
   not in the FORMAT format") or TC_ERR_NOMEM. */
tc_status tc_kplan_new(tc_gpu *g, const tc_fmt *m, const char *format,
                       const tc_gpu_operands *o, size_t size, tc_kplan **out, tc_error *err);

/* fp16 operands (kernels/fp16.cu; the per-row scale of A, tc_half_scale,
   is lib/half.h's). */
/* On g's stream: B (rows x n float32, row-major) into B16 (rows x ld
   halves, ld a multiple of 8 and >= n, zeros past n). */
tc_status tc_gpu_to_half(tc_gpu *g, const float *B, void *B16, int64_t rows, int32_t n,
                         int64_t ld, tc_error *err);
/* The same for the count rows of B that list (on the device) names, row
   list[k] of B into row k of B16 (list NULL: the first count rows): a
   compact copy of the rows a kernel gathers, in the order it wants them
   (rowsplit's "half", hubs first). With maxabs (max|B| on the device,
   tc_gpu_max_abs) B times the power of two of lib/fp16_scale.h, so that
   fp16 holds it; NULL: as it is. */
tc_status tc_gpu_to_half_rows(tc_gpu *g, const float *B, void *B16, const int32_t *list,
                              int64_t count, int32_t n, int64_t ld, const float *maxabs,
                              tc_error *err);
/* Thread blocks tc_gpu_to_half (or _rows, for `rows` listed rows)
   launches (for the one-launch check of a kernel's select). */
int64_t tc_half_launch_blocks(int64_t rows, int64_t ld);

#endif
