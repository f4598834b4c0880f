/* t_plan_gpu: GPU plans through the public API with what tcmul does not
   exercise: B of unknown range (b_max_abs 0) on an fp16 kernel, measured
   and scaled on the device before each product (by the plan, or by
   rowsplit's fp16 variants as they convert B); a forced reordering whose
   permutation is applied to B and undone on C on the device; leading
   dimensions larger than n; device pointers that are not 16-byte aligned;
   a NaN and an Inf in a B of unknown range on every kernel that could
   spread them; what a timed plan charges for its safeguards; the format's
   settings a plan runs in its info (format_params), as its report says and
   as a plan file gives them; tuning as a race. Skipped where there is no
   CUDA device. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tcsparse.h"
#include "testmat.h"
#include "kernels.h"
#include "gputest.h"
#include "progresslog.h"
#include "tcsparse_plan.h"

/* Plans a with the options, multiplies B (rows of ld floats) on the host,
   and checks C against the float64 reference; returns the plan's info. */
static void check(const tc_csr *a, tc_plan_opts *o, const float *B, int64_t ld,
                  const char *what, tc_plan_info *info)
{
    tc_plan *p = NULL;
    tc_error err;
    tc_status st = tc_plan_create(a, o, &p, &err);
    if (!ok(st == TC_OK, "%s: planned", what)) {
        diag("  %s", err.msg);
        return;
    }
    tc_plan_get_info(p, info);
    float *C = malloc(sizeof *C * (size_t)a->rows * (size_t)ld);
    for (int64_t i = 0; i < (int64_t)a->rows * ld; i++)
        C[i] = -3;
    st = tc_plan_execute_host(p, B, ld, C, ld, &err);
    tc_compare c;
    int pass = 0;
    if (!st)
        st = tc_plan_verify(p, B, ld, C, ld, &c, &pass, &err);
    if (!ok(st == TC_OK && pass, "%s: %s %s (%s) passes the float64 check", what, info->format,
            info->variant, info->precision))
        diag("  %s", st ? err.msg : "");
    int pad = 1;
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = o->n; k < ld; k++)
            pad &= C[i * ld + k] == -3;
    ok(pad, "%s: C's padding untouched", what);
    free(C);
    tc_plan_free(p);
}

/* tc_plan_execute on the caller's device arrays, B and C each starting one
   float past an allocation (4-byte aligned, not 16), on the caller's
   stream; C checked against float64. */
static void check_unaligned(const tc_csr *a, tc_plan_opts *o, const float *B, const char *what)
{
    const int32_t n = o->n;
    const int64_t bn = (int64_t)a->cols * n, cn = (int64_t)a->rows * n;
    tc_error err;
    tc_gpu *g = NULL;
    tc_plan *p = NULL;
    float *dB = NULL, *dC = NULL;
    float *C = malloc(sizeof *C * (size_t)cn);
    tc_status st = tc_gpu_open(0, &g, &err);
    if (!st)
        st = tc_plan_create(a, o, &p, &err);
    if (!st)
        st = tc_gpu_alloc(g, (bn + 1) * (int64_t)sizeof *dB, (void **)&dB, &err);
    if (!st)
        st = tc_gpu_alloc(g, (cn + 1) * (int64_t)sizeof *dC, (void **)&dC, &err);
    if (!st)
        st = tc_gpu_upload(g, dB + 1, B, bn * (int64_t)sizeof *dB, &err);
    if (!st)
        st = tc_plan_execute(p, dB + 1, n, dC + 1, n, tc_gpu_stream(g), &err);
    if (!st)
        st = tc_gpu_download(g, C, dC + 1, cn * (int64_t)sizeof *C, &err);
    tc_compare c;
    int pass = 0;
    if (!st)
        st = tc_plan_verify(p, B, n, C, n, &c, &pass, &err);
    if (!ok(st == TC_OK && pass, "%s: B and C 4 bytes past 16-byte alignment pass the float64 "
            "check", what))
        diag("  %s", st ? err.msg : "");
    tc_plan_free(p);
    if (g) {
        tc_gpu_free(g, dB);
        tc_gpu_free(g, dC);
        tc_gpu_close(g);
    }
    free(C);
}

