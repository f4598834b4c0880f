/* gen_kinds.c: the matrix kinds of bench/gen, each a function of (seed,
   row index) alone (gen.h says why). Values are not made here: gen.c
   derives each from (i, j). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "../tools/common.h"

/* ---- randomness: splitmix64, one stream per (seed, row) ------------------ */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

static rng rng_for(uint64_t seed, int64_t row, uint64_t stream)
{
    rng r = { mix(seed * 0x9e3779b97f4a7c15u + stream) ^ mix((uint64_t)row + 0x632be59bd9b4e019u) };
    return r;
}

static uint64_t next64(rng *r)
{
    return mix(r->s += 0x9e3779b97f4a7c15u);
}

/* Uniform in [0, 1). */
static double uniform(rng *r)
{
    return (double)(next64(r) >> 11) * 0x1p-53;
}

/* Uniform in [0, n). */
static int64_t below(rng *r, int64_t n)
{
    return (int64_t)(uniform(r) * (double)n);
}

/* Poisson(mean): by multiplying uniforms while the mean is small, by the
   normal approximation (rounded, never negative) past 30, where its error
   is below the spread of the count itself. */
static int64_t poisson(rng *r, double mean)
{
    if (mean <= 0)
        return 0;
    if (mean > 30) {
        const double u1 = uniform(r) + 0x1p-54, u2 = uniform(r);
        const double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        const double k = floor(mean + sqrt(mean) * z + 0.5);
        return k > 0 ? (int64_t)k : 0;
    }
    const double limit = exp(-mean);
    int64_t k = 0;
    for (double prod = uniform(r); prod > limit; prod *= uniform(r))
        k++;
    return k;
}

/* A seeded random permutation of 0..n-1 and its inverse (Fisher-Yates). */
static void shuffle(gen_matrix *g, int64_t n)
{
    tc_error err;
    g->perm = tc_malloc_array(n, sizeof *g->perm, &err);
    g->inv = g->perm ? tc_malloc_array(n, sizeof *g->inv, &err) : NULL;
    if (!g->inv)
        tool_die(&err);
    rng r = rng_for(g->seed, -1, 1);
    for (int64_t i = 0; i < n; i++)
        g->perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = below(&r, i + 1);
        const int32_t t = g->perm[i];
        g->perm[i] = g->perm[j];
        g->perm[j] = t;
    }
    for (int64_t i = 0; i < n; i++)
        g->inv[g->perm[i]] = (int32_t)i;
}

/* Room for k columns in the row buffer. */
static int32_t *room(gen_matrix *g, int64_t k)
{
    if (k > g->room) {
        int64_t want = g->room ? g->room : 64;
        while (want < k)
            want *= 2;
        int32_t *b = realloc(g->cols_buf, (size_t)want * sizeof *b);
        if (!b) {
            tc_error err;
            tc_error_set(&err, TC_ERR_NOMEM, "out of memory (a row of %lld columns)",
                         (long long)k);
            tool_die(&err);
        }
        g->cols_buf = b;
        g->room = want;
    }
    return g->cols_buf;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Sorts the k columns of the buffer and drops repeats; the count left.
   Fewer than two need nothing, and an empty first row has no buffer yet
   (qsort of a null pointer is undefined even for no elements). */
static int64_t sort_unique(gen_matrix *g, int64_t k)
{
    int32_t *c = g->cols_buf;
    if (k < 2)
        return k;
    qsort(c, (size_t)k, sizeof *c, cmp_i32);
    int64_t u = 0;
    for (int64_t i = 0; i < k; i++)
        if (u == 0 || c[i] != c[u - 1])
            c[u++] = c[i];
    return u;
}

static int64_t param(const char *name, const char *s, int64_t lo, int64_t hi)
{
    return tool_parse_long(name, s, lo, hi);
}

/* ---- band ORDER WIDTH ------------------------------------------------------ */

/* Row i holds columns max(0, i - WIDTH/2) .. min(ORDER, i + WIDTH - WIDTH/2)
   - 1: SMaT's synthetic input (Section VI-C) and the scale run's. */
static void band_init(gen_matrix *g, char *const *v, int count)
{
    (void)count;
    g->rows = g->cols = param("ORDER", v[0], 1, INT32_MAX);
    g->p[0] = (double)param("WIDTH", v[1], 1, INT32_MAX);
}

static int64_t band_row(gen_matrix *g, int64_t i)
{
    const int64_t w = (int64_t)g->p[0];
    const int64_t lo = i - w / 2 > 0 ? i - w / 2 : 0;
    const int64_t hi = i + w - w / 2 < g->cols ? i + w - w / 2 : g->cols;
    int32_t *c = room(g, hi - lo);
    for (int64_t j = lo; j < hi; j++)
        c[j - lo] = (int32_t)j;
    return hi - lo;
}

/* ---- stencil NX [POINTS] --------------------------------------------------- */

/* The NX^3 grid's points in x-fastest order; row (x, y, z) holds its
   neighbours within the grid: the 6 faces and itself (POINTS 7) or the
   whole 3x3x3 cube (27, the default). */
static void stencil_init(gen_matrix *g, char *const *v, int count)
{
    const int64_t nx = param("NX", v[0], 1, 1290);     /* 1290^3 < 2^31 */
    const int64_t points = count > 1 ? param("POINTS", v[1], 7, 27) : 27;
    if (points != 7 && points != 27)
        tool_usage_error("stencil: POINTS must be 7 or 27, not %lld", (long long)points);
    g->rows = g->cols = nx * nx * nx;
    g->p[0] = (double)nx;
    g->p[1] = (double)points;
}

static int64_t stencil_row(gen_matrix *g, int64_t i)
{
    const int64_t nx = (int64_t)g->p[0];
    const int full = g->p[1] == 27;
    const int64_t x = i % nx, y = i / nx % nx, z = i / (nx * nx);
    int32_t *c = room(g, 27);
    int64_t k = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!full && abs(dx) + abs(dy) + abs(dz) > 1)
                    continue;
                const int64_t a = x + dx, b = y + dy, d = z + dz;
                if (a >= 0 && a < nx && b >= 0 && b < nx && d >= 0 && d < nx)
                    c[k++] = (int32_t)(a + nx * (b + nx * d));
            }
    return k;
}

