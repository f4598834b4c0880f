/* tcreorder: row reorderings that raise tensor-core block density. Computes
   (or reads) a row permutation, writes the reordered matrix with its
   /permutation and/or the permutation as text, and reports the TC block
   count before and after. The methods live in lib/reorder/. */
#include "config.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "picture.h"

static void usage(void)
{
    printf(
"Usage: %s (--method NAME | --apply PERMFILE) [OPTIONS] INPUT\n"
"Reorder the rows of a sparse matrix so that rows sharing columns fall into\n"
"the same 16-row window, and report the number of 16x8 tensor-core blocks\n"
"before and after.\n"
"\n"
"INPUT is a matrix of any kind tcconv reads (.mtx, .mtx.gz, .tcf.h5, edge\n"
"lists, ...; --from KIND to say which), or - for Matrix Market on standard\n"
"input. A .tcf.h5 that was reordered before is reordered further: its\n"
"/permutation keeps mapping to the original row order.\n"
"\n"
"The order:\n"
"  -m, --method NAME        compute it with NAME (see --list-methods)\n"
"  -p, --param NAME=VALUE[,NAME=VALUE...]\n"
"                           parameters of the method\n"
"      --apply FILE         read it from FILE (one 0-based index per line; for\n"
"                           a matrix with original ids, one id per line)\n"
"      --perm-convention new2old|old2new\n"
"                           how --apply and --perm-out files read (default\n"
"                           new2old: line i holds the old index of new row i)\n"
"      --symmetric          permute the columns the same way (square matrices):\n"
"                           P*A*P^T, as RCM is usually meant; the 16x8 block\n"
"                           counts are the same either way (columns are\n"
"                           compacted per window), the picture is not\n"
"      --list-methods       list the methods and their parameters, and exit\n"
"\n"
"Outputs (with neither, only the report is printed):\n"
"  -o, --output FILE        write the reordered matrix as .tcf.h5, with\n"
"                           /permutation\n"
"      --perm-out FILE      write the permutation of INPUT's rows as text\n"
"                           (- for standard output); new2old of a matrix\n"
"                           with original ids (an edge list's): the ids\n"
"      --plot FILE          write a PNG of the pattern before and after, side\n"
"                           by side, each titled with its 16x8 block count\n"
"      --no-compress        store .tcf.h5 datasets uncompressed\n"
"      --tsv                report as section, key, value lines\n"
"      --json               report as JSON\n"
"Input:\n"
TOOL_INPUT_HELP
"  -t, --threads N          threads for the methods that use them, the report\n"
"                           and compressing the output (default: $TC_THREADS,\n"
"                           else all CPUs)\n"
"  -q, --quiet              no report text, no warnings, no progress bar\n"
"  -v, --verbose            say what was written; show HDF5's own errors\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Examples:\n"
"  %s --method rcm -o graph.rcm.tcf.h5 graph.tcf.h5\n"
"  %s --method degree --perm-out order.txt graph.mtx.gz\n"
"  %s --apply order.txt -o graph.deg.tcf.h5 graph.mtx.gz\n"
"  %s --method rcm --plot rcm.png graph.mtx.gz\n",
        tool_name, tool_name, tool_name, tool_name, tool_name);
}

enum { OPT_APPLY = 256, OPT_PERM_OUT, OPT_CONVENTION, OPT_LIST, OPT_NO_COMPRESS, OPT_TSV,
       OPT_JSON, OPT_SYMMETRIC, OPT_PLOT };

typedef struct options {
    const tc_reorder_method *method;
    tc_params params;
    const char *apply, *output, *perm_out, *plot, *input;
    tc_perm_convention convention;
    int compress, symmetric;
    tool_out_style style;
} options;