/* Options for a GPU plan at n, planned at effort e, with no plan cache. */
static tc_plan_opts gpu_opts(int32_t n, tc_effort e)
{
    tc_plan_opts o;
    tc_plan_opts_init(&o);
    o.n = n;
    o.device = TC_DEVICE_GPU;
    o.effort = e;
    o.cache_dir = "";
    return o;
}

/* One product of p on the host arrays, checked against float64. */
static void execute_checked(tc_plan *p, const tc_csr *a, const float *B, int32_t n,
                            const char *what)
{
    tc_error err;
    float *C = malloc(sizeof *C * (size_t)a->rows * (size_t)n);
    tc_status st = tc_plan_execute_host(p, B, n, C, n, &err);
    tc_compare c;
    int pass = 0;
    if (!st)
        st = tc_plan_verify(p, B, n, C, n, &c, &pass, &err);
    if (!ok(st == TC_OK && pass, "%s passes the float64 check", what))
        diag("  %s", st ? err.msg : "");
    free(C);
}

/* Every kernel with a variant recorded as spreading NaN/Inf, planned
   untimed (its first variant, one that spreads where the first does) for a
   B of unknown range:
   a finite B, then one with an Inf and a NaN, then a finite one again
   through the same plan, each exact (kernels/nonfinite.cu redoes C on the
   device only for the second). Planned for a B said to hold an Inf, the
   plan runs a variant that does not spread. */
static void check_nonfinite_guard(const tc_csr *a, int32_t n)
{
    float *B = malloc(sizeof *B * (size_t)a->cols * (size_t)n);
    tc_plan_opts o = gpu_opts(n, TC_EFFORT_ESTIMATE);
    for (int i = 0; i < tc_kernel_count(); i++) {
        const tc_kernel *k = tc_kernel_at(i);
        if (!k || !k->variant_spreads_nonfinite)
            continue;
        o.format = k->format;
        o.b_max_abs = 0;
        tc_plan *p = NULL;
        tc_error err;
        if (!ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "%s, B of unknown range: planned",
                k->format)) {
            diag("  %s", err.msg);
            continue;
        }
        tc_plan_info info;
        tc_plan_get_info(p, &info);
        const int v = tc_kernel_variant_find(k, info.variant);
        if (k->variant_spreads_nonfinite[0])
            ok(v >= 0 && k->variant_spreads_nonfinite[v],
               "... untimed, %s runs (it spreads NaN/Inf)", info.variant);
        for (int round = 0; round < 3; round++) {
            for (int64_t e = 0; e < (int64_t)a->cols * n; e++)
                B[e] = (float)((e * 7919 + round) % 2001) / 1000 - 1;
            if (round == 1) {
                B[0] = INFINITY;
                B[(int64_t)a->cols * n - 1] = NAN;
            }
            execute_checked(p, a, B, n, round == 1 ? "... an Inf in B's first row and a NaN in "
                            "its last: exactly their rows of C not finite, the rest" :
                            round ? "... a finite B again" : "... a finite B");
        }
        tc_plan_free(p);
        o.b_max_abs = INFINITY;
        if (tc_plan_create(a, &o, &p, &err)) {
            ok(0, "%s, B said to hold an Inf: planned", k->format);
            diag("  %s", err.msg);
            continue;
        }
        tc_plan_get_info(p, &info);
        const int safe = tc_kernel_variant_find(k, info.variant);
        ok(safe >= 0 && !k->variant_spreads_nonfinite[safe],
           "%s, B said to hold an Inf: %s runs, which does not spread it", k->format,
           info.variant);
        execute_checked(p, a, B, n, "... its product");
        tc_plan_free(p);
    }
    free(B);
}

/* max|x| of x on the device (tc_gpu_max_abs into dmax[0], zeroed by its
   memset, its other slot unused; h uploaded to d first). */
