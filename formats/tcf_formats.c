/*
 * tcf_formats.c: the .tcf.h5 container's formats. tc_tcf in memory (its
 * formats kept in registry order) and the top of tc_h5_write and
 * tc_h5_read: lib/h5file.c writes and reads everything but /formats, and
 * this file adds one group /formats/<name> per format, its generic header
 * (rows, cols, nnz, has_values, parameters) and the format's own arrays.
 * Here and not in lib/ because lib/ never calls up into formats/.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"
#include "formats.h"

tc_tcf *tc_tcf_new(void)
{
    return calloc(1, sizeof(tc_tcf));
}

void tc_tcf_free(tc_tcf *f)
{
    if (!f)
        return;
    tc_csr_free(f->matrix);
    tc_perm_free(f->row_perm);
    tc_perm_free(f->col_perm);
    free(f->perm_method);
    for (int i = 0; i < f->nformats; i++)
        tc_fmt_free(f->formats[i]);
    free(f->formats);
    tc_auto_choice_clear(&f->auto_choice);
    tc_provenance_clear(&f->prov);
    tc_labels_free(f->labels);
    free(f);
}

void tc_auto_choice_clear(tc_auto_choice *c)
{
    free(c->format);
    free(c->accuracy);
    free(c->model);
    memset(c, 0, sizeof *c);
}

tc_status tc_tcf_add_format(tc_tcf *f, tc_fmt *m, tc_error *err)
{
    for (int i = 0; i < f->nformats; i++)
        if (f->formats[i]->kind == m->kind) {
            tc_status st = tc_error_set(err, TC_ERR_ARG, "format %s added twice",
                                        m->kind->name);
            tc_fmt_free(m);
            return st;
        }
    /* keep registry order: m goes after the formats that precede it there */
    int at = 0;
    for (int r = 0; r < tc_format_count() && tc_format_at(r) != m->kind; r++)
        for (int i = 0; i < f->nformats; i++)
            at += f->formats[i]->kind == tc_format_at(r);
    tc_fmt **grown = realloc(f->formats, (size_t)(f->nformats + 1) * sizeof *grown);
    if (!grown) {
        tc_fmt_free(m);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory adding format");
    }
    memmove(grown + at + 1, grown + at, (size_t)(f->nformats - at) * sizeof *grown);
    grown[at] = m;
    f->formats = grown;
    f->nformats++;
    return TC_OK;
}

/* The generic header every format group carries, then the format's own
   arrays (written by the format). */
static tc_status write_format(tc_h5grp *parent, hid_t file, const char *fname,
                              const tc_fmt *m, int compress, tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, parent, m->kind->name, compress, err);
    if (st != TC_OK)
        return st;
    st = tc_h5grp_put_attr_i64(&g, "rows", m->rows, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "cols", m->cols, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "nnz", m->nnz, err);
    if (st == TC_OK)
        st = tc_h5grp_put_attr_i64(&g, "has_values", m->has_values != 0, err);
    if (st == TC_OK)
        st = tc_h5_put_params(&g, &m->params, err);
    if (st == TC_OK)
        st = m->kind->write_h5(m, &g, err);
    tc_h5grp_release(&g);
    return st;
}

/* The auto_* attributes of /formats (tc_auto_choice). */
static tc_status write_auto_choice(tc_h5grp *g, const tc_auto_choice *c, tc_error *err)
{
    tc_status st;
    (void)((st = tc_h5grp_put_attr_str(g, "auto_format", c->format, err)) ||
           (st = tc_h5grp_put_attr_i64(g, "auto_n", c->n, err)) ||
           (st = tc_h5grp_put_attr_str(g, "auto_accuracy", c->accuracy ? c->accuracy : "any",
                                       err)) ||
           (st = tc_h5grp_put_attr_f64(g, "auto_predicted_speedup", c->predicted_speedup,
                                       err)) ||
           (st = tc_h5grp_put_attr_str(g, "auto_model", c->model ? c->model : "", err)));
    return st;
}

static tc_status write_formats(hid_t file, const char *fname, const tc_tcf *f, int compress,
                               tc_error *err)
{
    int stored = 0;
    for (int i = 0; i < f->nformats; i++)
        stored += !f->formats[i]->kind->canonical;
    /* An auto choice of csr stores no format, but the choice itself is
       recorded: /formats then holds attributes only. */
    if (stored == 0 && !f->auto_choice.format)
        return TC_OK;
    tc_h5grp g;
    tc_status st = tc_h5grp_create_at(&g, file, fname, NULL, "formats", compress, err);
    if (st == TC_OK && f->auto_choice.format)
        st = write_auto_choice(&g, &f->auto_choice, err);
    for (int i = 0; i < f->nformats && st == TC_OK; i++)
        if (!f->formats[i]->kind->canonical)
            st = write_format(&g, file, fname, f->formats[i], compress, err);
    tc_h5grp_release(&g);
    return st;
}


