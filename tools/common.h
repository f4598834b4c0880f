/*
 * common.h: what the five tools share: error printing, usage errors,
 * version, loading a matrix from any input, the progress bar and report
 * printing. Tools hold option parsing and printing only; the work is in the
 * library.
 */
#ifndef TC_TOOL_COMMON_H
#define TC_TOOL_COMMON_H

#include <stdio.h>
#include <stdnoreturn.h>
#include "tcsparse.h"

extern const char *tool_name;   /* "tcconv", ... */
extern int tool_verbose;        /* -v count */
extern int tool_quiet;          /* -q */

/* Sets tool_name, installs the signal handlers that remove temporary
   outputs, and keeps argv for provenance. */
void tool_init(const char *name, int argc, char **argv);
int tool_argc(void);
char **tool_argv(void);

/* "prog: message" on stderr (message from err, or formatted). */
void tool_error(const tc_error *err);
__attribute__((format(printf, 1, 2))) void tool_errorf(const char *fmt, ...);
/* Prints err and exits with tc_status_exit_code(err->status). */
noreturn void tool_die(const tc_error *err);
/* "prog: message" + "Try 'prog --help' for more information.", exit 2. */
__attribute__((format(printf, 1, 2))) noreturn void tool_usage_error(const char *fmt, ...);
/* Short options mean one thing across the five tools, so that a letter
   learnt in one never swallows a different argument in another (the man
   pages carry the same table):

     -o FILE     --output     all five (tcplot: the spy plot)
     -f FORMAT   --format     tcconv, tcstat (lists), tcplot, tcmul (one name)
     -p K=V,...  --param      tcconv (format parameters), tcreorder (method's)
     -b HxW      --block      tcstat, tcplot
     -s N        --size       tcplot
     -m NAME     --method     tcreorder
     -B FILE     --B          tcmul
     -n N        --cols       tcmul
     -d DEV      --device     tcmul
     -t N        --threads    all five (common)
     -q -v -h -V              all five (common)

   Long only, so as not to take a letter that means something else
   elsewhere: tcconv --to, tcplot --blocks, tcmul --seed, and the input
   options every tool has: --from, --index-base, --undirected, --relabel. */

/* The options every tool has: end a tool's long-option table with
   TOOL_COMMON_LONGOPTS and its getopt string (which starts with ':', so
   that a missing argument is told apart) with TOOL_COMMON_SHORTOPTS, and
   hand every other option character to tool_common_option. */
enum { TOOL_OPT_FROM = 1000, TOOL_OPT_INDEX_BASE, TOOL_OPT_UNDIRECTED, TOOL_OPT_RELABEL };
#define TOOL_COMMON_LONGOPTS \
    { "from", required_argument, NULL, TOOL_OPT_FROM }, \
    { "index-base", required_argument, NULL, TOOL_OPT_INDEX_BASE }, \
    { "undirected", no_argument, NULL, TOOL_OPT_UNDIRECTED }, \
    { "relabel", required_argument, NULL, TOOL_OPT_RELABEL }, \
    { "threads", required_argument, NULL, 't' }, \
    { "quiet", no_argument, NULL, 'q' }, { "verbose", no_argument, NULL, 'v' }, \
    { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }, \
    { NULL, 0, NULL, 0 }
#define TOOL_COMMON_SHORTOPTS "t:qvhV"
/* The --help lines of the input options every tool has. */
#define TOOL_INPUT_HELP \
"      --from KIND          the matrix's kind: tcf, mtx, edgelist, ... (default:\n" \
"                           by content, else by name; tcconv --list-kinds)\n" \
"      --index-base 0|1     edge lists: the first id (default: 0 when an id 0\n" \
"                           appears, else 1, with a warning)\n" \
"      --undirected         edge lists: each line is also its reverse edge\n" \
"      --relabel WHEN       edge lists: number ids densely: auto (default:\n" \
"                           names, and ids that would leave most rows empty),\n" \
"                           always, never\n"

/* --from KIND, and the edge-list options (--index-base 0|1, --undirected,
   --relabel auto|always|never), into tool_from and tool_read_opts;
   -t N (every tool runs the library's threads: sets $TC_THREADS, which the
   library reads, for this process); -q, -v; -h (usage() on stdout, exit 0);
   -V; and getopt_long's error returns (tool_init sets opterr = 0):
   "prog: unrecognized option '--x'", "prog: option '-o' requires an
   argument", ..., exit 2. */
void tool_common_option(int c, char **argv, void (*usage)(void));
/* "prog (tcsparse 0.1.0)" on stdout, exit 0. */
noreturn void tool_version(void);
/* "prog: standard output: write failed: strerror(e)" (no reason for e 0)
   and _exit(1): for output longer than stdio's buffer, whose failed write
   is not seen again at exit with its reason. */
noreturn void tool_stdout_failed(int e);
/* Warnings go to stderr unless -q. */
__attribute__((format(printf, 1, 2))) void tool_warn(const char *fmt, ...);
/* Informational lines on stderr with -v. */
__attribute__((format(printf, 1, 2))) void tool_info(const char *fmt, ...);

/* Whole-string number parsing for options; on failure a usage error naming
   the option. */
long tool_parse_long(const char *opt, const char *s, long min, long max);
double tool_parse_double(const char *opt, const char *s, double min, double max);
/* --accuracy's value: a precision with a tolerance (fp32, tf32, fp16), else
   a usage error. */
const char *tool_parse_accuracy(const char *s);
/* "csr, brp, ...": the registry's format names for which keep (NULL: every
   one) is true. */
void tool_format_names(char *buf, size_t size, int (*keep)(const tc_format *));
/* -f NAME where a tool takes one format: a usage error naming the known
   ones for anything else (a list included). */
