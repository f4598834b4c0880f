/*
 * plan_internal.h: what the planner's files share (the .c files of plan/) and nothing
 * else sees: the tc_plan object, its candidates, and the steps planning is
 * made of (device choice, the CPU and GPU planners, plan files, fp16
 * safety, the executors).
 */
#ifndef TC_PLAN_INTERNAL_H
#define TC_PLAN_INTERNAL_H

#include "tcsparse_plan.h"
#include "attention.h"
#include "kernels.h"

/* The most candidates a plan lists and reports: an exhaustive plan lists
   every format in every order (the given one and each reordering), each
   format once more for each of its plan settings (tc_format_plan_params)
   and its waves' cuts (tc_format_wave_params); t_plan checks that the
   registries fit. */
#define TC_PLAN_MAX_CANDS 224

/* Stored strings of a candidate (tc_plan_candidate points into them). */
typedef struct plan_cand {
    tc_plan_candidate pub;
    double predicted_ms;        /* -1: none */
    char order[64], format[32], format_params[96], variant[32], precision[8], note[160];
} plan_cand;

/* The path a plan runs: an order, a format's kernel and variant. */
typedef struct plan_path {
    char order[64];             /* "given" or a reordering method */
    tc_params order_params;     /* the reordering's parameters as run */
    const tc_format *format;
    tc_params format_params;    /* given to the format's build (n 0: its
                                   defaults, or the .tcf.h5's stored format
                                   in the given order) */
    const tc_kernel *kernel;    /* GPU plans; NULL on the CPU */
    int variant;                /* kernel variant index (GPU) */
} plan_path;

typedef struct tc_stored_plan tc_stored_plan;

/* A reordering run while planning, at its method's defaults: its
   permutation of the given matrix and the parameters it used (plan/
   order.c keeps it until the plan is made). */
typedef struct plan_reordering {
    const tc_reorder_method *method;
    tc_perm *q;
    tc_params used;
} plan_reordering;
#define TC_PLAN_MAX_KEPT 32

struct tc_plan {
    tc_plan_opts o;
    char format_opt[32], variant_opt[32], order_opt[64], accuracy_opt[8];
    tc_plan_info info;
    tc_attn_plan *attn;         /* op != TC_OP_SPMM: everything is there */

    /* The matrix the kernel multiplies: the caller's permuted by row and col
       (a[i][j] = caller's A[row->new2old[i]][col->new2old[j]]); NULL perms:
       none. All owned. */
    tc_csr *a;
    tc_perm *row, *col;
    tc_spmm_cpu_op *cpu_op;     /* CPU plans: a's float32 operand, made on the
                                   first product; freed when a changes */
    tc_perm *given_row, *given_col; /* the tcf's /permutation (NULL: none) */
    const tc_csr *given;        /* the caller's matrix (or the tcf's /matrix),
                                   valid during create only */
    const tc_tcf *tcf;          /* tc_plan_create_tcf's file (its stored
                                   formats), valid during create only */
    plan_path path;
    plan_reordering kept[TC_PLAN_MAX_KEPT];
    int nkept;
    int reorder_runs;           /* reorderings this plan ran (the tests') */
    /* progress (plan/progress.c): the current step's share of the whole,
       what was reported last (millionths) and the step's own reporter */
    double step_lo, step_hi;
    int64_t progress_at;
    tc_progress step_progress;
    char wave_params[8][48];    /* "segs=N" and "segs=N,SETTING", each once:
                                   the settings of kernels' waves (plan/gpu.c,
                                   wave_setting), which candidates point to */
    char why[1024];             /* what was chosen and why, for people */
    char device_why[256];       /* why that device, when the planner chose */
    /* the chosen kernel's variants as planning tuned them (TC_VARIANT_*
       marks; all TC_VARIANT_UNTIMED when nothing was tuned), the host's
       time to queue each and the timed runs behind each (tc_kplan's) */
    double variant_ms[TC_KERNEL_MAX_VARIANTS];
    double variant_host_ms[TC_KERNEL_MAX_VARIANTS];
    int variant_runs[TC_KERNEL_MAX_VARIANTS];

