/*
 * gpu.cu: devices, device memory, a CSR matrix and the dense operands on the
 * device, and timing with CUDA events (see kernels.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_internal.h"
#include "formats.h"

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

/* Why there is no device, in the user's terms: without a driver the
   runtime says "CUDA driver version is insufficient for CUDA runtime
   version", which reads as "update the driver" on a machine that has no
   GPU at all. cudaDriverGetVersion gives 0 when no driver is installed. */
static tc_status no_device(cudaError_t e, tc_error *err)
{
    int driver = 0, runtime = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
        driver > 0 && cudaRuntimeGetVersion(&runtime) == cudaSuccess)
        return tc_error_set(err, TC_ERR_NODEVICE,
                            "no CUDA device: the NVIDIA driver (CUDA %d.%d) is older than the "
                            "CUDA %d.%d runtime tcsparse was built with: update the driver",
                            driver / 1000, driver % 1000 / 10, runtime / 1000,
                            runtime % 1000 / 10);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary)
        return tc_error_set(err, TC_ERR_NODEVICE,
                            "no CUDA device: no NVIDIA GPU driver found (no GPU here, or its "
                            "driver is not installed)");
    if (e == cudaErrorNoDevice || e == cudaSuccess)
        return tc_error_set(err, TC_ERR_NODEVICE, "no CUDA device: the NVIDIA driver found no GPU");
    return tc_error_set(err, TC_ERR_NODEVICE, "no CUDA device: cudaGetDeviceCount: %s",
                        cudaGetErrorString(e));
}

static tc_status device_count(int *n, tc_error *err)
{
    cudaError_t e = cudaGetDeviceCount(n);
    if (e != cudaSuccess || *n == 0)
        return no_device(e, err);
    return TC_OK;
}

/* Properties of device d, which becomes the current device. */
static tc_status read_info(int d, tc_gpu_info *info, tc_error *err)
{
    cudaDeviceProp prop;
    int sms = 0, l2 = 0;
    size_t mfree = 0, mtotal = 0;
    tc_status st = TC_CUDA(err, cudaSetDevice(d));
    if (st == TC_OK)
        st = TC_CUDA(err, cudaGetDeviceProperties(&prop, d));
    if (st == TC_OK)
        st = TC_CUDA(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    if (st == TC_OK)
        st = TC_CUDA(err, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d));
    if (st == TC_OK)
        st = TC_CUDA(err, cudaMemGetInfo(&mfree, &mtotal));
    if (st != TC_OK)
        return tc_error_prefix(err, st, "GPU %d", d);
    memset(info, 0, sizeof *info);
    info->index = d;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = sms;
    info->mem_total = (int64_t)mtotal;
    info->mem_free = (int64_t)mfree;
    info->l2_bytes = l2;
    return TC_OK;
}

tc_status tc_gpu_list(tc_gpu_info **out, int *n, tc_error *err)
{
    tc_status st = device_count(n, err);
    if (st != TC_OK)
        return st;
    tc_gpu_info *list = (tc_gpu_info *)tc_malloc_array(*n, sizeof *list, err);
    if (!list)
        return TC_ERR_NOMEM;
    for (int d = 0; d < *n && st == TC_OK; d++)
        st = read_info(d, &list[d], err);
    if (st != TC_OK) {
        free(list);
        return st;
    }
    *out = list;
    return TC_OK;
}

tc_status tc_gpu_open(int device, tc_gpu **out, tc_error *err)
{
    int n = 0;
    tc_status st = device_count(&n, err);
    if (st != TC_OK)
        return st;
    if (device < 0 || device >= n)
        return tc_error_set(err, TC_ERR_ARG, "GPU %d does not exist (devices 0 to %d)",
                            device, n - 1);
    tc_gpu *g = (tc_gpu *)calloc(1, sizeof *g);
    if (!g)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    st = read_info(device, &g->info, err);
    if (st == TC_OK)
        st = TC_CUDA(err, cudaStreamCreateWithFlags(&g->own, cudaStreamNonBlocking));
    g->stream = g->own;
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseCreate(&g->sparse));
    if (st == TC_OK)
        st = TC_CUSPARSE(err, cusparseSetStream(g->sparse, g->stream));
    for (int i = 0; i <= TC_TIMING_BATCH && st == TC_OK; i++)
        st = TC_CUDA(err, cudaEventCreate(&g->ev[i]));
    void *hold = NULL;
    if (st == TC_OK)
        st = TC_CUDA(err, cudaHostAlloc(&hold, 2 * sizeof(int), cudaHostAllocMapped));
    g->hold = (volatile int *)hold;
    if (st == TC_OK)
        st = TC_CUDA(err, cudaHostGetDevicePointer((void **)&g->hold_dev, hold, 0));
    if (st != TC_OK) {
        tc_gpu_close(g);
        return st;
    }
    *out = g;
    return TC_OK;
}

