/*
 * kernels.h: the GPU side of libtcsparse, callable from C.
 *
 * Devices and their properties, device memory, a CSR matrix on the device,
 * the dense operands of C = A*B, timing with CUDA events, and the kernels:
 * one tc_kernel per tensor-core format, with cuSPARSE on CSR as the
 * baseline every kernel is timed against (DESIGN.md, GPU).
 *
 * Adding a format is one file formats/NAME.c (its tc_format), one file
 * kernels/NAME.cu (`const tc_kernel tc_kernel_NAME`, added to
 * CUDA_SOURCES in Makefile.am) and one entry in formats/format_registry.h
 * that names both; a format without a kernel has a CPU-only entry. The
 * lookups below iterate that registry.
 *
 * The GPU side is its own library, libtcsparse-gpu (the kernels/.cu files,
 * registry.c, gpu_api.c; linked against CUDA, cuSPARSE and cuBLAS), built
 * when configure finds CUDA. libtcsparse does not link CUDA: there, every
 * function below is a trampoline (plan/gpucalls.c, plan/kernelcalls.c)
 * that loads the GPU library with dlopen on first use (plan/gpuload.c;
 * libtcsparse(3), GPU LIBRARY) and calls it through its table
 * (kernels/gpu_api.h). When it cannot be loaded (built without CUDA, the
 * library not found or of another version), calls that need the GPU fail
 * with TC_ERR_NODEVICE saying why, the lookups find no kernel, and the
 * functions that free or close do nothing. Every CUDA and cuSPARSE error
 * becomes TC_ERR_CUDA with the call and the error string in the message.
 *
 * Dense matrices on the device are float32, row-major, leading dimension
 * equal to their column count n.
 */
#ifndef TC_KERNELS_H
#define TC_KERNELS_H

#include "tcsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct tc_gpu_info {
    int index;
    char name[256];
    int cc_major, cc_minor;     /* compute capability */
    int sm_count;
    int64_t mem_total;          /* bytes */
    int64_t mem_free;           /* bytes, when read */
    int64_t l2_bytes;
} tc_gpu_info;

/* The CUDA devices present, in *out (malloc'ed, *n entries). When there is
   none, TC_ERR_NODEVICE with "no CUDA device: <why>". */
tc_status tc_gpu_list(tc_gpu_info **out, int *n, tc_error *err);

/* An open device: its properties, a stream, a cuSPARSE handle, timing
   events. Everything below runs on its stream. */
typedef struct tc_gpu tc_gpu;
tc_status tc_gpu_open(int device, tc_gpu **out, tc_error *err);
void tc_gpu_close(tc_gpu *g);
const tc_gpu_info *tc_gpu_get_info(const tc_gpu *g);
/* The cudaStream_t g queues its work on (its own unless tc_gpu_set_stream
   changed it); tc_gpu_close destroys only its own. */
void *tc_gpu_stream(const tc_gpu *g);

/* ------------------------------------------------------------------------ */
/* Memory (each call returns when the transfer is complete)                  */
/* ------------------------------------------------------------------------ */

tc_status tc_gpu_alloc(tc_gpu *g, int64_t bytes, void **out, tc_error *err);
void tc_gpu_free(tc_gpu *g, void *p);
tc_status tc_gpu_upload(tc_gpu *g, void *dst, const void *src, int64_t bytes, tc_error *err);
tc_status tc_gpu_download(tc_gpu *g, void *dst, const void *src, int64_t bytes,
                          tc_error *err);
/* Sets every byte to 0xff: each float becomes a NaN, so an output element
   that a kernel leaves unwritten cannot pass a check. */
tc_status tc_gpu_poison(tc_gpu *g, void *p, int64_t bytes, tc_error *err);

/* A CSR matrix on the device: float32 values (1 for a pattern matrix) and
   one index type for both index arrays (cuSPARSE wants them alike): int32
   when nnz < 2^31, else int64. */
