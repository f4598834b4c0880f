/*
 * gpuload.c: libtcsparse loads its GPU side, libtcsparse-gpu (CUDA,
 * cuSPARSE, cuBLAS and the kernels), with dlopen on the first call that
 * needs it, so that a program that never multiplies on the GPU never loads
 * CUDA (starting cudart and cuBLAS costs a quarter of a second and 250 MB).
 *
 * Where it looks, first found wins (libtcsparse(3), GPU LIBRARY):
 *   1. $TC_GPU_LIBRARY, a path: that file and nothing else;
 *   2. beside libtcsparse itself (dladdr of one of its functions): the
 *      build tree's lib/.libs, an installed $(libdir), or a folder both
 *      were copied to;
 *   3. libtcsparse-gpu.so.0 on the dynamic linker's search path.
 * The library's table must be of this build's version and list the same
 * formats in the same order (one format registry expanded in both).
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuload.h"

#define GPU_LIBRARY "libtcsparse-gpu.so.0"

static pthread_once_t once = PTHREAD_ONCE_INIT;
/* Set, with release, only once the table is checked. */
static _Atomic(const tc_gpu_api *) loaded;
/* Why nothing is loaded, for every call that needed it. */
static char why[1024];

/* dlopen with the reason in why on failure. */
static void *open_library(const char *path, const char *hint)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        /* the dynamic linker's reason, cut to leave room for the hint */
        snprintf(why, sizeof why, "cannot load tcsparse's GPU library: %.700s%.250s",
                 e ? e : path, hint);
    }
    return h;
}

/* GPU_LIBRARY in the folder of the file libtcsparse was loaded from, in
   buf; 0 when that cannot be told. */
static int beside_self(char *buf, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)tc_gpu_api_load, &info) || !info.dli_fname)
        return 0;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash)
        return 0;
    int len = snprintf(buf, size, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                       GPU_LIBRARY);
    return len > 0 && (size_t)len < size;
}

static void *find_library(void)
{
    const char *env = getenv("TC_GPU_LIBRARY");
    if (env && *env)
        return open_library(env, " ($TC_GPU_LIBRARY)");
    char path[4096];
    if (beside_self(path, sizeof path) && access(path, F_OK) == 0)
        return open_library(path, "");
    return open_library(GPU_LIBRARY, " (not beside libtcsparse nor on the library search "
                                     "path; $TC_GPU_LIBRARY may name it)");
}

/* Whether api is one this libtcsparse can call: its version and its
   kernels those of this build's format registry. */
static int check_table(const tc_gpu_api *api, const char *what)
{
    if (!api || api->version != TC_GPU_API_VERSION) {
        snprintf(why, sizeof why, "tcsparse's GPU library %s is of another version (GPU API "
                 "%d, this libtcsparse wants %d)", what, api ? api->version : -1,
                 TC_GPU_API_VERSION);
        return 0;
    }
    int same = api->nformats == tc_format_count();
    for (int i = 0; same && i < api->nformats; i++)
        same = !api->kernels[i] ||
               strcmp(api->kernels[i]->format, tc_format_name(tc_format_at(i))) == 0;
    if (!same)
        snprintf(why, sizeof why, "tcsparse's GPU library %s was built with other formats "
                 "than this libtcsparse", what);
    return same;
}

#ifdef HAVE_CUDA
#define BUILT_WITH_CUDA 1
#else
#define BUILT_WITH_CUDA 0
#endif

static void load(void)
{
    if (!BUILT_WITH_CUDA) {
        snprintf(why, sizeof why, "tcsparse was built without CUDA");
        return;
    }
    void *h = find_library();
    if (!h)
        return;
    Dl_info info;
    const char *what = "";
    tc_gpu_api_get_fn get = (tc_gpu_api_get_fn)dlsym(h, TC_GPU_API_SYMBOL);
    if (get && dladdr((void *)get, &info) && info.dli_fname)
        what = info.dli_fname;
    if (!get) {
        snprintf(why, sizeof why, "tcsparse's GPU library has no %s: %s", TC_GPU_API_SYMBOL,
                 dlerror());
    } else if (check_table(get(), what)) {
        atomic_store_explicit(&loaded, get(), memory_order_release);
        return;
    }
    dlclose(h);
}

const tc_gpu_api *tc_gpu_api_load(tc_error *err)
{
    pthread_once(&once, load);
    const tc_gpu_api *api = tc_gpu_api_loaded();
    if (!api)
        tc_error_set(err, TC_ERR_NODEVICE, "no CUDA device: %s", why);
    return api;
}

const tc_gpu_api *tc_gpu_api_loaded(void)
{
    return atomic_load_explicit(&loaded, memory_order_acquire);
}
