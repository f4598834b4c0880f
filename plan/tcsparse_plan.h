/*
 * tcsparse_plan.h: plans and the multiply API of libtcsparse (plan/).
 *
 * A plan says, for one matrix, one n, one accuracy and one device, how to
 * multiply it fastest: where (CPU or GPU), in which row order, in which
 * format with which parameters, with which kernel variant; and it keeps
 * the measured time of every candidate it considered, cuSPARSE's among
 * them. Planning follows FFTW's planner: effort levels decide how much is
 * measured, and plans are reused through plan files and a cache directory
 * keyed by a hash of the matrix (never stored in the .tcf.h5, which stays
 * deterministic and device-free). Executing follows cuSPARSE's generic
 * API: the caller's buffers, on the caller's CUDA stream.
 *
 * Callers always see their own row and column order: a plan that reorders
 * applies the permutation to B and undoes it on C itself.
 *
 * The GPU side (CUDA, cuSPARSE, cuBLAS) is a separate library that this
 * one loads with dlopen the first time a plan needs a GPU, so a program
 * that never multiplies on the GPU never loads CUDA (libtcsparse(3),
 * GPU LIBRARY).
 */
#ifndef TCSPARSE_PLAN_H
#define TCSPARSE_PLAN_H

#include "tcsparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TC_DEVICE_AUTO = 0,     /* the planner chooses (a GPU only if one is there) */
    TC_DEVICE_CPU,
    TC_DEVICE_GPU           /* TC_ERR_NODEVICE when there is none */
} tc_device;

/* How much planning measures (FFTW's ESTIMATE / MEASURE / PATIENT). */
typedef enum {
    TC_EFFORT_DEFAULT = -1, /* ESTIMATE for a one-off product (calls <= 1),
                               MEASURE otherwise */
    TC_EFFORT_ESTIMATE = 0, /* the model alone: nothing is timed (the
                               kernel's first variant that takes A runs) */
    TC_EFFORT_MEASURE = 1,  /* times the model's candidates in the matrix's
                               given order, and cuSPARSE */
    TC_EFFORT_PATIENT = 2,  /* also the reorderings the model proposes, and
                               each timed format at the parameter settings it
                               lists for plans (tc_format_plan_params) */
    TC_EFFORT_EXHAUSTIVE = 3 /* every candidate: every kernel and its variants,
                               in the given order and after every registered
                               reordering, nothing pruned (FFTW's
                               EXHAUSTIVE; the oracle bench/auto.sh measures
                               the other levels against) */
} tc_effort;

typedef enum { TC_OP_SPMM = 0, TC_OP_SDDMM, TC_OP_ATTENTION } tc_op;

typedef struct tc_plan_opts {
    tc_op op;
    int32_t n;              /* SpMM: columns of B and C; SDDMM and attention:
                               d, the columns of Q, K, V */
    tc_device device;
    int gpu;                /* which GPU (default 0) */
    tc_effort effort;
    const char *format;     /* NULL or "auto": the planner's choice; else the
                               kernel of this format (tc_format_find names) */
    const char *variant;    /* NULL: the fastest (or the model's); else this
                               variant of the format's kernel */
    const char *order;      /* NULL or "auto": the planner's choice; "given":
                               the matrix's own order; else a reordering
                               method (tc_reorder_find names) */
    const char *accuracy;   /* NULL: any; "fp32", "tf32" or "fp16": only paths
                               whose tolerance (tc_tolerance) is at most that
                               precision's */
    int64_t calls;          /* products the caller expects to run with the
                               plan (1: a one-off product, judged end to end;
                               the MKL inspector-executor's hint) */
    double b_max_abs;       /* the largest |B| the caller will pass; 0:
                               unknown, each execute checks B where the
                               path's precision needs it; NaN or INFINITY:
                               B holds a NaN or Inf (tuning then leaves out
                               the variants that spread them to other rows) */
    double scale;           /* SDDMM and attention: scores times this; 0:
                               the operation's default */
    int threads;            /* CPU threads; 0: tc_default_threads() */
    int warmup, iters;      /* each timed candidate: untimed then timed runs
                               (defaults 10 and 100) */
    const char *plan_file;  /* NULL: none; else reuse this plan file when it
                               matches, and write it after planning */
    const char *cache_dir;  /* NULL: the default cache (libtcsparse(3),
                               PLAN CACHE: $TC_PLAN_CACHE, else
                               $XDG_CACHE_HOME/tcsparse/plans, else
                               ~/.cache/tcsparse/plans); "": no cache */
    const tc_progress *progress;    /* planning as one bar, from 0 to the
                                       whole: its reorderings and timed
                                       candidates, each a step; NULL: none */
} tc_plan_opts;

/* The defaults above. */
void tc_plan_opts_init(tc_plan_opts *o);

typedef struct tc_plan tc_plan;

/* Plans the product for a (in the caller's order). The plan keeps what it
   needs of a (it may be freed after). */
tc_status tc_plan_create(const tc_csr *a, const tc_plan_opts *o, tc_plan **out,
                         tc_error *err);