static void list_methods(void)
{
    for (int i = 0; i < tc_reorder_count(); i++) {
        const tc_reorder_method *m = tc_reorder_at(i);
        int n;
        const tc_param_def *d = tc_reorder_params(m, &n);
        tool_print_entry(tc_reorder_name(m), tc_reorder_description(m), d, n);
    }
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "method", required_argument, NULL, 'm' },
        { "param", required_argument, NULL, 'p' },
        { "apply", required_argument, NULL, OPT_APPLY },
        { "output", required_argument, NULL, 'o' },
        { "perm-out", required_argument, NULL, OPT_PERM_OUT },
        { "plot", required_argument, NULL, OPT_PLOT },
        { "perm-convention", required_argument, NULL, OPT_CONVENTION },
        { "list-methods", no_argument, NULL, OPT_LIST },
        { "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
        { "symmetric", no_argument, NULL, OPT_SYMMETRIC },
        { "tsv", no_argument, NULL, OPT_TSV },
        { "json", no_argument, NULL, OPT_JSON },
        TOOL_COMMON_LONGOPTS
    };
    memset(o, 0, sizeof *o);
    o->convention = TC_PERM_NEW2OLD;
    o->compress = 1;
    o->style = TOOL_OUT_TEXT;
    tc_error err;
    int c;
    while ((c = getopt_long(argc, argv, ":m:p:o:" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (!(o->method = tc_reorder_find(optarg)))
                tool_usage_error("--method: unknown method '%s' (--list-methods lists them)",
                                 optarg);
            break;
        case 'p':
            if (tc_params_parse(&o->params, optarg, &err))
                tool_usage_error("--param: %s", err.msg);
            break;
        case OPT_APPLY: o->apply = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_PERM_OUT: o->perm_out = optarg; break;
        case OPT_PLOT: o->plot = optarg; break;
        case OPT_CONVENTION: o->convention = tool_parse_convention(optarg); break;
        case OPT_LIST: list_methods(); exit(0);
        case OPT_NO_COMPRESS: o->compress = 0; break;
        case OPT_SYMMETRIC: o->symmetric = 1; break;
        case OPT_TSV: tool_set_out_style(&o->style, TOOL_OUT_TSV); break;
        case OPT_JSON: tool_set_out_style(&o->style, TOOL_OUT_JSON); break;
        default: tool_common_option(c, argv, usage);
        }
    }
    if (optind != argc - 1)
        tool_usage_error(optind == argc ? "no input file" : "more than one input file");
    o->input = argv[optind];
    if (!o->method == !o->apply)
        tool_usage_error("give exactly one of --method and --apply");
    if (o->apply && o->params.n)
        tool_usage_error("--param goes with --method, not --apply");
    if (o->method) {
        int n;
        const tc_param_def *d = tc_reorder_params(o->method, &n);
        if (tc_params_check(&o->params, d, n, tc_reorder_name(o->method), &err))
            tool_usage_error("--param: %s", err.msg);
    }
    if (o->output && strcmp(o->output, "-") == 0)
        tool_usage_error("a .tcf.h5 cannot go to standard output: give -o FILE");
    if (o->output)
        tool_check_output_name("--output", o->output, TOOL_TCF_NAMES, TOOL_TCF_WRITES);
    if (o->perm_out)
        tool_check_text_output("--perm-out", o->perm_out);
    /* standard output carries the report */
    if (o->plot && strcmp(o->plot, "-") == 0)
        tool_usage_error("--plot: the picture cannot go to standard output: give a file name");
    if (o->plot)
        tool_check_output_name("--plot", o->plot,
                               TOOL_NAMES(TOOL_NAME_PLAIN) | TOOL_NAMES(TOOL_NAME_PNG),
                               "PNG (a name ending in .png, or without an extension)");
    /* A .tcf.h5 reordered in place is an update: it is read whole first and
       replaced atomically. A permutation never takes a matrix's place, nor
       any output that of the --apply file. */
    const tool_output outs[] = { { "--output", o->output, tool_is_tcf(o->input) },
                                 { "--perm-out", o->perm_out, 0 },
                                 { "--plot", o->plot, 0 } };
    const char *const inputs[] = { o->input, o->apply };
    tool_check_outputs(outs, 3, inputs, 2);
    if (o->perm_out && strcmp(o->perm_out, "-") == 0 && o->style != TOOL_OUT_TEXT)
        tool_usage_error("--perm-out - and --%s would share standard output",
                         o->style == TOOL_OUT_TSV ? "tsv" : "json");
}

