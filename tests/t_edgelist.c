/* t_edgelist: the edge-list reader and writer (lib/edgelist_*.c) and the
   labels they keep (lib/labels.c): ids as indices or relabelled (numbers
   in increasing order, names in order of appearance), separators, weights
   read bit for bit, the header that keeps a shape, undirected edges,
   every malformed case with its exact message, input longer than the
   reader's block, and write -> read round trips (plain, .gz, .csv, with
   and without labels). */
#include "config.h"
#include <errno.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"

static char tmpdir[4096];

static tc_csr *read_text(const char *text, const tc_edgelist_opts *o, tc_labels **labels,
                         tc_edgelist_info *info, tc_error *err)
{
    tc_csr *a = NULL;
    if (tc_edgelist_read_mem(text, strlen(text), "t.el", o, &a, labels, info, err))
        return NULL;
    return a;
}

/* "i j v;..." of a's entries (v only with values), for comparisons. */
static const char *entries(const tc_csr *a)
{
    static char buf[4096];
    size_t n = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1] && n < sizeof buf - 64; k++) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%d %d", i, a->colidx[k]);
            if (a->val)
                n += (size_t)snprintf(buf + n, sizeof buf - n, " %.17g", a->val[k]);
            n += (size_t)snprintf(buf + n, sizeof buf - n, ";");
        }
    return buf;
}

static const char *label_list(const tc_labels *l)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    for (int32_t i = 0; l && i < l->n; i++) {
        char one[64];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "",
                              tc_labels_get(l, i, one, sizeof one));
    }
    return buf;
}

static void check(const char *what, const char *text, const tc_edgelist_opts *o,
                  int32_t rows, int32_t cols, const char *want_entries, const char *want_labels,
                  int want_base, int want_guessed)
{
    tc_labels *l = NULL;
    tc_edgelist_info info;
    tc_error err;
    tc_csr *a = read_text(text, o, &l, &info, &err);
    if (!ok(a != NULL, "%s: read", what)) {
        diag("%s", err.msg);
        return;
    }
    ok(a->rows == rows && a->cols == cols, "%s: %d x %d (got %d x %d)", what, rows, cols,
       a->rows, a->cols);
    is_str(entries(a), want_entries, what);
    is_str(label_list(l), want_labels, "... labels");
    ok(info.base == want_base && info.base_guessed == want_guessed,
       "... base %d, guessed %d (got %d, %d)", want_base, want_guessed, info.base,
       info.base_guessed);
    tc_labels_free(l);
    tc_csr_free(a);
}

static void test_ids(void)
{
    tc_edgelist_opts d = TC_EDGELIST_DEFAULTS;
    check("SNAP style, 0-based", "# Nodes: 3\n# From\tTo\n0\t1\n1\t2\n", &d, 3, 3,
          "0 1;1 2;", "", 0, 0);
    check("no 0: 1-based, guessed", "1 2\n2 3\n", &d, 3, 3, "0 1;1 2;", "", 1, 1);
    tc_edgelist_opts zero = d;
    zero.index_base = 0;
    check("--index-base 0 keeps row 0 empty", "1 2\n2 3\n", &zero, 4, 4, "1 2;2 3;", "", 0, 0);
    check("sparse numbers relabelled in increasing order",
          "5000000000 7\n7 123456789\n", &d, 3, 3, "0 1;2 0;", "7 123456789 5000000000", -1, 0);
    check("names in order of appearance; 007 is the number 7",
          "b,a,1.5\na , 007 , 2\n7,b,-0.25\n", &d, 3, 3,
          "0 1 1.5;1 2 2;2 0 -0.25;", "b a 7", -1, 0);
    check("numbers before the first name become names", "3 1\n1 x\n", &d, 3, 3,
          "0 1;1 2;", "3 1 x", -1, 0);
    tc_edgelist_opts always = d;
    always.relabel = TC_RELABEL_ALWAYS;
    check("relabel always", "0 4\n4 9\n", &always, 3, 3, "0 1;1 2;", "0 4 9", -1, 0);
    tc_edgelist_opts undirected = d;
    undirected.undirected = 1;
    check("undirected: the reverse of each edge, loops once", "0 1 2\n2 2 5\n", &undirected, 3,
          3, "0 1 2;1 0 2;2 2 5;", "", 0, 0);
    check("duplicates summed", "0 1 1\n0 1 2.5\n", &d, 2, 2, "0 1 3.5;", "", 0, 0);
    check("header: shape and base", "# tcsparse edgelist: rows=4 cols=6 base=1\n1 6\n",
          &d, 4, 6, "0 5;", "", 1, 0);
    check("blanks, CRLF, comments with %", "  0 \t 1 \r\n%c\n\n1\t0\r\n", &d, 2, 2,
          "0 1;1 0;", "", 0, 0);
    check("weights: inf, nan, exponents, bit for bit",
          "0 0 0.1\n0 1 -inf\n1 0 1e-310\n1 1 123456789012345678\n", &d, 2, 2,
          "0 0 0.10000000000000001;0 1 -inf;1 0 9.9999999999999694e-311;1 1 "
          "1.2345678901234568e+17;", "", 0, 0);
}

