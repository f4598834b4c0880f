/* tcconv: matrix files of any kind <-> .tcf.h5, building tensor-core formats. */
#include "config.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "model.h"
#include "model_internal.h"

/* n for -f auto when --cols is not given: what tcstat --advise ranks for. */
#define DEFAULT_COLS 32

static void usage(void)
{
    printf(
"Usage: %s [OPTIONS] INPUT [-o OUTPUT]\n"
"Convert a sparse matrix between kinds of file (Matrix Market, edge lists,\n"
"...) and the .tcf.h5 container, building tensor-core formats on the way.\n"
"\n"
"INPUT's kind follows --from, else its content (HDF5, gzip, a Matrix Market\n"
"banner), else its name; - is standard input (Matrix Market, or --from's).\n"
"The output kind follows --to, else the name of OUTPUT (--list-kinds shows\n"
"the names each kind claims; no extension: .tcf.h5). OUTPUT may be INPUT\n"
"only when of the same kind (updated in place). Without -o, a .tcf.h5 input\n"
"is written as Matrix Market to standard output.\n"
"\n"
"Options:\n"
"  -o, --output FILE        write FILE (- for standard output, text kinds only)\n"
"      --to KIND            output kind: tcf, mtx or edgelist (--list-kinds)\n"
"      --list-kinds         list the kinds of file and the names they claim\n"
TOOL_INPUT_HELP
"  -f, --format LIST        tensor-core formats to build into the .tcf.h5\n"
"                           (comma list or 'all'; default csr); --list-formats\n"
"                           shows them; 'auto': the one the planner's model\n"
"                           ranks first (recorded in the file)\n"
"  -n, --cols N             -f auto: rank for N columns of B (default %d)\n"
"      --accuracy P         -f auto: only formats whose tolerance is at most\n"
"                           P's (fp32, tf32 or fp16)\n"
"  -p, --param NAME=VALUE[,NAME=VALUE...]\n"
"                           format parameters (each must belong to a format\n"
"                           being built)\n"
"      --no-compress        store datasets uncompressed\n"
"      --duplicates POLICY  sum (default) or error, for repeated Matrix Market entries\n"
"      --general            write Matrix Market as 'general' (every entry), even\n"
"                           when the source was symmetric\n"
"      --original-order     undo the row permutation of a reordered .tcf.h5\n"
"                           when writing Matrix Market (edge lists always are)\n"
"      --list-formats       list the tensor-core formats and their parameters\n"
"  -t, --threads N          threads to build formats and compress the output with\n"
"                           (default: $TC_THREADS, else all CPUs)\n"
"  -q, --quiet              no warnings, no progress bar\n"
"  -v, --verbose            say what was written; show HDF5's own errors\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Examples:\n"
"  %s graph.mtx.gz -o graph.tcf.h5\n"
"  %s graph.tcf.h5 -o back.mtx\n"
"  %s graph.tcf.h5 | head\n"
"  %s -f auto --cols 64 graph.mtx.gz -o graph.tcf.h5\n"
"  %s --undirected soc-graph.txt.gz -o graph.tcf.h5\n"
"  %s graph.tcf.h5 -o graph.csv\n",
        tool_name, DEFAULT_COLS, tool_name, tool_name, tool_name, tool_name, tool_name,
        tool_name);
}

static void list_kinds(void)
{
    for (int i = 0; i < tc_matrix_kind_count(); i++) {
        const tc_matrix_kind *k = tc_matrix_kind_at(i);
        printf("%-10s %-10s %s\n", k->name, tc_matrix_kind_writable(k) ? "read+write" : "read",
               k->description);
        printf("%-10s", "");
        for (const char *const *x = k->suffixes; *x; x++)
            printf(" %s", *x);
        printf("\n");
    }
}

static void list_formats(void)
{
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        int n;
        const tc_param_def *d = tc_format_params(f, &n);
        tool_print_entry(tc_format_name(f), tc_format_description(f), d, n);
    }
}

enum { OPT_TO = 256, OPT_NO_COMPRESS, OPT_DUPLICATES, OPT_GENERAL, OPT_ORIGINAL, OPT_LIST,
       OPT_ACCURACY, OPT_LIST_KINDS };

typedef struct options {
    const char *input, *output;
    const tc_matrix_kind *to;   /* --to, or NULL */
    char formats[512];      /* -f's list without its 'auto' entries ("": none) */
    int want_auto;          /* -f named auto */
    long cols;              /* -f auto's n; 0: not given */
    const char *accuracy;   /* -f auto's --accuracy, or NULL */
    tc_params params;
    int compress, sum_duplicates, general, original_order;
} options;

/* -f's LIST into o->formats without its 'auto' entries, which set
   o->want_auto: auto is no format of the registry but a request to the
   model, answered once the matrix is read. */
