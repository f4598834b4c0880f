/* t_util: error messages, overflow checks, parameters, reports, atomic files. */
#include "config.h"
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"

int main(void)
{
    tc_error err;
    is_int(tc_error_set(&err, TC_ERR_PARSE, "f.mtx:%d: bad", 3), TC_ERR_PARSE, "set returns status");
    is_str(err.msg, "f.mtx:3: bad", "set formats");
    tc_error_errno(&err, TC_ERR_IO, ENOENT, "%s", "x");
    is_str(err.msg, "x: No such file or directory", "errno appended");
    is_int(tc_error_prefix(&err, TC_ERR_IO, "outer"), TC_ERR_IO, "prefix: the status given back");
    is_str(err.msg, "outer: x: No such file or directory", "prefix");
    is_int(tc_error_prefix(NULL, TC_ERR_NOMEM, "outer"), TC_ERR_NOMEM,
           "prefix without an error to fill: the status still given back");
    is_int(err.status, TC_ERR_IO, "prefix keeps status");
    is_int(tc_status_exit_code(TC_ERR_ARG), 2, "usage errors exit 2");
    is_int(tc_status_exit_code(TC_ERR_NODEVICE), 3, "no device exits 3");
    is_int(tc_status_exit_code(TC_ERR_PARSE), 1, "data errors exit 1");

    int64_t prod;
    ok(tc_mul_overflows(INT64_MAX / 2, 3, &prod), "overflow detected");
    ok(!tc_mul_overflows(1 << 20, 1 << 20, &prod) && prod == (int64_t)1 << 40, "no false overflow");
    ok(tc_malloc_array(INT64_MAX / 4, 8, &err) == NULL && err.status == TC_ERR_NOMEM,
       "huge array refused, not attempted");
    void *z = tc_malloc_array(0, 8, &err);
    ok(z != NULL, "zero-length array is a valid pointer");
    free(z);

    tc_params p = { 0 };
    ok(tc_params_parse(&p, "h=16,w=8,tau=0.5", &err) == TC_OK && p.n == 3, "params parsed");
    ok(tc_params_get(&p, "tau", 0) == 0.5 && tc_params_get(&p, "x", 7) == 7, "params looked up");
    tc_params_parse(&p, "h=32", &err);
    ok(p.n == 3 && tc_params_get(&p, "h", 0) == 32, "a later value overrides");
    is_int(tc_params_parse(&p, "h", &err), TC_ERR_ARG, "missing = refused");
    is_str(err.msg, "parameter 'h': expected NAME=VALUE", "missing = message");
    tc_params_parse(&p, "h=x", &err);
    is_str(err.msg, "parameter 'h': 'x' is not a number", "bad value message");
    static const tc_param_def defs[] = {
        { "h", "rows", 16, 1, 64, 1 }, { "w", "cols", 8, 1, 64, 1 }, { "tau", "t", 0.5, 0, 1, 0 },
    };
    ok(tc_params_check(&p, defs, 3, "brp", &err) == TC_OK, "params within range accepted");
    tc_params q = { 0 };
    tc_params_parse(&q, "g=4", &err);
    tc_params_check(&q, defs, 3, "brp", &err);
    is_str(err.msg, "brp has no parameter 'g'", "unknown parameter message");
    tc_params_parse(&q, "g=4", &err);
    q.n = 0;
    tc_params_parse(&q, "h=2.5", &err);
    tc_params_check(&q, defs, 3, "brp", &err);
    is_str(err.msg, "brp: h=2.5 must be a whole number", "integer parameter message");
    q.n = 0;
    tc_params_parse(&q, "w=100", &err);
    tc_params_check(&q, defs, 3, "brp", &err);
    is_str(err.msg, "brp: w=100 is out of range [1, 64]", "range message");

    tc_report *r = tc_report_new();
    tc_report_int(r, "matrix", "rows", 5, "rows");
    tc_report_num(r, "matrix", "density", 0.25, NULL);
    tc_report_str(r, "matrix", "symmetry", "general", NULL);
    is_int(tc_report_count(r), 3, "report holds three figures");
    const tc_report_entry *e = tc_report_at(r, 2);
    ok(e && e->is_str && strcmp(e->str, "general") == 0 && strcmp(e->section, "matrix") == 0,
       "string figure kept");
    ok(tc_report_at(r, 3) == NULL, "out of range index gives NULL");
    tc_report_free(r);

    char dir[] = "/tmp/t_util.XXXXXX", target[300];
    mkdtemp(dir);
    snprintf(target, sizeof target, "%s/out.txt", dir);
    FILE *fp = fopen(target, "w");
    fputs("old\n", fp);
    fclose(fp);
    tc_atomic a;
    ok(tc_atomic_open(&a, target, 1, &err) == TC_OK && a.fp, "atomic open");
    fputs("new\n", a.fp);
    char buf[16] = "";
    fp = fopen(target, "r");
    ok(fgets(buf, sizeof buf, fp) && strcmp(buf, "old\n") == 0, "target untouched before commit");
    fclose(fp);
    tc_atomic_abort(&a);
    ok(access(target, F_OK) == 0, "abort keeps the previous file");
    ok(tc_atomic_open(&a, target, 1, &err) == TC_OK, "atomic open again");
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s", a.tmp);
    fputs("new\n", a.fp);
    ok(tc_atomic_commit(&a, &err) == TC_OK, "commit");
    fp = fopen(target, "r");
    ok(fgets(buf, sizeof buf, fp) && strcmp(buf, "new\n") == 0, "target replaced on commit");
    fclose(fp);
    ok(access(tmp, F_OK) != 0, "temporary file gone after commit");
    struct stat st;
    ok(stat(target, &st) == 0 && (st.st_mode & 0044) != 0, "committed file is not private (umask mode)");
    ok(tc_same_file(target, target) && !tc_same_file(target, dir), "same-file check");
    tc_atomic_open(&a, target, 1, &err);
    snprintf(tmp, sizeof tmp, "%s", a.tmp);
    tc_atomic_abort(&a);
    ok(access(tmp, F_OK) != 0, "abort removes the temporary file");
    ok(tc_atomic_open(&a, dir, 1, &err) == TC_ERR_IO, "a directory as target refused");
    is_str(err.msg + strlen(dir), ": is a directory", "directory message");
    unlink(target);
    rmdir(dir);
    is_str(tc_version(), TC_VERSION_STRING, "tc_version is the version the library was built as");
    return done_testing();
}