const tc_format *tool_parse_format(const char *s);
/* --perm-convention=new2old|old2new */
tc_perm_convention tool_parse_convention(const char *s);

/* ---- outputs: what their names say, and which files they may replace ---- */

/* The kind of file an output's name says, by its ending (case as written,
   as the library reads it: a .gz name is gzip-compressed). */
typedef enum {
    TOOL_NAME_PLAIN,    /* no extension: a device, a fifo, "out"; also - */
    TOOL_NAME_TCF,      /* *.tcf.h5 */
    TOOL_NAME_HDF5,     /* *.h5, *.hdf5 (but not *.tcf.h5) */
    TOOL_NAME_MTX,      /* *.mtx, *.mtx.gz */
    TOOL_NAME_PNG,      /* *.png */
    TOOL_NAME_OTHER     /* any other extension: *.csv, *.npz, *.txt */
} tool_name_kind;
#define TOOL_NAMES(k) (1u << (k))
tool_name_kind tool_name_kind_of(const char *path);
/* The kind of path's name when it is among `accepted` (TOOL_NAMES bits);
   else a usage error: "OPTION PATH: cannot write '.EXT': it writes WRITES"
   (WRITES: what the option writes and the endings it takes). */
tool_name_kind tool_check_output_name(const char *option, const char *path, unsigned accepted,
                                      const char *writes);
/* The same for an output of text (a report, a permutation): any name but
   one that says .tcf.h5, HDF5, Matrix Market or PNG. */
void tool_check_text_output(const char *option, const char *path);
/* The names a .tcf.h5 output takes (it is an HDF5 file), and the words for
   them in messages. */
#define TOOL_TCF_NAMES \
    (TOOL_NAMES(TOOL_NAME_PLAIN) | TOOL_NAMES(TOOL_NAME_TCF) | TOOL_NAMES(TOOL_NAME_HDF5))
#define TOOL_TCF_WRITES ".tcf.h5 (a name ending in .tcf.h5, .h5 or .hdf5, or without an extension)"

/* An output option and the file it names, for tool_check_outputs. */
typedef struct tool_output {
    const char *option;     /* as --help names it: "--output", "--perm-out" */
    const char *path;       /* NULL: not given */
    int may_update;         /* it may replace the first input (the matrix):
                               the same kind of file, read whole before the
                               output is written, and replaced atomically */
} tool_output;
/* A usage error when an output names an input (but the first, with
   may_update), or two outputs name the same file. The same file: by device
   and inode, so through symbolic and hard links; an output that does not
   exist yet by its directory and name. - is no input's; /dev/stdout is what it leads
   to: a pipe or a terminal, or the input itself when standard output was
   redirected onto it (it would be opened anew, and truncated). */
void tool_check_outputs(const tool_output *outs, int nouts, const char *const *inputs,
                        int ninputs);

/* How tool_load_matrix reads a matrix: the options of every kind, set by
   the common options (--from, --index-base, --undirected, --relabel) and
   by a tool's own (tcconv --duplicates) before it loads. */
extern tc_read_opts tool_read_opts;
extern const tc_matrix_kind *tool_from;   /* --from KIND, or NULL: detected */

/* A matrix read from any kind of file (tc_matrix_file): "-" is stdin
   (Matrix Market, or --from's kind), FILE:DATASET names a dataset of a
   kind that holds several (when FILE:DATASET is not itself a file). For
   .tcf.h5 the whole container is kept in tcf (a points at tcf->matrix),
   formats read only when with_formats. An edge list whose index base was
   guessed gets a warning. */
typedef tc_matrix_file tool_matrix;
tc_status tool_load_matrix(const char *path, int with_formats, tool_matrix *m,
                           tc_error *err);
/* The kind tool_load_matrix reads path as: --from's, else by content and
   name (a file that cannot be read: Matrix Market, whose reader says why
   when it is loaded). */
const tc_matrix_kind *tool_input_kind(const char *path);
/* 1 when tool_load_matrix reads path as a .tcf.h5. */
int tool_is_tcf(const char *path);
void tool_matrix_free(tool_matrix *m);
/* --to KIND (and --from's): a usage error naming the kinds for an unknown
   one, or for one that is not written when `writing`. */
const tc_matrix_kind *tool_parse_kind(const char *option, const char *name, int writing);


/* A progress bar on stderr for `label`, or NULL when stderr is not a
   terminal or -q was given. tool_progress_end clears the line. */
const tc_progress *tool_progress(const char *label);
void tool_progress_end(void);

typedef enum { TOOL_OUT_TEXT, TOOL_OUT_TSV, TOOL_OUT_JSON } tool_out_style;
/* The reports of n files (files[i] is what reports[i] is about), in one
   shape whatever n, so that a script written for one file works for
   several. Text: sections as headings, aligned "key  value  (help)" lines,
   under a "==> FILE <==" heading each when n > 1. TSV: header
   "file<TAB>section<TAB>key<TAB>value", one row per figure. JSON: an array
   with one {"file": ..., "report": {...}} per file, the report a member per
   section holding its figures. */
void tool_print_reports(FILE *fp, const char *const *files, tc_report *const *reports, int n,
                        tool_out_style style);
/* --tsv and --json: *style becomes want; the other one given before is a
   usage error. */
void tool_set_out_style(tool_out_style *style, tool_out_style want);

/* The "--list-formats" / "--list-methods" entry of one registry member:
   its name and description, then one line per parameter (default, help,
   range). */
void tool_print_entry(const char *name, const char *description, const tc_param_def *d,
                      int n);

/* Writes a string as a JSON string literal. */
void tool_json_string(FILE *fp, const char *s);

#endif
