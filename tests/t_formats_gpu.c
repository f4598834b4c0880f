/* t_formats_gpu: every kernel of the registry (formats/format_registry.h:
   the formats that have one) and every one of its variants, run on the
   GPU and checked against the float64 reference as tcmul --verify checks
   (no NaN or Inf where the reference has none, the Frobenius error within
   the kernel's precision's tolerance), C poisoned before each run: on the
   awkward shapes (tests/fmttest.h), at n = 1, 7, 36 and 257, with NaN and
   Inf in B (variants recorded as spreading them are exempt, and tuning
   must skip exactly those and pick one that passes; a variant that scales
   B into fp16's range itself again on a B past that range; each variant
   again with a finite B and another queued back to back, each C checked
   against its own B), and on the
   real matrices of $TC_SHARED_DATA at n = 1, 7, 32, 128 and 257. A variant
   that refuses a matrix (TC_ERR_UNSUPPORTED) is listed, and some variant
   must take each. hrpb runs a second time with TM = 32 (other_shapes).
   Then a test-only kernel, the first kernel with its run
   replaced by one that leaves C's last row unwritten: the check must fail
   on it. Skipped where there is no CUDA device. */
#include "config.h"
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"
#include "fmttest.h"
#include "kernels.h"
#include "gputest.h"

/* A kernel under test with the format it multiplies, built with params
   (NULL: the defaults) and named label in the tests; a broken one counts
   the runs its check caught. */
typedef struct subject {
    const tc_format *f;
    const tc_kernel *k;
    const char *params;
    const char *label;
    int broken;
    int64_t caught;
} subject;

static tc_gpu *gpu;

/* ------------------------------------------------- the broken kernel */

static const tc_kernel *model;

/* The model's run, then C's last row poisoned: a kernel that never writes
   its last row. */
static tc_status run_without_last_row(tc_kplan *p, const float *B, float *C, tc_error *err)
{
    tc_status st = model->run(p, B, C, err);
    if (st == TC_OK && p->rows > 0 && p->n > 0)
        st = tc_gpu_poison(p->gpu, C + (int64_t)(p->rows - 1) * p->n,
                           (int64_t)p->n * (int64_t)sizeof *C, err);
    return st;
}

static tc_kernel broken;

/* ------------------------------------------------- one product */

/* B (cols x n) as float, and the float64 reference of a times that B. */
typedef struct operands {
    int32_t n;
    float *B;
    double *R;
} operands;

/* B random in [-1, 1) from seed, with an Inf in row 0 and a NaN in the
   last row when nonfinite. */
static operands make_operands(const tc_csr *a, int32_t n, uint64_t seed, int nonfinite)
{
    operands x = { n, malloc(sizeof(float) * ((size_t)a->cols * n + 1)),
                   malloc(sizeof(double) * ((size_t)a->rows * n + 1)) };
    double *B = malloc(sizeof *B * ((size_t)a->cols * n + 1));
    tc_random_fill(B, (int64_t)a->cols * n, seed, -1, 1);
    if (nonfinite && a->cols > 0) {
        B[0] = INFINITY;
        B[(int64_t)(a->cols - 1) * n + n - 1] = NAN;
    }
    for (int64_t i = 0; i < (int64_t)a->cols * n; i++) {
        B[i] = (float)B[i];
        x.B[i] = (float)B[i];
    }
    tc_error err;
    if (tc_spmm_ref_f64(a, B, n, n, x.R, n, 0, &err))
        bail(err.msg);
    free(B);
    return x;
}

static void free_operands(operands *x)
{
    free(x->B);
    free(x->R);
}

/* C (o's set 0, where p's selected variant ran with status st) downloaded
   into C and compared with x.R: 1 when it passes the float64 check (as
   tcmul --verify: no NaN or Inf where the reference has none, the
   Frobenius error within the tolerance of the variant's precision). */
