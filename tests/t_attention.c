/* t_attention: the float64 reference of sparse attention (Fused3S's
   formula, seed 003 Algorithm 1): hand-computed cases with exact answers
   (equal scores average V, scores 0 and ln 2 weigh 1/3 and 2/3), a row with
   no nonzero (zeros, not NaN), a score of exactly 0 kept, A's values and
   explicit zeros not used, scores of 10^4 that a softmax without the max
   subtracted turns into NaN, a rectangular A (K and V have A.cols rows);
   against a plain two-pass softmax on random awkward shapes, Q and K
   scaled by 30 included; bitwise the same for any thread count; bad
   arguments refused. */
#include "config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"

static void bail(const char *msg)
{
    printf("Bail out! %s\n", msg);
    exit(1);
}

static tc_csr *from_coo(int32_t rows, int32_t cols, int64_t n, const int32_t *ri,
                        const int32_t *ci, const double *v)
{
    tc_csr *a;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, v, 1, &err))
        bail(err.msg);
    return a;
}

static double *attention(const tc_csr *a, const double *Q, const double *K, const double *V,
                         int32_t d, double scale, int nthreads)
{
    double *O = malloc(sizeof *O * ((size_t)a->rows * d + 1));
    tc_error err;
    for (int64_t i = 0; i < (int64_t)a->rows * d; i++)
        O[i] = NAN;     /* poisoned: every element must be written */
    if (tc_attention_ref_f64(a, Q, K, V, d, scale, O, nthreads, &err))
        bail(err.msg);
    return O;
}

static int same(const double *x, const double *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return 0;
    return 1;
}

static int close_to(const double *x, const double *y, int64_t n, double tol)
{
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(x[i] - y[i]) <= tol * fmax(1, fabs(y[i]))))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ by hand */

/* A 4 x 3, d = 2: row 0 = {0, 1, 2}, row 1 = {} (empty), row 2 = {1},
   row 3 = {0, 2}. Q, K chosen for the scores:
     row 0: K rows 0, 1, 2 all at <q, k> = 1: equal weights 1/3;
     row 2: <q, k1> = 0, a score of exactly 0, the only one: weight 1;
     row 3: <q, k0> = 0 and <q, k2> = 1, scale ln 2: exp(0), exp(ln 2) =
            1 and 2, weights 1/3 and 2/3. */
static void check_by_hand(void)
{
    static const int32_t ri[] = { 0, 0, 0, 2, 3, 3 }, ci[] = { 0, 1, 2, 1, 0, 2 };
    static const double vals[] = { 5, 0, -7, 0, 3, 9 };
    tc_csr *a = from_coo(4, 3, 6, ri, ci, NULL), *w = from_coo(4, 3, 6, ri, ci, vals);
    /* row 0: q = (1, 0); K: k0 = (1, 0), k1 = (1, 5), k2 = (1, -3) give 1, 1, 1.
       row 2: q = (0, 0): score 0. row 3: q = (0, 1): k0 . q = 0, k2 . q =
       -3: rescaled below by scale -ln 2 / 3 to 0 and ln 2. */
    double Q[] = { 1, 0, 9, 9, 0, 0, 0, 1 }, K[] = { 1, 0, 1, 5, 1, -3 };
    double V[] = { 3, 6, 9, 12, 30, 60 };
    double *O = attention(a, Q, K, V, 2, 1, 1);
    ok(O[0] == 14 && O[1] == 26, "equal scores: the mean of V's rows, (14, 26)");
    ok(O[2] == 0 && O[3] == 0, "a row without nonzeros: a zero row, not NaN");
    ok(O[4] == 9 && O[5] == 12, "a score of exactly 0, alone: weight 1, not masked");
    double *O2 = attention(w, Q, K, V, 2, 1, 1);
    ok(same(O, O2, 8), "A's values (5, 0, -7, an explicit 0) change nothing: its pattern masks");
    free(O);
    free(O2);

    O = attention(a, Q, K, V, 2, -log(2) / 3, 1);
    double want[] = { 1.0 / 3 * 3 + 2.0 / 3 * 30, 1.0 / 3 * 6 + 2.0 / 3 * 60 };
    ok(close_to(O + 6, want, 2, 1e-15), "scores 0 and ln 2: weights 1/3 and 2/3, (21, 42)");
    ok(O[4] == 9 && O[5] == 12, "  the score-0 row again weight 1 (any scale)");
    free(O);

    /* Scores of 10^4, 10^4 and 0 in row 0 (scale 10^4): a softmax that
       does not subtract the max gets exp(10^4) = Inf and NaN; weights are
       1/2, 1/2 and exp(-10^4) = 0. */
    double Kbig[] = { 1, 0, 1, 0, 0, 7 };
    O = attention(a, Q, Kbig, V, 2, 1e4, 1);
    ok(O[0] == 6 && O[1] == 9, "scores 10^4, 10^4, 0: (6, 9), no overflow");
    free(O);
    tc_csr_free(a);
    tc_csr_free(w);
}