/* --plot: each pattern's longest side, and the white between the two */
#define PLOT_PANEL_SIZE 512
#define PLOT_GAP 24

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The original ids of the input's rows as stored (a reordered input's row
   r is original row row_new_to_old[r]), for a matrix that has them. */
static tc_status input_ids(const tool_matrix *in, tc_labels **ids, tc_error *err)
{
    const tc_perm *before = in->tcf ? in->tcf->row_perm : NULL;
    return before ? tc_labels_permute(in->labels, before, ids, err)
                  : tc_labels_copy(in->labels, ids, err);
}

/* --apply FILE: 0-based indices, or, new-to-old for a matrix with original
   ids, the ids (what --perm-out writes for it). */
static tc_status read_order(const options *o, const tool_matrix *in, tc_perm **perm,
                            tc_error *err)
{
    if (!in->labels || o->convention != TC_PERM_NEW2OLD)
        return tc_perm_read(o->apply, in->a->rows, o->convention, perm, err);
    tc_labels *ids;
    tc_status st = input_ids(in, &ids, err);
    if (!st)
        st = tc_labels_read_perm(o->apply, ids, perm, err);
    tc_labels_free(ids);
    return st;
}

/* The permutation of the input's rows, the seconds it took, and what the
   method said about it. */
static tc_status find_order(const options *o, const tool_matrix *in, tc_perm **perm,
                            double *seconds, tc_reorder_outcome *outcome, tc_error *err)
{
    const tc_csr *a = in->a;
    double t0 = now_seconds();
    tc_status st;
    if (o->apply) {
        st = read_order(o, in, perm, err);
    } else {
        st = tc_reorder_run_outcome(o->method, a, &o->params, perm, outcome,
                                    tool_progress(tc_reorder_name(o->method)), err);
        tool_progress_end();
    }
    *seconds = now_seconds() - t0;
    return st;
}

static tc_status copy_str(char **dst, const char *src, tc_error *err)
{
    if (src && !(*dst = strdup(src)))
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    return TC_OK;
}

/* The container to write: the reordered matrix, its /permutation composed
   with the input's own (so that it still maps to the original rows), the
   input's column permutation if any, and provenance that keeps the
   original source, banner and comments. Takes `b`. */
