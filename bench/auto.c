/*
 * auto.c: bench/auto.sh's driver, through the public plan API only
 * (tcsparse_plan.h), as a program would use it.
 *
 *   bench/auto [-w WARMUP] [-i ITERS] [-e LEVELS] [-c CANDIDATES.tsv] MATRIX N...
 *
 * For each n, in one process (one CUDA context, the same GPU state): a
 * plan at each effort level of LEVELS (a comma list; default
 * estimate,measure,patient,exhaustive), exhaustive being the oracle (every
 * kernel, variant and reordering), each planned without the cache; then
 * each plan timed on fresh operands
 * (a B drawn with another seed than the tuning's), the whole product as
 * tc_plan_execute gives it, and cuSPARSE on the caller's matrix and the
 * same operands in the same tc_plan_bench; C checked against float64.
 * Prints one TSV row per level other than exhaustive (no header: auto.sh
 * writes it):
 *   matrix n effort plan auto_ms cusparse_ms oracle_ms oracle_plan
 *   vs_cusparse vs_oracle plan_seconds payback_calls verify
 * the oracle's columns "-" where LEVELS leaves it out (it costs more than
 * the three others together: every reordering is computed), and with -c,
 * every timed candidate of the exhaustive plan (matrix n order format
 * variant ms cusparse_ms) for bench/model-fit.py.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse_plan.h"

enum { LEVELS = 4 };
static const tc_effort level[LEVELS] = { TC_EFFORT_ESTIMATE, TC_EFFORT_MEASURE,
                                         TC_EFFORT_PATIENT, TC_EFFORT_EXHAUSTIVE };
static const char *const level_name[LEVELS] = { "estimate", "measure", "patient", "exhaustive" };
enum { ORACLE = LEVELS - 1 };

/* The levels a comma list names, as bits of level[]; 0 where a name is not
   a level or none is given. */
static unsigned parse_levels(const char *list)
{
    unsigned set = 0;
    char buf[128];
    if (strlen(list) >= sizeof buf)
        return 0;
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int l = 0;
        while (l < LEVELS && strcmp(t, level_name[l]) != 0)
            l++;
        if (l == LEVELS)
            return 0;
        set |= 1u << l;
    }
    return set;
}

/* 1 when level l is among the bits of `levels`. */
static int planned(unsigned levels, int l)
{
    return levels >> l & 1;
}

typedef struct outcome {
    char plan[256];
    double auto_ms, cusparse_ms, plan_s, payback;
    int pass;
} outcome;

