/*
 * tcsparse.h: the one public header of libtcsparse.
 *
 * Sparse matrices on GPU tensor cores: Matrix Market and .tcf.h5 I/O, CSR
 * and permutations, density statistics, row reorderings, tensor-core formats,
 * nonzero-pattern pictures, SpMM on the CPU (and, when built with CUDA, on the
 * GPU through kernels/kernels.h).
 *
 * Conventions, true for every function here:
 *  - functions that can fail return tc_status and, when `err` is not NULL,
 *    fill it with a message that names the file, line or dataset;
 *  - the library never prints, never exits, never aborts on bad input;
 *  - sizes that grow with the problem (nnz, offsets, products of dimensions)
 *    are int64_t; row and column counts and column indices are int32_t;
 *  - objects returned through `**out` are owned by the caller and released
 *    with the matching *_free function (which accepts NULL).
 */
#ifndef TCSPARSE_H
#define TCSPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VERSION_STRING "0.1.0"
/* The version the library was built as (TC_VERSION_STRING of its build):
   for callers that load it at run time (the Python package) and must know
   that its structures are the ones they were written against. */
const char *tc_version(void);

/* ------------------------------------------------------------------------ */
/* Errors (lib/error.c)                                                      */
/* ------------------------------------------------------------------------ */

typedef enum tc_status {
    TC_OK = 0,
    TC_ERR_IO,          /* cannot open, read, write or rename a file       */
    TC_ERR_PARSE,       /* malformed text input (Matrix Market, perm file)  */
    TC_ERR_FORMAT,      /* a .tcf.h5 / HDF5 file lacks what it must hold   */
    TC_ERR_INVALID,     /* data read or given fails validation             */
    TC_ERR_UNSUPPORTED, /* valid input we do not handle (complex, ...)     */
    TC_ERR_NOMEM,       /* allocation failed or size would overflow        */
    TC_ERR_ARG,         /* a caller passed a bad argument                  */
    TC_ERR_NODEVICE,    /* a GPU was required and there is none            */
    TC_ERR_CUDA,        /* a CUDA / cuSPARSE call failed                   */
    TC_ERR_VERIFY,      /* a result failed its accuracy check              */
    TC_ERR_INTERRUPTED  /* stopped by a signal before completion           */
} tc_status;

typedef struct tc_error {
    tc_status status;
    char msg[1024];     /* "file:line: what was expected" (no program name) */
} tc_error;

