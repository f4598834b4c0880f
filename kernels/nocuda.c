/*
 * nocuda.c: kernels.h when configure found no CUDA. There is no device to
 * open, so nothing that needs one can be reached; every function says why.
 */
#include <config.h>

#include "kernels.h"

static tc_status no_cuda(tc_error *err)
{
    return tc_error_set(err, TC_ERR_NODEVICE, "no CUDA device: tcsparse was built without CUDA");
}

tc_status tc_gpu_list(tc_gpu_info **out, int *n, tc_error *err)
{
    *out = NULL;
    *n = 0;
    return no_cuda(err);
}

tc_status tc_gpu_open(int device, tc_gpu **out, tc_error *err)
{
    *out = NULL;
    return no_cuda(err);
}

void tc_gpu_close(tc_gpu *g)
{
}

const tc_gpu_info *tc_gpu_get_info(const tc_gpu *g)
{
    return NULL;
}

void *tc_gpu_stream(const tc_gpu *g)
{
    return NULL;
}

tc_status tc_gpu_use_stream(tc_gpu *g, void *stream, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_gather_rows(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                             int64_t rows, int32_t d, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_find_beyond(tc_gpu *g, const float *x, int64_t n, float limit, int64_t *first,
                             tc_error *err)
{
    *first = -1;
    return no_cuda(err);
}

tc_status tc_gpu_alloc(tc_gpu *g, int64_t bytes, void **out, tc_error *err)
{
    *out = NULL;
    return no_cuda(err);
}

void tc_gpu_free(tc_gpu *g, void *p)
{
}

tc_status tc_gpu_upload(tc_gpu *g, void *dst, const void *src, int64_t bytes, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_download(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                          tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_poison(tc_gpu *g, void *p, int64_t bytes, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_csr_upload(tc_gpu *g, const tc_csr *a, tc_gpu_csr *out, tc_error *err)
{
    return no_cuda(err);
}

void tc_gpu_csr_free(tc_gpu *g, tc_gpu_csr *d)
{
}

tc_status tc_gpu_operands_alloc(tc_gpu *g, const float *B, int32_t b_rows, int32_t c_rows,
                                int32_t n, int rotate, tc_gpu_operands *o, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_operands_poison(tc_gpu *g, const tc_gpu_operands *o, tc_error *err)
{
    return no_cuda(err);
}

void tc_gpu_operands_free(tc_gpu *g, tc_gpu_operands *o)
{
}

tc_status tc_gpu_time(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                      int iters, tc_gpu_timing *t, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_gpu_copy_bandwidth(tc_gpu *g, double *gbs, tc_error *err)
{
    return no_cuda(err);
}

int tc_kernel_count(void)
{
    return 0;
}

const tc_kernel *tc_kernel_at(int i)
{
    return NULL;
}

const tc_kernel *tc_kernel_find(const char *format)
{
    return NULL;
}

const tc_kernel *tc_kernel_baseline(void)
{
    return NULL;
}

const tc_kernel *tc_kernel_dense(void)
{
    return NULL;
}

int tc_kernel_variant_find(const tc_kernel *k, const char *name)
{
    return -1;
}

tc_status tc_kernel_prepare(const tc_kernel *k, tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    *out = NULL;
    return no_cuda(err);
}

tc_status tc_kernel_select(tc_kplan *p, int v, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_kernel_tune(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         int finite_b, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_kernel_run(tc_kplan *p, const tc_gpu_operands *o, int set, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_kernel_time(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         tc_gpu_timing *t, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_kernel_time_part(tc_kplan *p, const tc_gpu_operands *o, int part, int warmup,
                              int iters, tc_gpu_timing *t, tc_error *err)
{
    return no_cuda(err);
}

void tc_kernel_free(tc_kplan *p)
{
}

tc_status tc_attn_prepare(tc_gpu *g, const tc_fmt *mask, const tc_csr *a, int32_t d,
                          double scale, int warmup, int iters, tc_attn **out, tc_error *err)
{
    *out = NULL;
    return no_cuda(err);
}

tc_status tc_attn_run(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                      const float *V, float *O, tc_error *err)
{
    return no_cuda(err);
}

tc_status tc_attn_sddmm(tc_attn *p, tc_attn_path path, const float *Q, const float *K, float *S,
                        tc_error *err)
{
    return no_cuda(err);
}

int64_t tc_attn_device_bytes(const tc_attn *p, tc_attn_path path)
{
    return 0;
}

int tc_attn_warps(const tc_attn *p)
{
    return 0;
}

tc_status tc_attn_set_warps(tc_attn *p, int warps, tc_error *err)
{
    return no_cuda(err);
}

int tc_attn_width(const tc_attn *p)
{
    return 0;
}

void tc_attn_free(tc_attn *p)
{
}