/* The generic header of a format group: rows, cols, nnz, has_values must
   describe /matrix; each parameter of the format is read when present (a
   file from before a parameter existed gets its default) and range
   checked. */
static tc_status read_format_header(tc_h5grp *g, const tc_format *kind, const tc_csr *a,
                                    tc_fmt *hdr, tc_error *err)
{
    int64_t rows, cols, nnz, hv;
    tc_status st = tc_h5grp_get_attr_i64(g, "rows", &rows, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "cols", &cols, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "nnz", &nnz, err);
    if (st == TC_OK)
        st = tc_h5grp_get_attr_i64(g, "has_values", &hv, err);
    if (st != TC_OK)
        return st;
    if (rows != a->rows || cols != a->cols || nnz != a->nnz || hv != (a->val != NULL))
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: header says %" PRId64 "x%" PRId64 ", %" PRId64 " nonzeros, "
                            "has_values %" PRId64 "; /matrix is %dx%d, %" PRId64
                            " nonzeros, has_values %d", g->where, rows, cols, nnz, hv,
                            a->rows, a->cols, a->nnz, a->val != NULL);
    memset(hdr, 0, sizeof *hdr);
    hdr->kind = kind;
    hdr->rows = a->rows;
    hdr->cols = a->cols;
    hdr->nnz = a->nnz;
    hdr->has_values = a->val != NULL;
    for (int i = 0; i < kind->nparams && st == TC_OK; i++) {
        const tc_param_def *d = &kind->params[i];
        double v = d->def;
        if (H5Aexists(g->id, d->name) > 0)
            st = tc_h5grp_get_attr_f64(g, d->name, &v, err);
        if (st == TC_OK)
            st = tc_h5_params_add(&hdr->params, d->name, v, g->where, err);
    }
    /* A stored value out of range is a fault of the file, not of the
       caller's arguments: TC_ERR_FORMAT (exit 1), not TC_ERR_ARG (2). */
    if (st == TC_OK && tc_params_check(&hdr->params, kind->params, kind->nparams, g->where, err)) {
        st = TC_ERR_FORMAT;
        if (err)
            err->status = st;
    }
    return st;
}

static tc_status read_format(hid_t file, const char *fname, const char *name, tc_tcf *f,
                             tc_error *err)
{
    char path[300];
    snprintf(path, sizeof path, "/formats/%s", name);
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, path, 0, err);
    if (st != TC_OK)
        return st;
    const tc_format *kind = tc_format_find(name);
    tc_fmt hdr, *m = NULL;
    if (!kind)
        st = tc_error_set(err, TC_ERR_UNSUPPORTED,
                          "%s: unknown format '%s' (written by a newer tcsparse?)", g.where,
                          name);
    else if (kind->canonical)
        st = tc_error_set(err, TC_ERR_FORMAT, "%s: format %s is /matrix itself, not a group",
                          g.where, name);
    else
        st = read_format_header(&g, kind, f->matrix, &hdr, err);
    if (st == TC_OK)
        st = kind->read_h5(&g, &hdr, &m, err);
    if (st == TC_OK)
        st = kind->validate(m, f->matrix, g.where, err);
    if (st == TC_OK) {
        st = tc_tcf_add_format(f, m, err);
        m = NULL;
    }
    tc_fmt_free(m);
    tc_h5grp_release(&g);
    return st;
}

static tc_status read_formats(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_h5grp g;
    H5G_info_t info;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/formats", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    if (H5Gget_info(g.id, &info) < 0)
        st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot list", g.where);
    for (hsize_t i = 0; st == TC_OK && i < info.nlinks; i++) {
        char name[256];
        ssize_t len = H5Lget_name_by_idx(g.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, name,
                                         sizeof name, H5P_DEFAULT);
        if (len < 0)
            st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot list", g.where);
        else if ((size_t)len >= sizeof name)
            st = tc_error_set(err, TC_ERR_FORMAT, "%s: a member's name is too long", g.where);
        else
            st = read_format(file, fname, name, f, err);
    }
    tc_h5grp_release(&g);
    return st;
}

/* /formats' auto_* attributes into f->auto_choice, when auto_format is
   there (a file written without -f auto has none: left empty); the others
   must then be there too. Read whether or not the formats are. */
