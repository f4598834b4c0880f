/* t_attn_plan: SDDMM and attention plans (plan/attention.h) on the CPU.
   A mask stored with its rows and columns permuted (as tcreorder stores
   it), the plan given the permutation: O and S come back in the caller's
   order, bitwise the float64 reference on the unpermuted mask, and the
   plan's mask is the caller's; a row-only permutation and none at all do
   the same. Verification places the largest error in the caller's
   numbering. The fp16 check names the element. Info and report say what
   ran; bad arguments are refused. The maps the GPU paths gather with
   (attention_internal.h) are checked here, where the CPU can: the GPU
   paths themselves are t_attn_plan_gpu. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "attention_internal.h"
#include "tap.h"
#include "testmat.h"

static void opts_for(tc_plan_opts *o, tc_op op, int32_t d)
{
    memset(o, 0, sizeof *o);
    o->op = op;
    o->n = d;
    o->device = TC_DEVICE_CPU;
    o->effort = TC_EFFORT_DEFAULT;
    o->calls = 1;
}

/* Each map of the plan takes the caller's row, column or nonzero to the
   stored one that rp, cp say; NULL exactly where nothing is permuted. */
static int maps_agree(const tc_attn_plan *p, const tc_csr *stored, const tc_perm *rp,
                      const tc_perm *cp)
{
    const tc_csr *c = tc_attn_plan_mask(p);
    if (!rp && !cp)
        return !p->s_map && !p->row_n2o && !p->col_n2o && c == p->stored;
    if (!p->s_map || !rp != !p->row_n2o || !cp != !p->col_n2o)
        return 0;
    for (int32_t i = 0; i < c->rows; i++) {
        const int32_t si = rp ? rp->old2new[i] : i;
        if (rp && (p->row_n2o[si] != i || p->row_o2n[i] != si))
            return 0;
        for (int64_t k = c->rowptr[i]; k < c->rowptr[i + 1]; k++) {
            const int64_t sk = p->s_map[k];
            const int32_t sj = cp ? cp->old2new[c->colidx[k]] : c->colidx[k];
            if (sk < stored->rowptr[si] || sk >= stored->rowptr[si + 1] ||
                stored->colidx[sk] != sj || (cp && p->col_n2o[sj] != c->colidx[k]))
                return 0;
        }
    }
    return 1;
}

/* Both operations on orig stored as permuted by rp and cp (either may be
   NULL), against the reference on orig. */
