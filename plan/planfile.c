/*
 * planfile.c: plan files and the plan cache, FFTW's wisdom for tcsparse.
 * Never inside the .tcf.h5, which stays deterministic and device-free.
 *
 * A plan file is small text (man/tcmul.1, FILES): a first line
 * "tcsparse-plan 1", then "key<TAB>value" lines, each ending in a newline.
 * Its key is the matrix's content hash (with rows, cols, nnz), n, the op,
 * the accuracy, the device's name and the library's version; a file whose
 * key differs is stale (info.stale says which part differs) and is
 * replaced, atomically, by the new plan. A reordering the plan names is
 * recomputed from its method and parameters when reused (the methods are
 * deterministic), so the file stays small. The content hash takes one pass
 * over the arrays: 3.2 ms on gupta2, the largest shared matrix (4.2M
 * nonzeros; best of 5 on the 2-core build machine).
 *
 * The cache holds one file per (matrix, n, op, accuracy), named by them;
 * the device and version inside decide whether it is still good. A cache
 * file that cannot be parsed is stale, never an error; an explicit plan
 * file (opts.plan_file) that cannot be parsed is an error naming its line.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan_internal.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v * 0x9E3779B97F4A7C15ull;
    h = (h << 31) | (h >> 33);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* One pass over each array, 8 bytes a step. */
uint64_t tc_plan_hash_csr(const tc_csr *a)
{
    uint64_t h = mix(mix(mix(0x243F6A8885A308D3ull, (uint64_t)a->rows), (uint64_t)a->cols),
                     (uint64_t)a->nnz);
    for (int32_t i = 0; i <= a->rows; i++)
        h = mix(h, (uint64_t)a->rowptr[i]);
    int64_t k = 0;
    for (; k + 1 < a->nnz; k += 2)
        h = mix(h, (uint64_t)(uint32_t)a->colidx[k] | (uint64_t)(uint32_t)a->colidx[k + 1] << 32);
    if (k < a->nnz)
        h = mix(h, (uint32_t)a->colidx[k]);
    for (int64_t j = 0; a->val && j < a->nnz; j++) {
        uint64_t bits;
        memcpy(&bits, &a->val[j], sizeof bits);
        h = mix(h, bits);
    }
    h ^= h >> 33;
    return h * 0xFF51AFD7ED558CCDull ^ (h >> 29);
}

static const char *op_name(tc_op op)
{
    return op == TC_OP_SDDMM ? "sddmm" : op == TC_OP_ATTENTION ? "attention" : "spmm";
}

static void key_of(const tc_plan *p, const tc_csr *given, tc_stored_plan *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->version, sizeof s->version, "%s", PACKAGE_VERSION);
    snprintf(s->matrix, sizeof s->matrix, "%016" PRIx64, tc_plan_hash_csr(given));
    snprintf(s->op, sizeof s->op, "%s", op_name(p->o.op));
    snprintf(s->accuracy, sizeof s->accuracy, "%s", p->o.accuracy ? p->o.accuracy : "any");
    snprintf(s->device, sizeof s->device, "%s", p->info.device_name);
    s->rows = given->rows;
    s->cols = given->cols;
    s->nnz = given->nnz;
    s->n = p->o.n;
    snprintf(s->effort, sizeof s->effort, "%s", tc_plan_effort_name(p->o.effort));
}

const char *tc_plan_cache_dir(const tc_plan_opts *o, char *buf, size_t len)
{
    const char *env;
    if (o->cache_dir)
        snprintf(buf, len, "%s", o->cache_dir);
    else if ((env = getenv("TC_PLAN_CACHE")) && env[0])
        snprintf(buf, len, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0])
        snprintf(buf, len, "%s/tcsparse/plans", env);
    else if ((env = getenv("HOME")) && env[0])
        snprintf(buf, len, "%s/.cache/tcsparse/plans", env);
    else
        buf[0] = '\0';
    return buf[0] ? buf : NULL;
}

static void cache_path(const tc_plan *p, const tc_stored_plan *key, char *buf, size_t len)
{
    char dir[4096];
    const char *d = tc_plan_cache_dir(&p->o, dir, sizeof dir);
    if (!d) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%s/%s-n%lld-%s-%s.plan", d, key->matrix, (long long)key->n, key->op,
             key->accuracy);
}

