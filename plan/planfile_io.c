/*
 * planfile_io.c: reading and writing plan files (the format is described
 * in planfile.c and man/tcmul.1, FILES). Every line is checked: the magic
 * first line, "key<TAB>value" lines with known keys, each key once, each
 * line ended by a newline (a file cut short is caught on its last line),
 * and every key present.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/* the first line: the prefix, then the layout's version */
#define PLAN_PREFIX "tcsparse-plan "
#define PLAN_MAGIC PLAN_PREFIX "2"
/* Version 1 had no format_params line (its plans ran the format's
   defaults); it is read as that. */
#define PLAN_MAGIC_V1 PLAN_PREFIX "1"
#define PLAN_PREFIX_LEN (sizeof PLAN_PREFIX - 1)
#define PLAN_MAX_BYTES 65536

typedef struct field {
    const char *key;
    size_t off;
    char kind;          /* 's' string (size len), 'i' int64, 'd' double */
    size_t len;
} field;

#define S(k) { #k, offsetof(tc_stored_plan, k), 's', sizeof(((tc_stored_plan *)0)->k) }
#define I(k) { #k, offsetof(tc_stored_plan, k), 'i', 0 }
#define D(k) { #k, offsetof(tc_stored_plan, k), 'd', 0 }
static const field fields[] = {
    S(version), S(matrix), I(rows), I(cols), I(nnz), I(n), S(op), S(accuracy), S(device),
    S(effort), S(order), S(order_params), S(format), S(format_params), S(variant), S(precision),
    D(ms), D(cusparse_ms), D(predicted),
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))

static tc_status set_field(tc_stored_plan *s, const field *f, const char *v, const char *path,
                           int line, tc_error *err)
{
    char *base = (char *)s + f->off, *end;
    if (f->kind == 's') {
        if (strlen(v) >= f->len)
            return tc_error_set(err, TC_ERR_PARSE, "%s:%d: %s: longer than %zu characters", path,
                                line, f->key, f->len - 1);
        strcpy(base, v);
        return TC_OK;
    }
    errno = 0;
    if (f->kind == 'i') {
        const long long x = strtoll(v, &end, 10);
        if (*v && !*end && !errno && x >= 0) {
            *(int64_t *)base = x;
            return TC_OK;
        }
    } else {
        const double x = strtod(v, &end);
        if (*v && !*end && !errno && !isnan(x)) {
            *(double *)base = x;
            return TC_OK;
        }
    }
    return tc_error_set(err, TC_ERR_PARSE, "%s:%d: %s: expected a %s, found '%s'", path, line,
                        f->key, f->kind == 'i' ? "whole number >= 0" : "number", v);
}

/* Line `line` (NUL-terminated, no newline) into s. */
static tc_status parse_line(char *text, int line, const char *path, tc_stored_plan *s,
                            unsigned char *seen, tc_error *err)
{
    char *tab = strchr(text, '\t');
    if (!tab)
        return tc_error_set(err, TC_ERR_PARSE, "%s:%d: expected KEY<TAB>VALUE, found '%.40s'",
                            path, line, text);
    *tab = '\0';
    for (int i = 0; i < NFIELDS; i++)
        if (strcmp(text, fields[i].key) == 0) {
            if (seen[i]++)
                return tc_error_set(err, TC_ERR_PARSE, "%s:%d: '%s' given twice", path, line,
                                    text);
            return set_field(s, &fields[i], tab + 1, path, line, err);
        }
    return tc_error_set(err, TC_ERR_PARSE, "%s:%d: unknown key '%.40s'", path, line, text);
}