void tc_gpu_close(tc_gpu *g)
{
    if (!g)
        return;
    if (g->hold)
        cudaFreeHost((void *)g->hold);
    for (int i = 0; i <= TC_TIMING_BATCH; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->sparse)
        cusparseDestroy(g->sparse);
    if (g->own)
        cudaStreamDestroy(g->own);
    free(g);
}

void *tc_gpu_stream(const tc_gpu *g)
{
    return g->stream;
}

const tc_gpu_info *tc_gpu_get_info(const tc_gpu *g)
{
    return &g->info;
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

tc_status tc_gpu_alloc(tc_gpu *g, int64_t bytes, void **out, tc_error *err)
{
    *out = NULL;
    if (bytes < 0)
        return tc_error_set(err, TC_ERR_ARG, "tc_gpu_alloc: %lld bytes", (long long)bytes);
    if (bytes == 0)
        return TC_OK;
    tc_status st = TC_CUDA(err, cudaMalloc(out, (size_t)bytes));
    if (st != TC_OK)
        return tc_error_prefix(err, st, "%lld bytes on GPU %d", (long long)bytes, g->info.index);
    return TC_OK;
}

void tc_gpu_free(tc_gpu *g, void *p)
{
    (void)g;
    if (p)
        cudaFree(p);
}

static tc_status copy_sync(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                           cudaMemcpyKind kind, tc_error *err)
{
    if (bytes == 0)
        return TC_OK;
    tc_status st = TC_CUDA(err, cudaMemcpyAsync(dst, src, (size_t)bytes, kind, g->stream));
    return st == TC_OK ? TC_CUDA(err, cudaStreamSynchronize(g->stream)) : st;
}

tc_status tc_gpu_upload(tc_gpu *g, void *dst, const void *src, int64_t bytes, tc_error *err)
{
    return copy_sync(g, dst, src, bytes, cudaMemcpyHostToDevice, err);
}

tc_status tc_gpu_download(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                          tc_error *err)
{
    return copy_sync(g, dst, src, bytes, cudaMemcpyDeviceToHost, err);
}

tc_status tc_gpu_poison(tc_gpu *g, void *p, int64_t bytes, tc_error *err)
{
    if (bytes == 0)
        return TC_OK;
    tc_status st = TC_CUDA(err, cudaMemsetAsync(p, 0xff, (size_t)bytes, g->stream));
    return st == TC_OK ? TC_CUDA(err, cudaStreamSynchronize(g->stream)) : st;
}

/* Uploads n host elements of size `size` after converting them into a
   temporary host array with convert(tmp, i) for each i, and pad zeroed
   elements after them. */
typedef void (*convert_fn)(void *tmp, int64_t i, const void *src);

static tc_status upload_converted(tc_gpu *g, int64_t n, int64_t pad, size_t size,
                                  convert_fn convert, const void *src, void **dev, tc_error *err)
{
    void *tmp = tc_malloc_array(n + pad, size, err);
    if (!tmp)
        return TC_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++)
        convert(tmp, i, src);
    memset((char *)tmp + n * (int64_t)size, 0, (size_t)pad * size);
    tc_status st = tc_gpu_alloc(g, (n + pad) * (int64_t)size, dev, err);
    if (st == TC_OK)
        st = tc_gpu_upload(g, *dev, tmp, (n + pad) * (int64_t)size, err);
    free(tmp);
    return st;
}

static void i64_to_i32(void *t, int64_t i, const void *s)
{
    ((int32_t *)t)[i] = (int32_t)((const int64_t *)s)[i];
}
static void i64_to_i64(void *t, int64_t i, const void *s)
{
    ((int64_t *)t)[i] = ((const int64_t *)s)[i];
}
static void i32_to_i32(void *t, int64_t i, const void *s)
{
    ((int32_t *)t)[i] = ((const int32_t *)s)[i];
}
static void i32_to_i64(void *t, int64_t i, const void *s)
{
    ((int64_t *)t)[i] = ((const int32_t *)s)[i];
}
static void f64_to_f32(void *t, int64_t i, const void *s)
{
    ((float *)t)[i] = (float)((const double *)s)[i];
}
static void one_f32(void *t, int64_t i, const void *s)
{
    (void)s;
    ((float *)t)[i] = 1.0f;
}

