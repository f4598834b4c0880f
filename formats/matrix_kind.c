/* matrix_kind.c: the kinds of matrix file (Matrix Market, .tcf.h5, edge
   lists, ...): the table, which kind a file or a name is, and reading and
   writing through it. Adding a kind is one row of `kinds` below (and its
   reader and writer in a file of their own). In formats/, not lib/: the
   .tcf.h5 row reads and writes the formats a container holds (tc_h5_read,
   tc_h5_write in formats/tcf_formats.c). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include "tcsparse.h"

enum { SNIFF_BYTES = 512 };     /* the start of a file that content tests read */

/* ---- readers and writers of the built-in kinds ------------------------- */

static tc_status read_tcf(const char *path, const tc_read_opts *o, tc_matrix_file *out,
                          tc_error *err)
{
    tc_status st = tc_h5_read(path, o->with_formats, &out->tcf, err);
    if (!st) {
        out->a = out->tcf->matrix;
        out->labels = out->tcf->labels;
    }
    return st;
}

static tc_status write_tcf(const char *path, const tc_tcf *f, const tc_write_opts *o,
                           tc_error *err)
{
    tc_h5_write_opts wo = TC_H5_WRITE_DEFAULTS;
    wo.compress = o->compress;
    return tc_h5_write(path, f, &wo, err);
}

static tc_status read_mtx(const char *path, const tc_read_opts *o, tc_matrix_file *out,
                          tc_error *err)
{
    tc_mtx_read_opts mo = TC_MTX_READ_DEFAULTS;
    mo.sum_duplicates = o->sum_duplicates;
    return tc_mtx_read(path, &mo, &out->a, &out->info, o->progress, err);
}

static tc_status write_mtx(const char *path, const tc_tcf *f, const tc_write_opts *o,
                           tc_error *err)
{
    return tc_mtx_write(path, f->matrix, o->symmetry, f->prov.comments, err);
}

static tc_status read_edgelist(const char *path, const tc_read_opts *o, tc_matrix_file *out,
                               tc_error *err)
{
    tc_edgelist_opts eo = o->edgelist;
    eo.sum_duplicates = o->sum_duplicates;
    return tc_edgelist_read(path, &eo, &out->a, &out->labels, &out->edgelist, err);
}

static tc_status write_edgelist(const char *path, const tc_tcf *f, const tc_write_opts *o,
                                tc_error *err)
{
    (void)o;   /* an edge list has no choice to make */
    return tc_edgelist_write(path, f->matrix, f->labels, err);
}

/* ---- the table --------------------------------------------------------- */

