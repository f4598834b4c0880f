/* tcstat: density statistics of sparse matrices: the figures the papers
   tabulate, for your matrix. All figures come from the library
   (tc_stats_report, tc_format_stats_report) and, with --advise, from the
   planner's model (tc_plan_advise); this file parses options and prints. */
#include "config.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"
#include "tcsparse_plan.h"

static void usage(void)
{
    printf(
"Usage: %s [OPTIONS] MATRIX...\n"
"Print density statistics of sparse matrices: shape, density, symmetry,\n"
"row and column lengths, bandwidth, and the tensor-core tiling of 16-row\n"
"windows with columns compacted per window (TC blocks per row window and\n"
"nonzeros per TC block: mean, CV, deciles), and the TCU-Synergy of cuTeSpMM.\n"
"\n"
"Each MATRIX is a matrix of any kind tcconv reads (.mtx, .mtx.gz, .tcf.h5,\n"
"edge lists, ...: by content, else by name), or - for Matrix Market on\n"
"standard input.\n"
"\n"
"Options:\n"
TOOL_INPUT_HELP
"  -f, --format LIST        also give the figures of these tensor-core formats\n"
"                           (comma list or 'all'), read from a .tcf.h5 that\n"
"                           stores them, else built with default parameters\n"
"                           with the traffic model's predicted DRAM bytes of\n"
"                           one product (section traffic.FORMAT)\n"
"  -b, --block HxW          tiling of H-row windows into H x W blocks\n"
"                           (default 16x8; H and W in 1..256)\n"
"  -o, --output FILE        write the report to FILE (default: standard output)\n"
"      --tsv                file, section, key, value lines\n"
"      --json               a JSON array of {file, report} objects\n"
"      --advise             instead of the statistics, the planner's model: every\n"
"                           (row order, GPU format) candidate ranked by its\n"
"                           predicted speedup over cuSPARSE, with its reasons\n"
"  -n, --cols N             the columns of B to advise for (--advise) or to\n"
"                           predict the traffic at (--format; default 32)\n"
"      --l2 MB              --format: the L2 cache of the traffic model, in MiB\n"
"                           (default 25, half an H100's: what random\n"
"                           gathers find of it)\n"
"      --inflight ROWS      --format: rows of A whose windows run at once\n"
"                           (default 8448: 132 SMs x 4 blocks x 16 rows)\n"
"      --b-half             --format: the traffic of a kernel that converts B to\n"
"                           fp16 first and gathers 2 bytes an element (rstile's\n"
"                           and bcsr's variant tc, bsb); default: float32 B\n"
"      --accuracy P         --advise: only paths whose tolerance is at most\n"
"                           precision P's (fp32, tf32 or fp16)\n"
"  -t, --threads N          threads to count with (default: $TC_THREADS, else\n"
"                           all CPUs)\n"
"  -q, --quiet              no warnings, no progress bar\n"
"  -v, --verbose            say how long each step took; show HDF5's own errors\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Examples:\n"
"  %s graph.mtx.gz\n"
"  %s --json -f all graph.tcf.h5\n"
"  %s --tsv *.mtx.gz | awk -F'\\t' '$3 == \"blocks\"'\n"
"  %s --advise --cols 128 graph.mtx.gz\n"
"  %s -f rstile,csr --cols 128 --tsv graph.tcf.h5 | grep dram_bytes\n",
        tool_name, tool_name, tool_name, tool_name, tool_name, tool_name);
}

enum { OPT_TSV = 256, OPT_JSON, OPT_ADVISE, OPT_ACCURACY, OPT_L2, OPT_INFLIGHT, OPT_B_HALF };

/* --advise without --cols: the n the model advises for. 32 is the
   narrowest B the benchmarks time, where tensor cores gain least over
   cuSPARSE, so a format advised at 32 is not advised on wide B alone. */
#define DEFAULT_COLS 32