/* Sets err (if not NULL) to a printf-formatted message and returns st. */
tc_status tc_error_set(tc_error *err, tc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like tc_error_set, then appends ": strerror(errnum)". */
tc_status tc_error_errno(tc_error *err, tc_status st, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prefixes err's message (if err is not NULL) with "prefix: " and returns
   st, the status of the failure being described, which it also records:
   the caller's own status, so that a NULL err loses none. */
tc_status tc_error_prefix(tc_error *err, tc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *tc_status_name(tc_status st);
/* Exit status a tool should use for st: 1 data/IO, 2 usage, 3 no device. */
int tc_status_exit_code(tc_status st);

/* Overflow-checked helpers used everywhere sizes are multiplied. */
int tc_mul_overflows(int64_t a, int64_t b, int64_t *out);
/* malloc/calloc of n elements of size sz, NULL (with TC_ERR_NOMEM in err)
   when the product overflows or memory is short. n == 0 returns a valid
   pointer. */
void *tc_malloc_array(int64_t n, size_t sz, tc_error *err);
void *tc_calloc_array(int64_t n, size_t sz, tc_error *err);

/* Number of worker threads: $TC_THREADS if set, else the online CPUs. */
int tc_default_threads(void);

/* Progress for long work: fn(ctx, done, total) is called now and then with
   total > 0. A NULL tc_progress* means no reporting. */
typedef struct tc_progress {
    void (*fn)(void *ctx, int64_t done, int64_t total);
    void *ctx;
} tc_progress;
void tc_progress_report(const tc_progress *p, int64_t done, int64_t total);

/* ------------------------------------------------------------------------ */
/* CSR matrices (lib/matrix.c)                                               */
/* ------------------------------------------------------------------------ */

typedef enum tc_field { TC_FIELD_REAL, TC_FIELD_INTEGER, TC_FIELD_PATTERN } tc_field;
typedef enum tc_symmetry {
    TC_SYM_GENERAL, TC_SYM_SYMMETRIC, TC_SYM_SKEW, TC_SYM_HERMITIAN
} tc_symmetry;

const char *tc_field_name(tc_field f);          /* "real", "integer", "pattern" */
const char *tc_symmetry_name(tc_symmetry s);    /* "general", "symmetric", "skew-symmetric", "hermitian" */
int tc_field_parse(const char *s, tc_field *out);        /* 0 on success */
int tc_symmetry_parse(const char *s, tc_symmetry *out);  /* 0 on success */

/* Compressed sparse rows. Columns are sorted and unique within each row.
   val is NULL for pattern matrices (every stored value is implicitly 1).
   field and symmetry describe the source the matrix came from; the arrays
   always hold the full (expanded) matrix. */
typedef struct tc_csr {
    int32_t rows, cols;
    int64_t nnz;
    int64_t *rowptr;    /* rows + 1 entries, rowptr[0] = 0, rowptr[rows] = nnz */
    int32_t *colidx;    /* nnz entries */
    double *val;        /* nnz entries, or NULL (pattern) */
    tc_field field;
    tc_symmetry symmetry;
} tc_csr;

/* Allocates a matrix with rowptr zeroed and colidx/val uninitialised. */
tc_status tc_csr_alloc(tc_csr **out, int32_t rows, int32_t cols, int64_t nnz,
                       int with_values, tc_error *err);
void tc_csr_free(tc_csr *a);
tc_status tc_csr_copy(const tc_csr *a, tc_csr **out, tc_error *err);

/* Builds CSR from coordinate triplets (0-based). Rows are bucketed with a
   counting pass, columns sorted within each row, duplicates summed (or, with
   sum_duplicates == 0, refused with TC_ERR_INVALID naming the entry). v may
   be NULL (pattern). Indices must be in range (checked). */
tc_status tc_csr_from_coo(tc_csr **out, int32_t rows, int32_t cols, int64_t n,
                          const int32_t *ri, const int32_t *ci, const double *v,
                          int sum_duplicates, tc_error *err);
/* The same for triplets that list a square matrix of the given symmetry
   the way Matrix Market files do, one triangle: with TC_SYM_SYMMETRIC or
   TC_SYM_HERMITIAN (a real hermitian matrix is symmetric) an off-diagonal
   triplet (i, j, v) also stands for (j, i, v), with TC_SYM_SKEW for
   (j, i, -v); a diagonal triplet stands for itself. The mirrors are added
   while building, so callers need no triplet arrays twice the size.
   Duplicates, a triplet and another's mirror included, are summed in the
   order of the triplets, each mirror right after its triplet; refused ones
   are named by their 1-based position. out->symmetry is set to symmetry
   (tc_csr_from_coo is this with TC_SYM_GENERAL). */
tc_status tc_csr_from_coo_sym(tc_csr **out, int32_t rows, int32_t cols, int64_t n,
                              const int32_t *ri, const int32_t *ci, const double *v,
                              tc_symmetry symmetry, int sum_duplicates, tc_error *err);

/* Checks every invariant listed at tc_csr; `what` names the source in the
   message (e.g. "m.tcf.h5: /matrix"). */
tc_status tc_csr_validate(const tc_csr *a, const char *what, tc_error *err);
/* The same checks on rows r0 .. r1 - 1 alone, for matrices produced piece
   by piece: rowptr is the whole matrix's, colidx holds entries rowptr[r0]
   .. rowptr[r1] - 1 (colidx[0] is entry rowptr[r0]). */
/* Checks that a (square) has symmetry sym (symmetric or hermitian: a
   equals its transpose; skew-symmetric: its negation, with a zero
   diagonal), values compared bit for bit; a message starts with `why`
   ("m.tcf.h5: /matrix: not symmetric as its attribute says"). */
tc_status tc_csr_check_symmetry(const tc_csr *a, tc_symmetry sym, const char *why,
                                tc_error *err);
tc_status tc_csr_validate_rows(const int64_t *rowptr, const int32_t *colidx, int32_t r0,
                               int32_t r1, int32_t cols, int64_t nnz, const char *what,
                               tc_error *err);

/* 1 when a and b have the same shape, pattern and (bitwise) values. */
int tc_csr_equal(const tc_csr *a, const tc_csr *b);

tc_status tc_csr_transpose(const tc_csr *a, tc_csr **out, tc_error *err);

/* Row permutation (and, if col is not NULL, column permutation):
   out row i = a row row->new2old[i]; out column j = a column col->new2old[j]. */
typedef struct tc_perm tc_perm;
tc_status tc_csr_permute(const tc_csr *a, const tc_perm *row, const tc_perm *col,
                         tc_csr **out, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Permutations (lib/perm.c)                                                 */
/* ------------------------------------------------------------------------ */

/* A validated bijection on 0..n-1, kept in both directions. */
struct tc_perm {
    int32_t n;
    int32_t *new2old;
    int32_t *old2new;
};

typedef enum tc_perm_convention { TC_PERM_NEW2OLD, TC_PERM_OLD2NEW } tc_perm_convention;

/* Takes a copy of idx, interpreted by conv; refuses anything that is not a
   bijection (message names the first bad position, with `what`). */
tc_status tc_perm_from_array(tc_perm **out, int32_t n, const int32_t *idx,
                             tc_perm_convention conv, const char *what, tc_error *err);
tc_status tc_perm_identity(tc_perm **out, int32_t n, tc_error *err);
void tc_perm_free(tc_perm *p);
int tc_perm_is_identity(const tc_perm *p);
/* out = first then second: out.new2old[i] = first.new2old[second.new2old[i]]. */
tc_status tc_perm_compose(const tc_perm *first, const tc_perm *second, tc_perm **out,
                          tc_error *err);
/* Text files: one 0-based index per line, blank lines and lines starting with
   '#' or '%' ignored. n_expected < 0 accepts any length. path "-" = stdin. */
tc_status tc_perm_read(const char *path, int32_t n_expected, tc_perm_convention conv,
                       tc_perm **out, tc_error *err);
/* The same from len bytes of memory; name is used in messages. */
tc_status tc_perm_read_mem(const void *buf, size_t len, const char *name, int32_t n_expected,
                           tc_perm_convention conv, tc_perm **out, tc_error *err);
/* Writes atomically (temporary file + rename); "-" = stdout. */
tc_status tc_perm_write(const char *path, const tc_perm *p, tc_perm_convention conv,
                        tc_error *err);

/* ------------------------------------------------------------------------ */
/* Matrix Market (lib/mtx_*.c)                                              */
/* ------------------------------------------------------------------------ */

/* What a Matrix Market file said about itself. */
typedef struct tc_mtx_info {
    int is_array;           /* "array" rather than "coordinate" */
    tc_field field;
    tc_symmetry symmetry;
    int64_t entries;        /* entries listed in the file (before expansion) */
    char banner[256];       /* the banner line as written (no newline) */
    char *comments;         /* the % comment lines between the banner and the
                               size line, joined with '\n', without their
                               leading '%'; malloc'ed or NULL */
} tc_mtx_info;
void tc_mtx_info_clear(tc_mtx_info *info);   /* frees comments */

typedef struct tc_mtx_read_opts {
    int sum_duplicates;     /* 1 (default): sum; 0: refuse duplicates */
} tc_mtx_read_opts;
#define TC_MTX_READ_DEFAULTS { 1 }

/* Reads a sparse matrix from a Matrix Market file, plain or gzip-compressed
   (detected by content, not name); "-" = stdin. Array files give a CSR with
   every entry stored. Symmetric / skew / hermitian files are expanded
   (no explicit diagonal zeros added). info may be NULL. */
tc_status tc_mtx_read(const char *path, const tc_mtx_read_opts *opts, tc_csr **out,
                      tc_mtx_info *info, const tc_progress *prog, tc_error *err);
/* The same from memory (plain or gzip bytes); name is used in messages. */
tc_status tc_mtx_read_mem(const void *buf, size_t len, const char *name,
                          const tc_mtx_read_opts *opts, tc_csr **out,
                          tc_mtx_info *info, tc_error *err);

/* Writes a as a coordinate file, atomically (temporary file + rename); "-" =
   stdout; gzip-compressed when path ends in .gz. symmetry: TC_SYM_GENERAL writes every entry; SYMMETRIC / SKEW write
   the lower triangle after checking that a has that symmetry. comments
   (may be NULL) are written as % lines after the banner. Values are written
   so that they read back bit-identical (%.17g; integers as integers). */
tc_status tc_mtx_write(const char *path, const tc_csr *a, tc_symmetry symmetry,
                       const char *comments, tc_error *err);

/* Dense matrices (row-major, rows x cols, leading dimension cols) in Matrix
   Market "array" format (column-major on disk, as the spec says); a
   coordinate file is accepted too and densified. */
tc_status tc_mtx_read_dense(const char *path, int32_t *rows, int32_t *cols,
                            double **data, tc_error *err);
tc_status tc_mtx_write_dense(const char *path, int32_t rows, int32_t cols,
                             const double *data, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Vertex labels and edge lists (lib/labels.c, lib/edgelist_*.c)             */
/* ------------------------------------------------------------------------ */

/* The original ids of a matrix whose rows and columns were numbered
   densely from ids that were not (edge lists with sparse or non-numeric
   ids): label i names row i and column i of the matrix as read, before
   any reordering. Either integers (id) or strings (text and offset:
   label i is the offset[i+1] - offset[i] bytes at text + offset[i], no
   NUL between labels). */
typedef struct tc_labels {
    int32_t n;
    int64_t *id;        /* n integer labels, or NULL */
    char *text;         /* string labels, or NULL */
    int64_t *offset;    /* n + 1 entries with text */
} tc_labels;
void tc_labels_free(tc_labels *l);
tc_status tc_labels_copy(const tc_labels *l, tc_labels **out, tc_error *err);
/* Label i as text into buf (cut to size - 1 bytes); returns buf. */
const char *tc_labels_get(const tc_labels *l, int32_t i, char *buf, size_t size);
/* Checks n, the offsets (0 first, non-decreasing, within text) and that no
   label holds a NUL or a line break; `what` names the source in messages. */
tc_status tc_labels_validate(const tc_labels *l, const char *what, tc_error *err);
/* The labels in p's new order: out label i = l's label p->new2old[i]. */
tc_status tc_labels_permute(const tc_labels *l, const tc_perm *p, tc_labels **out,
                            tc_error *err);
/* Writes the labels as text, one a line, atomically; "-" = stdout; gzip
   when path ends in .gz. */
tc_status tc_labels_write(const char *path, const tc_labels *l, tc_error *err);
/* Reads a new-to-old permutation given as labels, one a line (blank lines
   and lines starting with # or % skipped; plain or gzip; "-" = stdin):
   line i names the row that becomes row i. Every label once; an unknown
   one, a missing one or more than n are refused with file:line. */
tc_status tc_labels_read_perm(const char *path, const tc_labels *l, tc_perm **out,
                              tc_error *err);

typedef enum tc_relabel {
    TC_RELABEL_AUTO,    /* relabel non-numeric ids, and numeric ids that would
                           leave most rows empty (tc_edgelist_read) */
    TC_RELABEL_ALWAYS,  /* always (numeric ids in increasing order) */
    TC_RELABEL_NEVER    /* ids are indices: names and ids past int32 refused */
} tc_relabel;

typedef struct tc_edgelist_opts {
    int index_base;     /* 0 or 1; -1 (default): from the data (a 0 id: 0-based,
                           else 1-based, with info->base_guessed set) */
    int undirected;     /* each line also stands for its reverse edge */
    tc_relabel relabel;
    int sum_duplicates; /* 1 (default): sum repeated edges; 0: refuse them */
} tc_edgelist_opts;
#define TC_EDGELIST_DEFAULTS { -1, 0, TC_RELABEL_AUTO, 1 }

typedef struct tc_edgelist_info {
    int64_t edges;      /* edge lines read */
    int weighted;       /* a third column gave weights */
    int base;           /* 0 or 1 where ids were used as indices; -1: relabelled */
    int base_guessed;   /* no 0 id, no index_base, no header: 1-based assumed */
} tc_edgelist_info;

/* Reads an edge list: one edge per line, "SOURCE TARGET [WEIGHT]", fields
   separated by blanks, tabs or a comma; lines starting with # or % are
   comments; plain or gzip (by content); "-" = stdin. Every line has the
   column count of the first. Ids made of digits are numbers (007 is 7);
   any other id is a name. Numbered ids are used as indices (minus the
   base) unless they are relabelled (opts->relabel): then row i is the i-th
   smallest id, or, when any id is a name, the i-th id to appear in the
   file, and *labels (when labels is not NULL; else the labels are
   dropped) gets the map; otherwise *labels is NULL. The matrix is square
   (its size: the largest index + 1, or the count of labels), pattern
   without weights, else real; symmetric with opts->undirected. A comment
   "# tcsparse edgelist: rows=R cols=C base=B" before the first edge (what
   tc_edgelist_write puts first) gives the shape and base. Errors name the
   file and line. opts and info may be NULL. */
tc_status tc_edgelist_read(const char *path, const tc_edgelist_opts *opts, tc_csr **out,
                           tc_labels **labels, tc_edgelist_info *info, tc_error *err);
/* The same from memory (plain or gzip bytes); name is used in messages. */
tc_status tc_edgelist_read_mem(const void *buf, size_t len, const char *name,
                               const tc_edgelist_opts *opts, tc_csr **out, tc_labels **labels,
                               tc_edgelist_info *info, tc_error *err);
/* Writes a as an edge list, atomically; "-" = stdout; gzip-compressed when
   path ends in .gz; fields separated by a comma when the name (less .gz)
   ends in .csv, else by a tab. Every stored entry is one line "i j [v]":
   with labels (n = rows = cols), the labels; else 0-based indices after a
   "# tcsparse edgelist: rows=R cols=C base=0" line that keeps the shape.
   Values read back bit-identical. */
tc_status tc_edgelist_write(const char *path, const tc_csr *a, const tc_labels *labels,
                            tc_error *err);

/* ------------------------------------------------------------------------ */
/* Tensor-core formats (formats/, registry in formats/formats.c)             */
/* ------------------------------------------------------------------------ */

typedef struct tc_format tc_format;   /* a kind of format (vtable) */
typedef struct tc_fmt tc_fmt;         /* one matrix built in a format */

/* Format parameters, "name=value" pairs; values are numbers. */
#define TC_MAX_PARAMS 16
typedef struct tc_params {
    int n;
    struct { char name[32]; double value; } kv[TC_MAX_PARAMS];
} tc_params;
typedef struct tc_param_def {
    const char *name;
    const char *help;
    double def, min, max;
    int integer;            /* 1: the value must be a whole number */
} tc_param_def;
/* Parses "h=16,w=8" (appending to p). */
tc_status tc_params_parse(tc_params *p, const char *text, tc_error *err);
/* p as "h=16,w=8" (what tc_params_parse reads back; "" for none) into
   buf of len bytes, cut short if it does not fit. Returns buf. */
char *tc_params_text(const tc_params *p, char *buf, size_t len);
/* The value of name in p, else def. */
double tc_params_get(const tc_params *p, const char *name, double def);
/* Checks p against defs: unknown names and out-of-range values refused
   (TC_ERR_ARG: p is the caller's; a reader of stored values says whose). */
tc_status tc_params_check(const tc_params *p, const tc_param_def *defs, int ndefs,
                          const char *owner, tc_error *err);
/* v as text for a message: a whole number with all its digits ("9502740",
   where %g gives "9.50274e+06"), others as %g with the digits needed to
   read back as v. Returns buf. */
#define TC_NUMBER_CHARS 32
const char *tc_number_text(double v, char buf[TC_NUMBER_CHARS]);

int tc_format_count(void);
const tc_format *tc_format_at(int i);
const tc_format *tc_format_find(const char *name);   /* NULL if unknown */
const char *tc_format_name(const tc_format *f);
const char *tc_format_description(const tc_format *f);
const tc_param_def *tc_format_params(const tc_format *f, int *n);
/* The parameter settings ("seg=64,order=1") a patient plan times besides
   f's defaults, NULL-terminated; NULL when f lists none. */
const char *const *tc_format_plan_params(const tc_format *f);
/* 0 when the plan setting `setting` (one of tc_format_plan_params(f))
   cannot pay on a, which a patient plan then lists untimed and unbuilt;
   else 1. */
int tc_format_plan_param_pays(const tc_format *f, const tc_csr *a, const char *setting);
/* The settings ("rowcost=4") a patient plan times again with each cut of
   one or two waves of f's kernel ("segs=N,rowcost=4"), NULL-terminated;
   NULL when f lists none. */
const char *const *tc_format_wave_params(const tc_format *f);
/* 1 for the format that is /matrix itself (csr): never stored under /formats. */
int tc_format_is_canonical(const tc_format *f);
/* Parses "csr,brp" or "all" (every format, alone or in a list) into a list
   in registry order without repeats (at most max entries). */
tc_status tc_format_list_parse(const char *text, const tc_format **list, int max,
                               int *n, tc_error *err);

tc_status tc_fmt_build(const tc_format *f, const tc_csr *a, const tc_params *p,
                       tc_fmt **out, tc_error *err);
const tc_format *tc_fmt_format(const tc_fmt *m);
/* The parameters m was built with, all of them (defaults filled in). */
const tc_params *tc_fmt_params(const tc_fmt *m);
tc_status tc_fmt_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err);
/* C = A*B from the format's own arrays, float64; B is cols x n (ldb),
   C is rows x n (ldc), both row-major. */
tc_status tc_fmt_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                          double *C, int64_t ldc, tc_error *err);
/* Bytes the format's arrays occupy (for the bytes-relative-to-CSR figure). */
int64_t tc_fmt_bytes(const tc_fmt *m);
/* 1 when f splits a matrix in two parts, one multiplied on tensor cores and
   one on CUDA cores (brp: TC Block Groups and residual rows). */
int tc_format_has_parts(const tc_format *f);
/* For such a format: part[k] = 0 when nonzero k of a (the canonical matrix
   m was built from; its nnz entries in CSR order) is in the tensor-core
   part, 1 when in the CUDA-core part. TC_ERR_UNSUPPORTED for a format
   without parts, TC_ERR_ARG when a is not the matrix m encodes. */
tc_status tc_fmt_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err);
void tc_fmt_free(tc_fmt *m);

/* ------------------------------------------------------------------------ */
/* Reports: ordered (section, key, value) figures that tools print as text,  */
/* TSV or JSON (lib/report.c)                                                */
/* ------------------------------------------------------------------------ */

typedef struct tc_report tc_report;
tc_report *tc_report_new(void);
void tc_report_free(tc_report *r);
/* Values are numbers (tc_report_num), integers (tc_report_int) or strings. `section` groups figures ("matrix", "rows",
   "tc16x8", "format.brp", ...). Returns TC_ERR_NOMEM on allocation failure. */
tc_status tc_report_num(tc_report *r, const char *section, const char *key, double v,
                        const char *help);
tc_status tc_report_int(tc_report *r, const char *section, const char *key, int64_t v,
                        const char *help);
tc_status tc_report_str(tc_report *r, const char *section, const char *key,
                        const char *v, const char *help);
int tc_report_count(const tc_report *r);
typedef struct tc_report_entry {
    const char *section, *key, *help;
    int is_str, is_int;
    double num;
    int64_t ival;
    const char *str;
} tc_report_entry;
const tc_report_entry *tc_report_at(const tc_report *r, int i);

/* ------------------------------------------------------------------------ */
/* Statistics (lib/stats.c)                                                  */
/* ------------------------------------------------------------------------ */

/* A distribution: min, max, mean, standard deviation, coefficient of
   variation (sd / mean, 0 when mean is 0) and the 11 deciles p0..p100
   (nearest-rank). */
typedef struct tc_dist {
    int64_t count;
    double min, max, mean, sd, cv;
    double decile[11];
} tc_dist;
/* From n values (the array is sorted in place). */
void tc_dist_compute(tc_dist *d, double *values, int64_t n);
/* The coefficient of variation of a's row lengths (population sd / mean;
   0 without rows or nonzeros): one pass over rowptr, no allocation. */
double tc_csr_row_length_cv(const tc_csr *a);
/* The columns of a that hold a nonzero, most nonzeros first (columns of
   one count in increasing order), into *out (malloc'ed; NULL when there
   are none, or when out is NULL: the count alone), their number into
   *count: the rows of B that a kernel gathering only A's own columns
   reads, hubs first (rowsplit's fp16 copy of B, whose first rows L2 keeps;
   the traffic model's count). One pass over the nonzeros and a counting
   sort: 4 bytes a column and 4 for each count up to the largest. */
tc_status tc_csr_used_cols(const tc_csr *a, int32_t **out, int32_t *count, tc_error *err);

typedef struct tc_tiling_stats {
    int h, w;                       /* window height (rows) and block width */
    int64_t windows;                /* ceil(rows / h) */
    int64_t empty_windows;
    int64_t blocks;                 /* TC blocks after per-window column compaction */
    tc_dist blocks_per_window;      /* over non-empty windows (003 Table 7) */
    tc_dist nnz_per_block;          /* over blocks (003 Table 6) */
    double fill;                    /* nnz / (blocks * h * w) */
} tc_tiling_stats;

/* TC tiling of h-row windows with the columns of each window compacted
   (sorted, all-zero columns removed), cut into blocks of w columns.
   O(nnz + rows + cols), on $TC_THREADS threads, the same figures whatever
   their number. TC_ERR_ARG unless h, w >= 1 and h * w <= 65536. */
tc_status tc_tiling_stats_compute(const tc_csr *a, int h, int w, tc_tiling_stats *out,
                                  tc_error *err);
/* Just the block count of that tiling (cheap; used before/after reordering):
   O(nnz + cols) per thread, no sort. -1 when h or w < 1 or memory is short. */
int64_t tc_count_tc_blocks(const tc_csr *a, int h, int w);
/* The block count of BCSR with h x w blocks aligned at multiples of the
   block shape (SMaT; the bcsr format's nblocks), the same way. */
int64_t tc_count_bcsr_blocks(const tc_csr *a, int h, int w);

/* TCU-Synergy of cuTeSpMM (seed 002, Sections 4 and 6.4; lib/synergy.c):
   the rows cut into panels of tm rows, each panel's columns that hold a
   nonzero compacted to the left and cut into blocks of tk, the blocks into
   16 x 4 bricks (the A operand of the TF32 mma.m16n8k4). */
typedef struct tc_synergy {
    int tm, tk;                 /* panel height (16 or 32), block width */
    int64_t nnz;
    int64_t panels;             /* ceil(rows / tm) */
    int64_t active_cols;        /* columns with a nonzero, summed over panels */
    int64_t blocks;             /* tm x tk blocks */
    int64_t strips;             /* brick columns (4 compacted columns of a
                                   block) holding an active brick */
    int64_t bricks;             /* active bricks (holding a nonzero) */
    int64_t brick_cols;         /* columns of active bricks (16 entries each),
                                   padding past a panel's last column excluded */
    double alpha;               /* nnz / (16 * brick_cols): the mean nonzero
                                   density of an active brick's columns */
    double oi;                  /* 512 * alpha: modeled OI_shmem (Eq. 4) */
    double beta;                /* bricks / strips: bricks per brick column
                                   of a block (Eq. 5; 1 when tm = 16) */
    double brick_density;       /* nnz / (64 * bricks) */
    const char *level;          /* "low" (alpha < 12.5%), "medium" (< 25%) or
                                   "high" (Table 1) */
} tc_synergy;
/* The figures of a in panels of tm x tk (the paper's are 16 x 16), from
   CSR: one merge of each panel's rows, O(nnz log tm), on $TC_THREADS
   threads, the same whatever their number. TC_ERR_ARG unless tm is 16 or
   32 and tk a multiple of 4 from 4 to 64. */
tc_status tc_synergy_compute(const tc_csr *a, int tm, int tk, tc_synergy *out, tc_error *err);

/* All of tcstat's figures for a: shape, density, symmetry, row lengths,
   empty rows/cols, bandwidth, the h x w tiling (section "tcHxW") and the
   TCU-Synergy at TM = TK = 16 (section "synergy"); appended to r. */
tc_status tc_stats_report(const tc_csr *a, int h, int w, tc_report *r, tc_error *err);
/* Adds a format's own figures (built from a) to r under "format.NAME". */
tc_status tc_format_stats_report(const tc_fmt *m, const tc_csr *a, tc_report *r,
                                 tc_error *err);

/* ------------------------------------------------------------------------ */
/* Memory traffic of C = A*B (lib/traffic.c; bench/NOTES.md "Traffic model") */
/* ------------------------------------------------------------------------ */

/* Bytes of a as CSR on the GPU: int32 row pointers (int64 past 2^31
   nonzeros), int32 columns, float32 values (none for a pattern). */
int64_t tc_csr_device_bytes(const tc_csr *a);
/* The floor of C = A*B with n columns, the same for every path: A as
   tc_csr_device_bytes, B (cols x n) and C (rows x n) in float32, each
   moved once. */
int64_t tc_spmm_floor_bytes(const tc_csr *a, int32_t n);

/* One of the two halves of an H100's L2 (random gathers find less of it
   than an LRU of all 50 MB: bench/NOTES.md, "The model's L2"), and the
   rows of A whose windows run at once (132 SMs, 4 thread blocks of a
   16-row window each). */
#define TC_TRAFFIC_L2_BYTES ((int64_t)25 << 20)
#define TC_TRAFFIC_INFLIGHT_ROWS (132 * 4 * 16)

typedef struct tc_traffic_params {
    int32_t n;                  /* columns of B and C */
    int32_t window_rows;        /* rows of A a thread block's window covers */
    int32_t col_unit;           /* B rows gathered together: 1 where a window
                                   gathers its own columns, w where blocks
                                   are aligned on a grid of w columns and
                                   gather all w rows of B */
    int64_t a_bytes;            /* A's bytes in the format, read once */
    int64_t l2_bytes;           /* the L2 cache */
    int32_t inflight_rows;      /* rows of A whose windows run at once */
    int32_t b_elem_bytes;       /* an element of B as the kernel gathers it:
                                   4 (float32), or 2 (fp16, which a pass
                                   converts from float32 first) */
    int32_t convert_used;       /* fp16: 1 where the pass converts only the
                                   rows of B that A's nonzeros name and,
                                   with col_unit 1, L2 keeps only the most
                                   used of them, as many as it holds, the
                                   others gathered evict-first (rowsplit's
                                   "half"); 0 all of B, every unit kept */
} tc_traffic_params;

/* One row at a time (window_rows = col_unit = 1, a CSR kernel's), an
   H100's L2 and concurrency, B gathered in float32 (with fp16, all of it
   converted). */
void tc_traffic_defaults(tc_traffic_params *p, int32_t n, int64_t a_bytes);

typedef struct tc_traffic {
    int64_t unit_bytes;         /* col_unit rows of B at b_elem_bytes (the
                                   last unit may hold fewer rows) */
    int64_t b_gathers;          /* units the windows gather, each counted
                                   once per window */
    int64_t b_misses;           /* of them, those read from DRAM */
    int64_t b_gathered_bytes;   /* the bytes of the b_gathers */
    int64_t a_bytes, b_bytes, c_bytes;  /* b_bytes: of the b_misses */
    int64_t b_convert_bytes;    /* fp16 B: the conversion pass, which reads
                                   B in float32 and writes it in fp16 (the
                                   rows A uses, with convert_used) */
    int64_t dram_bytes;         /* a_bytes + b_convert_bytes + b_bytes +
                                   c_bytes */
} tc_traffic;

/* The predicted DRAM bytes of one product: the windows of window_rows
   rows in row order, each gathering the units of B its nonzeros name, an
   LRU of units in l2_bytes, and a unit gathered by a window that runs at
   the same time as this one (within inflight_rows) shared; B's elements
   at b_elem_bytes, plus the conversion pass for fp16. O(nnz) time,
   O(cols / col_unit) memory. TC_ERR_ARG for parameters out of range. */
tc_status tc_traffic_predict(const tc_csr *a, const tc_traffic_params *p, tc_traffic *out,
                             tc_error *err);
/* The model for format m (built from a): its window shape and bytes, at
   n columns, l2_bytes, inflight_rows and b_elem_bytes; appended to r
   under "traffic.NAME". */
tc_status tc_format_traffic_report(const tc_fmt *m, const tc_csr *a, int32_t n,
                                   int64_t l2_bytes, int32_t inflight_rows,
                                   int32_t b_elem_bytes, tc_report *r, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Reorderings (lib/reorder/, registry in lib/reorder/reorder.c)             */
/* ------------------------------------------------------------------------ */

typedef struct tc_reorder_method tc_reorder_method;
int tc_reorder_count(void);
const tc_reorder_method *tc_reorder_at(int i);
const tc_reorder_method *tc_reorder_find(const char *name);
const char *tc_reorder_name(const tc_reorder_method *m);
const char *tc_reorder_description(const tc_reorder_method *m);
const tc_param_def *tc_reorder_params(const tc_reorder_method *m, int *n);
/* Every parameter of m, in m's order, with its value from p or else its
   default: what a run with p used (recorded in /permutation). */
void tc_reorder_params_effective(const tc_reorder_method *m, const tc_params *p,
                                 tc_params *out);
/* Computes a row permutation (new-to-old) for a; deterministic. Parameters
   are checked against the method's (unknown names, ranges). */
tc_status tc_reorder_run(const tc_reorder_method *m, const tc_csr *a, const tc_params *p,
                         tc_perm **row, const tc_progress *prog, tc_error *err);
/* What a run decided besides the order. A method that judges its own
   result by a measure of its own (jaccard: BCSR blocks) may keep the
   input's order when it finds none better, and may choose a parameter
   itself (a swept threshold). */
typedef struct tc_reorder_outcome {
    tc_params used;     /* every parameter with the value the run used: given,
                           default or chosen by the method (what /permutation
                           records) */
    int kept_input;     /* 1: nothing the method found beat the input's order,
                           which is returned (the identity permutation) */
    char note[256];     /* a warning for the user ("" when none): why the input's
                           order was kept, or that the order is worse than the
                           input's by the method's measure */
} tc_reorder_outcome;
/* tc_reorder_run that also fills *out. */
tc_status tc_reorder_run_outcome(const tc_reorder_method *m, const tc_csr *a,
                                 const tc_params *p, tc_perm **row, tc_reorder_outcome *out,
                                 const tc_progress *prog, tc_error *err);

/* ------------------------------------------------------------------------ */
/* The .tcf.h5 container (lib/tcf.c, lib/h5file.c); layout in man/tcf.h5.5   */
/* ------------------------------------------------------------------------ */

#define TC_LAYOUT_VERSION "1.1"
#define TC_LAYOUT_MAJOR 1

typedef struct tc_provenance {
    char *creator;      /* "tcsparse 0.1.0" */
    char *created;      /* ISO 8601 UTC */
    char *command;      /* the command line */
    char *source;       /* source file name */
    char *banner;       /* Matrix Market banner of the source, or NULL */
    char *comments;     /* Matrix Market comments of the source, or NULL */
} tc_provenance;

/* The choice `tcconv -f auto` recorded: /formats attributes auto_format,
   auto_n, auto_accuracy, auto_predicted_speedup and auto_model. The
   planner's model, in the stored order, for n columns of B, picked format
   (built in the file; "csr" when its first choice was cuSPARSE, which
   /matrix itself serves). A record for people and tools, never a plan:
   plans depend on the device and live in plan files (tcmul(1)). Empty
   (format NULL) when the file holds none. */
typedef struct tc_auto_choice {
    char *format;               /* the format's name, or NULL: none recorded */
    int64_t n;                  /* columns of B the choice was made for */
    char *accuracy;             /* "any", "fp32", "tf32" or "fp16" */
    double predicted_speedup;   /* the model's, over cuSPARSE (1 for csr) */
    char *model;                /* where its coefficients came from */
} tc_auto_choice;

/* Frees what c holds and empties it. */
void tc_auto_choice_clear(tc_auto_choice *c);

/* Everything one .tcf.h5 file holds. */
typedef struct tc_tcf {
    tc_csr *matrix;             /* /matrix (reordered if row_perm is set) */
    tc_perm *row_perm;          /* /permutation row_new_to_old, or NULL */
    tc_perm *col_perm;          /* /permutation col_new_to_old, or NULL */
    char *perm_method;          /* /permutation attr method, or NULL */
    tc_params perm_params;      /* its parameters (attributes) */
    tc_provenance prov;
    int nformats;
    tc_fmt **formats;           /* /formats/<name>, in registry order */
    tc_auto_choice auto_choice; /* /formats' auto_* attributes, or empty */
    tc_labels *labels;          /* /labels: the original ids of rows and
                                   columns (in the order before any
                                   permutation), or NULL */
} tc_tcf;

tc_tcf *tc_tcf_new(void);
void tc_tcf_free(tc_tcf *f);
/* Fills prov.creator, prov.created (now, or $SOURCE_DATE_EPOCH when set, for
   reproducible files), prov.command (argv quoted for sh) and prov.source
   (may be NULL), replacing what they held. */
tc_status tc_provenance_set(tc_provenance *p, int argc, char **argv, const char *source,
                            tc_error *err);
/* Frees what p holds and empties it. */
void tc_provenance_clear(tc_provenance *p);
/* Takes ownership of m (freed on failure too), keeping f->formats in
   registry order; a format added twice is refused. */
tc_status tc_tcf_add_format(tc_tcf *f, tc_fmt *m, tc_error *err);

typedef struct tc_h5_write_opts {
    int compress;       /* 1 (default): shuffle+deflate above the size threshold */
} tc_h5_write_opts;
#define TC_H5_WRITE_DEFAULTS { 1 }

/* Writes f to path atomically: a temporary file in the target directory,
   renamed into place only when complete. f is checked first (matrix valid,
   permutations and formats of its size); path "-" is refused (HDF5 needs a
   seekable file). */
tc_status tc_h5_write(const char *path, const tc_tcf *f, const tc_h5_write_opts *opts,
                      tc_error *err);
/* Produces rows r0 .. r1 - 1 of a matrix being streamed to a file: their
   column indices into colidx and, for a matrix with values, the values
   into val (NULL for a pattern matrix); entry rowptr[r0] goes to index 0. */
typedef tc_status (*tc_rows_fn)(void *ctx, int32_t r0, int32_t r1, int32_t *colidx,
                                double *val, tc_error *err);
/* Writes a .tcf.h5 holding /matrix and /provenance for a matrix too large
   to hold in memory (lib/h5stream.c): shape gives rows, cols, nnz, rowptr,
   field and symmetry (its colidx and val are not read), and fill produces
   the rows slab by slab, about 16 million entries at a time (a longer row
   is one slab of its own), each slab checked like tc_csr_validate before
   it is written. Memory stays at the row pointers plus one slab. Written
   atomically like tc_h5_write; progress counts entries. */
tc_status tc_h5_write_rows(const char *path, const tc_csr *shape, tc_rows_fn fill, void *ctx,
                           const tc_provenance *prov, const tc_h5_write_opts *opts,
                           const tc_progress *progress, tc_error *err);
/* Reads and validates a .tcf.h5. With formats == 0 the /formats groups are
   not read. */
tc_status tc_h5_read(const char *path, int formats, tc_tcf **out, tc_error *err);
/* 1 when the file holds the HDF5 signature (at offset 0, or after a user
   block of 512, 1024, ... bytes). */
int tc_h5_is_hdf5(const char *path);
/* 1 when the file is HDF5 with a tcf_layout_version attribute on /. */
int tc_h5_is_tcf(const char *path);
/* HDF5's own error stack printing: off unless enabled (tools' -v). */
void tc_h5_set_verbose(int on);
/* For programs that close every HDF5 object they open (the tools): skips
   HDF5's own clean-up at exit, which after a write that failed for lack of
   space (HDF5 1.10: a dataset whose flush failed at close is closed again
   at exit) crashes the process after the error was reported. Call before
   any other function of the library; later, it does nothing. */
void tc_h5_skip_exit_cleanup(void);

/* Dense 2-D datasets (row-major) in any HDF5 file: "file.h5:/path/B"
   (lib/h5dense.c). */
tc_status tc_h5_read_dense(const char *path, const char *dataset, int32_t *rows,
                           int32_t *cols, double **data, tc_error *err);
/* Writes a new file atomically holding one float32 or float64 dataset
   (contiguous; groups along the path are created). */
tc_status tc_h5_write_dense(const char *path, const char *dataset, int32_t rows,
                            int32_t cols, const double *data, int as_float32,
                            tc_error *err);
/* The same with the original ids of the rows (row_labels->n == rows; NULL:
   none) in a group DATASET_row_labels beside it, laid out as a .tcf.h5's
   /labels. */
tc_status tc_h5_write_dense_labelled(const char *path, const char *dataset, int32_t rows,
                                     int32_t cols, const double *data, int as_float32,
                                     const tc_labels *row_labels, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Matrix files of every kind (formats/matrix_kind.c)                        */
/* ------------------------------------------------------------------------ */

/* How a matrix file is read, whatever its kind (each kind takes what
   applies to it). */
typedef struct tc_read_opts {
    int sum_duplicates;         /* Matrix Market and edge lists: 1 sum, 0 refuse */
    tc_edgelist_opts edgelist;  /* its sum_duplicates is the one above */
    int with_formats;           /* .tcf.h5: read /formats too */
    const char *dataset;        /* FILE:DATASET's DATASET for kinds that hold
                                   several matrices, or NULL: the kind's default */
    const tc_progress *progress;
} tc_read_opts;
#define TC_READ_DEFAULTS { 1, TC_EDGELIST_DEFAULTS, 0, NULL, NULL }

typedef struct tc_matrix_kind tc_matrix_kind;

/* What reading a matrix file gave. */
typedef struct tc_matrix_file {
    const char *path;
    const tc_matrix_kind *kind;
    tc_csr *a;                  /* the matrix (tcf->matrix for a .tcf.h5) */
    tc_tcf *tcf;                /* a .tcf.h5's whole container, or NULL */
    tc_labels *labels;          /* original ids, or NULL (tcf->labels for a .tcf.h5) */
    tc_mtx_info info;           /* Matrix Market's banner and comments */
    tc_edgelist_info edgelist;  /* what an edge list said about its ids */
} tc_matrix_file;
void tc_matrix_file_clear(tc_matrix_file *m);

/* How a matrix is written: the container f (f->matrix, f->labels, and for
   .tcf.h5 everything else), with these choices. */
typedef struct tc_write_opts {
    int compress;               /* .tcf.h5: shuffle+deflate above the threshold */
    tc_symmetry symmetry;       /* Matrix Market: GENERAL, or the triangle of a
                                   symmetric / skew-symmetric matrix */
} tc_write_opts;
#define TC_WRITE_DEFAULTS { 1, TC_SYM_GENERAL }

#define TC_KIND_MAX_SUFFIXES 12

/* A kind of matrix file: one row of the table in formats/matrix_kind.c.
   Readers come in three shapes, so that a kind whose reader gives a CSR
   matrix alone is one row without an adapter: read (fills everything),
   read_csr (a matrix), read_dataset (a matrix from a named dataset, NULL:
   the kind's default). Writers likewise: write (the container) or
   write_csr (a matrix); neither: the kind is read-only. */
struct tc_matrix_kind {
    const char *name;           /* "mtx", what --from and --to take */
    const char *description;
    const char *suffixes[TC_KIND_MAX_SUFFIXES];   /* names it claims; NULL-ended */
    const char *magic;          /* the bytes its files start with, or NULL */
    const char *banner;         /* a word its text starts with (case aside,
                                   after blanks and % signs), or NULL */
    int hdf5;                   /* an HDF5 file: told from the other HDF5
                                   kinds by is (the first such row with no is
                                   takes what no other claims) */
    int (*is)(const char *path);
    tc_status (*read)(const char *path, const tc_read_opts *o, tc_matrix_file *out,
                      tc_error *err);
    tc_status (*read_csr)(const char *path, tc_csr **out, tc_error *err);
    tc_status (*read_dataset)(const char *path, const char *dataset, tc_csr **out,
                              tc_error *err);
    tc_status (*write)(const char *path, const tc_tcf *f, const tc_write_opts *o,
                       tc_error *err);
    tc_status (*write_csr)(const char *path, const tc_csr *a, tc_error *err);
};

int tc_matrix_kind_count(void);
const tc_matrix_kind *tc_matrix_kind_at(int i);
const tc_matrix_kind *tc_matrix_kind_find(const char *name);   /* NULL if unknown */
int tc_matrix_kind_writable(const tc_matrix_kind *k);
/* The kind whose suffix ends path's name (the longest that does), or NULL. */
const tc_matrix_kind *tc_matrix_kind_by_suffix(const char *path);
/* The kind of an existing file: by content where the content says (HDF5:
   each HDF5 kind's is; a kind's magic bytes; a text banner, gzip
   inflated first), else by suffix, else Matrix Market (whose reader says
   what it expected). "-" (stdin) is Matrix Market. TC_ERR_IO when the file
   cannot be read. */
tc_status tc_matrix_kind_detect(const char *path, const tc_matrix_kind **out, tc_error *err);
/* "tcf (.tcf.h5 .h5 .hdf5), mtx (.mtx .mtx.gz), ..." for messages and
   help: every kind, or the writable ones only. Returns buf. */
const char *tc_matrix_kind_list(char *buf, size_t size, int writable_only);

/* Reads path as kind (NULL: tc_matrix_kind_detect's). o may be NULL. */
tc_status tc_matrix_read(const char *path, const tc_matrix_kind *kind, const tc_read_opts *o,
                         tc_matrix_file *out, tc_error *err);
/* Writes f as kind, atomically; a read-only kind is TC_ERR_ARG. */
tc_status tc_matrix_write(const char *path, const tc_matrix_kind *kind, const tc_tcf *f,
                          const tc_write_opts *o, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Other libraries' sparse files: SciPy .npz (lib/npz.c), binsparse          */
/* (lib/binsparse.c), AnnData .h5ad (lib/h5ad.c)                             */
/* ------------------------------------------------------------------------ */

/* Every reader checks the arrays it finds (pointers from 0, never
   decreasing, ending at the number of entries; indices inside the shape)
   and builds the matrix as tc_mtx_read does: columns sorted, duplicates
   summed, a stored triangle mirrored; the result passes tc_csr_validate.
   field is integer for integer or boolean stored values, real for floats,
   pattern when there are none. A message names the file and the member or
   dataset at fault. */

/* scipy.sparse.save_npz files: formats csr, csc and coo, compressed or
   not; int32 or int64 indices (signed or not); bool, integer, float32 or
   float64 data, little-endian. "-" = stdin (read whole into memory first:
   a zip archive's directory is at its end). */
tc_status tc_npz_read(const char *path, tc_csr **out, tc_error *err);
/* Writes a as scipy.sparse.save_npz writes a CSR matrix: members indices,
   indptr (int32 when nnz fits, else int64), format b'csr', shape (int64),
   data (float64; ones for a pattern), deflated; atomically; "-" =
   stdout. */
tc_status tc_npz_write(const char *path, const tc_csr *a, tc_error *err);

/* binsparse 0.1 (github.com/GraphBLAS/binsparse-specification) in HDF5:
   the group `group` (NULL: the root) holds the JSON descriptor as string
   attribute "binsparse" and the arrays it names. Formats CSR, CSC, DCSR,
   DCSC, COO (COOR) and COOC; integer, float and bint8 values, iso[...]
   values (iso[bint8] true: a pattern); structure symmetric_lower/upper and
   skew_symmetric_lower/upper expanded; fill only with a fill_value of 0. */
tc_status tc_binsparse_read(const char *path, const char *group, tc_csr **out,
                            tc_error *err);
/* Writes a new HDF5 file, atomically, holding a at its root as binsparse
   CSR: pointers_to_1 (int64), indices_1 (int32), values (float64, or
   iso[bint8] [1] for a pattern). */
tc_status tc_binsparse_write(const char *path, const tc_csr *a, tc_error *err);
/* 1 when path is an HDF5 file whose root holds a binsparse descriptor. */
int tc_binsparse_is(const char *path);

/* AnnData .h5ad: `dataset` (NULL: "X"; or e.g. "layers/counts"), either a
   group of encoding-type csr_matrix or csc_matrix (data, indices, indptr,
   attribute shape) or a dense 2-D dataset (every entry stored, as for a
   Matrix Market array file). Rows are the cells (obs), columns the genes
   (var), as AnnData orients them. */
tc_status tc_h5ad_read(const char *path, const char *dataset, tc_csr **out, tc_error *err);
/* 1 when path is an HDF5 file laid out as AnnData (its root's attribute
   encoding-type is "anndata"). */
int tc_h5ad_is(const char *path);

/* ------------------------------------------------------------------------ */
/* SpMM on the CPU and result checks (lib/spmm.c)                            */
/* ------------------------------------------------------------------------ */

/* C = A*B in float32 arithmetic, B cols x n (ldb), C rows x n (ldc),
   row-major, with nthreads threads (<= 0: tc_default_threads()). Rows are
   split over threads in ranges of about equal nonzeros; each row is summed
   by one thread in stored order, so C is bitwise the same for any thread
   count. Only the B rows that A's columns name are read: a NaN or Inf in B
   reaches only the C rows that use its row. */
tc_status tc_spmm_cpu_f32(const tc_csr *a, const float *B, int64_t ldb, int32_t n,
                          float *C, int64_t ldc, int nthreads, tc_error *err);
/* The same product from a prepared operand, for a matrix multiplied many
   times: tc_spmm_cpu_prepare keeps a float32 copy of a's values (nothing
   for a pattern matrix) so that each tc_spmm_cpu_run reads 4-byte values.
   The operand refers to a, which must outlive it unchanged. C is bitwise
   the one tc_spmm_cpu_f32 gives, with the same guarantees. */
typedef struct tc_spmm_cpu_op tc_spmm_cpu_op;
tc_status tc_spmm_cpu_prepare(const tc_csr *a, tc_spmm_cpu_op **out, tc_error *err);
tc_status tc_spmm_cpu_run(const tc_spmm_cpu_op *op, const float *B, int64_t ldb, int32_t n,
                          float *C, int64_t ldc, int nthreads, tc_error *err);
void tc_spmm_cpu_op_free(tc_spmm_cpu_op *op);
/* The float64 reference. */
tc_status tc_spmm_ref_f64(const tc_csr *a, const double *B, int64_t ldb, int32_t n,
                          double *C, int64_t ldc, int nthreads, tc_error *err);
/* Sparse attention, the float64 reference of Fused3S's formula (lib/
   attention.c): O = softmax(scale * Q K^T masked by A's pattern) V, row by
   row over A's stored nonzeros. Q is rows x d, K and V are cols x d, O is
   rows x d, all row-major with leading dimension d. A's values are not
   used; a stored nonzero whose score is 0 is kept; a row with no nonzero
   gives a zero row; max-subtracted, so large scores do not overflow.
   nthreads <= 0: tc_default_threads(); O is bitwise the same for any. */
tc_status tc_attention_ref_f64(const tc_csr *a, const double *Q, const double *K,
                               const double *V, int32_t d, double scale, double *O,
                               int nthreads, tc_error *err);
/* The SDDMM of the same formula alone: S[k] = scale * <Q_i, K_j> for A's
   k-th stored nonzero (i, j) in CSR order (nnz values). */
tc_status tc_sddmm_ref_f64(const tc_csr *a, const double *Q, const double *K, int32_t d,
                           double scale, double *S, int nthreads, tc_error *err);

typedef struct tc_compare {
    double rel_fro;         /* ||out - ref||_F / ||ref||_F (abs when ref is 0),
                               over the elements where both are finite */
    double max_abs;         /* max |out - ref| over those elements */
    int64_t max_at;         /* row-major index i*n + j of max_abs (-1: none) */
    int64_t nonfinite;      /* elements where out is NaN/Inf and ref is finite,
                               or ref is NaN/Inf and out is not the same (NaN
                               for NaN, the same infinity for an infinity) */
} tc_compare;
/* out and ref are rows x n, row-major with leading dimension ld. */
void tc_compare_f32(const float *out, const double *ref, int32_t rows, int32_t n,
                    int64_t ld, tc_compare *c);
/* Tolerance of DESIGN.md for a precision name ("fp32", "tf32", "fp16");
   returns 0 for an unknown name. */
double tc_tolerance(const char *precision);
/* 1 when a path of this precision is at least as exact as `accuracy` asks
   (its tolerance no larger), or when no accuracy is asked (NULL); 0 for a
   precision not known (NULL) against an accuracy. */
int tc_precision_meets(const char *precision, const char *accuracy);

/* Deterministic pseudo-random numbers (splitmix64 / xoshiro256**), the same
   on every platform: fills n values uniform in [lo, hi). */
void tc_random_fill(double *x, int64_t n, uint64_t seed, double lo, double hi);

/* Timing on the CPU: fn runs warmup times untimed, then iters times, each
   timed with CLOCK_MONOTONIC; ms gets the distribution of those times in
   milliseconds (median: ms->decile[5]). Stops at fn's first error. */
typedef tc_status (*tc_timed_fn)(void *ctx, tc_error *err);
tc_status tc_time_cpu(tc_timed_fn fn, void *ctx, int warmup, int iters, tc_dist *ms,
                      tc_error *err);
/* Memory bandwidth of a copy of `bytes` bytes cut over nthreads threads
   (<= 0: tc_default_threads()), in GB/s counting bytes read plus bytes
   written: the figure the memory-traffic floor of CPU SpMM divides by. */
tc_status tc_cpu_copy_bandwidth(int64_t bytes, int nthreads, double *gbs, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Pictures (lib/plot.c renders, lib/png.c writes)                           */
/* ------------------------------------------------------------------------ */

typedef struct tc_image {
    int32_t width, height;
    uint8_t *rgb;           /* width * height * 3 bytes, row-major, top row first */
    int32_t area_x, area_y; /* top-left pixel of the frame around the matrix
                               area: 0, 0 in a bare picture; of the first
                               picture in tc_image_hstack's */
} tc_image;
void tc_image_free(tc_image *img);

/* What tc_plot_spy and tc_plot_blocks draw around the matrix area
   (tc_plot_opts.decor), text in DejaVu Sans through cairo. */
enum {
    TC_PLOT_TITLE = 1,      /* opts.title, then "R x C, N nonzeros" (blocks:
                               and the non-empty aligned h x w blocks) */
    TC_PLOT_AXES = 2,       /* ticks along the left (rows) and the bottom
                               (columns), labelled with 0-based indices */
    TC_PLOT_COLORBAR = 4,   /* the colour ramp with the values it stands for,
                               when it shows more than one value */
    TC_PLOT_LEGEND = 8,     /* with parts: which hue is which part */
    TC_PLOT_ALL = 15
};

typedef struct tc_plot_opts {
    int32_t size;           /* longest side of the matrix area in pixels
                               (default 1024); a 1-pixel frame surrounds it */
    int grid;               /* overlay the h x w TC block grid when each block
                               spans >= 4 pixels: -1 auto, 0 off, 1 on */
    int block_h, block_w;   /* 16, 8 */
    const tc_progress *progress;    /* called from the calling thread; NULL: none */
    const uint8_t *part;    /* NULL, or per nonzero of the matrix drawn, in
                               CSR order: 0 in the tensor-core part of a
                               format, 1 in its CUDA-core part (as
                               tc_fmt_nnz_part fills it): tc_plot_spy then
                               colours the two parts */
    unsigned decor;         /* TC_PLOT_* bits; 0 (the default): the bare
                               matrix area in its frame */
    const char *title;      /* with TC_PLOT_TITLE: the first line (the
                               matrix's name, say); NULL: none */
} tc_plot_opts;
#define TC_PLOT_DEFAULTS { 1024, -1, 16, 8, NULL, NULL, 0, NULL }

/* Both pictures share one geometry, so they overlay: the matrix area keeps
   the aspect ratio; a matrix larger than size is cut in buckets (index i in
   pixel floor(i*size/longest side)), a smaller one gets an integer zoom
   (each entry a square of size/longest pixels). Options may be NULL
   (defaults). Decorations add margins around the area (img->area_x,
   area_y say where it is); the same input gives the same pixels,
   whatever the thread count. */
/* Spy plot: each pixel a bucket of the matrix, shaded by its nonzero count
   on a log scale (log(1+n)/log(1+max n), light blue to dark navy), white
   where empty. One pass over the nonzeros, multithreaded over row bands.
   With o->part, the same shade of two hues, blue for the tensor-core part
   and orange for the CUDA-core part, mixed in proportion to the bucket's
   nonzeros in each. */
tc_status tc_plot_spy(const tc_csr *a, const tc_plot_opts *o, tc_image **out,
                      tc_error *err);
/* Block density: each pixel a bucket of the aligned h x w blocks, coloured
   by the mean nnz per non-empty block (log scale from 1 to h*w,
   viridis-like), white where no block. */
tc_status tc_plot_blocks(const tc_csr *a, const tc_plot_opts *o, tc_image **out,
                         tc_error *err);
/* n >= 1 pictures side by side in one, tops aligned, gap white pixels
   apart (a before/after pair, say). */
tc_status tc_image_hstack(const tc_image *const *imgs, int n, int32_t gap, tc_image **out,
                          tc_error *err);
/* Writes an RGB PNG atomically; "-" = stdout. No time chunk: the same image
   gives the same bytes. */
tc_status tc_png_write(const char *path, const tc_image *img, tc_error *err);
/* The same onto an open stream (for callers that commit several outputs
   together); name is used in messages. */
tc_status tc_png_write_fp(FILE *fp, const char *name, const tc_image *img, tc_error *err);

/* ------------------------------------------------------------------------ */
/* Files (lib/atomic.c): the temporary-file-and-rename discipline             */
/* ------------------------------------------------------------------------ */

/* An output file being written: a temporary "DIR/.NAME.XXXXXX" next to the
   target; commit renames it into place, abort removes it. Temporary files
   still open are removed when the process is stopped by SIGINT, SIGTERM,
   SIGHUP or SIGPIPE (signal handlers installed by
   tc_atomic_install_signal_handlers, except for signals ignored at start,
   which stay ignored). */
typedef struct tc_atomic {
    char *target;
    char *tmp;
    FILE *fp;           /* open for writing (NULL for callers that write by path) */
    int is_stdout;
    int in_place;       /* target is a device, a fifo, or under /dev or /proc: tmp
                           names it, written directly */
} tc_atomic;
/* want_fp: open the temporary file as a FILE* (else the caller writes it by
   path, e.g. through HDF5). target "-" means stdout (commit flushes it). */
tc_status tc_atomic_open(tc_atomic *a, const char *target, int want_fp, tc_error *err);
tc_status tc_atomic_commit(tc_atomic *a, tc_error *err);
void tc_atomic_abort(tc_atomic *a);
void tc_atomic_install_signal_handlers(void);
/* 1 when the two paths name the same existing file. */
int tc_same_file(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif /* TCSPARSE_H */
