/* common.c: helpers shared by the five tools (see common.h). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

const char *tool_name = "tcsparse";
int tool_verbose;
int tool_quiet;
tc_mtx_read_opts tool_mtx_read_opts = TC_MTX_READ_DEFAULTS;
static int saved_argc;
static char **saved_argv;

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
    tc_h5_skip_exit_cleanup();
    tc_atomic_install_signal_handlers();
}

int tool_argc(void) { return saved_argc; }
char **tool_argv(void) { return saved_argv; }

void tool_error(const tc_error *err)
{
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
    if (v < min || v > max)
        tool_usage_error("%s: %g is out of range [%g, %g]", opt, v, min, max);
    return v;
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

tc_status tool_load_matrix(const char *path, int with_formats, tool_matrix *m,
                           tc_error *err)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    tc_status st;
    if (strcmp(path, "-") != 0 && tc_h5_is_hdf5(path)) {
        st = tc_h5_read(path, with_formats, &m->tcf, err);
        if (!st)
            m->a = m->tcf->matrix;
    } else {
        st = tc_mtx_read(path, &tool_mtx_read_opts, &m->a, &m->info, tool_progress("reading"), err);
        tool_progress_end();
    }
    return st;
}

void tool_matrix_free(tool_matrix *m)
{
    if (m->tcf)
        tc_tcf_free(m->tcf);
    else
        tc_csr_free(m->a);
    tc_mtx_info_clear(&m->info);
    memset(m, 0, sizeof *m);
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
    for (int j = 0; j < n; j++)
        printf("         %s=%g  %s [%g, %g]\n", d[j].name, d[j].def, d[j].help, d[j].min,
               d[j].max);
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