typedef struct tc_gpu_csr {
    int32_t rows, cols;
    int64_t nnz;
    int index64;                /* 1: rowptr and colidx are int64 */
    void *rowptr, *colidx;
    float *val;
    int64_t bytes;              /* device bytes of the three arrays */
} tc_gpu_csr;
tc_status tc_gpu_csr_upload(tc_gpu *g, const tc_csr *a, tc_gpu_csr *out, tc_error *err);
void tc_gpu_csr_free(tc_gpu *g, tc_gpu_csr *d);

/* The dense operands of C = A*B: `count` sets, each a copy of B (b_rows x n)
   and its own C (c_rows x n). Timed runs rotate through the sets so that
   operands that would fit in L2 are not timed from L2 (METHOD.md). The sets
   of B lie in one block, b_stride bytes apart (256-byte aligned), and so do
   those of C. */
typedef struct tc_gpu_operands {
    int count;
    int32_t b_rows, c_rows, n;
    int64_t b_stride, c_stride;
    float **B, **C;
} tc_gpu_operands;
/* Uploads B (host, b_rows x n, row-major) into every set. rotate 0: one
   set; rotate 1: as many sets as make the operands of all sets together
   exceed four times the device's L2 (at most 65536, and within half the
   free memory). */
tc_status tc_gpu_operands_alloc(tc_gpu *g, const float *B, int32_t b_rows, int32_t c_rows,
                                int32_t n, int rotate, tc_gpu_operands *o, tc_error *err);
/* Poisons the C of every set (tc_gpu_poison). */
tc_status tc_gpu_operands_poison(tc_gpu *g, const tc_gpu_operands *o, tc_error *err);
void tc_gpu_operands_free(tc_gpu *g, tc_gpu_operands *o);

/* ------------------------------------------------------------------------ */
/* Timing                                                                    */
/* ------------------------------------------------------------------------ */

/* Launches one run on operand set `set` without waiting for it. */
typedef tc_status (*tc_gpu_run_fn)(void *ctx, int set, tc_error *err);

typedef struct tc_gpu_timing {
    tc_dist ms;                 /* per-run times (ms); median: ms.decile[5] */
    double host_ms;             /* median time the host took to queue a run
                                   (fn's calls: the launches), which the GPU
                                   times leave out: a loop of runs goes at
                                   the slower of the two (tc_loop_ms) */
    int last_set;               /* the operand set the last run wrote */
    int held;                   /* 1: every timed run was queued behind a kernel
                                   that held the GPU until the host had launched
                                   the whole batch, so host launch gaps are not
                                   in the times; 0: some were not */
    int runs;                   /* the timed runs the figures are of: iters,
                                   or fewer where tc_gpu_time_race stopped */
} tc_gpu_timing;

/* What a run costs a caller that queues one after another: the GPU's time
   or the host's, whichever is longer (the two overlap). On the device we
   measure on, a product of one launch costs the host 3.3-5 us (bench/
   NOTES.md, "The host's side of a product"), as long as a small product's
   kernel. */
static inline double tc_loop_ms(double gpu_ms, double host_ms)
{
    return gpu_ms > host_ms ? gpu_ms : host_ms;
}

/* Runs fn warmup times, then iters times with a CUDA event recorded between
   consecutive runs. The runs take the sets in turn, continuing from where
   the previous tc_gpu_time on g stopped (whatever it timed, with however
   many sets): the k-th run launched on g uses set k % sets, so that a
   timing never starts on the sets the previous one has just left in L2. */
tc_status tc_gpu_time(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                      int iters, tc_gpu_timing *t, tc_error *err);
/* tc_gpu_time, stopped after the first `first` timed runs where their
   median in a loop of runs (tc_loop_ms of the GPU's and the host's) is
   over stop_ms (0: never stopped): a race, so that what cannot win is not
   timed to the end. t->runs says how many runs were timed. */
tc_status tc_gpu_time_race(tc_gpu *g, tc_gpu_run_fn fn, void *ctx, int sets, int warmup,
                           int iters, int first, double stop_ms, tc_gpu_timing *t,
                           tc_error *err);
/* Device-to-device copy bandwidth of a large buffer (GB/s, bytes read plus
   bytes written): the figure the memory-traffic floor divides by. */
