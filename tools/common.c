/* common.c: helpers shared by the five tools (see common.h). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

const char *tool_name = "tcsparse";
int tool_verbose;
int tool_quiet;
tc_read_opts tool_read_opts = TC_READ_DEFAULTS;
const tc_matrix_kind *tool_from;
static int saved_argc;
static char **saved_argv;
static int failure_reported;   /* an error message went out: the status is not 0 */

/* Run at exit: a tool's results on stdout sit in stdio's buffer until
   exit() flushes it, and exit() does not say when that write fails (a full
   disk, /dev/full, a closed descriptor). Closing stdout here catches it,
   as gnulib's closeout does: "prog: standard output: write failed: REASON"
   (the words of tc_atomic_commit, which writes "-o -"), status 1. Quiet
   when an error was reported already, so that a failed "-o -" is not told
   twice and a usage error keeps its status 2. */
static void close_stdout(void)
{
    int failed = ferror(stdout);
    int pending = __fpending(stdout) > 0;
    int e = 0;
    if (fclose(stdout) != 0) {
        e = errno;
        /* a closed stdout that nothing was written to is no error */
        failed |= pending || e != EBADF;
    }
    if (!failed || failure_reported)
        return;
    tool_stdout_failed(e);
}

void tool_stdout_failed(int e)
{
    tool_progress_end();
    fprintf(stderr, "%s: standard output: write failed%s%s\n", tool_name, e ? ": " : "",
            e ? strerror(e) : "");
    _exit(1);
}

void tool_init(const char *name, int argc, char **argv)
{
    tool_name = name;
    /* A copy for provenance: GNU getopt permutes argv in place. The program
       is recorded by name, not by the path it ran from, so that the same
       command gives the same file wherever the tools are installed. */
    static char *copy[4096];
    saved_argc = argc < 4095 ? argc : 4095;
    memcpy(copy, argv, (size_t)saved_argc * sizeof *copy);
    copy[0] = (char *)name;
    copy[saved_argc] = NULL;
    saved_argv = copy;
    opterr = 0;   /* getopt's own messages name the binary's path */
    atexit(close_stdout);
    tc_h5_skip_exit_cleanup();
    tc_atomic_install_signal_handlers();
}

int tool_argc(void) { return saved_argc; }
char **tool_argv(void) { return saved_argv; }

void tool_error(const tc_error *err)
{
    failure_reported = 1;
    tool_progress_end();
    fprintf(stderr, "%s: %s\n", tool_name, err->msg);
}

