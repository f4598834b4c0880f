/*
 * kernelcalls.c: the kernels and attention of kernels.h in libtcsparse, as
 * plan/gpucalls.c does for devices, memory and timing: trampolines into
 * the GPU library's table (plan/gpuload.c). The registry's lookups iterate
 * the format registry, whose entry i's kernel is the table's kernels[i]:
 * there is no second list of kernels to keep in step.
 */
#include "config.h"

#include <stddef.h>

#include "gpuload.h"

/* ----------------------------------------------------------- registry */

/* The table, loading the library; NULL when there is none (the lookups
   have no tc_error to say why: the next call that does will). */
static const tc_gpu_api *table(void)
{
    tc_error err;
    return tc_gpu_api_load(&err);
}

const tc_kernel *tc_kernel_for(const tc_format *f)
{
    const tc_gpu_api *api = f ? table() : NULL;
    for (int i = 0; api && i < api->nformats; i++)
        if (tc_format_at(i) == f)
            return api->kernels[i];
    return NULL;
}

int tc_kernel_count(void)
{
    const tc_gpu_api *api = table();
    int n = 0;
    for (int i = 0; api && i < api->nformats; i++)
        n += api->kernels[i] != NULL;
    return n;
}

const tc_kernel *tc_kernel_at(int i)
{
    const tc_gpu_api *api = i >= 0 ? table() : NULL;
    for (int f = 0; api && f < api->nformats; f++)
        if (api->kernels[f] && i-- == 0)
            return api->kernels[f];
    return NULL;
}

const tc_kernel *tc_kernel_find(const char *format)
{
    return tc_kernel_for(tc_format_find(format));
}

const tc_kernel *tc_kernel_baseline(void)
{
    const tc_gpu_api *api = table();
    return api ? api->baseline : NULL;
}

const tc_kernel *tc_kernel_dense(void)
{
    const tc_gpu_api *api = table();
    return api ? api->dense : NULL;
}

int tc_kernel_variant_find(const tc_kernel *k, const char *name)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->kernel_variant_find(k, name) : -1;
}

/* ------------------------------------------------------------ kernels */

tc_status tc_kernel_prepare(const tc_kernel *k, tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err)
{
    *out = NULL;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_prepare(k, g, m, a, o, out, err) : TC_ERR_NODEVICE;
}

tc_status tc_kernel_select(tc_kplan *p, int v, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_select(p, v, err) : TC_ERR_NODEVICE;
}

tc_status tc_kernel_tune(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         int finite_b, const char *accuracy, double bar_ms, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_tune(p, o, warmup, iters, finite_b, accuracy, bar_ms, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_kernel_run(tc_kplan *p, const tc_gpu_operands *o, int set, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_run(p, o, set, err) : TC_ERR_NODEVICE;
}

tc_status tc_kernel_time(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         tc_gpu_timing *t, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_time(p, o, warmup, iters, t, err) : TC_ERR_NODEVICE;
}

tc_status tc_kernel_time_part(tc_kplan *p, const tc_gpu_operands *o, int part, int warmup,
                              int iters, tc_gpu_timing *t, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->kernel_time_part(p, o, part, warmup, iters, t, err) : TC_ERR_NODEVICE;
}

void tc_kernel_free(tc_kplan *p)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->kernel_free(p);
}

/* ---------------------------------------------------------- attention */

tc_status tc_attn_prepare(tc_gpu *g, const tc_fmt *mask, const tc_csr *a, int32_t d,
                          double scale, int warmup, int iters, tc_attn **out, tc_error *err)
{
    *out = NULL;
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->attn_prepare(g, mask, a, d, scale, warmup, iters, out, err)
               : TC_ERR_NODEVICE;
}

tc_status tc_attn_run(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                      const float *V, float *O, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->attn_run(p, path, Q, K, V, O, err) : TC_ERR_NODEVICE;
}

tc_status tc_attn_sddmm(tc_attn *p, tc_attn_path path, const float *Q, const float *K, float *S,
                        tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->attn_sddmm(p, path, Q, K, S, err) : TC_ERR_NODEVICE;
}

int64_t tc_attn_device_bytes(const tc_attn *p, tc_attn_path path)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->attn_device_bytes(p, path) : 0;
}

int tc_attn_warps(const tc_attn *p)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->attn_warps(p) : 0;
}

tc_status tc_attn_set_warps(tc_attn *p, int warps, tc_error *err)
{
    const tc_gpu_api *api = tc_gpu_api_load(err);
    return api ? api->attn_set_warps(p, warps, err) : TC_ERR_NODEVICE;
}

int tc_attn_width(const tc_attn *p)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    return api ? api->attn_width(p) : 0;
}

void tc_attn_free(tc_attn *p)
{
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (api)
        api->attn_free(p);
}
