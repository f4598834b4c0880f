/*
 * gpucalls.c: kernels.h in libtcsparse. Each function loads the GPU library
 * if it is not loaded yet (plan/gpuload.c) and calls its namesake there
 * through the library's table; when it cannot be loaded, the call fails
 * with TC_ERR_NODEVICE and the reason (as tc_gpu_open fails where there is
 * no driver), and the functions that free or close do nothing. The kernel
 * registry's lookups iterate the format registry, whose entry i's kernel
 * is the table's kernels[i].
 */
#include "config.h"

#include <stddef.h>

#include "gpuload.h"

/* ------------------------------------------------------------ devices */

tc_status tc_gpu_list(tc_gpu_info **out, int *n, tc_error *err)
{
    *out = NULL;
    *n = 0;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_list(out, n, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_open(int device, tc_gpu **out, tc_error *err)
{
    *out = NULL;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_open(device, out, err) : TC_ERR_NODEVICE;
}

void tc_gpu_close(tc_gpu *g)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->gpu_close(g);
}

const tc_gpu_info *tc_gpu_get_info(const tc_gpu *g)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->gpu_get_info(g) : NULL;
}

/* ------------------------------------------------------------- memory */

tc_status tc_gpu_alloc(tc_gpu *g, int64_t bytes, void **out, tc_error *err)
{
    *out = NULL;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_alloc(g, bytes, out, err) : TC_ERR_NODEVICE;
}

void tc_gpu_free(tc_gpu *g, void *p)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->gpu_free(g, p);
}

tc_status tc_gpu_upload(tc_gpu *g, void *dst, const void *src, int64_t bytes, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_upload(g, dst, src, bytes, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_download(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                          tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_download(g, dst, src, bytes, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_poison(tc_gpu *g, void *p, int64_t bytes, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_poison(g, p, bytes, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_csr_upload(tc_gpu *g, const tc_csr *a, tc_gpu_csr *out, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_csr_upload(g, a, out, err) : TC_ERR_NODEVICE;
}

void tc_gpu_csr_free(tc_gpu *g, tc_gpu_csr *d)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->gpu_csr_free(g, d);
}

tc_status tc_gpu_operands_alloc(tc_gpu *g, const float *B, int32_t b_rows, int32_t c_rows,
                                int32_t n, int rotate, tc_gpu_operands *o, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_operands_alloc(g, B, b_rows, c_rows, n, rotate, o, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_gpu_operands_poison(tc_gpu *g, const tc_gpu_operands *o, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_operands_poison(g, o, err) : TC_ERR_NODEVICE;
}

void tc_gpu_operands_free(tc_gpu *g, tc_gpu_operands *o)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->gpu_operands_free(g, o);
}

/* ------------------------------------------------------------- timing */

tc_status tc_gpu_time(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                      int iters, tc_gpu_timing *t, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_time_race(g, fn, ctx, sets, warmup, iters, iters, 0, t, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_gpu_time_race(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                           int iters, int first, double stop_ms, tc_gpu_timing *t,
                           tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_time_race(g, fn, ctx, sets, warmup, iters, first, stop_ms, t, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_gpu_copy_bandwidth(tc_gpu *g, double *gbs, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_copy_bandwidth(g, gbs, err) : TC_ERR_NODEVICE;
}

/* ------------------------------------------- the plan's device work */

tc_status tc_gpu_gather_rows(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                             int64_t rows, int32_t n, const float *maxabs, float *dst,
                             int64_t ldd, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_gather_rows(g, src, lds, idx, rows, n, maxabs, dst, ldd, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_gpu_scatter_rows(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                              int64_t rows, int32_t n, const float *maxabs, float *dst,
                              int64_t ldd, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_scatter_rows(g, src, lds, idx, rows, n, maxabs, dst, ldd, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_gpu_max_abs(tc_gpu *g, const float *x, int64_t rows, int32_t n, int64_t ld,
                         float *out, float *other, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_max_abs(g, x, rows, n, ld, out, other, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_guard_new(tc_gpu *g, const tc_csr *a, tc_gpu_guard **out, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_guard_new(g, a, out, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_guard_run(tc_gpu *g, tc_gpu_guard *q, const float *B, int32_t n,
                           const float *maxabs, float *C, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_guard_run(g, q, B, n, maxabs, C, err) : TC_ERR_NODEVICE;
}

void tc_gpu_guard_free(tc_gpu *g, tc_gpu_guard *q)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->gpu_guard_free(g, q);
}

tc_status tc_gpu_set_stream(tc_gpu *g, void *stream, void **previous, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_set_stream(g, stream, previous, err) : TC_ERR_NODEVICE;
}

void *tc_gpu_stream(const tc_gpu *g)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->gpu_stream(g) : NULL;
}

tc_status tc_gpu_gather_rows64(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                               int64_t rows, int32_t d, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_gather_rows64(g, dst, src, idx, rows, d, err) : TC_ERR_NODEVICE;
}

tc_status tc_gpu_find_beyond(tc_gpu *g, const float *x, int64_t n, float limit, int64_t *first,
                             tc_error *err)
{
    *first = -1;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->gpu_find_beyond(g, x, n, limit, first, err) : TC_ERR_NODEVICE;
}