static void parse_format_list(const char *list, options *o)
{
    o->formats[0] = '\0';
    o->want_auto = 0;
    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");
        if (len == 0)
            tool_usage_error("--format: bad format list '%s'", list);
        if (len == 4 && strncmp(s, "auto", 4) == 0) {
            o->want_auto = 1;
        } else {
            size_t at = strlen(o->formats);
            if (at + len + 2 > sizeof o->formats)
                tool_usage_error("--format: list too long");
            snprintf(o->formats + at, sizeof o->formats - at, "%s%.*s", at ? "," : "",
                     (int)len, s);
        }
        s += len;
        if (!*s)
            break;
    }
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "to", required_argument, NULL, OPT_TO },
        { "format", required_argument, NULL, 'f' },
        { "param", required_argument, NULL, 'p' },
        { "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
        { "duplicates", required_argument, NULL, OPT_DUPLICATES },
        { "general", no_argument, NULL, OPT_GENERAL },
        { "original-order", no_argument, NULL, OPT_ORIGINAL },
        { "list-formats", no_argument, NULL, OPT_LIST },
        { "list-kinds", no_argument, NULL, OPT_LIST_KINDS },
        { "cols", required_argument, NULL, 'n' },
        { "accuracy", required_argument, NULL, OPT_ACCURACY },
        TOOL_COMMON_LONGOPTS
    };
    memset(o, 0, sizeof *o);
    o->compress = 1;
    o->sum_duplicates = 1;
    parse_format_list("csr", o);
    tc_error err;
    int c;
    while ((c = getopt_long(argc, argv, ":o:f:p:n:" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case OPT_TO: o->to = tool_parse_kind("--to", optarg, 1); break;
        case 'f': parse_format_list(optarg, o); break;
        case 'n': o->cols = tool_parse_long("--cols", optarg, 1, INT32_MAX); break;
        case OPT_ACCURACY: o->accuracy = tool_parse_accuracy(optarg); break;
        case 'p':
            if (tc_params_parse(&o->params, optarg, &err))
                tool_usage_error("--param: %s", err.msg);
            break;
        case OPT_NO_COMPRESS: o->compress = 0; break;
        case OPT_DUPLICATES:
            if (strcmp(optarg, "sum") == 0)
                o->sum_duplicates = 1;
            else if (strcmp(optarg, "error") == 0)
                o->sum_duplicates = 0;
            else
                tool_usage_error("--duplicates: expected sum or error, found '%s'", optarg);
            break;
        case OPT_GENERAL: o->general = 1; break;
        case OPT_ORIGINAL: o->original_order = 1; break;
        case OPT_LIST: list_formats(); exit(0);
        case OPT_LIST_KINDS: list_kinds(); exit(0);
        default: tool_common_option(c, argv, usage);
        }
    }
    if (!o->want_auto && (o->cols || o->accuracy))
        tool_usage_error("%s: only with -f auto", o->cols ? "--cols" : "--accuracy");
    if (!o->cols)
        o->cols = DEFAULT_COLS;
    if (optind != argc - 1)
        tool_usage_error(optind == argc ? "no input file" : "more than one input file");
    o->input = argv[optind];
}

/* -f auto: the model's pick for a in its stored order, recorded in *c and
   its format (NULL for csr) in *pick. The pick is the model's first
   candidate whose precision meets --accuracy and whose predicted speedup
   clears the margin tcmul's ESTIMATE uses (TC_MODEL_ESTIMATE_MARGIN), or
   cuSPARSE (csr, which /matrix serves) when none ranked above it does:
   tcconv -f auto and a one-off tcmul choose alike. Only the stored order is ranked: a reordering is tcreorder's to
   make, and the file keeps the order it was given. Deterministic: the
   model's figures are counts and sums in a fixed order. */
static tc_status auto_pick(const tc_csr *a, const options *o, const tc_format **pick,
                           tc_auto_choice *c, tc_error *err)
{
    tc_model_candidate *cand;
    int count;
    tc_status st = tc_model_rank(a, (int32_t)o->cols, 0, &cand, &count, NULL, err);
    if (st)
        return st;
    const tc_model_candidate *best = NULL;
    for (int i = 0; !best && i < count; i++) {
        if (tc_precision_meets(tc_model_precision(cand[i].format), o->accuracy) &&
            (tc_format_is_canonical(cand[i].format) ||
             cand[i].predicted_speedup >= TC_MODEL_ESTIMATE_MARGIN))
            best = &cand[i];
    }
    /* cuSPARSE (fp32) meets every accuracy, so best is never NULL */
    *pick = tc_format_is_canonical(best->format) ? NULL : best->format;
    c->n = o->cols;
    c->predicted_speedup = best->predicted_speedup;
    if (!(c->format = strdup(tc_format_name(best->format))) ||
        !(c->accuracy = strdup(o->accuracy ? o->accuracy : "any")) ||
        !(c->model = strdup(tc_model_fit_source())))
        st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    else
        tool_info("-f auto: %s, predicted %.2fx cuSPARSE at n = %ld (%s)", c->format,
                  c->predicted_speedup, o->cols, best->reason);
    free(cand);
    return st;
}

