/* error.c: tc_error messages and status names. */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tcsparse.h"

static tc_status vset(tc_error *err, tc_status st, const char *fmt, va_list ap)
{
    if (err) {
        err->status = st;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return st;
}

tc_status tc_error_set(tc_error *err, tc_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, st, fmt, ap);
    va_end(ap);
    return st;
}

tc_status tc_error_errno(tc_error *err, tc_status st, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(err, st, fmt, ap);
    va_end(ap);
    if (err) {
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, ": %s", strerror(errnum));
    }
    return st;
}

tc_status tc_error_prefix(tc_error *err, tc_status st, const char *fmt, ...)
{
    if (!err)
        return st;
    char prefix[512], joined[sizeof prefix + sizeof err->msg + 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    snprintf(joined, sizeof joined, "%s: %s", prefix, err->msg);
    snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, joined);
    err->status = st;
    return st;
}

const char *tc_status_name(tc_status st)
{
    switch (st) {
    case TC_OK: return "success";
    case TC_ERR_IO: return "input/output error";
    case TC_ERR_PARSE: return "parse error";
    case TC_ERR_FORMAT: return "bad file layout";
    case TC_ERR_INVALID: return "invalid data";
    case TC_ERR_UNSUPPORTED: return "unsupported";
    case TC_ERR_NOMEM: return "out of memory";
    case TC_ERR_ARG: return "bad argument";
    case TC_ERR_NODEVICE: return "no CUDA device";
    case TC_ERR_CUDA: return "CUDA error";
    case TC_ERR_VERIFY: return "verification failed";
    case TC_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}

int tc_status_exit_code(tc_status st)
{
    switch (st) {
    case TC_OK: return 0;
    case TC_ERR_ARG: return 2;
    case TC_ERR_NODEVICE: return 3;
    case TC_ERR_INTERRUPTED: return 130;
    default: return 1;
    }
}
