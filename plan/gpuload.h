/*
 * gpuload.h: loading the GPU library (libtcsparse-gpu) into libtcsparse.
 * Internal to the library; plan/gpucalls.c's trampolines of kernels.h are
 * its callers.
 */
#ifndef TC_GPULOAD_H
#define TC_GPULOAD_H

#include "gpu_api.h"

/* The GPU library's table, loading the library on the first call (once per
   process, whichever thread calls first). NULL when it cannot be loaded,
   with TC_ERR_NODEVICE and why in err: built without CUDA, or the library
   could not be loaded (dlerror) or is of another version; every later call
   gives the same answer. */
const tc_gpu_api *tc_gpu_api_load(tc_error *err);
/* The table when the library is loaded, else NULL; never loads it (for
   the functions that free, which have nothing to do then). */
const tc_gpu_api *tc_gpu_api_loaded(void);

#endif
