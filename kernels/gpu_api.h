/*
 * gpu_api.h: the one symbol the GPU library (libtcsparse-gpu, the CUDA
 * side) exports, a table of its functions, and what libtcsparse checks
 * of it when it loads the library (plan/gpuload.c).
 *
 * libtcsparse does not link CUDA: every function of kernels.h is, in
 * libtcsparse, a trampoline (plan/gpucalls.c) that loads the GPU library
 * on first use and calls through this table. The GPU library defines the
 * same names for its own internal calls, but exports only
 * tc_gpu_api_get, so those never bind to the trampolines.
 *
 * Change TC_GPU_API_VERSION with any change to this table or to a type of
 * kernels.h: a GPU library of another version is refused at load.
 */
#ifndef TC_GPU_API_H
#define TC_GPU_API_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TC_GPU_API_VERSION 7
#define TC_GPU_API_SYMBOL "tc_gpu_api_get"

typedef struct tc_gpu_api {
    int version;                /* TC_GPU_API_VERSION of the library's build */
    int nformats;               /* entries of kernels: the format registry's
                                   count in the library's build */
    /* kernels[i]: the kernel of format i of the format registry
       (formats/format_registry.h), NULL for a format without one */
    const tc_kernel *const *kernels;
    const tc_kernel *baseline;  /* cuSPARSE, the csr format's kernel */
    const tc_kernel *dense;     /* cuBLAS GEMM, not a format's */

    tc_status (*gpu_list)(tc_gpu_info **out, int *n, tc_error *err);
    tc_status (*gpu_open)(int device, tc_gpu **out, tc_error *err);
    void (*gpu_close)(tc_gpu *g);
    const tc_gpu_info *(*gpu_get_info)(const tc_gpu *g);

    tc_status (*gpu_alloc)(tc_gpu *g, int64_t bytes, void **out, tc_error *err);
    void (*gpu_free)(tc_gpu *g, void *p);
    tc_status (*gpu_upload)(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                            tc_error *err);
    tc_status (*gpu_download)(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                              tc_error *err);
    tc_status (*gpu_poison)(tc_gpu *g, void *p, int64_t bytes, tc_error *err);
    tc_status (*gpu_csr_upload)(tc_gpu *g, const tc_csr *a, tc_gpu_csr *out, tc_error *err);
    void (*gpu_csr_free)(tc_gpu *g, tc_gpu_csr *d);
    tc_status (*gpu_operands_alloc)(tc_gpu *g, const float *B, int32_t b_rows, int32_t c_rows,
                                    int32_t n, int rotate, tc_gpu_operands *o, tc_error *err);
    tc_status (*gpu_operands_poison)(tc_gpu *g, const tc_gpu_operands *o, tc_error *err);
    void (*gpu_operands_free)(tc_gpu *g, tc_gpu_operands *o);

    tc_status (*gpu_time_race)(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                               int iters, int first, double stop_ms, tc_gpu_timing *t,
                               tc_error *err);
    tc_status (*gpu_copy_bandwidth)(tc_gpu *g, double *gbs, tc_error *err);
    tc_status (*gpu_gather_rows)(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                                 int64_t rows, int32_t n, const float *maxabs, float *dst,
                                 int64_t ldd, tc_error *err);
    tc_status (*gpu_scatter_rows)(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                                  int64_t rows, int32_t n, const float *maxabs, float *dst,
                                  int64_t ldd, tc_error *err);
    tc_status (*gpu_max_abs)(tc_gpu *g, const float *x, int64_t rows, int32_t n, int64_t ld,
                             float *out, float *other, tc_error *err);
    tc_status (*gpu_guard_new)(tc_gpu *g, const tc_csr *a, tc_gpu_guard **out, tc_error *err);
    tc_status (*gpu_guard_run)(tc_gpu *g, tc_gpu_guard *q, const float *B, int32_t n,
                               const float *maxabs, float *C, tc_error *err);
    void (*gpu_guard_free)(tc_gpu *g, tc_gpu_guard *q);
    tc_status (*gpu_set_stream)(tc_gpu *g, void *stream, void **previous, tc_error *err);
    void *(*gpu_stream)(const tc_gpu *g);
    tc_status (*gpu_gather_rows64)(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                                   int64_t rows, int32_t d, tc_error *err);
    tc_status (*gpu_find_beyond)(tc_gpu *g, const float *x, int64_t n, float limit,
                                 int64_t *first, tc_error *err);

    int (*kernel_variant_find)(const tc_kernel *k, const char *name);
    tc_status (*kernel_prepare)(const tc_kernel *k, tc_gpu *g, const tc_fmt *m,
                                const tc_csr *a, const tc_gpu_operands *o, tc_kplan **out,
                                tc_error *err);
    tc_status (*kernel_select)(tc_kplan *p, int v, tc_error *err);
    tc_status (*kernel_tune)(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                             int finite_b, const char *accuracy, double bar_ms, tc_error *err);
    tc_status (*kernel_run)(tc_kplan *p, const tc_gpu_operands *o, int set, tc_error *err);
    tc_status (*kernel_time)(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                             tc_gpu_timing *t, tc_error *err);
    tc_status (*kernel_time_part)(tc_kplan *p, const tc_gpu_operands *o, int part, int warmup,
                                  int iters, tc_gpu_timing *t, tc_error *err);
    void (*kernel_free)(tc_kplan *p);

    tc_status (*attn_prepare)(tc_gpu *g, const tc_fmt *mask, const tc_csr *a, int32_t d,
                              double scale, int warmup, int iters, tc_attn **out,
                              tc_error *err);
    tc_status (*attn_run)(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                          const float *V, float *O, tc_error *err);
    tc_status (*attn_sddmm)(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                            float *S, tc_error *err);
    int64_t (*attn_device_bytes)(const tc_attn *p, tc_attn_path path);
    int (*attn_warps)(const tc_attn *p);
    tc_status (*attn_set_warps)(tc_attn *p, int warps, tc_error *err);
    int (*attn_width)(const tc_attn *p);
    void (*attn_free)(tc_attn *p);
} tc_gpu_api;

/* The GPU library's table (kernels/gpu_api.c). */
const tc_gpu_api *tc_gpu_api_get(void);
typedef const tc_gpu_api *(*tc_gpu_api_get_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* TC_GPU_API_H */
