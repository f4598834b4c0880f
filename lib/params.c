/* params.c: "name=value" parameters of formats and reorderings. */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"

static tc_status params_set(tc_params *p, const char *name, size_t len, double v,
                            tc_error *err)
{
    if (len == 0 || len >= sizeof p->kv[0].name)
        return tc_error_set(err, TC_ERR_ARG, "bad parameter name '%.*s'", (int)len, name);
    for (int i = 0; i < p->n; i++)
        if (strlen(p->kv[i].name) == len && memcmp(p->kv[i].name, name, len) == 0) {
            p->kv[i].value = v;   /* a later value overrides an earlier one */
            return TC_OK;
        }
    if (p->n >= TC_MAX_PARAMS)
        return tc_error_set(err, TC_ERR_ARG, "more than %d parameters", TC_MAX_PARAMS);
    memcpy(p->kv[p->n].name, name, len);
    p->kv[p->n].name[len] = '\0';
    p->kv[p->n].value = v;
    p->n++;
    return TC_OK;
}

tc_status tc_params_parse(tc_params *p, const char *text, tc_error *err)
{
    const char *s = text;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (!eq)
            return tc_error_set(err, TC_ERR_ARG, "parameter '%.*s': expected NAME=VALUE",
                                (int)len, s);
        char num[64];
        size_t vlen = len - (size_t)(eq + 1 - s);
        if (vlen == 0 || vlen >= sizeof num)
            return tc_error_set(err, TC_ERR_ARG, "parameter '%.*s': bad value", (int)len, s);
        memcpy(num, eq + 1, vlen);
        num[vlen] = '\0';
        char *stop;
        errno = 0;
        double v = strtod(num, &stop);
        if (*stop || errno || !isfinite(v))
            return tc_error_set(err, TC_ERR_ARG, "parameter '%.*s': '%s' is not a number",
                                (int)(eq - s), s, num);
        tc_status st = params_set(p, s, (size_t)(eq - s), v, err);
        if (st)
            return st;
        s = end ? end + 1 : s + len;
    }
    return TC_OK;
}

double tc_params_get(const tc_params *p, const char *name, double def)
{
    if (p)
        for (int i = 0; i < p->n; i++)
            if (strcmp(p->kv[i].name, name) == 0)
                return p->kv[i].value;
    return def;
}

char *tc_params_text(const tc_params *p, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; p && i < p->n && at < len; i++) {
        char num[TC_NUMBER_CHARS];
        const int w = snprintf(buf + at, len - at, "%s%s=%s", i ? "," : "", p->kv[i].name,
                               tc_number_text(p->kv[i].value, num));
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

tc_status tc_params_check(const tc_params *p, const tc_param_def *defs, int ndefs,
                          const char *owner, tc_error *err)
{
    for (int i = 0; p && i < p->n; i++) {
        const tc_param_def *d = NULL;
        for (int j = 0; j < ndefs; j++)
            if (strcmp(defs[j].name, p->kv[i].name) == 0)
                d = &defs[j];
        if (!d)
            return tc_error_set(err, TC_ERR_ARG, "%s has no parameter '%s'", owner,
                                p->kv[i].name);
        double v = p->kv[i].value;
        char vt[TC_NUMBER_CHARS], lo[TC_NUMBER_CHARS], hi[TC_NUMBER_CHARS];
        tc_number_text(v, vt);
        if (v < d->min || v > d->max)
            return tc_error_set(err, TC_ERR_ARG, "%s: %s=%s is out of range [%s, %s]", owner,
                                d->name, vt, tc_number_text(d->min, lo),
                                tc_number_text(d->max, hi));
        if (d->integer && v != floor(v))
            return tc_error_set(err, TC_ERR_ARG, "%s: %s=%s must be a whole number", owner,
                                d->name, vt);
    }
    return TC_OK;
}

const char *tc_number_text(double v, char buf[TC_NUMBER_CHARS])
{
    /* Whole numbers up to 2^53 are exact in a double: %g would cut
       9502740 to 9.50274e+06, a different number. */
    if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
        snprintf(buf, TC_NUMBER_CHARS, "%.0f", v);
        return buf;
    }
    /* Others as %g does, with more digits only where 6 do not read back
       as v (17 always do). */
    for (int digits = 6;; digits++) {
        snprintf(buf, TC_NUMBER_CHARS, "%.*g", digits, v);
        if (digits == 17 || strtod(buf, NULL) == v)
            return buf;
    }
}
