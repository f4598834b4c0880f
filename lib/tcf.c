/*
 * tcf.c: the provenance of a .tcf.h5 (creator, time, command line). The
 * container in memory (tc_tcf), whose formats are the formats layer's, is
 * formats/tcf_formats.c. No HDF5 here: h5file.c reads and writes it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tcsparse.h"

void tc_provenance_clear(tc_provenance *p)
{
    free(p->creator);
    free(p->created);
    free(p->command);
    free(p->source);
    free(p->banner);
    free(p->comments);
    memset(p, 0, sizeof *p);
}

/* Whether a command-line word needs quoting to be pasted back into sh. */
static int needs_quoting(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("%+,-./:=@_", *s))
            return 1;
    return 0;
}

/* argv joined by spaces, each word single-quoted when the shell would not
   take it as is (' itself becomes '\''). */
static char *join_command(int argc, char **argv, tc_error *err)
{
    int64_t len = 1;
    for (int i = 0; i < argc; i++)
        len += (int64_t)strlen(argv[i]) * 4 + 3;
    char *cmd = tc_malloc_array(len, 1, err);
    if (!cmd)
        return NULL;
    char *o = cmd;
    for (int i = 0; i < argc; i++) {
        if (i)
            *o++ = ' ';
        if (!needs_quoting(argv[i])) {
            o = stpcpy(o, argv[i]);
            continue;
        }
        *o++ = '\'';
        for (const char *s = argv[i]; *s; s++) {
            if (*s == '\'')
                o = stpcpy(o, "'\\''");
            else
                *o++ = *s;
        }
        *o++ = '\'';
    }
    *o = '\0';
    return cmd;
}

/* Now, or $SOURCE_DATE_EPOCH when set (reproducible-builds.org), as ISO
   8601 UTC. */
static tc_status created_now(char *buf, size_t size, tc_error *err)
{
    time_t t = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde) {
        char *end;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!isdigit((unsigned char)sde[0]) || *end || errno || (time_t)v != v)
            return tc_error_set(err, TC_ERR_ARG,
                                "SOURCE_DATE_EPOCH: expected seconds since 1970, found '%s'",
                                sde);
        t = (time_t)v;
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return tc_error_set(err, TC_ERR_ARG, "cannot represent time %lld as a date",
                            (long long)t);
    return TC_OK;
}

static tc_status replace_str(char **dst, const char *src, tc_error *err)
{
    char *copy = NULL;
    if (src && !(copy = strdup(src)))
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    free(*dst);
    *dst = copy;
    return TC_OK;
}

tc_status tc_provenance_set(tc_provenance *p, int argc, char **argv, const char *source,
                            tc_error *err)
{
    char created[64];
    tc_status st = created_now(created, sizeof created, err);
    if (st != TC_OK)
        return st;
    char *cmd = join_command(argc, argv, err);
    if (!cmd)
        return TC_ERR_NOMEM;
    free(p->command);
    p->command = cmd;
    st = replace_str(&p->creator, "tcsparse " TC_VERSION_STRING, err);
    if (st == TC_OK)
        st = replace_str(&p->created, created, err);
    if (st == TC_OK)
        st = replace_str(&p->source, source, err);
    return st;
}