/* Builds every requested format of t->matrix into t, checking that each
   parameter belongs to at least one of those named; with -f auto, also
   the model's pick with default parameters (once, with the given ones,
   when it is named too), recording the choice in t. */
static tc_status build_formats(tc_tcf *t, const options *o, tc_error *err)
{
    const tc_format *list[33];
    int n = 0;
    tc_status st = o->formats[0] ? tc_format_list_parse(o->formats, list, 32, &n, err) : TC_OK;
    if (st)
        return st;
    for (int k = 0; k < o->params.n; k++) {
        int known = 0;
        for (int i = 0; i < n; i++) {
            int np;
            const tc_param_def *d = tc_format_params(list[i], &np);
            for (int j = 0; j < np; j++)
                known |= strcmp(d[j].name, o->params.kv[k].name) == 0;
        }
        if (!known)
            return tc_error_set(err, TC_ERR_ARG, "--param: no format %s has a parameter '%s'",
                                o->want_auto ? "named (auto's is built with its defaults)"
                                             : "being built",
                                o->params.kv[k].name);
    }
    const tc_format *pick = NULL;
    if (o->want_auto && (st = auto_pick(t->matrix, o, &pick, &t->auto_choice, err)))
        return st;
    int named = 0;
    for (int i = 0; pick && i < n; i++)
        named |= list[i] == pick;
    int nnamed = n;   /* list[nnamed], when there, is auto's pick alone */
    if (pick && !named)
        list[n++] = pick;
    for (int i = 0; i < n; i++) {
        if (tc_format_is_canonical(list[i]))
            continue;   /* stored as /matrix itself */
        /* Pass each format only the parameters it knows (auto's own pick
           none: what the model predicted for is the default build). */
        tc_params mine = { 0 };
        int np;
        const tc_param_def *d = tc_format_params(list[i], &np);
        for (int k = 0; i < nnamed && k < o->params.n; k++)
            for (int j = 0; j < np; j++)
                if (strcmp(d[j].name, o->params.kv[k].name) == 0)
                    mine.kv[mine.n++] = o->params.kv[k];
        tc_fmt *m;
        if ((st = tc_fmt_build(list[i], t->matrix, &mine, &m, err)) ||
            (st = tc_tcf_add_format(t, m, err)))
            return st;
    }
    return TC_OK;
}

static tc_status to_tcf(const options *o, tool_matrix *in, tc_error *err)
{
    tc_tcf *t = in->tcf;
    if (!t) {
        if (!(t = tc_tcf_new()))
            return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        t->matrix = in->a;
        t->labels = in->labels;
        in->a = NULL;
        in->labels = NULL;
    } else {
        /* Re-written whole: formats rebuilt as asked, provenance renewed. */
        in->tcf = NULL;
        in->a = NULL;
        tc_auto_choice_clear(&t->auto_choice);  /* made again only with -f auto */
        free(t->prov.command);
        free(t->prov.created);
        free(t->prov.creator);
        t->prov.command = t->prov.created = t->prov.creator = NULL;
    }
    tc_status st = TC_OK;
    if (!t->prov.source) {
        st = tc_provenance_set(&t->prov, tool_argc(), tool_argv(), o->input, err);
        if (!st && in->info.banner[0] && !(t->prov.banner = strdup(in->info.banner)))
            st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        if (!st && in->info.comments && !(t->prov.comments = strdup(in->info.comments)))
            st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    } else {
        /* Keep the original source, banner and comments; new command/time. */
        char *source = t->prov.source;
        t->prov.source = NULL;
        st = tc_provenance_set(&t->prov, tool_argc(), tool_argv(), source, err);
        free(source);
    }
    if (!st)
        st = build_formats(t, o, err);
    tc_h5_write_opts wo = TC_H5_WRITE_DEFAULTS;
    wo.compress = o->compress;
    if (!st)
        st = tc_h5_write(o->output, t, &wo, err);
    if (!st)
        tool_info("wrote %s: %d x %d, %lld nonzeros, %d stored format(s)", o->output,
                  t->matrix->rows, t->matrix->cols, (long long)t->matrix->nnz, t->nformats);
    tc_tcf_free(t);
    return st;
}

/* Any kind but .tcf.h5: the matrix (in its original order with
   --original-order, and always for an edge list, whose ids name vertices
   whatever the order of its lines), with the source's comments. */