typedef struct bad_case {
    const char *text;
    tc_relabel relabel;
    int index_base;
    const char *msg;
} bad_case;

static void test_malformed(void)
{
    static const bad_case cases[] = {
        { "0 1\n1 2 3.5\n", TC_RELABEL_AUTO, -1, "t.el:2: expected 2 fields as on line 1, found 3" },
        { "0 1 2\n1 2 x\n", TC_RELABEL_AUTO, -1, "t.el:2: expected a real weight, found 'x'" },
        { "0 1 1e999\n", TC_RELABEL_AUTO, -1, "t.el:1: weight 1e999 is out of the range of a double" },
        { "0 1\n-3 2\n", TC_RELABEL_AUTO, -1,
          "t.el:2: negative source id -3 (ids are numbers from 0, or names)" },
        { "", TC_RELABEL_AUTO, -1, "t.el:1: no edges: expected lines 'SOURCE TARGET [WEIGHT]'" },
        { "# only\n", TC_RELABEL_AUTO, -1,
          "t.el:2: no edges: expected lines 'SOURCE TARGET [WEIGHT]'" },
        { "0 1 2 3\n", TC_RELABEL_AUTO, -1,
          "t.el:1: expected 2 or 3 fields (SOURCE TARGET [WEIGHT]), found 4" },
        { "0\n", TC_RELABEL_AUTO, -1,
          "t.el:1: expected 2 or 3 fields (SOURCE TARGET [WEIGHT]), found 1" },
        { "0 1\n1 99999999999999999999\n", TC_RELABEL_AUTO, -1,
          "t.el:2: target id 99999999999999999999 does not fit in 64 bits" },
        { "0 1\n1 3000000000\n", TC_RELABEL_NEVER, -1,
          "t.el:2: target id 3000000000 is past the largest index, 2147483646 (0-based; ids "
          "are not relabelled)" },
        { "0 1\nx 1\n", TC_RELABEL_NEVER, -1,
          "t.el:2: expected a numeric source id (ids are not relabelled), found 'x'" },
        { "2 1\n1 0\n", TC_RELABEL_AUTO, 1, "t.el:2: id 0 where ids are 1-based (--index-base 1)" },
        { "# tcsparse edgelist: rows=2 cols=2 base=0\n0 5\n", TC_RELABEL_AUTO, -1,
          "t.el:2: target id 5 is past the 2 columns that the tcsparse header declares "
          "(0-based)" },
        { "# tcsparse edgelist: rows=two\n", TC_RELABEL_AUTO, -1,
          "t.el:1: malformed header: expected '# tcsparse edgelist: rows=R cols=C base=0|1'" },
        { "0,,1\n", TC_RELABEL_AUTO, -1, "t.el:1: empty field before a ','" },
        { "0,1,\n", TC_RELABEL_AUTO, -1, "t.el:1: empty field after the last ','" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_edgelist_opts o = TC_EDGELIST_DEFAULTS;
        o.relabel = cases[i].relabel;
        o.index_base = cases[i].index_base;
        tc_error err = { 0 };
        tc_csr *a = read_text(cases[i].text, &o, NULL, NULL, &err);
        ok(a == NULL && err.status == TC_ERR_PARSE, "refused: %s", cases[i].msg);
        is_str(err.msg, cases[i].msg, "... with its message");
        tc_csr_free(a);
    }
    static const char nul[] = "0 1\n1\0 2\n";
    tc_csr *a;
    tc_error err;
    ok(tc_edgelist_read_mem(nul, sizeof nul - 1, "t.el", NULL, &a, NULL, NULL, &err) != TC_OK,
       "a NUL byte is refused");
    is_str(err.msg, "t.el:2: NUL byte at column 2 (an edge list is text)", "... at its column");
}

/* More text than one block of the reader (256 KiB), with lines cut by the
   block boundaries: the same matrix as the triplets say. */
static void test_long_input(void)
{
    enum { N = 60000, V = 5000 };
    size_t cap = (size_t)N * 48, len = 0;
    char *text = malloc(cap + 1);
    int32_t *ri = malloc(N * sizeof *ri), *ci = malloc(N * sizeof *ci);
    double *v = malloc(N * sizeof *v);
    for (int k = 0; k < N; k++) {
        /* the first edge holds an id 0 (so 0-based) and the largest (the shape) */
        ri[k] = k ? (int32_t)tap_rand(V) : 0;
        ci[k] = k ? (int32_t)tap_rand(V) : V - 1;
        v[k] = (double)tap_rand(1000000) / 997.0;
        len += (size_t)snprintf(text + len, cap - len,
                                k % 7 ? "%d\t%d\t%.17g\n" : "%d,%d,%.17g\r\n", ri[k], ci[k],
                                v[k]);
    }
    tc_csr *want = NULL, *got = NULL;
    tc_error err;
    ok(tc_csr_from_coo(&want, V, V, N, ri, ci, v, 1, &err) == TC_OK, "the expected matrix");
    tc_status st = tc_edgelist_read_mem(text, len, "long.el", NULL, &got, NULL, NULL, &err);
    ok(st == TC_OK && tc_csr_equal(got, want), "%zu bytes across blocks read as built", len);
    tc_csr_free(want);
    tc_csr_free(got);
    free(text);
    free(ri);
    free(ci);
    free(v);
}

static void round_trip(const char *what, const char *text, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    tc_labels *l = NULL, *l2 = NULL;
    tc_error err;
    tc_csr *a = read_text(text, NULL, &l, NULL, &err), *b = NULL;
    tc_status st = a ? tc_edgelist_write(path, a, l, &err) : TC_ERR_PARSE;
    if (!st)
        st = tc_edgelist_read(path, NULL, &b, &l2, NULL, &err);
    if (!ok(st == TC_OK, "%s: written and read back", what))
        diag("%s", err.msg);
    ok(b && tc_csr_equal(a, b), "... the same matrix");
    is_str(label_list(l2), label_list(l), "... the same labels");
    unlink(path);
    tc_labels_free(l);
    tc_labels_free(l2);
    tc_csr_free(a);
    tc_csr_free(b);
}

static void test_round_trips(void)
{
    round_trip("indices, tab", "# tcsparse edgelist: rows=5 cols=7 base=0\n0 6 0.1\n3 2 -1e300\n",
               "a.el");
    round_trip("indices, gzip", "0 1\n1 2\n2 0\n", "a.el.gz");
    round_trip("names, csv", "x,y,1\ny,z,2.5\nz,x,-3\n", "a.csv");
    round_trip("names, csv.gz", "x,y\ny,z\n", "a.csv.gz");
    round_trip("sparse numbers", "9000000000 1\n1 77777777\n", "a.tsv");
    /* a written .csv separates by commas, anything else by tabs */
    char path[4200];
    snprintf(path, sizeof path, "%s/b.csv", tmpdir);
    tc_error err;
    tc_csr *a = read_text("0 1 2\n", NULL, NULL, NULL, &err);
    tc_edgelist_write(path, a, NULL, &err);
    size_t len;
    char *got = tap_slurp(path, &len);
    is_str(got, "# tcsparse edgelist: rows=2 cols=2 base=0\n0,1,2\n", "a .csv is written with commas");
    free(got);
    unlink(path);
    tc_csr_free(a);
}

static void test_labels(void)
{
    tc_error err;
    tc_labels *l = NULL, *p = NULL;
    tc_csr *a = read_text("c a\na b\n", NULL, &l, NULL, &err);
    int32_t order[] = { 2, 0, 1 };
    tc_perm *perm;
    tc_perm_from_array(&perm, 3, order, TC_PERM_NEW2OLD, "t", &err);
    ok(tc_labels_permute(l, perm, &p, &err) == TC_OK, "labels permuted");
    is_str(label_list(p), "b c a", "... in the new order");
    ok(tc_labels_validate(p, "p", &err) == TC_OK, "... and valid");
    p->text[0] = ' ';
    ok(tc_labels_validate(p, "p", &err) == TC_ERR_INVALID, "a label with a blank is refused");
    is_str(err.msg, "p: label 0 holds a blank, comma, line break or NUL byte", "... so");
    tc_perm_free(perm);

    /* a permutation as ids, read back (comments and blanks skipped) */
    char path[4200];
    snprintf(path, sizeof path, "%s/ids.txt", tmpdir);
    FILE *fp = fopen(path, "w");
    fputs("# new order\n  b\r\n\nc\na\n", fp);
    fclose(fp);
    ok(tc_labels_read_perm(path, l, &perm, &err) == TC_OK && perm->new2old[0] == 2 &&
       perm->new2old[1] == 0 && perm->new2old[2] == 1, "ids read back as a permutation");
    tc_perm_free(perm);
    fp = fopen(path, "w");
    fputs("b\nb\na\n", fp);
    fclose(fp);
    ok(tc_labels_read_perm(path, l, &perm, &err) == TC_ERR_INVALID, "an id given twice is refused");
    fp = fopen(path, "w");
    fputs("b\nc a\n", fp);
    fclose(fp);
    tc_labels_read_perm(path, l, &perm, &err);
    char want[4300];
    snprintf(want, sizeof want, "%s:2: expected one id, found 'c a'", path);
    is_str(err.msg, want, "two ids on a line are refused");
    unlink(path);
    tc_labels *num = NULL;
    tc_csr *b = read_text("9000000000 5\n5 77\n", NULL, &num, NULL, &err);
    fp = fopen(path, "w");
    fputs("9000000000\n77\n5\n", fp);
    fclose(fp);
    ok(tc_labels_read_perm(path, num, &perm, &err) == TC_OK && perm->new2old[0] == 2 &&
       perm->new2old[1] == 1 && perm->new2old[2] == 0, "integer ids read back as a permutation");
    tc_perm_free(perm);
    unlink(path);
    tc_labels_free(num);
    tc_csr_free(b);
    tc_labels_free(l);
    tc_labels_free(p);
    tc_csr_free(a);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/t_edgelist.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_ids();
    test_malformed();
    test_long_input();
    test_round_trips();
    test_labels();
    rmdir(tmpdir);
    return done_testing();
}