/* The same from a .tcf.h5 already read: its stored formats are used as
   built, and the caller's order is the file's original order (/matrix is
   multiplied as stored, its /permutation applied and undone). */
tc_status tc_plan_create_tcf(const tc_tcf *f, const tc_plan_opts *o, tc_plan **out,
                             tc_error *err);

/* C = A*B, float32 row-major, B cols x n (ldb >= n), C rows x n (ldc >= n),
   in the caller's order. For a GPU plan B and C are device pointers and the
   work is queued on `stream` (a cudaStream_t; NULL: the default stream)
   without waiting; for a CPU plan they are host arrays and stream must be
   NULL. */
tc_status tc_plan_execute(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                          void *stream, tc_error *err);
/* The same with host arrays for any plan (a GPU plan copies B in and C out,
   and returns when C is complete). */
tc_status tc_plan_execute_host(tc_plan *p, const float *B, int64_t ldb, float *C,
                               int64_t ldc, tc_error *err);
/* SDDMM plans: S[k] = scale * (Q K^T)[i, j] for the k-th nonzero (i, j) of
   A in the caller's CSR order; Q rows x d, K cols x d. Attention plans:
   O = softmax(scale * Q K^T masked by A) V, V cols x d, O rows x d. Device
   pointers and stream as tc_plan_execute, or host arrays with stream NULL
   for a CPU plan. */
tc_status tc_plan_sddmm(tc_plan *p, const float *Q, const float *K, float *S, void *stream,
                        tc_error *err);
tc_status tc_plan_attention(tc_plan *p, const float *Q, const float *K, const float *V,
                            float *O, void *stream, tc_error *err);

/* What the plan chose and what planning cost. */
typedef struct tc_plan_info {
    tc_op op;
    int32_t n;
    tc_device device;
    char device_name[256];          /* "cpu" or the GPU's name */
    tc_effort effort;               /* the level that planned it */
    char order[64];                 /* "given" or the reordering method */
    char format[32];                /* "csr" on the GPU is cuSPARSE */
    char variant[32];
    char precision[8];              /* "fp32", "tf32" or "fp16" ("fp64": an
                                       SDDMM or attention plan on the CPU) */
    double tolerance;               /* its relative Frobenius error bound */
    int b_scaled;                   /* 1: B is scaled by a power of two so that
                                       fp16 holds it (exact, undone on C) */
    double ms;                      /* measured median of the chosen path
                                       (-1: not timed) */
    double cusparse_ms;             /* cuSPARSE in the same run (-1: not timed) */
    double predicted_speedup;       /* the model's, over cuSPARSE */
    /* planning cost, seconds */
    double reorder_s, build_s, upload_s, tune_s, plan_s;
    /* products after which planning has paid back against cuSPARSE
       (INFINITY: never; 0: nothing to pay back) */
    double payback_calls;
    int reused;                     /* 1: taken from a stored plan, nothing tuned */
    char stale[256];                /* why a stored plan was not reused ("" none) */
    char plan_file[4096];           /* where it was stored or found ("" none) */
    double scale;                   /* SDDMM and attention: what scores are
                                       multiplied by (tc_plan_opts.scale, else
                                       1 / sqrt(d) for attention, 1 for the
                                       SDDMM); SpMM: 0 */
    double safeguard_ms;            /* of ms, what each product spends besides
                                       the kernel and the order's moves when
                                       b_max_abs leaves B's range open: max|B|
                                       measured, B and C scaled for fp16, the
                                       NaN/Inf guard (0: none; -1: not timed) */
    char format_params[256];        /* the format's settings the plan runs
                                       ("seg=64,order=1": chosen by a patient
                                       plan, or read from a plan file), ""
                                       for its defaults */
    double host_ms;                 /* GPU: the host's median time to queue a
                                       product (its launches), which ms leaves
                                       out; a loop of products goes at the
                                       larger of the two, and that is what
                                       the planner compares (-1: not timed) */
} tc_plan_info;
void tc_plan_get_info(const tc_plan *p, tc_plan_info *out);

/* Every candidate the planner considered, best first (the larger of ms and
   host_ms least). */
typedef struct tc_plan_candidate {
    tc_device device;
    const char *order, *format, *variant, *precision;
    double predicted_speedup;       /* the model's, over cuSPARSE (0: none) */
    double ms;                      /* measured median (-1: not timed) */
    const char *note;               /* why it was left out or not timed, or "" */
    const char *format_params;      /* the format's parameters where the plan
                                       chose them ("seg=64,order=1"), "" for
                                       its defaults */
    double host_ms;                 /* GPU: the host's time to queue one
                                       (tc_plan_info.host_ms; 0: not timed) */
} tc_plan_candidate;
int tc_plan_candidate_count(const tc_plan *p);
const tc_plan_candidate *tc_plan_candidate_at(const tc_plan *p, int i);

/* The plan's choices, costs and candidates as report sections "plan" and
   "candidates" (tcmul prints them). SDDMM and attention plans: sections
   "run" (device, path, kernel, precision, device_why; on a GPU the fused
   kernel's warps and width), "bench" after tc_plan_bench_attention, and
   "memory" (device bytes of each path) on a GPU. */