static void vmessage(const char *fmt, va_list ap)
{
    tool_progress_end();
    fprintf(stderr, "%s: ", tool_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void tool_errorf(const char *fmt, ...)
{
    failure_reported = 1;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

noreturn void tool_die(const tc_error *err)
{
    tool_error(err);
    exit(tc_status_exit_code(err->status));
}

noreturn void tool_usage_error(const char *fmt, ...)
{
    failure_reported = 1;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", tool_name);
    exit(2);
}

void tool_common_option(int c, char **argv, void (*usage)(void))
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    char threads[16];
    switch (c) {
    case TOOL_OPT_FROM: tool_from = tool_parse_kind("--from", optarg, 0); return;
    case TOOL_OPT_INDEX_BASE:
        tool_read_opts.edgelist.index_base = (int)tool_parse_long("--index-base", optarg, 0, 1);
        return;
    case TOOL_OPT_UNDIRECTED: tool_read_opts.edgelist.undirected = 1; return;
    case TOOL_OPT_RELABEL:
        if (strcmp(optarg, "auto") == 0)
            tool_read_opts.edgelist.relabel = TC_RELABEL_AUTO;
        else if (strcmp(optarg, "always") == 0)
            tool_read_opts.edgelist.relabel = TC_RELABEL_ALWAYS;
        else if (strcmp(optarg, "never") == 0)
            tool_read_opts.edgelist.relabel = TC_RELABEL_NEVER;
        else
            tool_usage_error("--relabel: expected auto, always or never, found '%s'", optarg);
        return;
    case 't':
        /* The library takes its thread count from $TC_THREADS
           (tc_default_threads): the command line overrides it there. */
        snprintf(threads, sizeof threads, "%ld", tool_parse_long("--threads", optarg, 1, 4096));
        if (setenv("TC_THREADS", threads, 1) != 0) {
            tc_error err;
            tc_error_set(&err, TC_ERR_NOMEM, "out of memory");
            tool_die(&err);
        }
        return;
    case 'q': tool_quiet = 1; return;
    case 'v':
        tool_verbose++;
        tc_h5_set_verbose(1);   /* -v shows HDF5's own error stack too */
        return;
    case 'h': usage(); exit(0);
    case 'V': tool_version();
    case ':': tool_usage_error("option '%s' requires an argument", arg);
    default:
        if (optopt)
            tool_usage_error("invalid option -- '%c'", optopt);
        tool_usage_error("unrecognized option '%s'", arg);
    }
}

noreturn void tool_version(void)
{
    printf("%s (tcsparse) %s\n", tool_name, TC_VERSION_STRING);
    exit(0);
}

void tool_warn(const char *fmt, ...)
{
    if (tool_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    tool_progress_end();
    fprintf(stderr, "%s: warning: ", tool_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void tool_info(const char *fmt, ...)
{
    if (!tool_verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

long tool_parse_long(const char *opt, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno)
        tool_usage_error("%s: '%s' is not a whole number", opt, s);
    if (v < min || v > max)
        tool_usage_error("%s: %ld is out of range [%ld, %ld]", opt, v, min, max);
    return v;
}

double tool_parse_double(const char *opt, const char *s, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        tool_usage_error("%s: '%s' is not a number", opt, s);
    char vt[TC_NUMBER_CHARS], lo[TC_NUMBER_CHARS], hi[TC_NUMBER_CHARS];
    if (v < min || v > max)
        tool_usage_error("%s: %s is out of range [%s, %s]", opt, tc_number_text(v, vt),
                         tc_number_text(min, lo), tc_number_text(max, hi));
    return v;
}

const char *tool_parse_accuracy(const char *s)
{
    if (tc_tolerance(s) == 0)
        tool_usage_error("--accuracy: expected fp32, tf32 or fp16, found '%s'", s);
    return s;
}

void tool_format_names(char *buf, size_t size, int (*keep)(const tc_format *))
{
    buf[0] = '\0';
    for (int i = 0; i < tc_format_count(); i++) {
        const tc_format *f = tc_format_at(i);
        if (keep && !keep(f))
            continue;
        strncat(buf, buf[0] ? ", " : "", size - strlen(buf) - 1);
        strncat(buf, tc_format_name(f), size - strlen(buf) - 1);
    }
}

const tc_format *tool_parse_format(const char *s)
{
    const tc_format *f = tc_format_find(s);
    if (!f) {
        char names[512];
        tool_format_names(names, sizeof names, NULL);
        tool_usage_error("--format: unknown format '%s' (give one of: %s)", s, names);
    }
    return f;
}

tc_perm_convention tool_parse_convention(const char *s)
{
    if (strcmp(s, "new2old") == 0)
        return TC_PERM_NEW2OLD;
    if (strcmp(s, "old2new") == 0)
        return TC_PERM_OLD2NEW;
    tool_usage_error("--perm-convention: expected new2old or old2new, found '%s'", s);
}

const tc_matrix_kind *tool_parse_kind(const char *option, const char *name, int writing)
{
    const tc_matrix_kind *k = tc_matrix_kind_find(name);
    if (k && (!writing || tc_matrix_kind_writable(k)))
        return k;
    char kinds[1024];
    tool_usage_error("%s: %s kind '%s' (give one of: %s)", option,
                     k ? "cannot write the" : "unknown", name,
                     tc_matrix_kind_list(kinds, sizeof kinds, writing));
}

/* FILE:DATASET's FILE into file (and DATASET), when spec is not itself a
   file and FILE is: as tcmul names the datasets of its dense operands. */
static const char *split_dataset(const char *spec, char *file, size_t size)
{
    struct stat sb;
    const char *colon = strrchr(spec, ':');
    if (stat(spec, &sb) == 0 || !colon || colon == spec || !colon[1] ||
        (size_t)(colon - spec) >= size)
        return NULL;
    memcpy(file, spec, (size_t)(colon - spec));
    file[colon - spec] = '\0';
    return stat(file, &sb) == 0 ? colon + 1 : NULL;
}

const tc_matrix_kind *tool_input_kind(const char *path)
{
    char file[4096];
    const tc_matrix_kind *k = tool_from;
    tc_error err;
    /* a file that cannot be read: its reader, run later, says why */
    if (!k && tc_matrix_kind_detect(split_dataset(path, file, sizeof file) ? file : path, &k,
                                    &err))
        k = tc_matrix_kind_find("mtx");
    return k;
}

tc_status tool_load_matrix(const char *path, int with_formats, tool_matrix *m,
                           tc_error *err)
{
    char file[4096];
    tc_read_opts o = tool_read_opts;
    o.dataset = split_dataset(path, file, sizeof file);
    o.with_formats = with_formats;
    o.progress = tool_progress("reading");
    tc_status st = tc_matrix_read(o.dataset ? file : path, tool_from, &o, m, err);
    tool_progress_end();
    if (!st && m->edgelist.base_guessed)
        tool_warn("%s: no id is 0: ids taken as 1-based (--index-base 0 or 1 says which)",
                  path);
    return st;
}

int tool_is_tcf(const char *path)
{
    return strcmp(path, "-") != 0 && tool_input_kind(path) == tc_matrix_kind_find("tcf");
}

void tool_matrix_free(tool_matrix *m)
{
    tc_matrix_file_clear(m);
}

/* ---- outputs ----------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The kind path's name says, and the ending that says it (for messages):
   the known endings first, longest first where one ends another. */
static tool_name_kind classify(const char *path, const char **ending)
{
    static const struct {
        const char *ending;
        tool_name_kind kind;
    } known[] = {
        { ".tcf.h5", TOOL_NAME_TCF }, { ".h5", TOOL_NAME_HDF5 }, { ".hdf5", TOOL_NAME_HDF5 },
        { ".mtx.gz", TOOL_NAME_MTX }, { ".mtx", TOOL_NAME_MTX }, { ".png", TOOL_NAME_PNG },
    };
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    *ending = NULL;
    if (!dot || dot == base)    /* ".profile" is a name, not an extension */
        return TOOL_NAME_PLAIN;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (ends_with(base, known[i].ending)) {
            *ending = known[i].ending;
            return known[i].kind;
        }
    *ending = dot;
    return TOOL_NAME_OTHER;
}

tool_name_kind tool_name_kind_of(const char *path)
{
    const char *ending;
    return classify(path, &ending);
}

tool_name_kind tool_check_output_name(const char *option, const char *path, unsigned accepted,
                                      const char *writes)
{
    const char *ending;
    tool_name_kind k = classify(path, &ending);
    if (accepted & TOOL_NAMES(k))
        return k;
    if (!ending)
        tool_usage_error("%s %s: no extension to tell the kind by: it writes %s", option, path,
                         writes);
    tool_usage_error("%s %s: cannot write '%s': it writes %s", option, path, ending, writes);
}

void tool_check_text_output(const char *option, const char *path)
{
    tool_check_output_name(option, path, TOOL_NAMES(TOOL_NAME_PLAIN) | TOOL_NAMES(TOOL_NAME_OTHER),
                           "text (a name not ending in .tcf.h5, .h5, .hdf5, .mtx, .mtx.gz or .png)");
}

/* Where an output path leads: an existing file by device and inode, one not
   there yet by its directory's device and inode and its own name (leaf).
   0 when neither can be found (no such directory). */
typedef struct place {
    dev_t dev;
    ino_t ino;
    const char *leaf;
} place;

static int place_of(const char *path, place *p)
{
    struct stat st;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    p->leaf = NULL;
    if (stat(path, &st) != 0) {
        size_t n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof dir)
            return 0;
        memcpy(dir, slash ? path : ".", n);
        dir[n] = '\0';
        p->leaf = slash ? slash + 1 : path;
        if (stat(dir, &st) != 0)
            return 0;
    }
    p->dev = st.st_dev;
    p->ino = st.st_ino;
    return 1;
}

/* Two outputs that would end up in one file (- is standard output). */
static int same_place(const char *a, const char *b)
{
    a = strcmp(a, "-") == 0 ? "/dev/stdout" : a;
    b = strcmp(b, "-") == 0 ? "/dev/stdout" : b;
    place pa, pb;
    if (strcmp(a, b) == 0)
        return 1;
    if (!place_of(a, &pa) || !place_of(b, &pb) || pa.dev != pb.dev || pa.ino != pb.ino)
        return 0;
    return !pa.leaf == !pb.leaf && (!pa.leaf || strcmp(pa.leaf, pb.leaf) == 0);
}

void tool_check_outputs(const tool_output *outs, int nouts, const char *const *inputs,
                        int ninputs)
{
    for (int i = 0; i < nouts; i++) {
        const tool_output *o = &outs[i];
        if (!o->path)
            continue;
        for (int j = 0; j < i; j++)
            if (outs[j].path && same_place(outs[j].path, o->path))
                tool_usage_error("%s and %s name the same file '%s'", outs[j].option, o->option,
                                 o->path);
        if (strcmp(o->path, "-") == 0)
            continue;
        for (int j = o->may_update ? 1 : 0; j < ninputs; j++)
            if (inputs[j] && tc_same_file(o->path, inputs[j]))
                tool_usage_error("%s %s would overwrite the input %s", o->option, o->path,
                                 inputs[j]);
    }
}

/* ---- progress bar ------------------------------------------------------ */

static struct {
    const char *label;
    int shown;          /* a bar is on the terminal line */
    int last_permille;
} bar;

static void bar_draw(void *ctx, int64_t done, int64_t total)
{
    (void)ctx;
    int permille = (int)(1000.0 * (double)done / (double)total);
    if (permille > 1000)
        permille = 1000;
    if (bar.shown && permille == bar.last_permille)
        return;
    enum { WIDTH = 30 };
    char cells[WIDTH + 1];
    int full = permille * WIDTH / 1000;
    for (int i = 0; i < WIDTH; i++)
        cells[i] = i < full ? '#' : '.';
    cells[WIDTH] = '\0';
    fprintf(stderr, "\r%s: %-10s [%s] %5.1f%%", tool_name, bar.label, cells, permille / 10.0);
    fflush(stderr);
    bar.shown = 1;
    bar.last_permille = permille;
}

const tc_progress *tool_progress(const char *label)
{
    static const tc_progress progress = { bar_draw, NULL };
    if (tool_quiet || !isatty(STDERR_FILENO))
        return NULL;
    bar.label = label;
    bar.last_permille = -1;
    return &progress;
}

void tool_progress_end(void)
{
    if (bar.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        bar.shown = 0;
    }
}

/* ---- reports ----------------------------------------------------------- */

void tool_print_entry(const char *name, const char *description, const tc_param_def *d,
                      int n)
{
    printf("%-8s %s\n", name, description);
    for (int j = 0; j < n; j++) {
        char def[TC_NUMBER_CHARS], lo[TC_NUMBER_CHARS], hi[TC_NUMBER_CHARS];
        printf("         %s=%s  %s [%s, %s]\n", d[j].name, tc_number_text(d[j].def, def),
               d[j].help, tc_number_text(d[j].min, lo), tc_number_text(d[j].max, hi));
    }
}

void tool_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp);
        }
    }
    fputc('"', fp);
}

/* A value as text; numbers with `digits` significant digits. */
static void format_value(const tc_report_entry *e, int digits, int json, char *buf, size_t n)
{
    if (e->is_str)
        snprintf(buf, n, "%s", e->str);
    else if (e->is_int)
        snprintf(buf, n, "%lld", (long long)e->ival);
    else if (!isfinite(e->num))
        snprintf(buf, n, "%s", json ? "null" : isnan(e->num) ? "nan" : e->num > 0 ? "inf" : "-inf");
    else
        snprintf(buf, n, "%.*g", digits, e->num);
}

static void print_text(FILE *fp, const tc_report *r)
{
    int keyw = 0, valw = 0;
    char val[256];
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        format_value(e, 6, 0, val, sizeof val);
        int kl = (int)strlen(e->key), vl = (int)strlen(val);
        keyw = kl > keyw ? kl : keyw;
        valw = vl > valw && vl < 40 ? vl : valw;
    }
    const char *section = NULL;
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (!section || strcmp(section, e->section) != 0) {
            fprintf(fp, "%s%s\n", section ? "\n" : "", e->section);
            section = e->section;
        }
        format_value(e, 6, 0, val, sizeof val);
        if (e->help && *e->help)
            fprintf(fp, "  %-*s  %*s  %s\n", keyw, e->key, e->is_str ? -valw : valw, val, e->help);
        else
            fprintf(fp, "  %-*s  %s\n", keyw, e->key, val);
    }
}

