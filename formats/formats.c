/* formats.c: the registry of tensor-core formats and the generic calls that
   dispatch through each format's vtable (formats/formats.h). The list is
   formats/format_registry.h, which the GPU library expands too. */
#include "config.h"
#include <string.h>
#include "formats.h"
#include "format_registry.h"

#define DECLARE(name) extern const tc_format tc_format_##name;
TC_FORMAT_REGISTRY(DECLARE, DECLARE)
#undef DECLARE

#define ENTRY(name) &tc_format_##name,
static const tc_format *const registry[] = { TC_FORMAT_REGISTRY(ENTRY, ENTRY) };
#undef ENTRY
#define NFORMATS ((int)(sizeof registry / sizeof registry[0]))

int tc_format_count(void) { return NFORMATS; }

const tc_format *tc_format_at(int i)
{
    return i >= 0 && i < NFORMATS ? registry[i] : NULL;
}

const tc_format *tc_format_find(const char *name)
{
    for (int i = 0; i < NFORMATS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *tc_format_name(const tc_format *f) { return f->name; }
const char *tc_format_description(const tc_format *f) { return f->description; }

int tc_format_is_canonical(const tc_format *f) { return f->canonical; }

const tc_param_def *tc_format_params(const tc_format *f, int *n)
{
    *n = f->nparams;
    return f->params;
}

static int registry_index(const tc_format *f)
{
    for (int i = 0; i < NFORMATS; i++)
        if (registry[i] == f)
            return i;
    return -1;
}

/* Adds f to list unless it is there already. */
static tc_status add_format(const tc_format **list, int max, int *n, const tc_format *f,
                            const char *text, tc_error *err)
{
    for (int i = 0; i < *n; i++)
        if (list[i] == f)
            return TC_OK;
    if (*n >= max)
        return tc_error_set(err, TC_ERR_ARG, "too many formats in '%s'", text);
    list[(*n)++] = f;
    return TC_OK;
}

tc_status tc_format_list_parse(const char *text, const tc_format **list, int max, int *n,
                               tc_error *err)
{
    *n = 0;
    const char *s = text;
    for (;;) {
        size_t len = strcspn(s, ",");
        char name[64];
        if (len == 0 || len >= sizeof name)
            return tc_error_set(err, TC_ERR_ARG, "bad format list '%s'", text);
        memcpy(name, s, len);
        name[len] = '\0';
        const tc_format *f = tc_format_find(name);
        tc_status st = TC_OK;
        if (f) {
            st = add_format(list, max, n, f, text, err);
        } else if (strcmp(name, "all") == 0) {
            /* every format, in a list too ("all,brp" is all of them) */
            for (int i = 0; i < NFORMATS && !st; i++)
                st = add_format(list, max, n, registry[i], text, err);
        } else {
            char known[512] = "";
            for (int i = 0; i < NFORMATS; i++) {
                strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, registry[i]->name, sizeof known - strlen(known) - 1);
            }
            return tc_error_set(err, TC_ERR_ARG, "unknown format '%s' (known: %s, all)", name,
                                known);
        }
        if (st)
            return st;
        if (s[len] == '\0')
            break;
        s += len + 1;
    }
    /* Registry order, whatever order the user typed. */
    for (int i = 1; i < *n; i++)
        for (int j = i; j > 0 && registry_index(list[j]) < registry_index(list[j - 1]); j--) {
            const tc_format *t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
        }
    return TC_OK;
}

void tc_fmt_init(tc_fmt *m, const tc_format *kind, const tc_csr *a, const tc_params *p)
{
    m->kind = kind;
    m->rows = a->rows;
    m->cols = a->cols;
    m->nnz = a->nnz;
    m->has_values = a->val != NULL;
    memset(&m->params, 0, sizeof m->params);
    for (int i = 0; i < kind->nparams; i++) {
        const tc_param_def *d = &kind->params[i];
        snprintf(m->params.kv[i].name, sizeof m->params.kv[i].name, "%s", d->name);
        m->params.kv[i].value = tc_params_get(p, d->name, d->def);
    }
    m->params.n = kind->nparams;
}

tc_status tc_fmt_build(const tc_format *f, const tc_csr *a, const tc_params *p,
                       tc_fmt **out, tc_error *err)
{
    *out = NULL;
    tc_status st = tc_params_check(p, f->params, f->nparams, f->name, err);
    return st ? st : f->build(a, p, out, err);
}

const tc_format *tc_fmt_format(const tc_fmt *m) { return m->kind; }

const tc_params *tc_fmt_params(const tc_fmt *m) { return &m->params; }

const char *const *tc_format_plan_params(const tc_format *f) { return f->plan_params; }

int tc_format_plan_param_pays(const tc_format *f, const tc_csr *a, const char *setting)
{
    return !f->plan_param_pays || f->plan_param_pays(a, setting);
}

const char *const *tc_format_wave_params(const tc_format *f) { return f->wave_params; }

tc_status tc_fmt_to_csr(const tc_fmt *m, tc_csr **out, tc_error *err)
{
    return m->kind->to_csr(m, out, err);
}

tc_status tc_fmt_spmm_ref(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                          double *C, int64_t ldc, tc_error *err)
{
    return m->kind->spmm_ref(m, B, ldb, n, C, ldc, err);
}

int64_t tc_fmt_bytes(const tc_fmt *m) { return m->kind->bytes(m); }

int tc_format_has_parts(const tc_format *f) { return f->nnz_part != NULL; }

tc_status tc_fmt_nnz_part(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err)
{
    if (!m->kind->nnz_part)
        return tc_error_set(err, TC_ERR_UNSUPPORTED,
                            "format %s does not split nonzeros between tensor and CUDA cores",
                            m->kind->name);
    return m->kind->nnz_part(m, a, part, err);
}

void tc_fmt_free(tc_fmt *m)
{
    if (m)
        m->kind->free(m);
}

tc_status tc_format_stats_report(const tc_fmt *m, const tc_csr *a, tc_report *r,
                                 tc_error *err)
{
    char section[64];
    snprintf(section, sizeof section, "format.%s", m->kind->name);
    /* Bytes relative to CSR with int32 indices and float32 values, the
       layout the GPU kernels use (the papers' memory-footprint tables). */
    int64_t csr_bytes = tc_csr_device_bytes(a);
    int64_t bytes = tc_fmt_bytes(m);
    tc_status st = tc_report_int(r, section, "bytes", bytes, "bytes of the format's arrays");
    if (!st)
        st = tc_report_num(r, section, "bytes_vs_csr", csr_bytes ? (double)bytes / (double)csr_bytes : 0,
                           "bytes relative to CSR (int32 indices, float32 values)");
    if (!st && m->kind->stats)
        st = m->kind->stats(m, r, section, err);
    if (st == TC_ERR_NOMEM)
        tc_error_set(err, st, "out of memory");
    return st;
}

tc_status tc_format_traffic_report(const tc_fmt *m, const tc_csr *a, int32_t n,
                                   int64_t l2_bytes, int32_t inflight_rows,
                                   int32_t b_elem_bytes, tc_report *r, tc_error *err)
{
    tc_traffic_params p;
    tc_traffic_defaults(&p, n, tc_fmt_bytes(m));
    p.l2_bytes = l2_bytes;
    p.inflight_rows = inflight_rows;
    p.b_elem_bytes = b_elem_bytes;
    p.convert_used = m->kind->convert_used;
    if (m->kind->window_shape)
        m->kind->window_shape(m, &p.window_rows, &p.col_unit);
    tc_traffic t;
    tc_status st = tc_traffic_predict(a, &p, &t, err);
    if (st)
        return st;
    char section[64];
    snprintf(section, sizeof section, "traffic.%s", m->kind->name);
    (void)((st = tc_report_int(r, section, "n", n, "columns of B the model is for")) ||
           (st = tc_report_int(r, section, "window_rows", p.window_rows,
                               "rows of A a thread block's window covers")) ||
           (st = tc_report_int(r, section, "col_unit", p.col_unit,
                               "rows of B gathered together")) ||
           (st = tc_report_int(r, section, "l2_bytes", l2_bytes, NULL)) ||
           (st = tc_report_int(r, section, "inflight_rows", inflight_rows,
                               "rows of A whose windows run at once")) ||
           (st = tc_report_int(r, section, "b_elem_bytes", b_elem_bytes,
                               "an element of B as gathered: 4 float32, 2 fp16")) ||
           (st = tc_report_int(r, section, "a_bytes", t.a_bytes,
                               "the format's arrays, read once")) ||
           (st = tc_report_int(r, section, "b_convert_bytes", t.b_convert_bytes,
                               "fp16: B (all, or the rows A uses) read in float32, written")) ||
           (st = tc_report_int(r, section, "b_gathered_bytes",
                               t.b_gathered_bytes,
                               "B rows the windows gather, once per window")) ||
           (st = tc_report_int(r, section, "b_bytes", t.b_bytes,
                               "of them, read from DRAM (not held in L2)")) ||
           (st = tc_report_num(r, section, "b_hit_rate",
                               t.b_gathers ? 1.0 - (double)t.b_misses / (double)t.b_gathers : 0,
                               "share of the gathers L2 serves")) ||
           (st = tc_report_int(r, section, "c_bytes", t.c_bytes, "C written once")) ||
           (st = tc_report_int(r, section, "dram_bytes", t.dram_bytes,
                               "predicted DRAM bytes of one product")) ||
           (st = tc_report_num(r, section, "vs_floor",
                               (double)t.dram_bytes / (double)tc_spmm_floor_bytes(a, n),
                               "predicted bytes over the common floor (tcmul --bench)")));
    if (st)
        tc_error_set(err, st, "out of memory");
    return st;
}