/* ---- rmat SCALE EDGEFACTOR -------------------------------------------------- */

/* Graph500's quadrant probabilities (a, b; c, d). */
#define RMAT_A 0.57
#define RMAT_B 0.19
#define RMAT_C 0.19

/* A directed R-MAT graph of 2^SCALE vertices and EDGEFACTOR x 2^SCALE
   edges (Chakrabarti et al.; Graph500's probabilities), labels shuffled,
   repeated edges kept once. Made one row at a time: an R-MAT edge picks a
   quadrant at each of SCALE levels, so given its row's bits its column's
   bits are independent, 0 with probability a / (a + b) where the row bit
   is 0 and c / (c + d) where it is 1; the row's edge count is Poisson with
   mean EDGEFACTOR 2^SCALE (a + b)^zeros (c + d)^ones of the row's bits. */
static void rmat_init(gen_matrix *g, char *const *v, int count)
{
    (void)count;
    const int64_t scale = param("SCALE", v[0], 1, 30);
    g->rows = g->cols = (int64_t)1 << scale;
    g->p[0] = (double)scale;
    g->p[1] = (double)param("EDGEFACTOR", v[1], 1, 1 << 20);
    shuffle(g, g->rows);
}

static int64_t rmat_row(gen_matrix *g, int64_t i)
{
    const int scale = (int)g->p[0];
    const int64_t u = g->perm[i];       /* the row's vertex before shuffling */
    double mean = g->p[1] * (double)g->rows;
    for (int l = 0; l < scale; l++)
        mean *= (u >> l & 1) ? 1 - RMAT_A - RMAT_B : RMAT_A + RMAT_B;
    rng r = rng_for(g->seed, i, 2);
    const int64_t k = poisson(&r, mean);
    int32_t *c = room(g, k);
    const double p0[2] = { RMAT_A / (RMAT_A + RMAT_B), RMAT_C / (1 - RMAT_A - RMAT_B) };
    for (int64_t e = 0; e < k; e++) {
        int64_t col = 0;
        for (int l = 0; l < scale; l++)
            col |= (int64_t)(uniform(&r) >= p0[u >> l & 1]) << l;
        c[e] = g->inv[col];
    }
    return sort_unique(g, k);
}

/* ---- random ROWS DEGREE ------------------------------------------------------ */

/* ROWS x ROWS, each row DEGREE distinct columns drawn uniformly: a dense
   random directed graph, where tensor-core blocks gain nothing from any
   order. */
static void random_init(gen_matrix *g, char *const *v, int count)
{
    (void)count;
    g->rows = g->cols = param("ROWS", v[0], 1, INT32_MAX);
    g->p[0] = (double)param("DEGREE", v[1], 0, g->cols);
}