static float device_max(tc_gpu *g, const float *h, float *d, int64_t count, int64_t rows,
                        int32_t n, int64_t ld, float *dmax)
{
    tc_error err;
    float m = -1;
    if (tc_gpu_upload(g, d, h, count * (int64_t)sizeof *h, &err) != TC_OK ||
        tc_gpu_max_abs(g, d, rows, n, ld, dmax, NULL, &err) != TC_OK ||
        tc_gpu_download(g, &m, dmax, sizeof m, &err) != TC_OK)
        diag("  %s", err.msg);
    return m;
}

/* Two slots in turn, as a plan measures (tc_plan_measure_b): into slot
   1, which is 0, with slot 0 holding a stale 9: slot 1 gets max|x| = 3
   and slot 0 is zeroed in the same launch, no memset; then an empty x
   into slot 0 leaves 0 there and zeroes slot 1. */
static void check_max_slots(tc_gpu *g, const float *d, int64_t rows, int32_t n, float *dmax)
{
    tc_error err;
    float slots[2] = { 9, 0 };
    tc_status st = tc_gpu_upload(g, dmax, slots, sizeof slots, &err);
    if (!st)
        st = tc_gpu_max_abs(g, d, rows, n, n, dmax + 1, dmax, &err);
    if (!st)
        st = tc_gpu_download(g, slots, dmax, sizeof slots, &err);
    ok(st == TC_OK && slots[0] == 0 && slots[1] == 3,
       "max|B| into slot 1: 3 there (%g), slot 0 zeroed (%g)", slots[1], slots[0]);
    if (!st)
        st = tc_gpu_max_abs(g, d, 0, n, n, dmax, dmax + 1, &err);
    if (!st)
        st = tc_gpu_download(g, slots, dmax, sizeof slots, &err);
    ok(st == TC_OK && slots[0] == 0 && slots[1] == 0,
       "max|B| of no rows into slot 0: 0 (%g), slot 1 zeroed (%g)", slots[0], slots[1]);
    if (st)
        diag("  %s", err.msg);
}

/* tc_gpu_max_abs, exactly: packed and 16-byte aligned with its largest in
   the elements past the last float4 (and into two slots in turn); rows of
   7 in rows of 9 whose padding holds larger values (not B's); one float
   off alignment; NaN above Inf. 70001 rows: past the 65535 of a grid's
   y. */
static void check_max_abs(void)
{
    const int64_t rows = 70001, ld = 9, count = rows * ld + 1;
    const int32_t n = 7;
    tc_gpu *g = NULL;
    tc_error err;
    float *h = malloc(sizeof *h * (size_t)count), *d = NULL, *dmax = NULL;
    tc_status st = tc_gpu_open(0, &g, &err);
    if (!st)
        st = tc_gpu_alloc(g, count * (int64_t)sizeof *h, (void **)&d, &err);
    if (!st)
        st = tc_gpu_alloc(g, 2 * sizeof *dmax, (void **)&dmax, &err);
    if (!ok(st == TC_OK, "max|B|: device memory")) {
        diag("  %s", err.msg);
        free(h);
        return;
    }
    for (int64_t i = 0; i < count; i++)
        h[i] = (float)sin((double)i) / 2;
    h[rows * n - 1] = -3;
    float m = device_max(g, h, d, count, rows, n, n, dmax);
    ok(m == 3, "max|B|, packed: its largest the last element, past the last float4 (%g)", m);
    check_max_slots(g, d, rows, n, dmax);
    for (int64_t i = 0; i < rows; i++)
        h[i * ld + 7] = h[i * ld + 8] = 100;
    h[5 * ld + 3] = -7;
    m = device_max(g, h, d, count, rows, n, ld, dmax);
    ok(m == 7, "max|B|, rows of 7 in rows of 9: the padding's 100 not read (%g)", m);
    m = device_max(g, h + 1, d + 1, count - 1, rows * ld / 7, 7, 7, dmax);
    ok(m == 100, "max|B|, one float off 16-byte alignment (%g)", m);
    h[1000] = INFINITY;
    h[2000] = NAN;
    ok(isnan(device_max(g, h, d, count, rows, n, ld, dmax)), "max|B|: NaN above Inf");
    tc_gpu_free(g, d);
    tc_gpu_free(g, dmax);
    tc_gpu_close(g);
    free(h);
}

