/*
 * cuda_errors.cu: CUDA and cuSPARSE errors as tc_error messages (TC_CUDA,
 * TC_LAUNCHED and their kin in gpu_internal.h). A file of its own because
 * programs that launch their own kernels around the library's (bench/floor)
 * link it too: the GPU library exports nothing but its table.
 */
#include <string.h>

#include "gpu_internal.h"

/* Length of the function name at the start of a call's source text. */
static int call_name_len(const char *call)
{
    const char *paren = strchr(call, '(');
    return paren ? (int)(paren - call) : (int)strlen(call);
}

tc_status tc_cuda_check(cudaError_t e, const char *call, tc_error *err)
{
    if (e == cudaSuccess)
        return TC_OK;
    return tc_error_set(err, TC_ERR_CUDA, "%.*s: %s (%s)", call_name_len(call), call,
                        cudaGetErrorString(e), cudaGetErrorName(e));
}

tc_status tc_cusparse_check(cusparseStatus_t s, const char *call, tc_error *err)
{
    if (s == CUSPARSE_STATUS_SUCCESS)
        return TC_OK;
    return tc_error_set(err, TC_ERR_CUDA, "%.*s: %s", call_name_len(call), call,
                        cusparseGetErrorString(s));
}
