/*
 * pdl.cuh: programmatic dependent launch (sm_90 and later). A kernel
 * launched with tc_launch_dependent may have its thread blocks started
 * while the kernel before it on the stream is still running, once every
 * block of that one has called tc_pdl_trigger (or ended): it does what
 * needs nothing of the earlier kernel (reading the plan's own arrays) and
 * then waits at tc_pdl_wait, which returns once the earlier kernel has
 * ended and its writes are visible. So the launch of the second kernel and
 * its first loads overlap the end of the first, instead of following it.
 *
 * The dependent kernel must reach tc_pdl_wait before it reads anything an
 * earlier kernel on the stream may write, or writes anything one may read:
 * whichever kernel came before it (not only the one it was written to
 * follow). Where the launch is an ordinary one (a device before sm_90)
 * both calls do nothing.
 */
#ifndef TC_PDL_CUH
#define TC_PDL_CUH

#include "gpu_internal.h"

/* Lets the kernels launched after this one with tc_launch_dependent start
   (once every block of this one has called it). */
static __device__ __forceinline__ void tc_pdl_trigger(void)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/* Waits for the kernels before this one on the stream to end, their writes
   visible. */
static __device__ __forceinline__ void tc_pdl_wait(void)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* kernel<<<grid, block, 0, g's stream>>>(args...), as a programmatic
   dependent of the kernel before it where the device has them (compute
   capability 9 or more). */
template <typename... P>
static tc_status tc_launch_dependent(tc_gpu *g, const char *name, void (*kernel)(P...), dim3 grid,
                                     dim3 block, tc_error *err, P... args)
{
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = g->stream;
    cfg.attrs = &attr;
    cfg.numAttrs = g->info.cc_major >= 9 ? 1 : 0;
    return tc_cuda_check(cudaLaunchKernelEx(&cfg, kernel, args...), name, err);
}

#endif