/* rowsplit's fp16 variants, rstile's tc, tc-fly and tc-f32 and bcsr's tc
   scale B themselves as they convert or round it, and C back (kernels.h,
   variant_scales_b): for B (rows of ld floats, up to 1e6) and for B times
   1e-12 (below fp16's normal range), rowsplit's whole rows and the pieces
   of the split dense row, rstile's TC blocks and residual rows (tc's from
   the scaled fp16 B, tc-fly's and tc-f32's from float32 B as it is),
   bcsr's blocks, in the given order and after wjaccard (B's rows
   gathered, C's scattered, neither scaled there). */
static void check_fp16_scaled_in_kernel(const tc_csr *a, tc_plan_opts *o, const float *B,
                                        int64_t ld)
{
    const int64_t count = (int64_t)a->cols * ld;
    float *tiny = malloc(sizeof *tiny * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        tiny[i] = B[i] * 1e-12f;
    const char *formats[] = { "rowsplit", "rowsplit", "rstile", "rstile", "rstile", "bcsr" };
    const char *variants[] = { "half", "lockstep-half", "tc", "tc-fly", "tc-f32", "tc" };
    const char *orders[] = { "given", "wjaccard" };
    for (size_t v = 0; v < sizeof formats / sizeof *formats; v++)
        for (int r = 0; r < 2; r++)
            for (int t = 0; t < 2; t++) {
                char what[128];
                snprintf(what, sizeof what, "%s %s in order %s, B of %s", formats[v], variants[v],
                         orders[r], t ? "1e-6 and 1e-19" : "1e6 and 1e-7");
                o->format = formats[v];
                o->variant = variants[v];
                o->order = orders[r];
                tc_plan_info info;
                check(a, o, t ? tiny : B, ld, what, &info);
                ok(strcmp(info.precision, "fp16") == 0 && info.b_scaled == 1,
                   "... fp16 (%s), B scaled (%d)", info.precision, info.b_scaled);
            }
    o->format = NULL;
    o->variant = NULL;
    o->order = NULL;
    free(tiny);
}

/* Plans a with o and takes its info (the plan freed): 1 when it planned,
   as the test `what` says. */
static int planned_info(const tc_csr *a, const tc_plan_opts *o, const char *what,
                        tc_plan_info *info)
{
    tc_plan *p = NULL;
    tc_error err;
    if (!ok(tc_plan_create(a, o, &p, &err) == TC_OK, "%s: planned", what)) {
        diag("  %s", err.msg);
        return 0;
    }
    tc_plan_get_info(p, info);
    tc_plan_free(p);
    return 1;
}

/* A timed plan charges its path what its safeguards cost (plan/
   safeguard_time.c): rstile (fp16, its tensor-core variants spread
   NaN/Inf) for a B of unknown range pays for max|B|, the guard and, but
   for tc, tc-fly and tc-f32, scaled copies, and for a B stated within
   fp16's range pays nothing; rowsplit's half, which scales B itself and
   spreads nothing, for max|B| alone: less than rstile. */
static void check_safeguard_ms(const tc_csr *a, int32_t n)
{
    tc_plan_opts o = gpu_opts(n, TC_EFFORT_MEASURE);
    o.format = "rstile";
    o.iters = 20;
    const double ranges[2] = { 0, 1 };
    double rstile_ms = -1;
    tc_plan_info info;
    for (int r = 0; r < 2; r++) {
        o.b_max_abs = ranges[r];
        char what[64];
        snprintf(what, sizeof what, "rstile, measured, b_max_abs %g", ranges[r]);
        if (!planned_info(a, &o, what, &info))
            continue;
        if (r == 0)
            ok((rstile_ms = info.safeguard_ms) > 0 && info.safeguard_ms < info.ms,
               "... B's range open: its safeguards cost %g of its %g ms", info.safeguard_ms,
               info.ms);
        else
            ok(info.safeguard_ms == 0 && info.ms > 0, "... B's range stated: no safeguards "
               "(%g ms), %g ms in all", info.safeguard_ms, info.ms);
    }
    o.format = "rowsplit";
    o.variant = "half";
    o.b_max_abs = 0;
    if (planned_info(a, &o, "rowsplit half, measured", &info))
        ok(info.safeguard_ms > 0 && info.safeguard_ms < rstile_ms,
           "... B's range open: max|B| alone, %g ms, less than rstile's with its guard, "
           "%g ms", info.safeguard_ms, rstile_ms);
}

/* The report's value of plan.KEY, a string. */
static void report_plan_str(const tc_plan *p, const char *key, char *out, size_t len)
{
    tc_report *r = tc_report_new();
    tc_error err;
    snprintf(out, len, "(none)");
    if (r && tc_plan_report(p, r, &err) == TC_OK)
        for (int i = 0; i < tc_report_count(r); i++) {
            const tc_report_entry *e = tc_report_at(r, i);
            if (strcmp(e->section, "plan") == 0 && strcmp(e->key, key) == 0)
                snprintf(out, len, "%s", e->str);
        }
    tc_report_free(r);
}

/* A measured plan times the host's side of each candidate too and chooses
   by the larger of the two times (tc_loop_ms): the candidates come best
   first by that, the first is the plan, and the plan's host_ms is its. By
   the GPU's time alone a plan could not see products whose launches take
   the host longer than the kernel (bench/NOTES.md, "The host's side of a
   product"). */
static void check_loop_choice(const tc_csr *a, int32_t n)
{
    tc_plan_opts o = gpu_opts(n, TC_EFFORT_MEASURE);
    o.iters = 20;
    tc_plan *p = NULL;
    tc_error err;
    if (!ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "measured plan, B's range open")) {
        diag("  %s", err.msg);
        return;
    }
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    ok(info.host_ms > 0 && info.host_ms < 1000, "... the host's time to queue a product: %g ms",
       info.host_ms);
    int sorted = 1, timed = 0;
    double last = 0;
    const tc_plan_candidate *first = NULL;
    for (int i = 0; i < tc_plan_candidate_count(p); i++) {
        const tc_plan_candidate *c = tc_plan_candidate_at(p, i);
        if (c->ms < 0)
            continue;
        const double loop = tc_loop_ms(c->ms, c->host_ms);
        sorted &= c->host_ms > 0 && loop >= last;
        last = loop;
        first = first ? first : c;
        timed++;
    }
    ok(timed >= 2 && sorted, "... %d timed candidates, each with its host's time, best first "
       "by the larger of the two", timed);
    ok(first && strcmp(first->format, info.format) == 0 && first->ms == info.ms &&
           first->host_ms == info.host_ms,
       "... the plan is the first (%s, %g ms on the GPU, %g on the host)", info.format, info.ms,
       info.host_ms);
    char why[1024];
    report_plan_str(p, "why", why, sizeof why);
    ok((strstr(why, "waits on the host") != NULL) == (info.host_ms > info.ms),
       "... its why says the host is the slower side exactly when it is: %s", why);
    tc_plan_free(p);
}