static int c_checked(const subject *s, const tc_kplan *p, const tc_gpu_operands *o,
                     const tc_csr *a, const operands *x, float *C, tc_status st, tc_error *err)
{
    tc_compare c = { 0 };
    if (st == TC_OK)
        st = tc_gpu_download(gpu, C, o->C[0], (int64_t)sizeof *C * a->rows * x->n, err);
    if (st == TC_OK)
        tc_compare_f32(C, x->R, a->rows, x->n, x->n, &c);
    const double tol = tc_tolerance(tc_kernel_variant_precision(s->k, p->variant));
    int pass = st == TC_OK && c.nonfinite == 0 && c.rel_fro <= tol;
    if (!pass && !s->broken)
        diag("%s rel_fro %g (tolerance %g), %" PRId64 " nonfinite", st ? err->msg : "",
             c.rel_fro, tol, c.nonfinite);
    return pass;
}

/* A run of p's selected variant on o, poisoned first, checked (c_checked). */
static int run_checked(const subject *s, tc_kplan *p, const tc_gpu_operands *o,
                       const tc_csr *a, const operands *x, float *C, tc_error *err)
{
    tc_status st = tc_gpu_operands_poison(gpu, o, err);
    if (st == TC_OK)
        st = tc_kernel_run(p, o, 0, err);
    return c_checked(s, p, o, a, x, C, st, err);
}

/* Two runs of p's selected variant queued back to back, on x's B (in o)
   and then on y's (in oy), C poisoned before: 1 when each C passes the
   check against its own B's reference. A run that used what the run
   before it left (an fp16 copy of B, a workspace, counters not set back)
   or overwrote what that run still read fails it. */
static int run_back_to_back(const subject *s, tc_kplan *p, const tc_gpu_operands *o,
                            const tc_gpu_operands *oy, const tc_csr *a, const operands *x,
                            const operands *y, float *C, tc_error *err)
{
    tc_status st = tc_gpu_operands_poison(gpu, o, err);
    if (st == TC_OK)
        st = tc_gpu_operands_poison(gpu, oy, err);
    if (st == TC_OK)
        st = tc_kernel_run(p, o, 0, err);
    if (st == TC_OK)
        st = tc_kernel_run(p, oy, 0, err);
    const int second = c_checked(s, p, oy, a, y, C, st, err);
    return c_checked(s, p, o, a, x, C, st, err) && second;
}

static int spreads(const tc_kernel *k, int v)
{
    return k->variant_spreads_nonfinite && k->variant_spreads_nonfinite[v];
}

/* Variant p->variant, one that scales B itself (kernels.h,
   variant_scales_b), on x's B times 2^20 (past fp16's 65504) with max|B|
   given on the device (tc_kplan.b_max), as a plan for a B of unknown
   range runs it: 1 when it passes the float64 check against x's reference
   times 2^20. Unscaled, fp16 would make that B's largest values Inf. */
static int run_scaled(const subject *s, tc_kplan *p, const tc_csr *a, const operands *x,
                      float *C, tc_error *err)
{
    const int64_t nb = (int64_t)a->cols * x->n, nc = (int64_t)a->rows * x->n;
    operands big = { x->n, malloc(sizeof(float) * (size_t)(nb + 1)),
                     malloc(sizeof(double) * (size_t)(nc + 1)) };
    float m = 0;
    for (int64_t i = 0; i < nb; i++) {
        big.B[i] = ldexpf(x->B[i], 20);
        m = fmaxf(m, fabsf(big.B[i]));
    }
    for (int64_t i = 0; i < nc; i++)
        big.R[i] = ldexp(x->R[i], 20);
    tc_gpu_operands o = { 0 };
    float *d_max = NULL;
    tc_status st = tc_gpu_operands_alloc(gpu, big.B, a->cols, a->rows, x->n, 0, &o, err);
    if (st == TC_OK)
        st = tc_gpu_alloc(gpu, sizeof m, (void **)&d_max, err);
    if (st == TC_OK)
        st = tc_gpu_upload(gpu, d_max, &m, sizeof m, err);
    p->b_max = d_max;
    const int pass = st == TC_OK && run_checked(s, p, &o, a, &big, C, err);
    p->b_max = NULL;
    tc_gpu_free(gpu, d_max);
    tc_gpu_operands_free(gpu, &o);
    free_operands(&big);
    return pass;
}

/* With NaN and Inf in B, tc_kernel_tune (what tcmul and the planner call)
   skips exactly the variants recorded as spreading them, and the one it
   picks passes the check; asked for the kernel's own precision, it leaves
   out exactly the variants less exact than that. */