    /* GPU plans */
    tc_gpu *gpu;
    tc_fmt *fmt;                /* the chosen format built (NULL: stored or csr) */
    tc_kplan *kp;
    int32_t *d_row, *d_col;     /* device copies of row/col new2old */
    tc_gpu_operands ops;        /* one set: the packed (ld = n), permuted or
                                   scaled B and C the kernel runs on */
    int have_ops;
    float *d_max;               /* max|B| on the device (fp16 scaling): two
                                   slots, measured into in turn
                                   (tc_plan_measure_b), or the given bound in
                                   the first */
    int max_next;               /* the slot the next execute measures into */
    int b_scale;                /* 0: B as given; 1: scaled by 2^e with e from
                                   max|B| (measured each execute or given) */
    int b_measure;              /* 1: max|B| is measured before each execute */
    /* the chosen variant spreads a NaN or Inf of B to other rows and B is
       not known to be finite: each execute runs the guard after the kernel
       (on the device: C redone from A's CSR when B is not finite); NULL
       otherwise */
    tc_gpu_guard *guard;

    int ncand;
    plan_cand cand[TC_PLAN_MAX_CANDS];
    tc_stored_plan *key;        /* the plan file key (matrix hash, n, ...) */
};

/* ---- device choice (plan/device.c) ---- */

/* The CPU's time for one product of a with n columns on `threads` threads,
   from the measured throughput constant (ms). */
double tc_plan_cpu_estimate_ms(const tc_csr *a, int32_t n, int threads);
/* Chooses where to run for TC_DEVICE_AUTO and opens the GPU when it is
   chosen (or when the device is TC_DEVICE_GPU); fills info.device,
   device_name and p->gpu, and says why in *why. */
tc_status tc_plan_choose_device(tc_plan *p, char *why, size_t whylen, tc_error *err);

/* ---- planners (plan/cpu.c, plan/gpu.c) ---- */

/* Adds a candidate; returns it (NULL when the list is full). format_params:
   NULL or "" for the format's defaults. */
plan_cand *tc_plan_add_cand(tc_plan *p, tc_device dev, const char *order, const char *format,
                            const char *format_params, const char *variant,
                            const char *precision, double predicted, double ms,
                            const char *note);
/* Sorts the candidates best first (measured, then predicted). */
void tc_plan_sort_cands(tc_plan *p);
/* Makes p->a (and p->row) the caller's matrix in `order` ("given" keeps
   the tcf's or caller's order); fills p->path.order and order_params and
   adds the seconds to info.reorder_s. A reordering at its defaults (params
   NULL) runs once while planning: its permutation is kept in p and taken
   again the next time, until tc_plan_forget_orders. */
tc_status tc_plan_set_order(tc_plan *p, const tc_csr *caller, const char *order,
                            const tc_params *params, tc_error *err);
/* Frees the reorderings tc_plan_set_order kept (once the plan is made). */
void tc_plan_forget_orders(tc_plan *p);

/* ---- progress (plan/progress.c) ---- */

/* Planning starts: one step from 0 to 1 of the bar. */
void tc_plan_progress_start(tc_plan *p);
/* The next step of planning takes the bar from lo to hi (0 <= lo <= hi <=
   1); lo is reported now. */
void tc_plan_progress_step(tc_plan *p, double lo, double hi);
/* How far the bar is (0 to 1): where the next steps start. */
double tc_plan_progress_at(const tc_plan *p);
/* Where work inside the current step reports (a reordering's run): its
   share of the bar; NULL when the plan reports no progress. */
const tc_progress *tc_plan_step_progress(const tc_plan *p);
/* The reorderings a PATIENT plan (or order "auto") tries: every method in
   the registry, in registry order, is in `out` (count returned). */
int tc_plan_orders(const char **out, int max);
tc_status tc_plan_cpu(tc_plan *p, const tc_csr *caller, int reuse, tc_error *err);
tc_status tc_plan_gpu(tc_plan *p, const tc_csr *caller, int reuse, tc_error *err);
/* The .tcf.h5's stored matrix in format f when the plan multiplies it as
   stored (the given order, f not csr), else NULL. */
const tc_fmt *tc_plan_stored_fmt(const tc_plan *p, const tc_format *f);
/* Prepares the chosen GPU path on p->a (format built or taken from the
   tcf, kernel prepared, variant selected, device permutations and scratch
   allocated). */
tc_status tc_plan_gpu_ready(tc_plan *p, tc_error *err);
void tc_plan_gpu_release(tc_plan *p);
/* max|B| (a->cols x n, leading dimension ldb) into slot *next of the two
   at d (both 0 before the first), the other zeroed in the same launch for
   the one after: no memset a product. *at: the slot measured into. */
tc_status tc_plan_measure_b(tc_plan *p, float *d, int *next, const float *B, int64_t ldb,
                            float **at, tc_error *err);

/* ---- precision (plan/precision.c) ---- */

/* Sets p->b_scale / b_measure for the chosen kernel's precision and
   opts.b_max_abs, and info.b_scaled. */