tc_status tc_plan_report(const tc_plan *p, tc_report *r, tc_error *err);

/* Writes the plan (its key and choices, not the matrix) to path
   atomically. */
tc_status tc_plan_save(const tc_plan *p, const char *path, tc_error *err);

void tc_plan_free(tc_plan *p);

/* tcmul's run protocol, for callers who time and check as tcmul does. */
#define TC_BENCH_DENSE 1u   /* also time cuBLAS GEMM on A stored densely */
/* Times the plan's path on B (host, the caller's order, ldb): for a GPU
   plan, warmup untimed then iters timed runs of its kernel over operand
   sets rotated through L2 (C poisoned first), each part of a kernel made
   of parts alone, cuSPARSE on the caller's order and (TC_BENCH_DENSE)
   cuBLAS on the same operands; for a CPU plan, the product with the CPU's
   clock. bandwidth_gbs > 0 is the memory-traffic floor's bandwidth, else it
   is measured. C (host, ldc) gets the product as tc_plan_execute_host
   gives it. Appends sections "bench", "baseline", "dense" and "parts" to r
   (tcmul(1), REPORT). */
tc_status tc_plan_bench(tc_plan *p, const float *B, int64_t ldb, int warmup, int iters,
                        unsigned flags, double bandwidth_gbs, float *C, int64_t ldc,
                        tc_report *r, tc_error *err);
/* C (host, the caller's order) against the float64 product of A and B
   (the same float32 B): *out the errors (max_at in the caller's order),
   *pass 1 when no element is wrongly non-finite and the relative Frobenius
   error is within the plan's precision's tolerance. */
tc_status tc_plan_verify(const tc_plan *p, const float *B, int64_t ldb, const float *C,
                         int64_t ldc, tc_compare *out, int *pass, tc_error *err);

/* The model alone, with no GPU and nothing timed (what TC_EFFORT_ESTIMATE
   plans from and the timed levels prune with): every (order, format)
   candidate for a and n, best first, with predicted speedup over cuSPARSE
   and its reasons, as report sections "advice" (tcstat --advise). */
tc_status tc_plan_advise(const tc_csr *a, int32_t n, const char *accuracy, tc_report *r,
                         const tc_progress *progress, tc_error *err);

/* tcmul --op sddmm and --op attention's run protocol, for SDDMM and
   attention plans (each refuses an SpMM plan with TC_ERR_ARG, as the SpMM
   calls above refuse these). Q (rows x d), K and V (cols x d) and the
   output are float32 host arrays in the caller's order, packed (ld = d);
   the output is O (rows x d) or S (nnz, one score for each nonzero of
   tc_plan_attention_mask, in its CSR order). V is not read for an SDDMM
   plan (it may be NULL). */

/* Either operation with host arrays, for a CPU or GPU plan (a GPU plan
   copies them in and out, and returns when out is complete). */
tc_status tc_plan_execute_attention_host(tc_plan *p, const float *Q, const float *K,
                                         const float *V, float *out, tc_error *err);
/* The mask in the caller's order (a .tcf.h5's original order for
   tc_plan_create_tcf): S's k-th score belongs to its k-th nonzero. Owned
   by the plan. */
tc_status tc_plan_attention_mask(const tc_plan *p, const tc_csr **mask, tc_error *err);
/* Whether Q, K and V fit the fused kernel's fp16 (finite, |x| <= 65504),
   whatever path the plan runs (tc_plan_bench_attention times the fused
   one too): TC_ERR_INVALID naming the first element that does not, with
   *which 0, 1 or 2 for Q, K or V; else TC_OK and *which -1. Executing a
   fused plan checks the same (on the device for device pointers, unless
   tc_plan_opts.b_max_abs vouches for them). */
tc_status tc_plan_check_attention(const tc_plan *p, const float *Q, const float *K,
                                  const float *V, int *which, tc_error *err);
/* out (as executing gave it) against the float64 reference on the same
   operands, rounded to fp16 as the fused kernel takes them: *c the
   comparison, *row and *col the caller's place of the largest error (O's
   row and column, or S's nonzero), -1 when none; *pass 1 when no element
   is wrongly non-finite and the relative Frobenius error is within the
   info's tolerance. */
tc_status tc_plan_verify_attention(const tc_plan *p, const float *Q, const float *K,
                                   const float *V, const float *out, tc_compare *c,
                                   int64_t *row, int64_t *col, int *pass, tc_error *err);
/* GPU plans: times the fused and the unfused path on these operands (the
   kernels alone, in the stored order, not the permutation), the options'
   warmup and iters each, over operand sets rotated through L2. The medians
   go to tc_plan_get_info (ms: the plan's path, cusparse_ms: the unfused
   one, payback_calls) and tc_plan_report's section "bench". A CPU plan has
   nothing to time: TC_ERR_ARG. */
tc_status tc_plan_bench_attention(tc_plan *p, const float *Q, const float *K, const float *V,
                                  tc_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TCSPARSE_PLAN_H */
