/* perm.c: permutations, always validated as bijections on 0..n-1, and their
   text files (one 0-based index per line, new-to-old by default: SciPy's and
   METIS's convention). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"

void tc_perm_free(tc_perm *p)
{
    if (!p)
        return;
    free(p->new2old);
    free(p->old2new);
    free(p);
}

static tc_perm *perm_alloc(int32_t n, tc_error *err)
{
    tc_perm *p = calloc(1, sizeof *p);
    if (!p) {
        tc_error_set(err, TC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    p->n = n;
    p->new2old = tc_malloc_array(n, sizeof(int32_t), err);
    p->old2new = p->new2old ? tc_malloc_array(n, sizeof(int32_t), err) : NULL;
    if (!p->old2new) {
        tc_perm_free(p);
        return NULL;
    }
    return p;
}

tc_status tc_perm_from_array(tc_perm **out, int32_t n, const int32_t *idx,
                             tc_perm_convention conv, const char *what, tc_error *err)
{
    *out = NULL;
    if (n < 0)
        return tc_error_set(err, TC_ERR_INVALID, "%s: negative permutation length %d", what, n);
    tc_perm *p = perm_alloc(n, err);
    if (!p)
        return TC_ERR_NOMEM;
    int32_t *fwd = conv == TC_PERM_NEW2OLD ? p->new2old : p->old2new;
    int32_t *inv = conv == TC_PERM_NEW2OLD ? p->old2new : p->new2old;
    for (int32_t i = 0; i < n; i++)
        inv[i] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t v = idx[i];
        if (v < 0 || v >= n) {
            tc_perm_free(p);
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s: entry %d is %d, outside 0..%d", what, i, v, n - 1);
        }
        if (inv[v] >= 0) {
            int32_t first = inv[v];
            tc_perm_free(p);
            return tc_error_set(err, TC_ERR_INVALID,
                                "%s: index %d appears twice (entries %d and %d): not a permutation",
                                what, v, first, i);
        }
        inv[v] = i;
        fwd[i] = v;
    }
    *out = p;
    return TC_OK;
}

tc_status tc_perm_identity(tc_perm **out, int32_t n, tc_error *err)
{
    *out = perm_alloc(n, err);
    if (!*out)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < n; i++)
        (*out)->new2old[i] = (*out)->old2new[i] = i;
    return TC_OK;
}

int tc_perm_is_identity(const tc_perm *p)
{
    for (int32_t i = 0; i < p->n; i++)
        if (p->new2old[i] != i)
            return 0;
    return 1;
}

tc_status tc_perm_compose(const tc_perm *first, const tc_perm *second, tc_perm **out,
                          tc_error *err)
{
    *out = NULL;
    if (first->n != second->n)
        return tc_error_set(err, TC_ERR_ARG, "cannot compose permutations of %d and %d entries",
                            first->n, second->n);
    tc_perm *p = perm_alloc(first->n, err);
    if (!p)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < p->n; i++) {
        p->new2old[i] = first->new2old[second->new2old[i]];
        p->old2new[p->new2old[i]] = i;
    }
    *out = p;
    return TC_OK;
}

/* Parses one line of a permutation file into *v; returns 0 for an index,
   1 for a line to skip, -1 for garbage. */
static int parse_line(const char *s, long long *v)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#' || *s == '%')
        return 1;
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    if (end == s || errno)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    return *end == '\0' ? 0 : -1;
}

/* The lines of fp, named `name` in messages, into *out. */
static tc_status read_stream(FILE *fp, const char *name, int32_t n_expected,
                             tc_perm_convention conv, tc_perm **out, tc_error *err)
{
    tc_status st = TC_OK;
    int64_t n = 0, cap = 1024;
    int32_t *idx = malloc((size_t)cap * sizeof *idx);
    char *line = NULL;
    size_t linecap = 0;
    long long lineno = 0;
    if (!idx)
        st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    while (!st && getline(&line, &linecap, fp) >= 0) {
        lineno++;
        long long v;
        int r = parse_line(line, &v);
        if (r == 1)
            continue;
        if (r < 0) {
            line[strcspn(line, "\r\n")] = '\0';
            st = tc_error_set(err, TC_ERR_PARSE, "%s:%lld: expected one 0-based index, found '%.40s'",
                              name, lineno, line);
        } else if (v < 0 || v >= INT32_MAX || (n_expected >= 0 && v >= n_expected)) {
            st = tc_error_set(err, TC_ERR_PARSE, "%s:%lld: index %lld outside 0..%lld", name,
                              lineno, v, n_expected >= 0 ? (long long)n_expected - 1 : (long long)INT32_MAX - 1);
        } else if (n >= INT32_MAX || (n_expected >= 0 && n >= n_expected)) {
            st = tc_error_set(err, TC_ERR_PARSE, "%s:%lld: more than the %lld indices expected",
                              name, lineno, (long long)(n_expected >= 0 ? n_expected : INT32_MAX));
        } else {
            if (n == cap) {
                int32_t *bigger = realloc(idx, (size_t)(cap *= 2) * sizeof *idx);
                if (!bigger) {
                    st = tc_error_set(err, TC_ERR_NOMEM, "out of memory");
                    break;
                }
                idx = bigger;
            }
            idx[n++] = (int32_t)v;
        }
    }
    if (!st && ferror(fp))
        st = tc_error_errno(err, TC_ERR_IO, errno, "%s: read error", name);
    if (!st && n_expected >= 0 && n != n_expected)
        st = tc_error_set(err, TC_ERR_PARSE, "%s: %lld indices, expected %lld (one per row)",
                          name, (long long)n, (long long)n_expected);
    if (!st)
        st = tc_perm_from_array(out, (int32_t)n, idx, conv, name, err);
    free(line);
    free(idx);
    return st;
}

tc_status tc_perm_read(const char *path, int32_t n_expected, tc_perm_convention conv,
                       tc_perm **out, tc_error *err)
{
    *out = NULL;
    int use_stdin = strcmp(path, "-") == 0;
    FILE *fp = use_stdin ? stdin : fopen(path, "r");
    if (!fp)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s", path);
    tc_status st = read_stream(fp, use_stdin ? "standard input" : path, n_expected, conv, out,
                               err);
    if (!use_stdin)
        fclose(fp);
    return st;
}

tc_status tc_perm_read_mem(const void *buf, size_t len, const char *name, int32_t n_expected,
                           tc_perm_convention conv, tc_perm **out, tc_error *err)
{
    *out = NULL;
    /* fmemopen does not write to a buffer opened "r" */
    FILE *fp = fmemopen((void *)buf, len, "r");
    if (!fp)
        return tc_error_errno(err, TC_ERR_NOMEM, errno, "%s", name);
    tc_status st = read_stream(fp, name, n_expected, conv, out, err);
    fclose(fp);
    return st;
}

tc_status tc_perm_write(const char *path, const tc_perm *p, tc_perm_convention conv,
                        tc_error *err)
{
    tc_atomic a;
    tc_status st = tc_atomic_open(&a, path, 1, err);
    if (st)
        return st;
    const int32_t *v = conv == TC_PERM_NEW2OLD ? p->new2old : p->old2new;
    for (int32_t i = 0; i < p->n; i++)
        fprintf(a.fp, "%d\n", v[i]);
    st = tc_atomic_commit(&a, err);
    return st;
}
