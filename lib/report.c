/* report.c: an ordered list of named figures, printed by the tools as text,
   TSV or JSON. The library fills reports; it never prints them. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"

struct tc_report {
    int n, cap;
    tc_report_entry *e;
};

tc_report *tc_report_new(void)
{
    return calloc(1, sizeof(tc_report));
}

static void entry_free(tc_report_entry *e)
{
    free((char *)e->section);
    free((char *)e->key);
    free((char *)e->help);
    free((char *)e->str);
}

void tc_report_free(tc_report *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n; i++)
        entry_free(&r->e[i]);
    free(r->e);
    free(r);
}

static char *dup_or_null(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

static tc_status add(tc_report *r, const tc_report_entry *proto)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 32;
        tc_report_entry *e = realloc(r->e, (size_t)cap * sizeof *e);
        if (!e)
            return TC_ERR_NOMEM;
        r->e = e;
        r->cap = cap;
    }
    tc_report_entry *e = &r->e[r->n];
    int failed = 0;
    *e = *proto;
    e->section = dup_or_null(proto->section, &failed);
    e->key = dup_or_null(proto->key, &failed);
    e->help = dup_or_null(proto->help, &failed);
    e->str = dup_or_null(proto->str, &failed);
    if (failed) {
        entry_free(e);
        return TC_ERR_NOMEM;
    }
    r->n++;
    return TC_OK;
}

tc_status tc_report_num(tc_report *r, const char *section, const char *key, double v,
                        const char *help)
{
    tc_report_entry e = { .section = section, .key = key, .help = help, .num = v };
    return add(r, &e);
}

tc_status tc_report_int(tc_report *r, const char *section, const char *key, int64_t v,
                        const char *help)
{
    tc_report_entry e = { .section = section, .key = key, .help = help, .is_int = 1,
                          .ival = v, .num = (double)v };
    return add(r, &e);
}

tc_status tc_report_str(tc_report *r, const char *section, const char *key,
                        const char *v, const char *help)
{
    tc_report_entry e = { .section = section, .key = key, .help = help, .is_str = 1,
                          .str = v ? v : "" };
    return add(r, &e);
}

int tc_report_count(const tc_report *r)
{
    return r ? r->n : 0;
}

const tc_report_entry *tc_report_at(const tc_report *r, int i)
{
    return (r && i >= 0 && i < r->n) ? &r->e[i] : NULL;
}