static const tc_matrix_kind kinds[] = {
    { .name = "tcf", .description = "the tcsparse container (tcf.h5(5))",
      .suffixes = { ".tcf.h5", ".h5", ".hdf5" }, .hdf5 = 1, .is = tc_h5_is_tcf,
      .read = read_tcf, .write = write_tcf },
    { .name = "mtx", .description = "Matrix Market coordinate or array (gzip too)",
      .suffixes = { ".mtx", ".mtx.gz" }, .banner = "MatrixMarket",
      .read = read_mtx, .write = write_mtx },
    { .name = "edgelist", .description = "edge list: SOURCE TARGET [WEIGHT] per line (gzip too)",
      .suffixes = { ".el", ".edges", ".txt", ".tsv", ".csv", ".el.gz", ".edges.gz", ".txt.gz",
                    ".tsv.gz", ".csv.gz" },
      .read = read_edgelist, .write = write_edgelist },
    { .name = "npz", .description = "SciPy sparse (scipy.sparse.save_npz: csr, csc, coo)",
      .suffixes = { ".npz" }, .magic = "PK\003\004",
      .read_csr = tc_npz_read, .write_csr = tc_npz_write },
    { .name = "binsparse", .description = "binsparse 0.1 in HDF5 (CSR, CSC, COO, DCSR read; CSR written)",
      .suffixes = { ".bsp.h5", ".bsp.hdf5" }, .hdf5 = 1, .is = tc_binsparse_is,
      .read_dataset = tc_binsparse_read, .write_csr = tc_binsparse_write },
    { .name = "h5ad", .description = "AnnData: X, or a layer as FILE.h5ad:layers/NAME",
      .suffixes = { ".h5ad" }, .hdf5 = 1, .is = tc_h5ad_is, .read_dataset = tc_h5ad_read },
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

int tc_matrix_kind_count(void) { return NKINDS; }

const tc_matrix_kind *tc_matrix_kind_at(int i)
{
    return i >= 0 && i < NKINDS ? &kinds[i] : NULL;
}

const tc_matrix_kind *tc_matrix_kind_find(const char *name)
{
    for (int i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

int tc_matrix_kind_writable(const tc_matrix_kind *k)
{
    return k->write || k->write_csr;
}

/* ---- which kind -------------------------------------------------------- */

const tc_matrix_kind *tc_matrix_kind_by_suffix(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base), best_len = 0;
    const tc_matrix_kind *best = NULL;
    for (int i = 0; i < NKINDS; i++)
        for (const char *const *s = kinds[i].suffixes; *s; s++) {
            size_t m = strlen(*s);
            /* the suffix must leave a name before it: ".txt" is no edge list */
            if (n > m && m > best_len && strcmp(base + n - m, *s) == 0) {
                best = &kinds[i];
                best_len = m;
            }
        }
    return best;
}

/* The first bytes of path as they are (raw) and inflated when gzip
   (text; the same bytes otherwise). */
static tc_status sniff(const char *path, unsigned char *raw, size_t *nraw, char *text,
                       size_t *ntext, tc_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot open", path);
    *nraw = fread(raw, 1, SNIFF_BYTES, fp);
    int failed = ferror(fp);
    fclose(fp);
    if (failed)
        return tc_error_set(err, TC_ERR_IO, "%s: cannot read", path);
    *ntext = 0;
    gzFile gz = gzopen(path, "rb");
    if (gz) {
        int got = gzread(gz, text, SNIFF_BYTES);
        *ntext = got > 0 ? (size_t)got : 0;
        gzclose(gz);
    }
    return TC_OK;
}

/* Whether text starts with the word, after blanks and % signs, in any
   case. */
static int has_banner(const char *text, size_t len, const char *word)
{
    size_t k = 0, w = strlen(word);
    while (k < len && (text[k] == ' ' || text[k] == '\t' || text[k] == '%'))
        k++;
    return len - k >= w && strncasecmp(text + k, word, w) == 0;
}

static const tc_matrix_kind *hdf5_kind(const char *path)
{
    const tc_matrix_kind *fallback = NULL;
    for (int i = 0; i < NKINDS; i++) {
        if (!kinds[i].hdf5)
            continue;
        if (kinds[i].is && kinds[i].is(path))
            return &kinds[i];
        if (!fallback)
            fallback = &kinds[i];
    }
    return fallback;
}

tc_status tc_matrix_kind_detect(const char *path, const tc_matrix_kind **out, tc_error *err)
{
    const tc_matrix_kind *mtx = tc_matrix_kind_find("mtx");
    *out = mtx;
    if (strcmp(path, "-") == 0)
        return TC_OK;
    if (tc_h5_is_hdf5(path)) {
        *out = hdf5_kind(path);
        return TC_OK;
    }
    unsigned char raw[SNIFF_BYTES];
    char text[SNIFF_BYTES];
    size_t nraw = 0, ntext = 0;
    tc_status st = sniff(path, raw, &nraw, text, &ntext, err);
    if (st)
        return st;
    for (int i = 0; i < NKINDS; i++) {
        const char *m = kinds[i].magic;
        if (m && nraw >= strlen(m) && memcmp(raw, m, strlen(m)) == 0) {
            *out = &kinds[i];
            return TC_OK;
        }
    }
    for (int i = 0; i < NKINDS; i++)
        if (kinds[i].banner && has_banner(text, ntext, kinds[i].banner)) {
            *out = &kinds[i];
            return TC_OK;
        }
    const tc_matrix_kind *k = tc_matrix_kind_by_suffix(path);
    /* an HDF5 kind's name on a file that is not HDF5: its reader says so */
    *out = k ? k : mtx;
    return TC_OK;
}

const char *tc_matrix_kind_list(char *buf, size_t size, int writable_only)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < NKINDS && at < size; i++) {
        if (writable_only && !tc_matrix_kind_writable(&kinds[i]))
            continue;
        at += (size_t)snprintf(buf + at, size - at, "%s%s (", at ? ", " : "", kinds[i].name);
        for (const char *const *s = kinds[i].suffixes; *s && at < size; s++)
            at += (size_t)snprintf(buf + at, size - at, "%s%s", s == kinds[i].suffixes ? "" : " ",
                                   *s);
        if (at < size)
            at += (size_t)snprintf(buf + at, size - at, ")");
    }
    return buf;
}

/* ---- reading and writing ----------------------------------------------- */

void tc_matrix_file_clear(tc_matrix_file *m)
{
    if (m->tcf) {
        tc_tcf_free(m->tcf);
    } else {
        tc_csr_free(m->a);
        tc_labels_free(m->labels);
    }
    tc_mtx_info_clear(&m->info);
    memset(m, 0, sizeof *m);
}

tc_status tc_matrix_read(const char *path, const tc_matrix_kind *kind, const tc_read_opts *o,
                         tc_matrix_file *out, tc_error *err)
{
    static const tc_read_opts defaults = TC_READ_DEFAULTS;
    tc_error local;
    if (!err)
        err = &local;
    memset(out, 0, sizeof *out);
    if (!o)
        o = &defaults;
    tc_status st = kind ? TC_OK : tc_matrix_kind_detect(path, &kind, err);
    if (st)
        return st;
    out->path = path;
    out->kind = kind;
    if (o->dataset && !kind->read_dataset)
        return tc_error_set(err, TC_ERR_ARG, "%s: a %s file holds one matrix: no dataset '%s'",
                            path, kind->name, o->dataset);
    if (kind->read)
        st = kind->read(path, o, out, err);
    else if (kind->read_dataset)
        st = kind->read_dataset(path, o->dataset, &out->a, err);
    else
        st = kind->read_csr(path, &out->a, err);
    if (st)
        tc_matrix_file_clear(out);
    return st;
}

tc_status tc_matrix_write(const char *path, const tc_matrix_kind *kind, const tc_tcf *f,
                          const tc_write_opts *o, tc_error *err)
{
    static const tc_write_opts defaults = TC_WRITE_DEFAULTS;
    if (!o)
        o = &defaults;
    if (kind->write)
        return kind->write(path, f, o, err);
    if (kind->write_csr)
        return kind->write_csr(path, f->matrix, err);
    return tc_error_set(err, TC_ERR_ARG, "%s: %s files are read, not written", path, kind->name);
}