/* Tuning is a race (kernels.h, TC_TUNE_MARGIN): at PATIENT a candidate
   timed over its first TC_TUNE_FIRST runs only says so, and is slower in a
   loop than the margin times the plan (it lost to a candidate at least as
   slow as the plan); the plan itself is timed over every run. EXHAUSTIVE
   times every candidate to the end. Each plan's progress (plan/
   progress.c) goes one way and ends at the whole. */
static void check_race(const tc_csr *a, int32_t n)
{
    for (int e = 0; e < 2; e++) {
        tc_plan_opts o = gpu_opts(n, e ? TC_EFFORT_EXHAUSTIVE : TC_EFFORT_PATIENT);
        o.iters = 3 * TC_TUNE_FIRST;
        progress_log l = { 0, 0, 0, 0 };
        const tc_progress prog = { log_progress, &l };
        o.progress = &prog;
        const char *level = e ? "exhaustive" : "patient";
        tc_plan *p = NULL;
        tc_error err;
        if (!ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "%s plan, %d runs a timing", level,
                o.iters)) {
            diag("  %s", err.msg);
            continue;
        }
        tc_plan_info info;
        tc_plan_get_info(p, &info);
        const double plan_loop = tc_loop_ms(info.ms, info.host_ms);
        int timed = 0, raced = 0, slower = 1, plan_raced = 0;
        for (int i = 0; i < tc_plan_candidate_count(p); i++) {
            const tc_plan_candidate *c = tc_plan_candidate_at(p, i);
            if (c->ms < 0)
                continue;
            timed++;
            if (strncmp(c->note, "timed over its first", 20) != 0)
                continue;
            raced++;
            slower &= tc_loop_ms(c->ms, c->host_ms) > TC_TUNE_MARGIN * plan_loop;
            plan_raced |= timed == 1;   /* best first: the plan */
        }
        if (e)
            ok(raced == 0, "... none of its %d timed candidates raced (%d did)", timed, raced);
        else
            ok(raced > 0 && raced < timed, "... %d of its %d timed candidates raced", raced,
               timed);
        ok(slower, "... each that raced is over %g times the plan's %g ms", TC_TUNE_MARGIN,
           plan_loop);
        ok(!plan_raced, "... the plan (%s) timed over every run", info.format);
        ok(l.reports > timed && progress_log_whole(&l),
           "... its progress: %d reports, one way, ending at the whole", l.reports);
        tc_plan_free(p);
    }
}