typedef struct options {
    const tc_format *formats[32];
    int nformats;
    int h, w;
    int advise;
    long cols;              /* 0: not given */
    long l2_mib, inflight;  /* 0: not given */
    int b_half;             /* --b-half */
    const char *accuracy;
    const char *output;
    tool_out_style style;
    char **inputs;
    int ninputs;
} options;

/* "16x8" into h and w, each 1..256. */
static void parse_block(const char *s, int *h, int *w)
{
    char hs[16], ws[16];
    const char *x = strchr(s, 'x');
    if (!x || x == s || (size_t)(x - s) >= sizeof hs || strlen(x + 1) >= sizeof ws)
        tool_usage_error("--block: expected HxW (e.g. 16x8), found '%s'", s);
    memcpy(hs, s, (size_t)(x - s));
    hs[x - s] = '\0';
    strcpy(ws, x + 1);
    *h = (int)tool_parse_long("--block", hs, 1, 256);
    *w = (int)tool_parse_long("--block", ws, 1, 256);
}

/* --cols belongs to --advise and to the traffic model of --format,
   --accuracy to --advise, --l2, --inflight and --b-half to the traffic
   model, and -f and --block to the statistics --advise replaces. */
static void check_advise_options(options *o, int block_given)
{
    if (!o->advise && o->accuracy)
        tool_usage_error("--accuracy: only with --advise");
    if (!o->advise && !o->nformats && o->cols)
        tool_usage_error("--cols: only with --advise or --format");
    if (!o->nformats && (o->l2_mib || o->inflight || o->b_half))
        tool_usage_error("%s: only with --format",
                         o->l2_mib ? "--l2" : o->inflight ? "--inflight" : "--b-half");
    if (o->advise && (o->nformats || block_given))
        tool_usage_error("--advise: %s does not apply (the model ranks every format)",
                         o->nformats ? "--format" : "--block");
    if (!o->cols)
        o->cols = DEFAULT_COLS;
    if (!o->l2_mib)
        o->l2_mib = TC_TRAFFIC_L2_BYTES >> 20;
    if (!o->inflight)
        o->inflight = TC_TRAFFIC_INFLIGHT_ROWS;
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "block", required_argument, NULL, 'b' },
        { "output", required_argument, NULL, 'o' },
        { "tsv", no_argument, NULL, OPT_TSV },
        { "json", no_argument, NULL, OPT_JSON },
        { "advise", no_argument, NULL, OPT_ADVISE },
        { "cols", required_argument, NULL, 'n' },
        { "accuracy", required_argument, NULL, OPT_ACCURACY },
        { "l2", required_argument, NULL, OPT_L2 },
        { "inflight", required_argument, NULL, OPT_INFLIGHT },
        { "b-half", no_argument, NULL, OPT_B_HALF },
        TOOL_COMMON_LONGOPTS
    };
    memset(o, 0, sizeof *o);
    o->h = 16;
    o->w = 8;
    o->output = "-";
    o->style = TOOL_OUT_TEXT;
    tc_error err;
    int c, block_given = 0;
    while ((c = getopt_long(argc, argv, ":f:b:o:n:" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (tc_format_list_parse(optarg, o->formats, 32, &o->nformats, &err))
                tool_usage_error("--format: %s", err.msg);
            break;
        case 'b': parse_block(optarg, &o->h, &o->w); block_given = 1; break;
        case 'o': o->output = optarg; break;
        case OPT_TSV: tool_set_out_style(&o->style, TOOL_OUT_TSV); break;
        case OPT_JSON: tool_set_out_style(&o->style, TOOL_OUT_JSON); break;
        case OPT_ADVISE: o->advise = 1; break;
        case 'n': o->cols = tool_parse_long("--cols", optarg, 1, INT32_MAX); break;
        case OPT_ACCURACY: o->accuracy = tool_parse_accuracy(optarg); break;
        case OPT_L2: o->l2_mib = tool_parse_long("--l2", optarg, 1, 1 << 20); break;
        case OPT_INFLIGHT:
            o->inflight = tool_parse_long("--inflight", optarg, 1, INT32_MAX);
            break;
        case OPT_B_HALF: o->b_half = 1; break;
        default: tool_common_option(c, argv, usage);
        }
    }
    check_advise_options(o, block_given);
    if (optind == argc)
        tool_usage_error("no input file");
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    int stdin_count = 0;
    for (int i = 0; i < o->ninputs; i++)
        stdin_count += strcmp(o->inputs[i], "-") == 0;
    if (stdin_count > 1)
        tool_usage_error("standard input (-) given more than once");
    tool_check_text_output("--output", o->output);
    const tool_output out = { "--output", o->output, 0 };
    tool_check_outputs(&out, 1, (const char *const *)o->inputs, o->ninputs);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* The figures of one format and its traffic model. */
static tc_status format_figures(const options *o, const tc_fmt *f, const tc_csr *a,
                                tc_report *r, tc_error *err)
{
    tc_status st = tc_format_stats_report(f, a, r, err);
    return st ? st : tc_format_traffic_report(f, a, (int32_t)o->cols, (int64_t)o->l2_mib << 20,
                                              (int32_t)o->inflight, o->b_half ? 2 : 4, r, err);
}

/* The figures of format f for m: the copy stored in the .tcf.h5 when there
   is one, else built now. */
static tc_status add_format(const options *o, const tool_matrix *m, const tc_format *f,
                            tc_report *r, tc_error *err)
{
    for (int k = 0; m->tcf && k < m->tcf->nformats; k++)
        if (tc_fmt_format(m->tcf->formats[k]) == f)
            return format_figures(o, m->tcf->formats[k], m->a, r, err);
    tc_params defaults = { 0 };
    tc_fmt *built;
    tc_status st = tc_fmt_build(f, m->a, &defaults, &built, err);
    if (!st)
        st = format_figures(o, built, m->a, r, err);
    tc_fmt_free(built);
    return st;
}

/* The choice `tcconv -f auto` recorded in a .tcf.h5, section "auto". */
static tc_status add_auto_choice(const tc_auto_choice *c, tc_report *r, tc_error *err)
{
    tc_status st;
    (void)((st = tc_report_str(r, "auto", "format", c->format,
                               "what tcconv -f auto built (csr: /matrix, for cuSPARSE)")) ||
           (st = tc_report_int(r, "auto", "n", c->n, "columns of B it was picked for")) ||
           (st = tc_report_str(r, "auto", "accuracy", c->accuracy, NULL)) ||
           (st = tc_report_num(r, "auto", "predicted_speedup", c->predicted_speedup,
                               "over cuSPARSE, by the model")) ||
           (st = tc_report_str(r, "auto", "model", c->model, "fitted at commit, on")));
    if (st)
        tc_error_set(err, st, "out of memory");
    return st;
}

/* Every figure of one input; the library's message is prefixed with the
   file name when it does not already start with it. */
static tc_report *stat_one(const options *o, const char *path)
{
    tc_error err;
    tool_matrix m;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (tool_load_matrix(path, o->nformats > 0, &m, &err))
        tool_die(&err);
    tool_info("%s: read %d x %d, %lld nonzeros in %.3f s", path, m.a->rows, m.a->cols,
              (long long)m.a->nnz, seconds_since(&t0));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tc_report *r = tc_report_new();
    tc_status st;
    if (!r) {
        st = tc_error_set(&err, TC_ERR_NOMEM, "out of memory");
    } else if (o->advise) {
        st = tc_plan_advise(m.a, (int32_t)o->cols, o->accuracy, r, tool_progress("advise"),
                            &err);
        tool_progress_end();
    } else {
        st = tc_stats_report(m.a, o->h, o->w, r, &err);
        if (!st && m.tcf && m.tcf->auto_choice.format)
            st = add_auto_choice(&m.tcf->auto_choice, r, &err);
    }
    tool_info("%s: %s in %.3f s", path, o->advise ? "advice" : "statistics",
              seconds_since(&t0));
    for (int i = 0; !st && i < o->nformats; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        st = add_format(o, &m, o->formats[i], r, &err);
        tool_info("%s: format %s in %.3f s", path, tc_format_name(o->formats[i]),
                  seconds_since(&t0));
    }
    tool_matrix_free(&m);
    if (st) {
        if (strncmp(err.msg, path, strlen(path)) != 0)
            tc_error_prefix(&err, st, "%s", path);
        tool_die(&err);
    }
    return r;
}

/* The value of entry e as text, for the advice table. */
static void entry_text(const tc_report_entry *e, char *buf, size_t n)
{
    if (e->is_str)
        snprintf(buf, n, "%s", e->str);
    else if (e->is_int)
        snprintf(buf, n, "%lld", (long long)e->ival);
    else
        snprintf(buf, n, "%.2f", e->num);
}

/* One advice report as people read it: its "advice" figures as "key:
   value" lines, then an aligned table of the candidates ("advice.R"
   sections), best first. The figures behind each are in its reason; --tsv
   and --json give them all. */
static void print_advice_table(FILE *fp, const tc_report *r)
{
    enum { COLS = 4 };
    static const char *const keys[COLS] = { "order", "format", "predicted_speedup", "reason" };
    int width[COLS] = { 5, 6, 7, 0 };
    char val[512];
    /* pass 0 prints the heading lines and measures the columns; pass 1
       prints the table */
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            fprintf(fp, "\n%4s  %-*s  %-*s  %*s  %s\n", "rank", width[0], "order", width[1],
                    "format", width[2], "speedup", "reason");
        for (int i = 0; i < tc_report_count(r); i++) {
            const tc_report_entry *e = tc_report_at(r, i);
            entry_text(e, val, sizeof val);
            if (!pass && strcmp(e->section, "advice") == 0)
                fprintf(fp, "%s: %s\n", e->key, val);
            if (strncmp(e->section, "advice.", 7) != 0)
                continue;
            int k = 0;
            while (k < COLS && strcmp(e->key, keys[k]) != 0)
                k++;
            if (k == COLS)
                continue;
            int len = (int)strlen(val);
            if (!pass && len > width[k])
                width[k] = len;
            else if (pass && k == 0)
                fprintf(fp, "%4s  %-*s", e->section + 7, width[0], val);
            else if (pass && k == 3)
                fprintf(fp, "  %s\n", val);
            else if (pass)
                fprintf(fp, k == 2 ? "  %*s" : "  %-*s", width[k], val);
        }
    }
}