static void caller_order(const tc_csr *orig, const tc_perm *rp, const tc_perm *cp,
                         const char *what)
{
    const int32_t d = 5;
    tc_error err;
    tc_csr *stored = NULL;
    tc_perm *id = NULL;
    if (!rp && tc_perm_identity(&id, orig->rows, &err))
        tap_bail(err.msg);
    if (tc_csr_permute(orig, rp ? rp : id, cp, &stored, &err))
        tap_bail(err.msg);
    float *Q = tap_random_floats((int64_t)orig->rows * d), *K = tap_random_floats((int64_t)orig->cols * d);
    float *V = tap_random_floats((int64_t)orig->cols * d);
    double *q = tap_widen(Q, (int64_t)orig->rows * d), *k = tap_widen(K, (int64_t)orig->cols * d);
    double *v = tap_widen(V, (int64_t)orig->cols * d);
    double *ref = malloc(sizeof *ref * ((size_t)orig->rows * d + (size_t)orig->nnz + 1));
    float *out = malloc(sizeof *out * ((size_t)orig->rows * d + (size_t)orig->nnz + 1));
    tc_plan_opts o;
    tc_attn_plan *p = NULL;

    opts_for(&o, TC_OP_ATTENTION, d);
    if (tc_attn_plan_create(stored, NULL, rp, cp, &o, &p, &err))
        tap_bail(err.msg);
    ok(tap_same_pattern(tc_attn_plan_mask(p), orig), "%s: the plan's mask is the caller's", what);
    ok(fabs(tc_attn_plan_scale(p) - 1 / sqrt(d)) < 1e-15, "%s: attention's scale 1/sqrt(d)",
       what);
    if (tc_attention_ref_f64(orig, q, k, v, d, 1 / sqrt(d), ref, 1, &err))
        tap_bail(err.msg);
    tc_status st = tc_attn_plan_attention(p, Q, K, V, out, NULL, &err);
    ok(st == TC_OK && tap_same_f32(out, ref, (int64_t)orig->rows * d),
       "%s: attention's O in the caller's order, bitwise the reference's", what);
    tc_attn_plan_free(p);

    opts_for(&o, TC_OP_SDDMM, d);
    o.scale = 0.5;
    if (tc_attn_plan_create(stored, NULL, rp, cp, &o, &p, &err))
        tap_bail(err.msg);
    if (tc_sddmm_ref_f64(orig, q, k, d, 0.5, ref, 1, &err))
        tap_bail(err.msg);
    st = tc_attn_plan_sddmm(p, Q, K, out, NULL, &err);
    ok(st == TC_OK && tap_same_f32(out, ref, orig->nnz),
       "%s: the SDDMM's S in the caller's CSR order, bitwise the reference's", what);
    ok(maps_agree(p, stored, rp, cp), "%s: the stored<->caller maps the GPU gathers with agree",
       what);
    /* one score moved: verify finds it at the caller's row and column */
    if (orig->nnz > 0) {
        const int64_t at = orig->nnz / 2;
        int32_t row = 0;
        while (orig->rowptr[row + 1] <= at)
            row++;
        out[at] += 1;
        tc_compare c;
        int64_t r, col;
        st = tc_attn_plan_verify(p, Q, K, NULL, out, &c, &r, &col, &err);
        ok(st == TC_OK && c.max_at == at && r == row && col == orig->colidx[at],
           "%s: verify places S's largest error at the caller's (%d, %d)", what, (int)row,
           (int)orig->colidx[at]);
    }
    tc_attn_plan_free(p);
    tc_csr_free(stored);
    tc_perm_free(id);
    free(Q);
    free(K);
    free(V);
    free(q);
    free(k);
    free(v);
    free(ref);
    free(out);
}

static const char *find_str(const tc_report *r, const char *section, const char *key)
{
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0)
            return e->is_str ? e->str : "";
    }
    return NULL;
}

static void info_and_report(const tc_csr *a, const tc_perm *rp, const tc_perm *cp)
{
    tc_plan_opts o;
    tc_attn_plan *p = NULL;
    tc_error err;
    opts_for(&o, TC_OP_ATTENTION, 3);
    o.device = TC_DEVICE_AUTO;          /* no GPU in a build without CUDA: the CPU */
    if (tc_attn_plan_create(a, NULL, rp, cp, &o, &p, &err))
        tap_bail(err.msg);
    tc_plan_info info;
    tc_attn_plan_info(p, &info);
    ok(info.op == TC_OP_ATTENTION && info.n == 3, "info: the op and d");
    ok(strcmp(info.order, "stored") == 0, "info: a permuted mask runs in its stored order");
    ok(strcmp(info.precision, "fp64") == 0 && strcmp(info.format, "csr") == 0,
       "info: the CPU's reference is fp64 from CSR");
    ok(info.ms == -1 && info.payback_calls == 0, "info: nothing timed, nothing to pay back");
    tc_report *r = tc_report_new();
    ok(tc_attn_plan_report(p, r, &err) == TC_OK, "report written");
    const char *path = find_str(r, "run", "path");
    ok(path && strcmp(path, "reference") == 0, "report: run.path is reference");
    ok(!find_str(r, "memory", "fused_bytes"), "report: no device memory on the CPU");
    tc_report_free(r);
    ok(tc_attn_plan_bench(p, NULL, NULL, NULL, &err) == TC_ERR_ARG,
       "bench of a CPU plan refused: %s", err.msg);
    tc_attn_plan_free(p);
}