/* A patient rowsplit plan's info.format_params is what its report says;
   saved, its file's format_params line set to seg=64,order=1, the plan
   read from it runs those and says so. */
static void check_format_params(const tc_csr *a, int32_t n)
{
    tc_plan_opts o = gpu_opts(n, TC_EFFORT_PATIENT);
    o.format = "rowsplit";
    o.iters = 10;
    tc_plan *p = NULL;
    tc_error err;
    if (!ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "rowsplit, patient: planned")) {
        diag("  %s", err.msg);
        return;
    }
    tc_plan_info info;
    tc_plan_get_info(p, &info);
    /* rowsplit's cuts of one and two waves of this device at n, alone and
       with its wave settings rowcost=1 and 4, timed (this matrix's default
       cut is a fraction of a wave) */
    const tc_kernel *k = tc_kernel_find("rowsplit");
    tc_gpu *g = NULL;
    const int64_t wave = k && k->wave_items && tc_gpu_open(0, &g, &err) == TC_OK
                             ? k->wave_items(tc_gpu_get_info(g), n)
                             : 0;
    tc_gpu_close(g);
    ok(wave > 0, "rowsplit's wave at n = %d: %lld segments", (int)n, (long long)wave);
    static const char *const with[] = { "", ",rowcost=1", ",rowcost=4" };
    for (int64_t w = 1; w <= 2; w++)
        for (size_t s = 0; s < sizeof with / sizeof *with; s++) {
            char setting[48];
            snprintf(setting, sizeof setting, "segs=%lld%s", (long long)(w * wave), with[s]);
            int timed = 0;
            for (int i = 0; i < tc_plan_candidate_count(p); i++) {
                const tc_plan_candidate *c = tc_plan_candidate_at(p, i);
                timed |= strcmp(c->format, "rowsplit") == 0 &&
                         strcmp(c->format_params, setting) == 0 && c->ms > 0;
            }
            ok(timed, "... a candidate at %s (%lld wave%s), timed", setting, (long long)w,
               w > 1 ? "s" : "");
        }
    char want[256];
    report_plan_str(p, "format_params", want, sizeof want);
    is_str(info.format_params, want, "... info.format_params is the report's plan.format_params");
    char path[] = "/tmp/t_plan_gpu.XXXXXX";
    const int fd = mkstemp(path);
    ok(fd >= 0 && tc_plan_save(p, path, &err) == TC_OK, "... saved");
    tc_plan_free(p);
    /* the file with its format_params line replaced */
    char text[8192], edited[8192];
    FILE *f = fopen(path, "r");
    const size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[got] = '\0';
    char *line = strstr(text, "\nformat_params\t"), *end = line ? strchr(line + 1, '\n') : NULL;
    ok(line && end, "... the file has a format_params line");
    if (line && end) {
        snprintf(edited, sizeof edited, "%.*s\nformat_params\tseg=64,order=1%s",
                 (int)(line - text), text, end);
        f = fopen(path, "w");
        if (f) {
            fputs(edited, f);
            fclose(f);
        }
    }
    o.plan_file = path;
    if (ok(tc_plan_create(a, &o, &p, &err) == TC_OK, "... the edited file planned")) {
        tc_plan_get_info(p, &info);
        ok(info.reused && strcmp(info.format_params, "seg=64,order=1") == 0,
           "... reused, info.format_params seg=64,order=1 (%s)", info.format_params);
        report_plan_str(p, "format_params", want, sizeof want);
        is_str(want, "seg=64,order=1", "... and its report says so");
        tc_plan_free(p);
    } else {
        diag("  %s", err.msg);
    }
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
}