static void check_tuned(subject *s, const char *what, tc_kplan *p, const tc_gpu_operands *o,
                        const tc_csr *a, const operands *x, float *C)
{
    tc_error err;
    tc_status st = tc_kernel_tune(p, o, 1, 2, 0, s->k->precision, 0, &err);
    int exact = st == TC_OK;
    for (int v = 0; exact && v < s->k->nvariants; v++)
        exact = (p->variant_ms[v] == TC_VARIANT_INEXACT) ==
                (tc_tolerance(tc_kernel_variant_precision(s->k, v)) >
                 tc_tolerance(s->k->precision));
    if (!ok(exact, "%s: %s: tuning at %s leaves out exactly the variants less exact",
            s->label, what, s->k->precision))
        diag("%s", st ? err.msg : "");
    st = tc_kernel_tune(p, o, 1, 2, 0, NULL, 0, &err);
    int marks = st == TC_OK && !spreads(s->k, p->variant);
    for (int v = 0; marks && v < s->k->nvariants; v++)
        marks = (p->variant_ms[v] == TC_VARIANT_SKIPPED) == spreads(s->k, v);
    if (!ok(marks, "%s: %s, NaN and Inf in B: tuning skips exactly the variants that spread "
            "them", s->label, what))
        diag("%s", st ? err.msg : "");
    ok(st == TC_OK && run_checked(s, p, o, a, x, C, &err),
       "%s: %s, NaN and Inf in B: the tuned variant (%s) passes the float64 check",
       s->label, what, st ? "none" : s->k->variant_names[p->variant]);
}

/* Every variant of s on m (the format of a; NULL for the canonical one)
   times x.B, each checked against x.R (with NaN and Inf in B, those
   recorded as spreading them left out, and the tuned choice checked);
   with y (another B, finite), each also run on x's B and y's back to
   back. */
static void check_variants(subject *s, const char *what, const tc_fmt *m, const tc_csr *a,
                           const operands *x, const operands *y, int nonfinite)
{
    tc_gpu_operands o = { 0 }, oy = { 0 };
    tc_kplan *p = NULL;
    tc_error err;
    tc_status st = tc_gpu_operands_alloc(gpu, x->B, a->cols, a->rows, x->n, 0, &o, &err);
    if (st == TC_OK && y)
        st = tc_gpu_operands_alloc(gpu, y->B, a->cols, a->rows, y->n, 0, &oy, &err);
    if (st == TC_OK)
        st = tc_kernel_prepare(s->k, gpu, m, a, &o, &p, &err);
    if (!ok(st == TC_OK, "%s: %s, n=%d: prepared", s->label, what, x->n)) {
        diag("%s", err.msg);
        tc_gpu_operands_free(gpu, &o);
        tc_gpu_operands_free(gpu, &oy);
        return;
    }
    float *C = malloc(sizeof *C * ((size_t)a->rows * x->n + 1));
    int ran = 0;
    for (int v = 0; v < s->k->nvariants; v++) {
        if (nonfinite && spreads(s->k, v))
            continue;
        st = tc_kernel_select(p, v, &err);
        if (st == TC_ERR_UNSUPPORTED) {
            diag("%s %s: %s", s->label, s->k->variant_names[v], err.msg);
            continue;
        }
        int pass = st == TC_OK && run_checked(s, p, &o, a, x, C, &err);
        ran++;
        if (s->broken)
            s->caught += !pass;
        else
            ok(pass, "%s %s: %s, n=%d%s: passes the float64 check", s->label,
               s->k->variant_names[v], what, x->n, nonfinite ? ", NaN and Inf in B" : "");
        if (!s->broken && y)
            ok(run_back_to_back(s, p, &o, &oy, a, x, y, C, &err),
               "%s %s: %s, n=%d: two runs queued back to back on different B: each C is "
               "its own B's product", s->label, s->k->variant_names[v], what, x->n);
        if (!s->broken && !nonfinite && tc_kernel_scales_b(s->k, v))
            ok(run_scaled(s, p, a, x, C, &err), "%s %s: %s, n=%d, B times 2^20 with max|B| "
               "given: scales B into fp16's range itself", s->label, s->k->variant_names[v],
               what, x->n);
    }
    ok(ran > 0, "%s: %s, n=%d: some variant takes it", s->label, what, x->n);
    if (nonfinite && !s->broken)
        check_tuned(s, what, p, &o, a, x, C);
    free(C);
    tc_kernel_free(p);
    tc_gpu_operands_free(gpu, &o);
    tc_gpu_operands_free(gpu, &oy);
}