/* A TSV field: tabs and line breaks become spaces. */
static void tsv_field(FILE *fp, const char *s, char after)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
    fputc(after, fp);
}

/* The rows of one report, each behind the file it is about. */
static void print_tsv_rows(FILE *fp, const char *file, const tc_report *r)
{
    char val[4096];
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        format_value(e, 10, 0, val, sizeof val);
        tsv_field(fp, file, '\t');
        tsv_field(fp, e->section, '\t');
        tsv_field(fp, e->key, '\t');
        tsv_field(fp, val, '\n');
    }
}

static void print_json(FILE *fp, const tc_report *r)
{
    char val[256];
    const char *section = NULL;
    fputc('{', fp);
    for (int i = 0; i < tc_report_count(r); i++) {
        const tc_report_entry *e = tc_report_at(r, i);
        if (!section || strcmp(section, e->section) != 0) {
            fputs(section ? "},\n " : "\n ", fp);
            tool_json_string(fp, e->section);
            fputs(": {", fp);
            section = e->section;
        } else {
            fputs(", ", fp);
        }
        tool_json_string(fp, e->key);
        fputs(": ", fp);
        if (e->is_str) {
            tool_json_string(fp, e->str);
        } else {
            format_value(e, 17, 1, val, sizeof val);
            fputs(val, fp);
        }
    }
    fputs(section ? "}\n}" : "}", fp);
}