int main(void)
{
    tap_need_gpu();
    tc_csr *a = tap_random_matrix(3000, 2500, 9, 5, 17, 0);
    const int32_t n = 24;
    const int64_t ld = 29;
    float *B = malloc(sizeof *B * 2500 * ld);
    for (int64_t i = 0; i < 2500 * ld; i++)
        B[i] = i % 3 == 0 ? 1e6f : i % 3 == 1 ? 1e-7f : -2.5e5f;
    tc_plan_opts o = gpu_opts(n, TC_EFFORT_DEFAULT);
    tc_plan_info info;
    const char *fp16[] = { "rstile", "bcsr", "bsb" };
    for (int f = 0; f < 3; f++) {
        o.format = fp16[f];
        check(a, &o, B, ld, fp16[f], &info);
        is_str(info.precision, "fp16", "... fp16");
        is_int(info.b_scaled, 1, "... B scaled (its range measured on the device)");
    }
    o.format = "rstile";
    o.order = "wjaccard";
    check(a, &o, B, ld, "rstile after wjaccard, B of 1e6 and 1e-7", &info);
    is_str(info.order, "wjaccard", "... in order wjaccard");
    o.order = NULL;
    check_fp16_scaled_in_kernel(a, &o, B, ld);
    for (int64_t i = 0; i < 2500 * ld; i++)
        B[i] = (float)((i * 7919) % 2001) / 1000 - 1;
    /* rowsplit's vec4-prefetch asks L2 for B's 16-byte units only
       (kernels/prefetch.cuh): forced, on a B that starts between two */
    const struct { const char *format, *variant; } paths[] = {
        { "rstile", NULL },   { "brp", NULL },      { "hrpb", NULL }, { "bcsr", NULL },
        { "rowsplit", NULL }, { "rowsplit", "vec4-prefetch" },      { "csr", NULL },
    };
    for (size_t f = 0; f < sizeof paths / sizeof paths[0]; f++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s%s", paths[f].format, paths[f].variant ? " " : "",
                 paths[f].variant ? paths[f].variant : "");
        o.format = paths[f].format;
        o.variant = paths[f].variant;
        for (int64_t j = 0; j < 2500; j++)
            memmove(B + j * n, B + j * ld, sizeof *B * (size_t)n);
        check_unaligned(a, &o, B, label);
        for (int64_t j = 2499; j >= 0; j--)
            memmove(B + j * ld, B + j * n, sizeof *B * (size_t)n);
    }
    o.variant = NULL;
    check_max_abs();
    check_nonfinite_guard(a, n);
    check_safeguard_ms(a, n);
    check_loop_choice(a, n);
    check_format_params(a, n);
    check_race(a, n);
    o.format = "csr";
    o.order = "rcm";
    o.effort = TC_EFFORT_MEASURE;
    check(a, &o, B, ld, "cuSPARSE after rcm, measured", &info);
    ok(info.ms > 0 && info.cusparse_ms > 0, "... timed (%g ms, cuSPARSE in the given order %g ms)",
       info.ms, info.cusparse_ms);
    free(B);
    tc_csr_free(a);
    return done_testing();
}