static const tc_report_entry *report_entry(const tc_report *r, const char *section,
                                           const char *key)
{
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

static double report_num(const tc_report *r, const char *section, const char *key)
{
    const tc_report_entry *e = report_entry(r, section, key);
    return !e ? NAN : e->is_int ? (double)e->ival : e->num;
}

static const char *report_str(const tc_report *r, const char *section, const char *key)
{
    const tc_report_entry *e = report_entry(r, section, key);
    return e && e->is_str ? e->str : "";
}

/* "rowsplit" or, with parameters the plan chose, "rowsplit:seg=64,order=1". */
static const char *format_text(const char *format, const char *params, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", format, params[0] ? ":" : "", params);
    return buf;
}

static void die(const char *what, const tc_error *err)
{
    fprintf(stderr, "auto: %s: %s\n", what, err->msg);
    exit(1);
}

/* Plans a at effort e, times the plan on B and checks its C. */
static tc_plan *plan_and_time(const tc_csr *a, int32_t n, tc_effort e, int warmup, int iters,
                              const float *B, float *C, outcome *out)
{
    tc_plan_opts o;
    tc_plan_opts_init(&o);
    o.n = n;
    o.device = TC_DEVICE_GPU;
    o.effort = e;
    o.cache_dir = "";
    o.b_max_abs = 1;        /* B is uniform in [-1, 1): stated, not measured */
    o.warmup = warmup;
    o.iters = iters;
    tc_error err;
    tc_plan *p;
    if (tc_plan_create(a, &o, &p, &err))
        die("plan", &err);
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    tc_report *r = tc_report_new();
    if (!r || tc_plan_report(p, r, &err))
        die("report", &err);
    char format[128];
    snprintf(out->plan, sizeof out->plan, "%s/%s/%s/%s", info.order,
             format_text(info.format, report_str(r, "plan", "format_params"), format,
                         sizeof format),
             info.variant, info.precision);
    out->plan_s = info.plan_s;
    out->payback = info.payback_calls;
    if (tc_plan_bench(p, B, n, warmup, iters, 0, 0, C, n, r, &err))
        die("bench", &err);
    out->auto_ms = report_num(r, "bench", "plan_ms");
    out->cusparse_ms = report_num(r, "baseline", "median_ms");
    tc_report_free(r);
    tc_compare cmp;
    if (tc_plan_verify(p, B, n, C, n, &cmp, &out->pass, &err))
        die("verify", &err);
    return p;
}

/* The exhaustive plan's timed candidates, for the model's refit. */
static void print_candidates(FILE *f, const char *name, int32_t n, const tc_plan *p,
                             double cusparse_ms)
{
    for (int i = 0; i < tc_plan_candidate_count(p); i++) {
        const tc_plan_candidate *c = tc_plan_candidate_at(p, i);
        char format[128];
        if (c->ms >= 0)
            fprintf(f, "%s\t%d\t%s\t%s\t%s\t%.6g\t%.6g\n", name, n, c->order,
                    format_text(c->format, c->format_params, format, sizeof format), c->variant,
                    c->ms, cusparse_ms);
    }
}

static const char *base_name(const char *path, char *buf, size_t len)
{
    const char *s = strrchr(path, '/');
    snprintf(buf, len, "%s", s ? s + 1 : path);
    char *dot = strstr(buf, ".mtx");
    if (!dot)
        dot = strstr(buf, ".tcf.h5");
    if (dot)
        *dot = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    int warmup = 10, iters = 100, c;
    unsigned levels = (1u << LEVELS) - 1;
    const char *cand_path = NULL;
    while ((c = getopt(argc, argv, "w:i:e:c:")) != -1) {
        if (c == 'w')
            warmup = atoi(optarg);
        else if (c == 'i')
            iters = atoi(optarg);
        else if (c == 'e') {
            levels = parse_levels(optarg);
            if (!levels) {
                fprintf(stderr, "auto: bad levels '%s' (expected a comma list of estimate, "
                                "measure, patient, exhaustive)\n", optarg);
                return 2;
            }
        } else if (c == 'c')
            cand_path = optarg;
        else
            return 2;
    }
    if (argc - optind < 2 || warmup < 0 || iters < 1) {
        fprintf(stderr, "usage: auto [-w WARMUP] [-i ITERS] [-e LEVELS] [-c CANDIDATES.tsv] "
                        "MATRIX N...\n");
        return 2;
    }
    for (int k = optind + 1; k < argc; k++)
        if (atoi(argv[k]) < 1) {
            fprintf(stderr, "auto: bad n '%s'\n", argv[k]);
            return 2;
        }
    tc_error err;
    tc_csr *a;
    tc_mtx_read_opts ro = TC_MTX_READ_DEFAULTS;
    if (tc_mtx_read(argv[optind], &ro, &a, NULL, NULL, &err))
        die(argv[optind], &err);
    FILE *cand = cand_path ? fopen(cand_path, "a") : NULL;
    if (cand_path && !cand) {
        perror(cand_path);
        return 1;
    }
    char name[256];
    base_name(argv[optind], name, sizeof name);
    for (int k = optind + 1; k < argc; k++) {
        const int32_t n = atoi(argv[k]);
        const int64_t nb = (int64_t)a->cols * n;
        double *bd = malloc((size_t)nb * sizeof *bd);
        float *B = malloc((size_t)nb * sizeof *B);
        float *C = malloc((size_t)a->rows * n * sizeof *C);
        if (!bd || !B || !C) {
            fprintf(stderr, "auto: out of memory\n");
            return 1;
        }
        /* fresh operands: the planner tunes on its own B (seed 1) */
        tc_random_fill(bd, nb, 1000 + (uint64_t)n, -1.0, 1.0);
        for (int64_t i = 0; i < nb; i++)
            B[i] = (float)bd[i];
        outcome out[LEVELS];
        for (int l = 0; l < LEVELS; l++) {
            if (!planned(levels, l))
                continue;
            tc_plan *p = plan_and_time(a, n, level[l], warmup, iters, B, C, &out[l]);
            if (cand && l == ORACLE)
                print_candidates(cand, name, n, p, out[l].cusparse_ms);
            tc_plan_free(p);
        }
        const outcome *oracle = planned(levels, ORACLE) ? &out[ORACLE] : NULL;
        for (int l = 0; l < ORACLE; l++) {
            if (!planned(levels, l))
                continue;
            char oracle_ms[32] = "-", vs_oracle[32] = "-";
            if (oracle) {
                snprintf(oracle_ms, sizeof oracle_ms, "%.6g", oracle->auto_ms);
                snprintf(vs_oracle, sizeof vs_oracle, "%.4f", oracle->auto_ms / out[l].auto_ms);
            }
            printf("%s\t%d\t%s\t%s\t%.6g\t%.6g\t%s\t%s\t%.4f\t%s\t%.3f\t%.4g\t%s\n", name, n,
                   level_name[l], out[l].plan, out[l].auto_ms, out[l].cusparse_ms, oracle_ms,
                   oracle ? oracle->plan : "-", out[l].cusparse_ms / out[l].auto_ms, vs_oracle,
                   out[l].plan_s, out[l].payback,
                   out[l].pass && (!oracle || oracle->pass) ? "pass" : "FAIL");
        }
        fflush(stdout);
        free(bd);
        free(B);
        free(C);
    }
    if (cand)
        fclose(cand);
    tc_csr_free(a);
    return 0;
}