static tc_status read_auto_choice(hid_t file, const char *fname, tc_tcf *f, tc_error *err)
{
    tc_h5grp g;
    tc_status st = tc_h5grp_open_at(&g, file, fname, "/formats", 1, err);
    if (st != TC_OK || g.id < 0)
        return st;
    tc_auto_choice *c = &f->auto_choice;
    htri_t has = H5Aexists(g.id, "auto_format");
    if (has < 0)
        st = tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot read its attributes", g.where);
    else if (has > 0) {
        (void)((st = tc_h5grp_get_attr_str(&g, "auto_format", &c->format, err)) ||
               (st = tc_h5grp_get_attr_i64(&g, "auto_n", &c->n, err)) ||
               (st = tc_h5grp_get_attr_str(&g, "auto_accuracy", &c->accuracy, err)) ||
               (st = tc_h5grp_get_attr_f64(&g, "auto_predicted_speedup",
                                           &c->predicted_speedup, err)) ||
               (st = tc_h5grp_get_attr_str(&g, "auto_model", &c->model, err)));
        if (st == TC_OK && (c->n < 1 || c->n > INT32_MAX || !(c->predicted_speedup >= 0) ||
                            !c->format[0]))
            st = tc_error_set(err, TC_ERR_FORMAT,
                              "%s: auto_format '%s', auto_n %" PRId64
                              ", auto_predicted_speedup %g: not a recorded choice",
                              g.where, c->format, c->n, c->predicted_speedup);
        if (st != TC_OK)
            tc_auto_choice_clear(c);
    }
    tc_h5grp_release(&g);
    return st;
}

/* What tc_h5_write puts in the file. */
struct tcf_job {
    const tc_tcf *f;
    int compress;
};

static tc_status write_tcf(hid_t file, const char *fname, void *ctx, tc_error *err)
{
    const struct tcf_job *job = ctx;
    tc_status st = tc_h5_write_base(file, fname, job->f, job->compress, err);
    if (st == TC_OK)
        st = write_formats(file, fname, job->f, job->compress, err);
    if (st == TC_OK)
        st = tc_h5_write_provenance(file, fname, &job->f->prov, err);
    return st;
}

/* What a written file must satisfy for readers to accept it, checked
   before anything is created: a bad argument leaves no trace. */
static tc_status check_tcf(const char *path, const tc_tcf *f, tc_error *err)
{
    tc_status st = tc_h5_check_base(path, f, err);
    const tc_auto_choice *c = &f->auto_choice;
    if (st == TC_OK && c->format && (!c->format[0] || c->n < 1 || c->n > INT32_MAX ||
                                     !(c->predicted_speedup >= 0)))
        st = tc_error_set(err, TC_ERR_ARG, "%s: auto choice '%s' for n = %" PRId64
                          ", predicted %g: not a choice the model makes", path, c->format,
                          c->n, c->predicted_speedup);
    for (int i = 0; i < f->nformats && st == TC_OK; i++) {
        const tc_fmt *m = f->formats[i];
        if (m->rows != f->matrix->rows || m->cols != f->matrix->cols || m->nnz != f->matrix->nnz)
            st = tc_error_set(err, TC_ERR_ARG, "%s: format %s is of another matrix", path,
                              m->kind->name);
    }
    return st;
}

tc_status tc_h5_write(const char *path, const tc_tcf *f, const tc_h5_write_opts *opts,
                      tc_error *err)
{
    tc_status st = tc_h5_write_start(path, &opts, err);
    if (st == TC_OK)
        st = check_tcf(path, f, err);
    if (st != TC_OK)
        return st;
    struct tcf_job job = { f, opts->compress };
    return tc_h5_write_atomic(path, write_tcf, &job, err);
}

tc_status tc_h5_read(const char *path, int formats, tc_tcf **out, tc_error *err)
{
    tc_h5_quiet();
    *out = NULL;
    hid_t file;
    tc_status st = tc_h5_file_open(path, &file, err);
    if (st != TC_OK)
        return st;
    tc_tcf *f = tc_tcf_new();
    if (!f)
        st = tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path);
    if (st == TC_OK)
        st = tc_h5_read_base(file, path, f, err);
    if (st == TC_OK && formats)
        st = read_formats(file, path, f, err);
    if (st == TC_OK)
        st = read_auto_choice(file, path, f, err);
    if (st == TC_OK)
        st = tc_h5_read_provenance(file, path, &f->prov, err);
    tc_h5_close(file);
    H5Eclear2(H5E_DEFAULT);
    if (st != TC_OK) {
        tc_tcf_free(f);
        return st;
    }
    *out = f;
    return TC_OK;
}