tc_status tc_gpu_upload_new(tc_gpu *g, const void *src, int64_t bytes, void **dev,
                            tc_error *err)
{
    return tc_gpu_upload_padded(g, src, bytes, 0, dev, err);
}

tc_status tc_gpu_upload_padded(tc_gpu *g, const void *src, int64_t bytes, int64_t pad,
                               void **dev, tc_error *err)
{
    tc_status st = tc_gpu_alloc(g, bytes + pad, dev, err);
    if (st == TC_OK)
        st = tc_gpu_upload(g, *dev, src, bytes, err);
    if (st == TC_OK && pad > 0) {
        st = TC_CUDA(err, cudaMemsetAsync((char *)*dev + bytes, 0, (size_t)pad, g->stream));
        if (st == TC_OK)
            st = TC_CUDA(err, cudaStreamSynchronize(g->stream));
    }
    return st;
}

tc_status tc_gpu_upload_f32(tc_gpu *g, const double *src, int64_t n, float **dev,
                            tc_error *err)
{
    return tc_gpu_upload_f32_padded(g, src, n, 0, dev, err);
}

tc_status tc_gpu_upload_f32_padded(tc_gpu *g, const double *src, int64_t n, int64_t pad,
                                   float **dev, tc_error *err)
{
    return upload_converted(g, n, pad, sizeof(float), f64_to_f32, src, (void **)dev, err);
}

tc_status tc_kplan_new(tc_gpu *g, const tc_fmt *m, const char *format,
                       const tc_gpu_operands *o, size_t size, tc_kplan **out, tc_error *err)
{
    *out = NULL;
    if (!m || strcmp(tc_format_name(tc_fmt_format(m)), format) != 0)
        return tc_error_set(err, TC_ERR_ARG, "%s kernel: the matrix is not in the %s format",
                            format, format);
    tc_kplan *p = (tc_kplan *)calloc(1, size);
    if (!p)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    p->gpu = g;
    p->n = o->n;
    p->rows = m->rows;
    p->cols = m->cols;
    *out = p;
    return TC_OK;
}

tc_status tc_gpu_csr_upload(tc_gpu *g, const tc_csr *a, tc_gpu_csr *out, tc_error *err)
{
    memset(out, 0, sizeof *out);
    out->rows = a->rows;
    out->cols = a->cols;
    out->nnz = a->nnz;
    out->index64 = a->nnz > INT32_MAX;
    const size_t isz = out->index64 ? sizeof(int64_t) : sizeof(int32_t);
    tc_status st = upload_converted(g, (int64_t)a->rows + 1, 0, isz,
                                    out->index64 ? i64_to_i64 : i64_to_i32, a->rowptr,
                                    &out->rowptr, err);
    if (st == TC_OK)
        st = upload_converted(g, a->nnz, 0, isz, out->index64 ? i32_to_i64 : i32_to_i32,
                              a->colidx, &out->colidx, err);
    if (st == TC_OK)
        st = upload_converted(g, a->nnz, 0, sizeof(float), a->val ? f64_to_f32 : one_f32, a->val,
                              (void **)&out->val, err);
    if (st != TC_OK) {
        tc_gpu_csr_free(g, out);
        return st;
    }
    out->bytes = ((int64_t)a->rows + 1 + a->nnz) * (int64_t)isz + a->nnz * (int64_t)sizeof(float);
    return TC_OK;
}