tc_status tc_gpu_copy_bandwidth(tc_gpu *g, double *gbs, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Kernels (one per format of formats/format_registry.h that has one)        */
/* ------------------------------------------------------------------------ */

#define TC_KERNEL_MAX_VARIANTS 8
#define TC_KERNEL_MAX_PARTS 4

typedef struct tc_kernel tc_kernel;

/* A kernel prepared for one matrix and one n; kernels embed it first and
   cast (struct my_plan { tc_kplan base; ... }). */
typedef struct tc_kplan {
    const tc_kernel *kind;
    tc_gpu *gpu;
    int32_t rows, cols, n;
    int64_t nnz;
    int64_t a_bytes;            /* device bytes of A that each run reads once */
    int variant;                /* the variant runs use */
    /* median ms of each variant from tc_kernel_tune, or one of the
       TC_VARIANT_* marks below; and the host's ms to queue a run of it
       (tc_gpu_timing.host_ms; 0 where not timed) */
    double variant_ms[TC_KERNEL_MAX_VARIANTS];
    double variant_host_ms[TC_KERNEL_MAX_VARIANTS];
    /* the timed runs behind each median: the runs asked for, fewer where
       the variant lost tc_kernel_tune's race; 0 where not timed */
    int variant_runs[TC_KERNEL_MAX_VARIANTS];
    /* A kernel that multiplies the matrix in separate parts, one after the
       other (brp: its TC Block part, then its Residual Row part), names them
       here with the nonzeros each multiplies, so that the share of each in
       the nonzeros and in the time can be reported (tc_kernel_time_part);
       nparts 0 for the others. Set by prepare. */
    int nparts;
    const char *part_names[TC_KERNEL_MAX_PARTS];
    int64_t part_nnz[TC_KERNEL_MAX_PARTS];
    /* max|B| on the device (tc_gpu_max_abs) for a variant that scales B
       itself (variant_scales_b): it converts or rounds B times 2^s (lib/
       fp16_scale.h) and writes C times 2^-s. Set by the plan before a run
       of such a variant only (plan/execute.c), so a kernel takes it as it
       is; NULL: B as it is. */
    const float *b_max;
} tc_kplan;
#define TC_VARIANT_UNTIMED (-1.0)       /* not timed (yet) */
#define TC_VARIANT_UNSUPPORTED (-2.0)   /* cannot multiply this matrix */
#define TC_VARIANT_SKIPPED (-3.0)       /* B is not all finite and the variant
                                           spreads NaN/Inf (see below) */
#define TC_VARIANT_INEXACT (-4.0)       /* less exact than the accuracy the
                                           caller asked for (variant_precision) */

struct tc_kernel {
    const char *format;         /* the tensor-core format it multiplies (the
                                   formats registry's name); --format picks it */
    const char *description;
    const char *precision;      /* "fp32", "tf32", "fp16": tc_tolerance(); with
                                   variant_precision, its most exact variant's */
    int nvariants;              /* 1..TC_KERNEL_MAX_VARIANTS */
    /* in order of preference: a plan that times nothing (effort estimate)
       runs the first that takes the matrix, so the variant that wins most
       often in the recorded tables comes first, cuSPARSE's default
       algorithm for csr */
    const char *const *variant_names;
    /* 1 for a variant known to let a NaN or Inf of B reach C rows whose A
       row does not use that B row (padding multiplied by a real B row: the
       pitfall DESIGN.md warns of); NULL when no variant does */
    const unsigned char *variant_spreads_nonfinite;
    /* Puts A on the device from its format m (a is the canonical CSR of the
       same matrix; m is NULL for the canonical format, whose kernel runs
       straight from a) and readies runs on the operands o (which fix n). Sets gpu and a_bytes of the tc_kplan
       header; tc_kernel_prepare fills the rest. */
    tc_status (*prepare)(tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                         const tc_gpu_operands *o, tc_kplan **out, tc_error *err);
    /* Makes variant v the one runs use; TC_ERR_UNSUPPORTED when v cannot
       multiply this matrix with these operands. */
    tc_status (*select)(tc_kplan *p, int v, tc_error *err);
    /* C = A*B on the GPU's stream, without waiting. Writes every element of
       C (C's previous contents, poison included, must not matter). */
    tc_status (*run)(tc_kplan *p, const float *B, float *C, tc_error *err);
    void (*free)(tc_kplan *p);
    /* Part `part` (< p->nparts) of run alone, on the GPU's stream, without
       waiting; the parts run in order compute what run does (run may do
       them in fewer launches). For timing only: C then holds one part's
       contribution, not the product. NULL when no plan has parts. */
    tc_status (*run_part)(tc_kplan *p, int part, const float *B, float *C, tc_error *err);
    /* Each variant's precision where they differ (none more exact than
       `precision`), NULL when every variant has `precision`: the planner
       reports and checks the variant it runs (tc_kernel_variant_precision),
       and tuning leaves out those less exact than the accuracy asked for. */
    const char *const *variant_precision;
    /* 1 for an fp16 variant that brings B into fp16's range itself, as it
       converts B, when the plan gives it max|B| (tc_kplan.b_max), so that
       a plan for a B of unknown range scales no copy of B and C around it
       (plan/execute.c); NULL when none does. */
    const unsigned char *variant_scales_b;
    /* The work items (the format's segments) that one wave of the kernel's
       first variant runs side by side at n on the device info describes:
       the thread blocks its SMs keep resident times the items a block
       takes. A patient plan asks the format for a cut of at most one and
       two waves of them (its parameter segs, plan/gpu.c), since a cut just
       past a whole wave leaves its last items a wave of their own. NULL
       where the format has no such parameter. */
    int64_t (*wave_items)(const tc_gpu_info *info, int32_t n);
};

/* Variant v's precision. */
static inline const char *tc_kernel_variant_precision(const tc_kernel *k, int v)
{
    return k->variant_precision && v >= 0 && v < k->nvariants ? k->variant_precision[v]
                                                               : k->precision;
}

/* 1 when variant v of k scales B into fp16's range itself. */
static inline int tc_kernel_scales_b(const tc_kernel *k, int v)
{
    return k->variant_scales_b && v >= 0 && v < k->nvariants && k->variant_scales_b[v];
}

/* The kernels, in format registry order (0 and NULL without the GPU
   library). */
int tc_kernel_count(void);
const tc_kernel *tc_kernel_at(int i);
/* Format f's kernel (its registry entry's GPU side), or NULL. */
const tc_kernel *tc_kernel_for(const tc_format *f);
/* The kernel for a format name, or NULL. */
const tc_kernel *tc_kernel_find(const char *format);
/* cuSPARSE SpMM on CSR, the fastest of its algorithms. */
const tc_kernel *tc_kernel_baseline(void);
/* cuBLAS GEMM on A stored densely, fp16 in and fp32 accumulation: the
   reference a sparse kernel must beat for sparsity to pay (SMaT, Section
   VI-C); its prepare refuses (TC_ERR_UNSUPPORTED) a dense A that would take
   more than half the free device memory. Not a format's kernel. */
const tc_kernel *tc_kernel_dense(void);
/* The variant's index, or -1. */
int tc_kernel_variant_find(const tc_kernel *k, const char *name);

/* k->prepare, then the first variant that can run selected. */
tc_status tc_kernel_prepare(const tc_kernel *k, tc_gpu *g, const tc_fmt *m, const tc_csr *a,
                            const tc_gpu_operands *o, tc_kplan **out, tc_error *err);
tc_status tc_kernel_select(tc_kplan *p, int v, tc_error *err);
/* The race in tuning (tc_kernel_tune): a variant whose first
   TC_TUNE_FIRST timed runs are slower in a loop than TC_TUNE_MARGIN times
   the caller's time to beat is timed over those runs only. Its median
   then says by how much it loses, which is all a plan needs of it; the
   variants and paths that win are timed over every run asked for. The
   margin is far above how much a median moves between repeated timings
   (1-3% on the device), and the plans of the shared matrices came out as
   fast with the race as without, in half the time (H200, bench/NOTES.md,
   "Tuning as a race"). The variants of one kernel do not race each other:
   a variant's safeguards (plan/safeguard_time.c) can make one that loses
   on the kernel's time alone the candidate's. */
#define TC_TUNE_FIRST 20
#define TC_TUNE_MARGIN 1.25
/* Times every variant (tc_gpu_time over o) and selects the fastest in a
   loop of runs (tc_loop_ms); fills p->variant_ms, variant_host_ms and
   variant_runs. bar_ms: a loop time the caller already has from another
   path (0: none), which each variant races (TC_TUNE_MARGIN). With finite_b
   0 (B holds a NaN or Inf), variants that spread them are skipped; with
   an accuracy ("fp32", "tf32", "fp16"; NULL for any), variants less exact
   than it (TC_VARIANT_INEXACT). Fails when no variant can run. */
tc_status tc_kernel_tune(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         int finite_b, const char *accuracy, double bar_ms, tc_error *err);
/* One run on set `set` of o, without waiting. */
tc_status tc_kernel_run(tc_kplan *p, const tc_gpu_operands *o, int set, tc_error *err);
/* tc_gpu_time of the selected variant over the sets of o. */
tc_status tc_kernel_time(tc_kplan *p, const tc_gpu_operands *o, int warmup, int iters,
                         tc_gpu_timing *t, tc_error *err);
/* tc_gpu_time of part `part` of the selected variant alone (see run_part). */
tc_status tc_kernel_time_part(tc_kplan *p, const tc_gpu_operands *o, int part, int warmup,
                              int iters, tc_gpu_timing *t, tc_error *err);
void tc_kernel_free(tc_kplan *p);

/* ------------------------------------------------------------------------ */
/* Plans' operands (kernels/permute.cu): what a plan does around a kernel    */
/* ------------------------------------------------------------------------ */

/* On g's stream, without waiting: dst row i = src row idx[i] (idx NULL: row
   i), n floats each, times 2^s with s = tc_fp16_b_exponent(*maxabs)
   (lib/fp16_scale.h; maxabs NULL: s = 0). idx and maxabs are device
   pointers; lds and ldd the leading dimensions. */
tc_status tc_gpu_gather_rows(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                             int64_t rows, int32_t n, const float *maxabs, float *dst,
                             int64_t ldd, tc_error *err);
/* The inverse: dst row idx[i] = src row i times 2^-s. */
tc_status tc_gpu_scatter_rows(tc_gpu *g, const float *src, int64_t lds, const int32_t *idx,
                              int64_t rows, int32_t n, const float *maxabs, float *dst,
                              int64_t ldd, tc_error *err);
/* *out (device) = the largest |x| over rows x n (leading dimension ld), NaN
   when x holds one; queued on g's stream. With `other`, *out must be 0
   already and *other is zeroed in the same launch, so that a caller who
   measures into two slots in turn needs no memset before each (NULL: *out
   is zeroed first by one). */
tc_status tc_gpu_max_abs(tc_gpu *g, const float *x, int64_t rows, int32_t n, int64_t ld,
                         float *out, float *other, tc_error *err);
/* A plan's NaN/Inf guard (kernels/nonfinite.cu): A's CSR on the device,
   for a kernel whose variant spreads a NaN or Inf of B to other rows. */
typedef struct tc_gpu_guard tc_gpu_guard;
tc_status tc_gpu_guard_new(tc_gpu *g, const tc_csr *a, tc_gpu_guard **out, tc_error *err);
/* Queued on g's stream after a kernel wrote C = A*B (B a->cols x n and C
   a->rows x n, both packed, B 16-byte aligned): when max|B| is NaN or
   infinite, C is written again from A's CSR. maxabs: max|B| on the device
   when tc_gpu_max_abs measured it already, else NULL (measured here). One
   launch; nothing waits. */
tc_status tc_gpu_guard_run(tc_gpu *g, tc_gpu_guard *q, const float *B, int32_t n,
                           const float *maxabs, float *C, tc_error *err);
void tc_gpu_guard_free(tc_gpu *g, tc_gpu_guard *q);
/* Makes everything that runs on g (kernel launches, cuSPARSE, events) run
   on `stream` (a cudaStream_t; NULL: CUDA's default stream) until set
   again; *previous (if not NULL) gets the stream it replaced, to restore. */
tc_status tc_gpu_set_stream(tc_gpu *g, void *stream, void **previous, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Sparse attention (kernels/attention.cu, Fused3S)                          */
/* ------------------------------------------------------------------------ */

/* O = softmax(scale * Q K^T masked by A) V and the SDDMM alone (S =
   scale * Q K^T at A's nonzeros), on the GPU, by two paths:
     TC_ATTN_FUSED    one kernel from the bsb format (fp16 operands, fp32
                      scores, softmax and accumulation); the scores never
                      leave the chip;
     TC_ATTN_UNFUSED  the baseline: cusparseSDDMM into an array of nnz
                      scores, a row-softmax kernel, cusparseSpMM (fp32).
   Q (rows x d), K and V (cols x d each), O (rows x d) are float32
   row-major device arrays. The SDDMM writes one score per nonzero to S: in
   bsb order for the fused path (tc_bsb_value_index maps it), in A's CSR
   order for the unfused one. Each call queues its work on the GPU's stream
   and writes every element of its output. */
typedef struct tc_attn tc_attn;
typedef enum { TC_ATTN_FUSED, TC_ATTN_UNFUSED } tc_attn_path;

/* mask: A in the bsb format (its values are not used); a: the same matrix
   in CSR, which the plan keeps using (the unfused path uploads it on first
   use); 1 <= d <= 256. Each path's first run chooses among its variants
   (the fused kernels' warps, cuSPARSE's SpMM algorithm) by timing each over
   warmup untimed and iters timed runs (warmup >= 0, iters >= 1), as
   tc_kernel_tune does. */
tc_status tc_attn_prepare(tc_gpu *g, const tc_fmt *mask, const tc_csr *a, int32_t d,
                          double scale, int warmup, int iters, tc_attn **out, tc_error *err);
tc_status tc_attn_run(tc_attn *p, tc_attn_path path, const float *Q, const float *K,
                      const float *V, float *O, tc_error *err);
tc_status tc_attn_sddmm(tc_attn *p, tc_attn_path path, const float *Q, const float *K, float *S,
                        tc_error *err);
/* Device bytes the path holds besides the operands QKV, O (and S): the
   fused path's bsb arrays, schedule and fp16 copy of K and V; the unfused
   path's CSR, its nnz scores and cuSPARSE's workspaces (0 until it ran). */
int64_t tc_attn_device_bytes(const tc_attn *p, tc_attn_path path);
/* The fused kernels' warps per thread block (measured on their first
   run: 1, 2, 4 or 8) and width D (d rounded up to 16, 32, 64, 128 or 256). */
int tc_attn_warps(const tc_attn *p);
/* Fixes the fused kernels' warps per thread block (1, 2, 4 or 8) instead of
   measuring them: TC_ERR_ARG for another count, TC_ERR_UNSUPPORTED when
   their shared memory at this d would pass 200 KB. */
tc_status tc_attn_set_warps(tc_attn *p, int warps, tc_error *err);
int tc_attn_width(const tc_attn *p);
void tc_attn_free(tc_attn *p);

/* The attention plan's moves and range check (kernels/permute.cu), on g's
   stream. dst row i = src row idx[i] (rows x d packed floats; d = 1
   gathers single values, so idx may index more than 2^31 nonzeros),
   without waiting. */
tc_status tc_gpu_gather_rows64(tc_gpu *g, float *dst, const float *src, const int64_t *idx,
                               int64_t rows, int32_t d, tc_error *err);
/* *first: the least i with x[i] not finite or |x[i]| > limit, else -1;
   returns when known. */
tc_status tc_gpu_find_beyond(tc_gpu *g, const float *x, int64_t n, float limit, int64_t *first,
                             tc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TC_KERNELS_H */