/* ------------------------------------------------- against a plain one */

/* The formula as written: scores, max, exp, sum, divide, then weights
   times V (two passes, nothing shared with the library). */
static void plain(const tc_csr *a, const double *Q, const double *K, const double *V, int32_t d,
                  double scale, double *O)
{
    for (int32_t i = 0; i < a->rows; i++) {
        int64_t k0 = a->rowptr[i], n = a->rowptr[i + 1] - k0;
        double *s = malloc(sizeof *s * (size_t)(n + 1)), top = -INFINITY, sum = 0;
        for (int64_t e = 0; e < n; e++) {
            s[e] = 0;
            for (int32_t c = 0; c < d; c++)
                s[e] += Q[(int64_t)i * d + c] * K[(int64_t)a->colidx[k0 + e] * d + c];
            s[e] *= scale;
            top = fmax(top, s[e]);
        }
        for (int64_t e = 0; e < n; e++)
            sum += exp(s[e] - top);
        for (int32_t c = 0; c < d; c++) {
            double o = 0;
            for (int64_t e = 0; e < n; e++)
                o += exp(s[e] - top) / sum * V[(int64_t)a->colidx[k0 + e] * d + c];
            O[(int64_t)i * d + c] = o;
        }
        free(s);
    }
}

static void check_random(const char *name, const tc_csr *a, int32_t d, double qk)
{
    int64_t nq = (int64_t)a->rows * d + 1, nk = (int64_t)a->cols * d + 1;
    double *Q = malloc(sizeof *Q * (size_t)nq), *K = malloc(sizeof *K * (size_t)nk);
    double *V = malloc(sizeof *V * (size_t)nk), *R = malloc(sizeof *R * (size_t)nq);
    tc_random_fill(Q, nq, 1, -qk, qk);
    tc_random_fill(K, nk, 2, -qk, qk);
    tc_random_fill(V, nk, 3, -1, 1);
    double scale = 1 / sqrt(d);
    plain(a, Q, K, V, d, scale, R);
    double *O = attention(a, Q, K, V, d, scale, 1);
    int finite = 1;
    for (int64_t i = 0; i < nq - 1; i++)
        finite &= isfinite(O[i]);
    ok(finite && close_to(O, R, nq - 1, 1e-12), "%s, d = %d, Q and K in +-%g: the plain softmax's "
       "result, all finite", name, d, qk);
    const int threads[] = { 3, 64 };
    for (int t = 0; t < 2; t++) {
        double *Ot = attention(a, Q, K, V, d, scale, threads[t]);
        ok(same(O, Ot, nq - 1), "%s, d = %d: %d threads give the same bits", name, d, threads[t]);
        free(Ot);
    }
    free(O);
    free(Q);
    free(K);
    free(V);
    free(R);
}

static void check_shapes(void)
{
    static const struct { const char *name; int32_t rows, cols; int per_row; int32_t dr, dc; } s[] = {
        { "empty", 0, 0, 0, -1, -1 },
        { "1x1", 1, 1, 1, -1, -1 },
        { "1000x777", 1000, 777, 9, -1, -1 },
        { "dense row and column, 1025 x 4099", 1025, 4099, 3, 1024, 0 },
        { "70001 x 500", 70001, 500, 2, -1, -1 },
    };
    static const int32_t dims[] = { 1, 7, 16 };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        tc_csr *a = tap_random_matrix(s[i].rows, s[i].cols, s[i].per_row, s[i].dr, s[i].dc, 1);
        for (int k = 0; k < 3; k++)
            if (s[i].rows < 70000 || dims[k] == 16)
                check_random(s[i].name, a, dims[k], 1);
        check_random(s[i].name, a, 16, 30);
        tc_csr_free(a);
    }
}

static void check_refusals(void)
{
    tc_csr *a = tap_random_matrix(3, 3, 1, -1, -1, 1);
    double x[9] = { 0 }, o[9];
    tc_error err;
    ok(tc_attention_ref_f64(a, x, x, x, -1, 1, o, 1, &err) == TC_ERR_ARG, "refused: d = -1");
    is_str(err.msg, "attention: bad arguments (d -1, scale 1)", "  with the message");
    ok(tc_attention_ref_f64(a, x, x, x, 3, NAN, o, 1, &err) == TC_ERR_ARG, "refused: scale NaN");
    is_str(err.msg, "attention: bad arguments (d 3, scale nan)", "  with the message");
    ok(tc_attention_ref_f64(a, x, NULL, x, 3, 1, o, 1, &err) == TC_ERR_ARG, "refused: no K");
    ok(tc_attention_ref_f64(a, x, x, x, 0, 1, o, 1, &err) == TC_OK, "d = 0: nothing to do");
    tc_csr_free(a);
}

int main(void)
{
    check_by_hand();
    check_shapes();
    check_refusals();
    return done_testing();
}