/* ------------------------------------------------- all of them */

enum { MAX_SUBJECTS = 32 };
static subject subjects[MAX_SUBJECTS];
static int nsubjects;

/* Every kernel (the broken one too when with_broken) on a at each n of ns
   (0-ended) and, when nonfinite, with NaN and Inf in B at n = 7: each
   format built once, each B and its reference made once for all. */
static void check_matrix(const char *what, const tc_csr *a, const int32_t *ns, int nonfinite,
                         int with_broken)
{
    tc_fmt *m[MAX_SUBJECTS];
    for (int i = 0; i < nsubjects; i++)
        m[i] = subjects[i].f->canonical ? NULL : build_fmt(subjects[i].f, a, subjects[i].params);
    for (int k = 0; ns[k] || nonfinite; k++) {
        int last = !ns[k];      /* the NaN/Inf run after the finite ones */
        operands x = last ? make_operands(a, 7, 99, 1)
                          : make_operands(a, ns[k], (uint64_t)ns[k], 0);
        operands y = { 0 };
        if (!last)
            y = make_operands(a, ns[k], (uint64_t)ns[k] + 1000, 0);
        for (int i = 0; i < nsubjects; i++)
            if (with_broken || !subjects[i].broken)
                check_variants(&subjects[i], what, m[i], a, &x, last ? NULL : &y, last);
        free_operands(&x);
        if (!last)
            free_operands(&y);
        if (last)
            break;
    }
    for (int i = 0; i < nsubjects; i++)
        tc_fmt_free(m[i]);
}

/* Formats whose kernels take other parameters than the defaults, each
   with one such set: hrpb's panels of 32 rows (two brick rows a block). */
static const struct {
    const char *format, *params, *label;
} other_shapes[] = { { "hrpb", "TM=32", "hrpb TM=32" } };

/* The registry's formats that have a kernel, those of other_shapes, then
   the broken kernel. */
static void collect(void)
{
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        const tc_kernel *k = tc_kernel_for(f);
        if (k)
            subjects[nsubjects++] = (subject){ f, k, NULL, f->name, 0, 0 };
    }
    if (nsubjects == 0)
        bail("the GPU library has no kernel");
    for (size_t i = 0; i < sizeof other_shapes / sizeof *other_shapes; i++) {
        const tc_format *f = tc_format_find(other_shapes[i].format);
        const tc_kernel *k = f ? tc_kernel_for(f) : NULL;
        if (!k) {
            char msg[96];
            snprintf(msg, sizeof msg, "other_shapes: no GPU kernel for %s",
                     other_shapes[i].label);
            bail(msg);
        }
        subjects[nsubjects++] =
            (subject){ f, k, other_shapes[i].params, other_shapes[i].label, 0, 0 };
    }
    model = subjects[0].k;
    broken = *model;
    broken.run = run_without_last_row;
    subjects[nsubjects++] = (subject){ subjects[0].f, &broken, NULL, subjects[0].label, 1, 0 };
}

/* Every kernel, the broken one included, on an awkward shape. */
static void check_shape_one(const char *name, const tc_csr *a)
{
    static const int32_t ns[] = { 1, 7, 36, 257, 0 };
    check_matrix(name, a, ns, 1, 1);
}

/* The registry's kernels on a real matrix. */
static void check_shared_one(const char *name, const tc_csr *a)
{
    static const int32_t ns[] = { 1, 7, 32, 128, 257, 0 };
    check_matrix(name, a, ns, 0, 0);
}

int main(void)
{
    tap_need_gpu();
    tc_error err;
    if (tc_gpu_open(0, &gpu, &err))
        bail(err.msg);
    collect();
    for_each_shape(check_shape_one);
    subject *b = &subjects[nsubjects - 1];
    ok(b->caught > 0, "%s with its last row unwritten (wrong on purpose): the float64 check "
       "catches it (%" PRId64 " runs)", b->k->format, b->caught);
    for_each_shared(check_shared_one);
    tc_gpu_close(gpu);
    return done_testing();
}