void tool_print_reports(FILE *fp, const char *const *files, tc_report *const *reports, int n,
                        tool_out_style style)
{
    if (style == TOOL_OUT_TSV)
        fputs("file\tsection\tkey\tvalue\n", fp);
    if (style == TOOL_OUT_JSON)
        fputs("[\n", fp);
    for (int i = 0; i < n; i++) {
        switch (style) {
        case TOOL_OUT_TEXT:
            /* a heading per file, as head(1) does, only where there are
               several: text is for people, not for scripts */
            if (n > 1)
                fprintf(fp, "%s==> %s <==\n", i ? "\n" : "", files[i]);
            print_text(fp, reports[i]);
            break;
        case TOOL_OUT_TSV: print_tsv_rows(fp, files[i], reports[i]); break;
        case TOOL_OUT_JSON:
            fputs("{\"file\": ", fp);
            tool_json_string(fp, files[i]);
            fputs(", \"report\": ", fp);
            print_json(fp, reports[i]);
            fputs(i + 1 < n ? "},\n" : "}\n", fp);
            break;
        }
    }
    if (style == TOOL_OUT_JSON)
        fputs("]\n", fp);
}

void tool_set_out_style(tool_out_style *style, tool_out_style want)
{
    if (*style != TOOL_OUT_TEXT && *style != want)
        tool_usage_error("--tsv and --json exclude each other: give one");
    *style = want;
}