static tc_status make_tcf(const options *o, const tool_matrix *in, tc_csr *b,
                          const tc_perm *perm, tc_tcf **out, tc_error *err)
{
    tc_tcf *t = tc_tcf_new();
    if (!t) {
        tc_csr_free(b);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    t->matrix = b;
    const tc_tcf *old = in->tcf;
    const char *method = o->method ? tc_reorder_name(o->method) : "apply";
    tc_status st = old && old->row_perm ? tc_perm_compose(old->row_perm, perm, &t->row_perm, err)
                                        : tc_perm_from_array(&t->row_perm, perm->n, perm->new2old,
                                                             TC_PERM_NEW2OLD, "permutation", err);
    /* Columns: this run's permutation too with --symmetric, composed with
       the input's own column permutation, if any. */
    const tc_perm *cols = o->symmetric ? perm : NULL;
    if (!st && old && old->col_perm)
        st = cols ? tc_perm_compose(old->col_perm, cols, &t->col_perm, err)
                  : tc_perm_from_array(&t->col_perm, old->col_perm->n, old->col_perm->new2old,
                                       TC_PERM_NEW2OLD, "permutation", err);
    else if (!st && cols)
        st = tc_perm_from_array(&t->col_perm, cols->n, cols->new2old, TC_PERM_NEW2OLD,
                                "permutation", err);
    if (!st) {
        /* "degree+rcm": every method that led from the original order */
        const char *before = old && old->row_perm && old->perm_method ? old->perm_method : NULL;
        size_t len = (before ? strlen(before) + 1 : 0) + strlen(method) + 1;
        if (!(t->perm_method = malloc(len)))
            st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        else
            snprintf(t->perm_method, len, "%s%s%s", before ? before : "", before ? "+" : "",
                     method);
    }
    if (!st && o->method)
        tc_reorder_params_effective(o->method, &o->params, &t->perm_params);
    const tc_provenance *prov = old ? &old->prov : NULL;
    if (!st)
        st = tc_provenance_set(&t->prov, tool_argc(), tool_argv(),
                               prov && prov->source ? prov->source : o->input, err);
    if (!st)
        st = copy_str(&t->prov.banner, prov ? prov->banner
                                             : in->info.banner[0] ? in->info.banner : NULL, err);
    if (!st)
        st = copy_str(&t->prov.comments, prov ? prov->comments : in->info.comments, err);
    if (!st && in->labels)
        st = tc_labels_copy(in->labels, &t->labels, err);
    if (st) {
        tc_tcf_free(t);
        return st;
    }
    *out = t;
    return TC_OK;
}

/* The writers below write into a's temporary file, and name it in their
   messages: the user named the target. */
static void name_target(tc_error *err, const tc_atomic *a)
{
    size_t n = a->tmp ? strlen(a->tmp) : 0;
    if (n == 0 || strncmp(err->msg, a->tmp, n) != 0)
        return;
    char rest[sizeof err->msg];
    snprintf(rest, sizeof rest, "%s", err->msg + n);
    snprintf(err->msg, sizeof err->msg, "%s%s", a->target, rest);
}

/* --perm-out: a new-to-old permutation of a matrix with labels (an edge
   list's original ids) lists the ids of INPUT's rows in their new order;
   otherwise, and old-to-new, 0-based indices. */
static tc_status write_perm(const options *o, const tool_matrix *in, const tc_perm *perm,
                            const char *path, tc_error *err)
{
    if (!in->labels || o->convention != TC_PERM_NEW2OLD)
        return tc_perm_write(path, perm, o->convention, err);
    tc_labels *ids = NULL, *moved = NULL;
    tc_status st = input_ids(in, &ids, err);
    if (!st)
        st = tc_labels_permute(ids, perm, &moved, err);
    if (!st)
        st = tc_labels_write(path, moved, err);
    tc_labels_free(ids);
    tc_labels_free(moved);
    return st;
}

/* The outputs are written to temporary files first and renamed into place
   together at the end, so that a failure in any leaves none behind and
   clobbers nothing. Takes `b`. */
static tc_status write_outputs(const options *o, const tool_matrix *in, tc_csr *b,
                               const tc_perm *perm, const tc_image *picture, tc_error *err)
{
    tc_atomic h5 = { 0 }, text = { 0 }, png = { 0 };
    int perm_file = o->perm_out && strcmp(o->perm_out, "-") != 0;
    tc_status st = o->output ? tc_atomic_open(&h5, o->output, 0, err) : TC_OK;
    if (!st && perm_file)
        st = tc_atomic_open(&text, o->perm_out, 0, err);
    if (!st && o->plot)
        st = tc_atomic_open(&png, o->plot, 1, err);
    if (!st && o->plot)
        st = tc_png_write_fp(png.fp, o->plot, picture, err);
    if (!st && o->output) {
        tc_tcf *t = NULL;
        st = make_tcf(o, in, b, perm, &t, err);
        b = NULL;
        tc_h5_write_opts wo = TC_H5_WRITE_DEFAULTS;
        wo.compress = o->compress;
        if (!st)
            st = tc_h5_write(h5.tmp, t, &wo, err);
        if (!st)
            tool_info("writing %s (method %s)", o->output, t->perm_method);
        tc_tcf_free(t);
    }
    if (!st && o->perm_out)
        st = write_perm(o, in, perm, perm_file ? text.tmp : "-", err);
    if (!st && o->output)
        st = tc_atomic_commit(&h5, err);
    if (!st && perm_file)
        st = tc_atomic_commit(&text, err);
    if (!st && o->plot)
        st = tc_atomic_commit(&png, err);
    if (st) {
        name_target(err, &h5);
        name_target(err, &text);
        tc_atomic_abort(&h5);
        tc_atomic_abort(&text);
        tc_atomic_abort(&png);
    }
    tc_csr_free(b);
    return st;
}

/* 003 Tables 6 and 7: the spread of TC blocks per non-empty row window
   (CV and deciles), before and after. */
static tc_status report_window_blocks(tc_report *r, const tc_csr *a, const tc_csr *b,
                                      tc_error *err)
{
    const tc_csr *m[2] = { a, b };
    static const char *const when[2] = { "before", "after" };
    tc_status st = TC_OK;
    for (int i = 0; i < 2 && !st; i++) {
        tc_tiling_stats t;
        char key[48], help[128];
        st = tc_tiling_stats_compute(m[i], 16, 8, &t, err);
        snprintf(key, sizeof key, "tcb_per_window_cv_%s", when[i]);
        snprintf(help, sizeof help, "CV of TC blocks per non-empty row window %s", when[i]);
        if (!st)
            st = tc_report_num(r, "tc16x8", key, t.blocks_per_window.cv, help);
        for (int k = 0; k <= 10 && !st; k++) {
            snprintf(key, sizeof key, "tcb_per_window_p%d_%s", 10 * k, when[i]);
            snprintf(help, sizeof help, "TC blocks per non-empty row window %s: %dth "
                     "percentile (003 Table 7)", when[i], 10 * k);
            st = tc_report_num(r, "tc16x8", key, t.blocks_per_window.decile[k], help);
        }
    }
    return st;
}

/* SMaT's figure (seed 004, Fig. 4): 16 x 16 BCSR blocks, aligned, before
   and after. */
static tc_status report_bcsr_blocks(tc_report *r, const tc_csr *a, const tc_csr *b)
{
    const int64_t before = tc_count_bcsr_blocks(a, 16, 16), after = tc_count_bcsr_blocks(b, 16, 16);
    if (before < 0 || after < 0)
        return TC_ERR_NOMEM;
    tc_status st = tc_report_int(r, "bcsr16x16", "blocks_before", before,
                                 "16x16 BCSR blocks before (aligned, no compaction)");
    if (!st)
        st = tc_report_int(r, "bcsr16x16", "blocks_after", after, "16x16 BCSR blocks after");
    return st;
}

/* before and after: the 16x8 TC blocks of a and b */
/* Side by side, the spy plots of a (before) and b (after), each titled
   with the 16x8 TC blocks the report counts. */
static tc_status draw_before_after(const options *o, const tc_csr *a, const tc_csr *b,
                                   const int64_t blocks[2], tc_image **out, tc_error *err)
{
    char name[256], titles[2][320];
    tool_matrix_title(name, sizeof name, NULL, o->input);
    const char *method = o->method ? tc_reorder_name(o->method) : "--apply";
    snprintf(titles[0], sizeof titles[0], "%s%sbefore: %lld TC blocks of 16x8", name,
             name[0] ? ", " : "", (long long)blocks[0]);
    snprintf(titles[1], sizeof titles[1], "after %s: %lld TC blocks of 16x8", method,
             (long long)blocks[1]);
    const tc_csr *m[2] = { a, b };
    tc_image *panels[2] = { NULL, NULL };
    tc_plot_opts p = TC_PLOT_DEFAULTS;
    p.size = PLOT_PANEL_SIZE;
    p.decor = TC_PLOT_ALL;
    tc_status st = TC_OK;
    for (int i = 0; i < 2 && !st; i++) {
        p.title = titles[i];
        p.progress = tool_progress(i ? "drawing after" : "drawing before");
        st = tc_plot_spy(m[i], &p, &panels[i], err);
        tool_progress_end();
    }
    if (!st)
        st = tc_image_hstack((const tc_image *const *)panels, 2, PLOT_GAP, out, err);
    if (!st)
        tool_info("%s: before and after, %d x %d pixels", o->plot, (*out)->width, (*out)->height);
    tc_image_free(panels[0]);
    tc_image_free(panels[1]);
    return st;
}

static tc_report *make_report(const options *o, const tc_csr *a, const tc_csr *b,
                              const int64_t blocks[2], double seconds,
                              const tc_reorder_outcome *outcome, tc_error *err)
{
    const int64_t before = blocks[0], after = blocks[1];
    tc_report *r = tc_report_new();
    tc_status st = r ? TC_OK : TC_ERR_NOMEM;
    if (!st)
        st = tc_report_str(r, "reorder", "method", o->method ? tc_reorder_name(o->method) : "apply",
                           "how the order was found");
    if (!st)
        st = tc_report_int(r, "reorder", "rows", a->rows, "rows permuted");
    if (!st)
        st = tc_report_num(r, "reorder", "seconds", seconds,
                           o->method ? "time to compute the order" : "time to read the order");
    if (!st && o->method)
        st = tc_report_int(r, "reorder", "kept_input", outcome->kept_input,
                           "1: the method found no better order and kept the input's");
    if (!st && o->method)
        st = tc_report_str(r, "reorder", "note", outcome->note, "the method's warning, if any");
    if (!st)
        st = tc_report_int(r, "tc16x8", "blocks_before", before, "16x8 TC blocks before");
    if (!st)
        st = tc_report_int(r, "tc16x8", "blocks_after", after, "16x8 TC blocks after");
    if (!st)
        st = tc_report_num(r, "tc16x8", "nnz_per_tcb_before", before ? (double)a->nnz / (double)before : 0,
                           "mean nonzeros per TC block before");
    if (!st)
        st = tc_report_num(r, "tc16x8", "nnz_per_tcb_after", after ? (double)b->nnz / (double)after : 0,
                           "mean nonzeros per TC block after");
    if (!st)
        st = report_window_blocks(r, a, b, err);
    if (!st)
        st = report_bcsr_blocks(r, a, b);
    if (st) {
        tc_report_free(r);
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return r;
}

int main(int argc, char **argv)
{
    tool_init("tcreorder", argc, argv);
    options o;
    parse_args(argc, argv, &o);

    tc_error err;
    tool_matrix in;
    if (tool_load_matrix(o.input, 0, &in, &err))
        tool_die(&err);
    if (o.symmetric && in.a->rows != in.a->cols) {
        tc_error_set(&err, TC_ERR_ARG, "%s: --symmetric needs a square matrix, not %d x %d",
                     o.input, in.a->rows, in.a->cols);
        tool_die(&err);
    }
    tc_perm *perm;
    tc_csr *b;
    double seconds;
    tc_reorder_outcome outcome = { 0 };
    if (find_order(&o, &in, &perm, &seconds, &outcome, &err) ||
        tc_csr_permute(in.a, perm, o.symmetric ? perm : NULL, &b, &err))
        tool_die(&err);
    /* b holds the values now; what follows reads the input's pattern
       only: 8 bytes a nonzero less at the peak (bench/NOTES.md,
       "Reordering at scale") */
    free(in.a->val);
    in.a->val = NULL;
    if (o.method && outcome.note[0])
        tool_warn("%s: %s", tc_reorder_name(o.method), outcome.note);
    /* /permutation records the parameters the run used, a chosen one too */
    if (o.method)
        o.params = outcome.used;
    const int64_t blocks[2] = { tc_count_tc_blocks(in.a, 16, 8), tc_count_tc_blocks(b, 16, 8) };
    if (blocks[0] < 0 || blocks[1] < 0) {
        tc_error_set(&err, TC_ERR_NOMEM, "out of memory counting blocks");
        tool_die(&err);
    }
    tc_report *r = make_report(&o, in.a, b, blocks, seconds, &outcome, &err);
    tc_image *picture = NULL;
    if (!r || (o.plot && draw_before_after(&o, in.a, b, blocks, &picture, &err)))
        tool_die(&err);
    /* write_outputs takes b */
    if (write_outputs(&o, &in, b, perm, picture, &err))
        tool_die(&err);
    tc_image_free(picture);

    if (o.style != TOOL_OUT_TEXT)
        tool_print_reports(stdout, &o.input, &r, 1, o.style);
    else if (!tool_quiet)
        tool_print_reports(o.perm_out && strcmp(o.perm_out, "-") == 0 ? stderr : stdout,
                           &o.input, &r, 1, TOOL_OUT_TEXT);
    tc_report_free(r);
    tc_perm_free(perm);
    tool_matrix_free(&in);
    return 0;
}
