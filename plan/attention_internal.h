/*
 * attention_internal.h: the tc_attn_plan that plan/attention.c (creation,
 * the CPU path, verification, the report) and plan/attention_gpu.c (the
 * GPU paths, the permutation on the device, the bench) share. Nothing else
 * includes it.
 */
#ifndef TC_PLAN_ATTENTION_INTERNAL_H
#define TC_PLAN_ATTENTION_INTERNAL_H

#include "attention.h"
#include "kernels.h"

#define TC_HALF_MAX 65504.0

struct tc_attn_plan {
    tc_op op;
    int32_t d, rows, cols;
    int64_t nnz;
    double scale;
    tc_device device;
    tc_attn_path path;          /* the GPU's */
    int auto_path;              /* 1: the planner chose it (format NULL or "auto") */
    int measure;                /* 1: planning times (effort MEASURE or more) */
    double plan_fused_ms, plan_unfused_ms;  /* timed by planning, else -1 */
    tc_effort effort;
    int threads, warmup, iters;
    double b_max_abs;           /* the caller's bound on |Q|, |K|, |V| (0: unknown) */
    char device_name[256];
    char device_why[sizeof ((tc_error *)0)->msg]; /* why the CPU when auto found no
                                                     GPU ("": as asked) */
    tc_csr *stored;             /* the mask in its stored order (the kernels') */
    tc_csr *caller;             /* the mask in the caller's order (the CPU's, the
                                   reference's); stored itself when not permuted */
    /* stored -> caller order, NULL for a side not permuted: row i of the
       stored order is the caller's row_n2o[i] (row_o2n its inverse), column
       j the caller's col_n2o[j]; s_map[k]: the stored CSR place of the
       caller's k-th nonzero */
    int64_t *row_n2o, *row_o2n, *col_n2o, *s_map;
    double build_s, upload_s, tune_s, plan_s;
    /* GPU */
    tc_gpu *gpu;
    void *own_stream;           /* the stream the plan's own calls run on */
    tc_attn *attn;
    float *qkv_s, *out_s;       /* stored-order operands and output (device) */
    int64_t *d_row_n2o, *d_row_o2n, *d_col_n2o;
    int64_t *d_s_idx;           /* SDDMM: the caller's k-th score's place in
                                   the kernel's output; NULL: the same place */
    /* tc_attn_plan_bench */
    int benched, sets;
    tc_dist fused_ms, unfused_ms;
};

/* x rounded to the nearest fp16 value (ties to even, subnormals, infinity
   beyond the largest finite half). */
double tc_round_half(double x);

/* plan/attention_gpu.c: the GPU half of create (device, bsb, upload,
   permutation indices, tuning), of execute and of free. */
tc_status tc_attn_gpu_create(tc_attn_plan *p, const tc_fmt *bsb, const tc_plan_opts *o,
                             tc_error *err);
tc_status tc_attn_gpu_execute(tc_attn_plan *p, const float *Q, const float *K, const float *V,
                              float *out, void *stream, int checked, tc_error *err);
tc_status tc_attn_gpu_execute_host(tc_attn_plan *p, const float *Q, const float *K,
                                   const float *V, float *out, tc_error *err);
void tc_attn_gpu_free(tc_attn_plan *p);

#endif