void tc_plan_set_b_scaling(tc_plan *p);
/* 0 when opts.b_max_abs says B holds a NaN or Inf (it is NaN or infinite),
   else 1: what tuning passes as finite_b. */
int tc_plan_b_finite(const tc_plan *p);
/* For a prepared kernel whose variant spreads NaN/Inf: selects the fastest
   variant that does not when opts.b_max_abs says B holds a NaN or Inf, or
   makes p->guard when B's range is unknown. */
tc_status tc_plan_set_nonfinite_guard(tc_plan *p, tc_error *err);
/* What each execute of variant v of k runs besides the kernel and the
   order's moves, for p's options: max|B| measured on the device, B and C
   scaled (through scratch, where the variant does not scale B itself:
   tc_kernel_scales_b), the NaN/Inf guard. */
enum { TC_SAFE_MEASURE = 1, TC_SAFE_SCALE = 2, TC_SAFE_GUARD = 4 };
int tc_plan_safeguards(const tc_plan *p, const tc_kernel *k, int v);

/* ---- the safeguards' cost, for the planner (plan/safeguard_time.c) ---- */

/* Device scratch and the times measured so far, one per combination. */
/* What a part of a product costs: the GPU's median ms and the host's to
   queue it (tc_gpu_timing); a loop of products waits on the slower of the
   two (tc_loop_ms). */
typedef struct tc_cost {
    double ms, host_ms;
} tc_cost;

typedef struct tc_safeguard_timer {
    tc_cost cost[32];           /* by tc_plan_safeguards bits and the order's
                                   moves (8: B, 16: C); ms < 0: not timed */
    float *d_max, *b, *c;       /* d_max: tc_plan_measure_b's two slots */
    int max_next;
    tc_gpu_guard *guard;
} tc_safeguard_timer;
void tc_safeguard_timer_init(tc_safeguard_timer *t);
/* *cost = what a product of variant v of k pays for its safeguards in p's
   current order (B and C through the order's moves already need no
   scaling copy), timed on ops once per combination. */
tc_status tc_safeguard_time(tc_plan *p, tc_safeguard_timer *t, const tc_kernel *k, int v,
                            const tc_gpu_operands *ops, tc_cost *cost, tc_error *err);
void tc_safeguard_timer_free(tc_plan *p, tc_safeguard_timer *t);

/* ---- plan files and the cache (plan/planfile.c, planfile_io.c) ---- */

/* The key and the choices of a plan, as a file holds them. */
struct tc_stored_plan {
    char version[32], matrix[32], op[16], accuracy[8], device[256], effort[16];
    char order[64], order_params[512], format[32], format_params[512], variant[32];
    char precision[8];
    int64_t rows, cols, nnz, n;
    double ms, cusparse_ms, predicted;
};
/* Parses a plan file; *missing 1 (and TC_ERR_IO) when it does not exist.
   Errors name the file and line. */
tc_status tc_plan_read_file(const char *path, tc_stored_plan *s, int *missing, tc_error *err);
/* Writes p's plan under key atomically. */
tc_status tc_plan_write_file(const tc_plan *p, const tc_stored_plan *key, const char *path,
                             tc_error *err);

/* 64-bit hash of a's content (shape, rowptr, colidx, values), one pass. */
uint64_t tc_plan_hash_csr(const tc_csr *a);
/* Looks for a stored plan (opts.plan_file, else the cache): 1 when one
   matches (p->path, info filled from it, info.plan_file set), 0 when none
   (info.stale says why when one was there but did not match); an error for
   an explicit plan file that cannot be read or parsed. */
tc_status tc_plan_lookup(tc_plan *p, const tc_csr *caller, int *found, tc_error *err);
/* Stores a timed plan in opts.plan_file and the cache as the options say. */
tc_status tc_plan_store(tc_plan *p, tc_error *err);
/* The cache directory the options name (NULL: none). */
const char *tc_plan_cache_dir(const tc_plan_opts *o, char *buf, size_t len);

/* ---- executing (plan/execute.c) ---- */

/* q's new2old on p's GPU in a new *dev (NULL for no q). */
tc_status tc_plan_upload_perm(tc_plan *p, const tc_perm *q, int32_t **dev, tc_error *err);
tc_status tc_plan_execute_gpu(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                              void *stream, tc_error *err);
tc_status tc_plan_execute_cpu(tc_plan *p, const float *B, int64_t ldb, float *C, int64_t ldc,
                              tc_error *err);

/* Monotonic seconds. */
double tc_plan_now(void);
const char *tc_plan_effort_name(tc_effort e);

#endif