/* k distinct values of [0, n), sorted: drawn and redrawn until k are
   distinct while they are a small share of n; by selection sampling (each
   value kept with the chance the count still wanted over the values left;
   Knuth's Algorithm S) past half of it, where redrawing would stall. */
static int64_t distinct(gen_matrix *g, rng *r, int64_t k, int64_t n)
{
    int32_t *c = room(g, k);
    int64_t have = 0;
    if (2 * k > n) {
        for (int64_t j = 0; j < n && have < k; j++)
            if ((double)(n - j) * uniform(r) < (double)(k - have))
                c[have++] = (int32_t)j;
        return have;
    }
    while (have < k) {
        for (int64_t e = have; e < k; e++)
            c[e] = (int32_t)below(r, n);
        have = sort_unique(g, k);
    }
    return have;
}

static int64_t random_row(gen_matrix *g, int64_t i)
{
    rng r = rng_for(g->seed, i, 3);
    return distinct(g, &r, (int64_t)g->p[0], g->cols);
}

/* ---- bipartite USERS ITEMS DEGREE [ALPHA] ---------------------------------- */

/* A user-item graph: USERS rows, ITEMS columns. A user's item count is
   Pareto with tail exponent 2 (mean DEGREE, at least 1, at most ITEMS);
   each item is drawn by popularity, Zipf with exponent ALPHA (default 1)
   over the items' ranks, the ranks' labels shuffled. */
static void bipartite_init(gen_matrix *g, char *const *v, int count)
{
    g->rows = param("USERS", v[0], 1, INT32_MAX);
    g->cols = param("ITEMS", v[1], 1, INT32_MAX);
    g->p[0] = (double)param("DEGREE", v[2], 1, g->cols);
    g->p[1] = count > 3 ? tool_parse_double("ALPHA", v[3], 0, 4) : 1;
    tc_error err;
    g->cdf = tc_malloc_array(g->cols, sizeof *g->cdf, &err);
    if (!g->cdf)
        tool_die(&err);
    double sum = 0;
    for (int64_t k = 0; k < g->cols; k++)
        g->cdf[k] = sum += pow((double)(k + 1), -g->p[1]);
    for (int64_t k = 0; k < g->cols; k++)
        g->cdf[k] /= sum;
    shuffle(g, g->cols);
}

/* The rank whose cumulative share first reaches u. */
static int64_t rank_of(const double *cdf, int64_t n, double u)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int64_t bipartite_row(gen_matrix *g, int64_t i)
{
    rng r = rng_for(g->seed, i, 4);
    /* Pareto(x_m, 2) has mean 2 x_m */
    const double want = g->p[0] / 2 / sqrt(1 - uniform(&r));
    const int64_t k = want >= (double)g->cols ? g->cols : (int64_t)want + 1;
    int32_t *c = room(g, k);
    for (int64_t e = 0; e < k; e++)
        c[e] = g->perm[rank_of(g->cdf, g->cols, uniform(&r))];
    return sort_unique(g, k);
}

/* ---- the table ---------------------------------------------------------------- */

static const gen_kind kinds[] = {
    { "band", "ORDER WIDTH", "ORDER x ORDER, WIDTH nonzeros a row about the diagonal", 2, 0,
      band_init, band_row },
    { "stencil", "NX [POINTS]", "the 7- or 27-point (default) stencil of an NX^3 grid", 2, 1,
      stencil_init, stencil_row },
    { "rmat", "SCALE EDGEFACTOR",
      "directed R-MAT (Graph500's a, b, c, d), 2^SCALE rows, labels shuffled", 2, 0, rmat_init,
      rmat_row },
    { "random", "ROWS DEGREE", "ROWS x ROWS, DEGREE uniform random columns a row", 2, 0,
      random_init, random_row },
    { "bipartite", "USERS ITEMS DEGREE [ALPHA]",
      "user-item: Pareto user degrees, Zipf(ALPHA) item popularity", 4, 1, bipartite_init,
      bipartite_row },
};

int gen_kind_count(void)
{
    return (int)(sizeof kinds / sizeof kinds[0]);
}

const gen_kind *gen_kind_at(int i)
{
    return &kinds[i];
}

const gen_kind *gen_kind_find(const char *name)
{
    for (int i = 0; i < gen_kind_count(); i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

int64_t gen_row(gen_matrix *g, int64_t i)
{
    return g->kind->row(g, i);
}

void gen_free(gen_matrix *g)
{
    free(g->cols_buf);
    free(g->perm);
    free(g->inv);
    free(g->cdf);
    memset(g, 0, sizeof *g);
}