void tc_gpu_csr_free(tc_gpu *g, tc_gpu_csr *d)
{
    tc_gpu_free(g, d->rowptr);
    tc_gpu_free(g, d->colidx);
    tc_gpu_free(g, d->val);
    d->rowptr = d->colidx = NULL;
    d->val = NULL;
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */
/* ------------------------------------------------------------------------ */

/* Enough sets that even tiny operands, rotated, overflow any L2. */
#define MAX_OPERAND_SETS 65536
/* Sets start on 256-byte boundaries, as separate cudaMalloc blocks would. */
#define SET_ALIGN 256

static int64_t round_up(int64_t x, int64_t to)
{
    return (x + to - 1) / to * to;
}

/* Sets whose B and C together exceed four times the L2, within half the
   free memory. */
static int operand_sets(const tc_gpu *g, int64_t set_bytes)
{
    int64_t count = (4 * g->info.l2_bytes + set_bytes - 1) / set_bytes;
    if (count > MAX_OPERAND_SETS)
        count = MAX_OPERAND_SETS;
    if (count * set_bytes > g->info.mem_free / 2)
        count = g->info.mem_free / 2 / set_bytes;
    return count < 1 ? 1 : (int)count;
}

/* One block of count sets of `stride` bytes for B, one for C; set s of each
   starts s * stride bytes in. */
static tc_status carve(tc_gpu *g, int count, int64_t stride, float **sets, tc_error *err)
{
    tc_status st = tc_gpu_alloc(g, count * stride, (void **)&sets[0], err);
    for (int s = 1; s < count && st == TC_OK; s++)
        sets[s] = (float *)((char *)sets[0] + s * stride);
    return st;
}

tc_status tc_gpu_operands_alloc(tc_gpu *g, const float *B, int32_t b_rows, int32_t c_rows,
                                int32_t n, int rotate, tc_gpu_operands *o, tc_error *err)
{
    memset(o, 0, sizeof *o);
    int64_t b_bytes, c_bytes;
    if (b_rows < 0 || c_rows < 0 || n < 1 ||
        tc_mul_overflows((int64_t)b_rows * n, sizeof(float), &b_bytes) ||
        tc_mul_overflows((int64_t)c_rows * n, sizeof(float), &c_bytes))
        return tc_error_set(err, TC_ERR_ARG, "operands of %d x %d and %d x %d", (int)b_rows,
                            (int)n, (int)c_rows, (int)n);
    const int64_t b_stride = round_up(b_bytes, SET_ALIGN), c_stride = round_up(c_bytes, SET_ALIGN);
    o->b_stride = b_stride;
    o->c_stride = c_stride;
    o->b_rows = b_rows;
    o->c_rows = c_rows;
    o->n = n;
    o->count = rotate && b_stride + c_stride > 0 ? operand_sets(g, b_stride + c_stride) : 1;
    o->B = (float **)calloc(o->count, sizeof *o->B);
    o->C = (float **)calloc(o->count, sizeof *o->C);
    tc_status st = o->B && o->C ? TC_OK : tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    if (st == TC_OK)
        st = carve(g, o->count, b_stride, o->B, err);
    if (st == TC_OK)
        st = carve(g, o->count, c_stride, o->C, err);
    if (st == TC_OK)
        st = tc_gpu_upload(g, o->B[0], B, b_bytes, err);
    /* the copies of B double each time: log2(count) copies */
    for (int have = 1; have < o->count && st == TC_OK; have *= 2) {
        const int more = o->count - have < have ? o->count - have : have;
        st = copy_sync(g, o->B[have], o->B[0], more * b_stride, cudaMemcpyDeviceToDevice, err);
    }
    if (st != TC_OK)
        tc_gpu_operands_free(g, o);
    return st;
}

tc_status tc_gpu_operands_poison(tc_gpu *g, const tc_gpu_operands *o, tc_error *err)
{
    return tc_gpu_poison(g, o->C[0], o->count * o->c_stride, err);
}

void tc_gpu_operands_free(tc_gpu *g, tc_gpu_operands *o)
{
    if (o->B)
        tc_gpu_free(g, o->B[0]);
    if (o->C)
        tc_gpu_free(g, o->C[0]);
    free(o->B);
    free(o->C);
    memset(o, 0, sizeof *o);
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */
/* ------------------------------------------------------------------------ */

/* How long the holding kernel waits for the host to queue a batch before it
   gives up (and the batch is reported as not held). Queuing 64 runs takes
   well under a millisecond. */
#define HOLD_TIMEOUT_NS 1000000000ULL

static __device__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Spins until the host writes flags[0], so that the runs queued behind it
   start back to back and the events between them time GPU work only, not
   the host's launch overhead (for small matrices that overhead is as long as
   the kernel itself). */
__global__ void hold_kernel(volatile int *flags, unsigned long long timeout_ns)
{
    const unsigned long long t0 = global_ns();
    while (!flags[0]) {
        if (global_ns() - t0 > timeout_ns) {
            flags[1] = 1;
            return;
        }
    }
}

static double host_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Runs b timed runs behind the holding kernel; ms gets their times and
   host_ms how long the host took to queue each (the events' records left
   out). The hold is released on every path, so an error never leaves the
   GPU spinning. */
static tc_status time_batch(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int b,
                            double *ms, double *host_ms, int *held, tc_error *err)
{
    g->hold[0] = 0;
    g->hold[1] = 0;
    __sync_synchronize();
    hold_kernel<<<1, 1, 0, g->stream>>>((volatile int *)g->hold_dev, HOLD_TIMEOUT_NS);
    tc_status st = TC_LAUNCHED(err, "hold_kernel");
    if (st == TC_OK)
        st = TC_CUDA(err, cudaEventRecord(g->ev[0], g->stream));
    for (int j = 0; j < b && st == TC_OK; j++) {
        const double t0 = host_now_ms();
        st = fn(ctx, (int)(g->runs++ % (uint64_t)sets), err);
        host_ms[j] = host_now_ms() - t0;
        if (st == TC_OK)
            st = TC_CUDA(err, cudaEventRecord(g->ev[j + 1], g->stream));
    }
    __sync_synchronize();
    g->hold[0] = 1;
    tc_status sync = TC_CUDA(err, cudaStreamSynchronize(g->stream));
    if (st == TC_OK)
        st = sync;
    for (int j = 0; j < b && st == TC_OK; j++) {
        float f = 0;
        st = TC_CUDA(err, cudaEventElapsedTime(&f, g->ev[j], g->ev[j + 1]));
        ms[j] = f;
    }
    if (g->hold[1])
        *held = 0;
    return st;
}

tc_status tc_gpu_time_race(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                           int iters, int first, double stop_ms, tc_gpu_timing *t,
                           tc_error *err)
{
    if (sets < 1 || warmup < 0 || iters < 1 || first < 1)
        return tc_error_set(err, TC_ERR_ARG, "tc_gpu_time: sets %d, warmup %d, iters %d, first %d",
                            sets, warmup, iters, first);
    double *ms = (double *)tc_malloc_array(2 * (int64_t)iters, sizeof *ms, err);
    if (!ms)
        return TC_ERR_NOMEM;
    double *host_ms = ms + iters;
    tc_status st = TC_OK;
    t->held = 1;
    for (int w = 0; w < warmup && st == TC_OK; w++)
        st = fn(ctx, (int)(g->runs++ % (uint64_t)sets), err);
    /* the first `first` runs in batches of their own, so that the race can
       stop after them */
    const int lead = stop_ms > 0 && first < iters ? first : iters;
    int done = 0;
    while (done < iters && st == TC_OK) {
        const int upto = done < lead ? lead : iters;
        const int b = upto - done < TC_TIMING_BATCH ? upto - done : TC_TIMING_BATCH;
        st = time_batch(g, fn, ctx, sets, b, ms + done, host_ms + done, &t->held, err);
        done += b;
        if (st == TC_OK && done == lead && lead < iters) {
            tc_dist gpu, host;
            tc_dist_compute(&gpu, ms, done);
            tc_dist_compute(&host, host_ms, done);
            if (tc_loop_ms(gpu.decile[5], host.decile[5]) > stop_ms)
                break;
        }
    }
    if (st == TC_OK) {
        t->runs = done;
        t->last_set = (int)((g->runs - 1) % (uint64_t)sets);
        tc_dist host;
        tc_dist_compute(&host, host_ms, done);
        t->host_ms = host.decile[5];
        tc_dist_compute(&t->ms, ms, done);
    }
    free(ms);
    return st;
}

tc_status tc_gpu_time(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                      int iters, tc_gpu_timing *t, tc_error *err)
{
    return tc_gpu_time_race(g, fn, ctx, sets, warmup, iters, iters, 0, t, err);
}

typedef struct copy_ctx {
    tc_gpu *g;
    void *dst;
    const void *src;
    int64_t bytes;
} copy_ctx;

static tc_status copy_run(void *arg, int set, tc_error *err)
{
    (void)set;
    copy_ctx *c = (copy_ctx *)arg;
    return TC_CUDA(err, cudaMemcpyAsync(c->dst, c->src, (size_t)c->bytes,
                                        cudaMemcpyDeviceToDevice, c->g->stream));
}

/* The copied buffer: far larger than any L2, small enough for any card. */
#define BANDWIDTH_BYTES ((int64_t)1 << 30)

tc_status tc_gpu_copy_bandwidth(tc_gpu *g, double *gbs, tc_error *err)
{
    copy_ctx c = { g, NULL, NULL, BANDWIDTH_BYTES };
    if (c.bytes > g->info.mem_free / 4)
        c.bytes = g->info.mem_free / 4;
    void *src = NULL;
    tc_status st = tc_gpu_alloc(g, c.bytes, &src, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(g, c.bytes, &c.dst, err);
    /* never time uninitialised memory (METHOD.md): fill the source first */
    if (st == TC_OK)
        st = tc_gpu_poison(g, src, c.bytes, err);
    c.src = src;
    tc_gpu_timing t;
    if (st == TC_OK)
        st = tc_gpu_time(g, copy_run, &c, 1, 2, 10, &t, err);
    if (st == TC_OK)
        *gbs = 2.0 * (double)c.bytes / (t.ms.decile[5] * 1e6);
    tc_gpu_free(g, src);
    tc_gpu_free(g, c.dst);
    return st == TC_OK ? TC_OK : tc_error_prefix(err, st, "copy bandwidth");
}