static tc_effort effort_of(const char *name)
{
    return strcmp(name, "exhaustive") == 0 ? TC_EFFORT_EXHAUSTIVE
           : strcmp(name, "patient") == 0   ? TC_EFFORT_PATIENT
           : strcmp(name, "measure") == 0 ? TC_EFFORT_MEASURE
                                          : TC_EFFORT_ESTIMATE;
}

/* Why stored plan s does not serve key k ("" when it does). A plan of a
   lower effort than asked does not serve (FFTW's wisdom neither). */
static void why_stale(const tc_stored_plan *s, const tc_stored_plan *k, char *why, size_t len)
{
    why[0] = '\0';
    if (strcmp(s->version, k->version) != 0)
        snprintf(why, len, "made by tcsparse %s, this is %s", s->version, k->version);
    else if (strcmp(s->matrix, k->matrix) != 0 || s->rows != k->rows || s->cols != k->cols ||
             s->nnz != k->nnz)
        snprintf(why, len, "the matrix changed (content hash %s, now %s)", s->matrix, k->matrix);
    else if (s->n != k->n)
        snprintf(why, len, "planned for n = %lld, now %lld", (long long)s->n, (long long)k->n);
    else if (strcmp(s->op, k->op) != 0)
        snprintf(why, len, "planned for op %s, now %s", s->op, k->op);
    else if (strcmp(s->accuracy, k->accuracy) != 0)
        snprintf(why, len, "planned for accuracy %s, now %s", s->accuracy, k->accuracy);
    else if (strcmp(s->device, k->device) != 0)
        snprintf(why, len, "planned for device '%.100s', this is '%.100s'", s->device, k->device);
    else if (effort_of(s->effort) < effort_of(k->effort))
        snprintf(why, len, "planned with effort %s, %s asked for", s->effort, k->effort);
}

/* The stored choices into p->path and p->info; 0 (with why) when they name
   a path this build cannot run or the options rule out, p untouched: the
   planner then starts from nothing (a half-taken path once named an order
   the plan had not set up, and the product that followed crashed). */
static int take_path(tc_plan *p, const tc_stored_plan *s, char *why, size_t len)
{
    plan_path path, *q = &path;
    memset(q, 0, sizeof *q);
    snprintf(q->order, sizeof q->order, "%s", s->order);
    tc_error e;
    if (strcmp(s->order, "given") != 0 && !tc_reorder_find(s->order))
        return snprintf(why, len, "names an unknown reordering '%s'", s->order), 0;
    if (s->order_params[0] && tc_params_parse(&q->order_params, s->order_params, &e))
        return snprintf(why, len, "%.200s", e.msg), 0;
    if (!(q->format = tc_format_find(s->format)))
        return snprintf(why, len, "names an unknown format '%s'", s->format), 0;
    int ndefs;
    const tc_param_def *defs = tc_format_params(q->format, &ndefs);
    if (s->format_params[0] &&
        (tc_params_parse(&q->format_params, s->format_params, &e) ||
         tc_params_check(&q->format_params, defs, ndefs, s->format, &e)))
        return snprintf(why, len, "format_params: %.200s", e.msg), 0;
    if (p->info.device == TC_DEVICE_GPU) {
        q->kernel = tc_kernel_find(s->format);
        q->variant = q->kernel ? tc_kernel_variant_find(q->kernel, s->variant) : -1;
        if (q->variant < 0)
            return snprintf(why, len, "names no kernel variant %s %s", s->format, s->variant), 0;
    } else if (!tc_format_is_canonical(q->format)) {
        return snprintf(why, len, "names format %s, which the CPU does not run", s->format), 0;
    }
    if ((p->o.format && strcmp(p->o.format, s->format) != 0) ||
        (p->o.variant && strcmp(p->o.variant, s->variant) != 0) ||
        (p->o.order && strcmp(p->o.order, s->order) != 0))
        return snprintf(why, len, "chose %s %s in order %s, not what the options force",
                        s->format, s->variant, s->order), 0;
    p->path = path;
    tc_plan_info *i = &p->info;
    i->reused = 1;
    i->effort = effort_of(s->effort);
    i->ms = s->ms;
    i->cusparse_ms = s->cusparse_ms;
    i->predicted_speedup = s->predicted;
    snprintf(i->variant, sizeof i->variant, "%s", s->variant);
    return 1;
}

