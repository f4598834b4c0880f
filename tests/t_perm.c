/* t_perm: permutation building, composition and text files. */
#include "config.h"
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"

static char dir[] = "/tmp/t_perm.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

static void read_fails(const char *name, const char *text, int32_t n, const char *want)
{
    const char *path = write_file(name, text);
    tc_perm *p = NULL;
    tc_error err;
    tc_status st = tc_perm_read(path, n, TC_PERM_NEW2OLD, &p, &err);
    char expect[512];
    snprintf(expect, sizeof expect, "%s%s", path, want);
    ok(st != TC_OK && p == NULL && strcmp(err.msg, expect) == 0, "%s refused", name);
    if (st == TC_OK || strcmp(err.msg, expect) != 0)
        diag("got '%s'", st ? err.msg : "(accepted)");
}

int main(void)
{
    if (!mkdtemp(dir))
        skip_all("cannot make a temporary directory");
    tc_error err;
    tc_perm *p, *q, *r;
    int32_t idx[] = { 2, 0, 3, 1 };
    ok(tc_perm_from_array(&p, 4, idx, TC_PERM_NEW2OLD, "x", &err) == TC_OK, "bijection accepted");
    ok(p->old2new[2] == 0 && p->old2new[0] == 1 && p->old2new[3] == 2 && p->old2new[1] == 3,
       "inverse computed");
    ok(tc_perm_from_array(&q, 4, idx, TC_PERM_OLD2NEW, "x", &err) == TC_OK &&
           q->new2old[2] == 0 && q->old2new[0] == 2,
       "old2new convention read as such");
    ok(tc_perm_compose(p, q, &r, &err) == TC_OK && r->new2old[0] == p->new2old[q->new2old[0]],
       "compose applies first then second");
    tc_perm_free(r);
    tc_perm_compose(q, p, &r, &err);
    ok(tc_perm_is_identity(r), "a permutation composed with its inverse is the identity");
    tc_perm_free(r);
    tc_perm_free(q);

    int32_t dup[] = { 0, 1, 1 };
    is_int(tc_perm_from_array(&q, 3, dup, TC_PERM_NEW2OLD, "f", &err), TC_ERR_INVALID,
           "duplicate refused");
    is_str(err.msg, "f: index 1 appears twice (entries 1 and 2): not a permutation",
           "duplicate message");
    int32_t out_of_range[] = { 0, 3, 1 };
    tc_perm_from_array(&q, 3, out_of_range, TC_PERM_NEW2OLD, "f", &err);
    is_str(err.msg, "f: entry 1 is 3, outside 0..2", "range message");

    char path[256];
    snprintf(path, sizeof path, "%s/p.txt", dir);
    ok(tc_perm_write(path, p, TC_PERM_NEW2OLD, &err) == TC_OK, "write");
    ok(tc_perm_read(path, 4, TC_PERM_NEW2OLD, &q, &err) == TC_OK &&
           memcmp(q->new2old, p->new2old, sizeof idx) == 0,
       "read back what was written");
    tc_perm_free(q);
    ok(tc_perm_write(path, p, TC_PERM_OLD2NEW, &err) == TC_OK &&
           tc_perm_read(path, -1, TC_PERM_OLD2NEW, &q, &err) == TC_OK &&
           memcmp(q->new2old, p->new2old, sizeof idx) == 0,
       "old2new round trip, any length");
    tc_perm_free(q);
    ok(tc_perm_read(write_file("c.txt", "# comment\n\n2\r\n 0\n% x\n1\n"), 3, TC_PERM_NEW2OLD, &q,
                    &err) == TC_OK && q->new2old[0] == 2 && q->new2old[1] == 0,
       "comments, blank lines, CRLF and leading blanks accepted");
    tc_perm_free(q);

    read_fails("short.txt", "0\n1\n", 3, ": 2 indices, expected 3 (one per row)");
    read_fails("long.txt", "0\n1\n2\n", 2, ":3: index 2 outside 0..1");
    read_fails("word.txt", "0\nx1\n", 2, ":2: expected one 0-based index, found 'x1'");
    read_fails("two.txt", "0 1\n", 2, ":1: expected one 0-based index, found '0 1'");
    read_fails("neg.txt", "-1\n0\n", 2, ":1: index -1 outside 0..1");
    read_fails("dup.txt", "1\n1\n", 2, ": index 1 appears twice (entries 0 and 1): not a permutation");
    static const char text[] = "# from memory\n1\n2\n0";
    ok(tc_perm_read_mem(text, sizeof text - 1, "buf", 3, TC_PERM_NEW2OLD, &q, &err) == TC_OK &&
           q->new2old[0] == 1 && q->new2old[2] == 0 && q->old2new[0] == 2,
       "read from memory, last line without a newline");
    tc_perm_free(q);
    ok(tc_perm_read_mem(text, sizeof text - 1, "buf", 4, TC_PERM_NEW2OLD, &q, &err) ==
           TC_ERR_PARSE && strcmp(err.msg, "buf: 3 indices, expected 4 (one per row)") == 0,
       "from memory: the message names the buffer");
    ok(tc_perm_read_mem("", 0, "empty", -1, TC_PERM_NEW2OLD, &q, &err) == TC_OK && q->n == 0,
       "from memory: no bytes, an empty permutation");
    tc_perm_free(q);
    ok(tc_perm_read("/nonexistent/p.txt", 2, TC_PERM_NEW2OLD, &q, &err) == TC_ERR_IO &&
           strcmp(err.msg, "/nonexistent/p.txt: No such file or directory") == 0,
       "missing file: message with strerror");
    ok(tc_perm_write("/nonexistent/p.txt", p, TC_PERM_NEW2OLD, &err) == TC_ERR_IO &&
           strcmp(err.msg, "/nonexistent/p.txt: cannot create: No such file or directory") == 0,
       "unwritable directory: message names the target");
    tc_perm_free(p);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