static tc_status parse(char *buf, size_t len, const char *path, tc_stored_plan *s, tc_error *err)
{
    unsigned char seen[NFIELDS] = { 0 };
    int line = 0, v1 = 0;
    char *at = buf;
    tc_status st = TC_OK;
    while (!st && at < buf + len) {
        char *nl = memchr(at, '\n', (size_t)(buf + len - at));
        line++;
        if (!nl)
            return tc_error_set(err, TC_ERR_PARSE, "%s:%d: truncated: the line has no newline",
                                path, line);
        *nl = '\0';
        if (strlen(at) != (size_t)(nl - at))
            return tc_error_set(err, TC_ERR_PARSE, "%s:%d: a NUL byte: not a plan file", path,
                                line);
        if (line == 1)
            v1 = strcmp(at, PLAN_MAGIC_V1) == 0;
        if (line == 1 && strcmp(at, PLAN_MAGIC) != 0 && !v1)
            return strncmp(at, PLAN_PREFIX, PLAN_PREFIX_LEN) == 0
                       ? tc_error_set(err, TC_ERR_PARSE, "%s:1: plan file version '%.20s', this "
                                      "library reads '%s'", path, at + PLAN_PREFIX_LEN,
                                      &PLAN_MAGIC[PLAN_PREFIX_LEN])
                       : tc_error_set(err, TC_ERR_PARSE, "%s:1: not a tcsparse plan file "
                                      "(expected '%s')", path, PLAN_MAGIC);
        if (line > 1)
            st = parse_line(at, line, path, s, seen, err);
        at = nl + 1;
    }
    if (!st && line == 0)
        return tc_error_set(err, TC_ERR_PARSE, "%s: empty: not a tcsparse plan file", path);
    for (int i = 0; !st && i < NFIELDS; i++)
        if (!seen[i] && !(v1 && strcmp(fields[i].key, "format_params") == 0))
            return tc_error_set(err, TC_ERR_PARSE, "%s:%d: truncated: no '%s' line", path,
                                line + 1, fields[i].key);
    return st;
}

tc_status tc_plan_read_file(const char *path, tc_stored_plan *s, int *missing, tc_error *err)
{
    memset(s, 0, sizeof *s);
    *missing = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *missing = errno == ENOENT;
        return tc_error_errno(err, TC_ERR_IO, errno, "%s", path);
    }
    char *buf = malloc(PLAN_MAX_BYTES + 1);
    if (!buf) {
        fclose(fp);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    const size_t len = fread(buf, 1, PLAN_MAX_BYTES + 1, fp);
    tc_status st = ferror(fp) ? tc_error_errno(err, TC_ERR_IO, errno, "%s", path) : TC_OK;
    fclose(fp);
    if (!st && len > PLAN_MAX_BYTES)
        st = tc_error_set(err, TC_ERR_PARSE, "%s: larger than %d bytes: not a plan file", path,
                          PLAN_MAX_BYTES);
    if (!st)
        st = parse(buf, len, path, s, err);
    free(buf);
    return st;
}

tc_status tc_plan_write_file(const tc_plan *p, const tc_stored_plan *key, const char *path,
                             tc_error *err)
{
    const tc_plan_info *i = &p->info;
    char params[512];
    tc_params_text(&p->path.order_params, params, sizeof params);
    tc_atomic a;
    tc_status st = tc_atomic_open(&a, path, 1, err);
    if (st)
        return tc_error_prefix(err, st, "plan file");
    fprintf(a.fp, "%s\nversion\t%s\nmatrix\t%s\nrows\t%lld\ncols\t%lld\nnnz\t%lld\nn\t%lld\n",
            PLAN_MAGIC, key->version, key->matrix, (long long)key->rows, (long long)key->cols,
            (long long)key->nnz, (long long)key->n);
    fprintf(a.fp, "op\t%s\naccuracy\t%s\ndevice\t%s\neffort\t%s\n", key->op, key->accuracy,
            key->device, tc_plan_effort_name(i->effort));
    fprintf(a.fp, "order\t%s\norder_params\t%s\nformat\t%s\nformat_params\t%s\n", i->order,
            params, i->format, i->format_params);
    fprintf(a.fp, "variant\t%s\nprecision\t%s\n", i->variant, i->precision);
    fprintf(a.fp, "ms\t%.9g\ncusparse_ms\t%.9g\npredicted\t%.9g\n", i->ms, i->cusparse_ms,
            i->predicted_speedup);
    if (ferror(a.fp)) {
        tc_atomic_abort(&a);
        return tc_error_set(err, TC_ERR_IO, "%s: write failed", path);
    }
    return tc_atomic_commit(&a, err);
}