static void fp16_check(const tc_csr *a)
{
    const int32_t d = 2;
    tc_plan_opts o;
    tc_attn_plan *p = NULL;
    tc_error err;
    opts_for(&o, TC_OP_ATTENTION, d);
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    float *Q = tap_random_floats((int64_t)a->rows * d), *K = tap_random_floats((int64_t)a->cols * d);
    float *V = tap_random_floats((int64_t)a->cols * d);
    int which;
    ok(tc_attn_plan_check(p, Q, K, V, &which, &err) == TC_OK && which == -1,
       "fp16 check: operands in [-1, 1) pass");
    K[3 * d + 1] = 1e6f;
    V[0] = NAN;
    tc_status st = tc_attn_plan_check(p, Q, K, V, &which, &err);
    ok(st == TC_ERR_INVALID && which == 1 && strncmp(err.msg, "K[3][1] = 1e+06: ", 17) == 0,
       "fp16 check: K[3][1] beyond fp16 named: %s", err.msg);
    K[3 * d + 1] = 0;
    st = tc_attn_plan_check(p, Q, K, V, &which, &err);
    ok(st == TC_ERR_INVALID && which == 2 && strncmp(err.msg, "V[0][0] = nan", 13) == 0,
       "fp16 check: a NaN in V named: %s", err.msg);
    tc_attn_plan_free(p);
    free(Q);
    free(K);
    free(V);
}

static void refused(const tc_csr *a, const tc_perm *rp)
{
    tc_plan_opts o;
    tc_attn_plan *p = NULL;
    tc_error err;
    float x[64] = { 0 };
    opts_for(&o, TC_OP_ATTENTION, 0);
    ok(tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err) == TC_ERR_ARG && !p,
       "d = 0 refused: %s", err.msg);
    opts_for(&o, TC_OP_SPMM, 4);
    ok(tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err) == TC_ERR_ARG,
       "an SpMM op refused: %s", err.msg);
    opts_for(&o, TC_OP_SDDMM, 4);
    o.format = "rstile";
    ok(tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err) == TC_ERR_ARG,
       "a format without an attention kernel refused: %s", err.msg);
    o.format = "csr";
    o.variant = "w2";
    ok(tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err) == TC_ERR_ARG,
       "a variant for the unfused path refused: %s", err.msg);
    opts_for(&o, TC_OP_SDDMM, 4);
    ok(tc_attn_plan_create(a, NULL, NULL, rp, &o, &p, &err) == TC_ERR_ARG,
       "a column permutation of another size refused: %s", err.msg);
    o.device = TC_DEVICE_GPU;
    const tc_status st = tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err);
    ok(st == TC_ERR_NODEVICE || (st == TC_OK && p), "device gpu: a GPU or TC_ERR_NODEVICE");
    tc_attn_plan_free(p);
    p = NULL;
    o.device = TC_DEVICE_CPU;
    if (tc_attn_plan_create(a, NULL, NULL, NULL, &o, &p, &err))
        tap_bail(err.msg);
    ok(tc_attn_plan_attention(p, x, x, x, x, NULL, &err) == TC_ERR_ARG,
       "attention on an SDDMM plan refused: %s", err.msg);
    ok(tc_attn_plan_sddmm(p, x, x, x, (void *)x, &err) == TC_ERR_ARG,
       "a stream for a CPU plan refused: %s", err.msg);
    ok(tc_attn_plan_sddmm(p, NULL, x, x, NULL, &err) == TC_ERR_ARG, "a NULL Q refused: %s",
       err.msg);
    tc_attn_plan_free(p);
}

int main(void)
{
    tc_csr *a = tap_random_matrix(37, 23, 3, 5, 7, 1);      /* rectangular, a dense row and
                                                              column, empty rows likely */
    if (!a)
        tap_bail("no test matrix");
    tc_perm *rp = tap_shuffled(a->rows), *cp = tap_shuffled(a->cols);
    caller_order(a, rp, cp, "rows and columns permuted");
    caller_order(a, rp, NULL, "rows permuted");
    caller_order(a, NULL, NULL, "not permuted");
    info_and_report(a, rp, cp);
    fp16_check(a);
    refused(a, rp);
    tc_perm_free(rp);
    tc_perm_free(cp);
    tc_csr_free(a);
    return done_testing();
}
