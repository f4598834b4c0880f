/* gpu_api.c: the table of the GPU library's functions (gpu_api.h), the only
   symbol it exports; libtcsparse's trampolines of kernels.h call through
   it. Its kernels are the format registry (formats/format_registry.h)
   expanded in registry order: the registry names each format's kernel. */
#include <config.h>

#include <stddef.h>

#include "format_registry.h"
#include "gpu_api.h"

#define DECLARE(name) extern const tc_kernel tc_kernel_##name;
#define NONE(name)
TC_FORMAT_REGISTRY(DECLARE, NONE)
#undef DECLARE
#undef NONE
extern const tc_kernel tc_kernel_gemm;

/* Format i's kernel at i: the format registry expanded, NULL for a format
   without a kernel. */
#define KERNEL(name) &tc_kernel_##name,
#define NONE(name) NULL,
static const tc_kernel *const kernels[] = { TC_FORMAT_REGISTRY(KERNEL, NONE) };
#undef KERNEL
#undef NONE

static const tc_gpu_api api = {
    .version = TC_GPU_API_VERSION,
    .nformats = (int)(sizeof kernels / sizeof kernels[0]),
    .kernels = kernels,
    .baseline = &tc_kernel_csr,
    .dense = &tc_kernel_gemm,
    .gpu_list = tc_gpu_list,
    .gpu_open = tc_gpu_open,
    .gpu_close = tc_gpu_close,
    .gpu_get_info = tc_gpu_get_info,
    .gpu_alloc = tc_gpu_alloc,
    .gpu_free = tc_gpu_free,
    .gpu_upload = tc_gpu_upload,
    .gpu_download = tc_gpu_download,
    .gpu_poison = tc_gpu_poison,
    .gpu_csr_upload = tc_gpu_csr_upload,
    .gpu_csr_free = tc_gpu_csr_free,
    .gpu_operands_alloc = tc_gpu_operands_alloc,
    .gpu_operands_poison = tc_gpu_operands_poison,
    .gpu_operands_free = tc_gpu_operands_free,
    .gpu_time_race = tc_gpu_time_race,
    .gpu_copy_bandwidth = tc_gpu_copy_bandwidth,
    .gpu_gather_rows = tc_gpu_gather_rows,
    .gpu_scatter_rows = tc_gpu_scatter_rows,
    .gpu_max_abs = tc_gpu_max_abs,
    .gpu_guard_new = tc_gpu_guard_new,
    .gpu_guard_run = tc_gpu_guard_run,
    .gpu_guard_free = tc_gpu_guard_free,
    .gpu_set_stream = tc_gpu_set_stream,
    .gpu_stream = tc_gpu_stream,
    .gpu_gather_rows64 = tc_gpu_gather_rows64,
    .gpu_find_beyond = tc_gpu_find_beyond,
    .kernel_variant_find = tc_kernel_variant_find,
    .kernel_prepare = tc_kernel_prepare,
    .kernel_select = tc_kernel_select,
    .kernel_tune = tc_kernel_tune,
    .kernel_run = tc_kernel_run,
    .kernel_time = tc_kernel_time,
    .kernel_time_part = tc_kernel_time_part,
    .kernel_free = tc_kernel_free,
    .attn_prepare = tc_attn_prepare,
    .attn_run = tc_attn_run,
    .attn_sddmm = tc_attn_sddmm,
    .attn_device_bytes = tc_attn_device_bytes,
    .attn_warps = tc_attn_warps,
    .attn_set_warps = tc_attn_set_warps,
    .attn_width = tc_attn_width,
    .attn_free = tc_attn_free,
};

const tc_gpu_api *tc_gpu_api_get(void)
{
    return &api;
}