static void print_advice(FILE *fp, const char *const *files, tc_report *const *reports, int n)
{
    for (int i = 0; i < n; i++) {
        if (n > 1)
            fprintf(fp, "%s==> %s <==\n", i ? "\n" : "", files[i]);
        print_advice_table(fp, reports[i]);
    }
}

int main(int argc, char **argv)
{
    tool_init("tcstat", argc, argv);
    options o;
    parse_args(argc, argv, &o);

    /* Everything is computed before anything is written, so that a failure
       on any input leaves the output untouched. */
    tc_error err;
    tc_report **reports = tc_calloc_array(o.ninputs, sizeof *reports, &err);
    if (!reports)
        tool_die(&err);
    for (int i = 0; i < o.ninputs; i++)
        reports[i] = stat_one(&o, o.inputs[i]);

    tc_atomic out;
    if (tc_atomic_open(&out, o.output, 1, &err))
        tool_die(&err);
    if (o.advise && o.style == TOOL_OUT_TEXT)
        print_advice(out.fp, (const char *const *)o.inputs, reports, o.ninputs);
    else
        tool_print_reports(out.fp, (const char *const *)o.inputs, reports, o.ninputs,
                           o.style);
    if (tc_atomic_commit(&out, &err))
        tool_die(&err);
    for (int i = 0; i < o.ninputs; i++)
        tc_report_free(reports[i]);
    free(reports);
    return 0;
}