/* "PATH: why" into p's stale message. A path too long to leave the reason
   whole gives way from its start ("...", then its end, which names the
   file): the reason is what the message is for. */
static void set_stale(tc_plan *p, const char *path, const char *why)
{
    char *out = p->info.stale;
    const size_t size = sizeof p->info.stale, len = strlen(path);
    size_t w = strlen(why);
    const size_t room = size > w + 3 ? size - (w + 3) : 0;   /* ": ", why, the NUL */
    size_t at = 0;
    if (len > room && room > 3) {
        memcpy(out, "...", 3);
        memcpy(out + 3, path + len - (room - 3), room - 3);
        at = room;
    } else if (len <= room) {
        memcpy(out, path, len);
        at = len;
    }
    if (at) {
        memcpy(out + at, ": ", 2);
        at += 2;
    }
    if (w > size - 1 - at)
        w = size - 1 - at;
    memcpy(out + at, why, w);
    out[at + w] = '\0';
}

/* Reads path; 1 in *found when it serves p. */
static tc_status try_file(tc_plan *p, const tc_stored_plan *key, const char *path, int explicit_file,
                          int *found, tc_error *err)
{
    tc_stored_plan s;
    tc_error e;
    char why[256];
    int missing = 0;
    tc_status st = tc_plan_read_file(path, &s, &missing, &e);
    if (missing)
        return TC_OK;
    if (st && explicit_file) {
        if (err)
            *err = e;
        return st;
    }
    if (st)
        snprintf(why, sizeof why, "%.250s", e.msg);
    else
        why_stale(&s, key, why, sizeof why);
    if (!why[0] && take_path(p, &s, why, sizeof why)) {
        *found = 1;
        snprintf(p->info.plan_file, sizeof p->info.plan_file, "%s", path);
        return TC_OK;
    }
    set_stale(p, path, why);
    return TC_OK;
}

tc_status tc_plan_lookup(tc_plan *p, const tc_csr *given, int *found, tc_error *err)
{
    char path[4096];
    *found = 0;
    if (!p->key && !(p->key = malloc(sizeof *p->key)))
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    key_of(p, given, p->key);
    const tc_stored_plan key = *p->key;
    if (p->o.plan_file)
        return try_file(p, &key, p->o.plan_file, 1, found, err);
    cache_path(p, &key, path, sizeof path);
    return path[0] ? try_file(p, &key, path, 0, found, err) : TC_OK;
}

/* mkdir -p dir. */
static int make_dirs(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

tc_status tc_plan_save(const tc_plan *p, const char *path, tc_error *err)
{
    if (p->attn || !p->key)
        return tc_error_set(err, TC_ERR_ARG, "plan: only SpMM plans are saved");
    return tc_plan_write_file(p, p->key, path, err);
}

tc_status tc_plan_store(tc_plan *p, tc_error *err)
{
    char path[4096];
    /* the key as of planning: the effort that planned it */
    snprintf(p->key->effort, sizeof p->key->effort, "%s", tc_plan_effort_name(p->info.effort));
    if (p->o.plan_file) {
        snprintf(p->info.plan_file, sizeof p->info.plan_file, "%s", p->o.plan_file);
        return tc_plan_write_file(p, p->key, p->o.plan_file, err);
    }
    cache_path(p, p->key, path, sizeof path);
    if (!path[0])
        return TC_OK;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    /* the cache is an optimisation: a cache that cannot be written leaves
       the plan unstored, which info.plan_file ("") shows */
    tc_error ignored;
    if (make_dirs(dir) == 0 && tc_plan_write_file(p, p->key, path, &ignored) == TC_OK)
        snprintf(p->info.plan_file, sizeof p->info.plan_file, "%s", path);
    return TC_OK;
}