static tc_status to_file(const options *o, const tc_matrix_kind *kind, tool_matrix *in,
                         tc_error *err)
{
    const tc_csr *a = in->a;
    tc_csr *orig = NULL;
    const tc_perm *perm = in->tcf ? in->tcf->row_perm : NULL;
    const tc_perm *cperm = in->tcf ? in->tcf->col_perm : NULL;
    tc_status st = TC_OK;
    int edgelist = kind == tc_matrix_kind_find("edgelist");
    if ((o->original_order || edgelist) && (perm || cperm)) {
        /* /matrix row i is original row new2old[i]: permuting by old2new
           (as a new-to-old map) puts every row back. */
        tc_perm *rinv = NULL, *cinv = NULL;
        if (perm)
            st = tc_perm_from_array(&rinv, perm->n, perm->old2new, TC_PERM_NEW2OLD, "permutation", err);
        if (!st && cperm)
            st = tc_perm_from_array(&cinv, cperm->n, cperm->old2new, TC_PERM_NEW2OLD, "permutation", err);
        if (!st)
            st = tc_csr_permute(a, rinv, cinv, &orig, err);
        tc_perm_free(rinv);
        tc_perm_free(cinv);
        if (st)
            return st;
        a = orig;
        perm = cperm = NULL;
    }
    /* A symmetric source is written back as its lower triangle, unless the
       stored matrix was reordered (and so is no longer symmetric) or
       --general. Hermitian real matrices are symmetric. */
    tc_write_opts wo = TC_WRITE_DEFAULTS;
    wo.symmetry = a->symmetry == TC_SYM_HERMITIAN ? TC_SYM_SYMMETRIC : a->symmetry;
    if (o->general || perm || cperm)
        wo.symmetry = TC_SYM_GENERAL;
    /* a view of what is written: nothing here is owned */
    tc_tcf view = { .matrix = (tc_csr *)a, .labels = in->labels };
    view.prov.comments = in->tcf ? in->tcf->prov.comments : in->info.comments;
    const char *out = o->output ? o->output : "-";
    st = tc_matrix_write(out, kind, &view, &wo, err);
    if (!st)
        tool_info("wrote %s: %d x %d, %lld nonzeros (%s, %s)", out, a->rows, a->cols,
                  (long long)a->nnz, kind->name, tc_symmetry_name(wo.symmetry));
    tc_csr_free(orig);
    return st;
}

/* The kind of the output: --to's, else the name's (standard output:
   Matrix Market; no extension: .tcf.h5). */
static const tc_matrix_kind *output_kind(const options *o)
{
    if (o->to)
        return o->to;
    if (!o->output || strcmp(o->output, "-") == 0)
        return tc_matrix_kind_find("mtx");
    const tc_matrix_kind *k = tc_matrix_kind_by_suffix(o->output);
    if (k && tc_matrix_kind_writable(k))
        return k;
    if (tool_name_kind_of(o->output) == TOOL_NAME_PLAIN)
        return tc_matrix_kind_find("tcf");
    char kinds[1024];
    tc_matrix_kind_list(kinds, sizeof kinds, 1);
    tool_usage_error("--output %s: cannot write '%s': it writes %s; a name without an extension: "
                     "tcf; --to KIND for any other name", o->output,
                     strrchr(o->output, '.'), kinds);
}

int main(int argc, char **argv)
{
    tool_init("tcconv", argc, argv);
    options o;
    parse_args(argc, argv, &o);

    const tc_matrix_kind *kind = output_kind(&o);
    const tc_matrix_kind *tcf = tc_matrix_kind_find("tcf");
    tc_error err;
    const tc_format *check[32];
    int nf;
    if (o.formats[0] && tc_format_list_parse(o.formats, check, 32, &nf, &err))
        tool_usage_error("--format: %s", err.msg);
    if (kind == tcf && (!o.output || strcmp(o.output, "-") == 0))
        tool_usage_error("a .tcf.h5 cannot go to standard output: give -o FILE");

    const tc_matrix_kind *in_kind = tool_input_kind(o.input);
    if (in_kind != tcf && !o.output && !o.to)
        tool_usage_error("a %s input needs -o FILE (or --to KIND)",
                         in_kind == tc_matrix_kind_find("mtx") ? "Matrix Market" : in_kind->name);
    /* Converting a file into the same kind in place is an update: the input
       is read whole first and replaced atomically. */
    const tool_output out = { "--output", o.output, in_kind == kind };
    tool_check_outputs(&out, 1, (const char *const *)&o.input, 1);
    tool_read_opts.sum_duplicates = o.sum_duplicates;
    tool_matrix in;
    if (tool_load_matrix(o.input, 0, &in, &err))
        tool_die(&err);
    tc_status st;
    st = kind == tcf ? to_tcf(&o, &in, &err) : to_file(&o, kind, &in, &err);
    tool_matrix_free(&in);
    if (st)
        tool_die(&err);
    return 0;
}
