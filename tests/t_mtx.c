/* t_mtx: the Matrix Market reader and writer (lib/mtx_*.c): every banner
   variant, the permissive cases real files have, every malformed case with
   its exact message, gzip input, and write -> read round trips (values bit
   for bit) on matrices of awkward shapes. Fixtures: tests/data/mtx/. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"

static char datadir[4096];
static char tmpdir[4096];

/* dir/name (eight rotating buffers: enough for the paths live at once). */
static const char *path_in(const char *dir, const char *name)
{
    static char buf[8][4200];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static const char *fixture(const char *name)
{
    return path_in(datadir, name);
}

static const char *tmpfile_path(const char *name)
{
    return path_in(tmpdir, name);
}


static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* ------------------------------------------------------------------------ */
/* Expected matrices                                                        */
/* ------------------------------------------------------------------------ */

typedef struct trip {
    int32_t i, j;   /* 1-based */
    double v;
} trip;

static tc_csr *from_trips(int32_t rows, int32_t cols, const trip *t, int n, int pattern)
{
    int32_t ri[64], ci[64];
    double v[64];
    for (int k = 0; k < n; k++) {
        ri[k] = t[k].i - 1;
        ci[k] = t[k].j - 1;
        v[k] = t[k].v;
    }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, pattern ? NULL : v, 1, &err))
        diag("from_coo: %s", err.msg);
    return a;
}

static int same_matrix(const tc_csr *got, const tc_csr *want)
{
    return got && want && tc_csr_equal(got, want) && got->field == want->field &&
           got->symmetry == want->symmetry;
}

/* Reads a good fixture and compares it with the expected triplets. */
static void check_read(const char *file, int32_t rows, int32_t cols, const trip *t, int n,
                       tc_field field, tc_symmetry sym)
{
    tc_csr *want = from_trips(rows, cols, t, n, field == TC_FIELD_PATTERN);
    want->field = field;
    want->symmetry = sym;
    tc_csr *a = NULL;
    tc_error err;
    tc_status st = tc_mtx_read(fixture(file), NULL, &a, NULL, NULL, &err);
    if (!ok(st == TC_OK && same_matrix(a, want), "read %s", file) && st)
        diag("%s", err.msg);
    tc_csr_free(a);
    tc_csr_free(want);
}

static void test_banner_variants(void)
{
    static const trip real_general[] = {
        { 1, 1, 1.5 }, { 3, 1, -2 }, { 2, 3, 325 }, { 1, 4, -0.125 }, { 3, 4, 7 }
    };
    check_read("coord-real-general.mtx", 3, 4, real_general, 5, TC_FIELD_REAL, TC_SYM_GENERAL);
    static const trip int_general[] = { { 1, 1, 7 }, { 2, 2, -3 }, { 3, 1, 42 }, { 3, 3, 12 } };
    check_read("coord-integer-general.mtx", 3, 3, int_general, 4, TC_FIELD_INTEGER,
               TC_SYM_GENERAL);
    static const trip pattern_general[] = { { 1, 3, 1 }, { 2, 1, 1 }, { 1, 1, 1 } };
    check_read("coord-pattern-general.mtx", 2, 3, pattern_general, 3, TC_FIELD_PATTERN,
               TC_SYM_GENERAL);
    /* expanded, and no explicit zero added on the empty diagonal (2, 2) */
    static const trip real_sym[] = {
        { 1, 1, 2 }, { 2, 1, -1 }, { 1, 2, -1 }, { 3, 2, 0.5 }, { 2, 3, 0.5 }, { 3, 3, 4 }
    };
    check_read("coord-real-symmetric.mtx", 3, 3, real_sym, 6, TC_FIELD_REAL, TC_SYM_SYMMETRIC);
    check_read("coord-real-hermitian.mtx", 3, 3, real_sym, 6, TC_FIELD_REAL, TC_SYM_HERMITIAN);
    static const trip pattern_sym[] = {
        { 1, 1, 1 }, { 3, 1, 1 }, { 1, 3, 1 }, { 3, 2, 1 }, { 2, 3, 1 }
    };
    check_read("coord-pattern-symmetric.mtx", 3, 3, pattern_sym, 5, TC_FIELD_PATTERN,
               TC_SYM_SYMMETRIC);
    static const trip real_skew[] = { { 2, 1, 3 }, { 1, 2, -3 }, { 3, 2, -1.5 }, { 2, 3, 1.5 } };
    check_read("coord-real-skew.mtx", 3, 3, real_skew, 4, TC_FIELD_REAL, TC_SYM_SKEW);
    check_read("coord-empty.mtx", 0, 0, NULL, 0, TC_FIELD_REAL, TC_SYM_GENERAL);
    check_read("coord-no-entries.mtx", 3, 5, NULL, 0, TC_FIELD_REAL, TC_SYM_GENERAL);

    /* array files: every entry stored, zeros included */
    static const trip array_general[] = {
        { 1, 1, 1 }, { 2, 1, 2 }, { 1, 2, 3 }, { 2, 2, 4 }, { 1, 3, 5 }, { 2, 3, 6 }
    };
    check_read("array-real-general.mtx", 2, 3, array_general, 6, TC_FIELD_REAL, TC_SYM_GENERAL);
    static const trip array_int[] = { { 1, 1, 1 }, { 2, 1, 0 }, { 1, 2, 0 }, { 2, 2, -4 } };
    check_read("array-integer-general.mtx", 2, 2, array_int, 4, TC_FIELD_INTEGER,
               TC_SYM_GENERAL);
    static const trip array_sym[] = {
        { 1, 1, 1 }, { 2, 1, 2 }, { 3, 1, 3 }, { 1, 2, 2 }, { 2, 2, 4 }, { 3, 2, 5 },
        { 1, 3, 3 }, { 2, 3, 5 }, { 3, 3, 6 }
    };
    check_read("array-real-symmetric.mtx", 3, 3, array_sym, 9, TC_FIELD_REAL, TC_SYM_SYMMETRIC);
    static const trip array_skew[] = {
        { 1, 1, 0 }, { 2, 1, 1 }, { 3, 1, 2 }, { 1, 2, -1 }, { 2, 2, 0 }, { 3, 2, 3 },
        { 1, 3, -2 }, { 2, 3, -3 }, { 3, 3, 0 }
    };
    check_read("array-real-skew.mtx", 3, 3, array_skew, 9, TC_FIELD_REAL, TC_SYM_SKEW);
}

static void test_permissive(void)
{
    static const trip diag12[] = { { 1, 1, 1 }, { 2, 2, 2 } };
    check_read("perm-crlf.mtx", 2, 2, diag12, 2, TC_FIELD_REAL, TC_SYM_GENERAL);
    static const trip diag123[] = { { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 } };
    check_read("perm-blanks.mtx", 3, 3, diag123, 3, TC_FIELD_REAL, TC_SYM_GENERAL);
    static const trip one[] = { { 2, 1, 5 } };
    check_read("perm-one-percent.mtx", 2, 2, one, 1, TC_FIELD_REAL, TC_SYM_GENERAL);
    static const trip diag14[] = { { 1, 1, 1 }, { 2, 2, 4 } };
    check_read("perm-no-final-newline.mtx", 2, 2, diag14, 2, TC_FIELD_REAL, TC_SYM_GENERAL);
    /* duplicates summed; a sum of zero stays a stored entry */
    static const trip dup[] = { { 1, 1, 3.5 }, { 2, 2, 0 } };
    check_read("dup-sum.mtx", 2, 2, dup, 2, TC_FIELD_REAL, TC_SYM_GENERAL);
    /* the header's size is kept although rows 3..10 and columns 4..7 are empty */
    static const trip trailing[] = { { 1, 1, 1 }, { 2, 3, 2 } };
    check_read("trailing-empty.mtx", 10, 7, trailing, 2, TC_FIELD_REAL, TC_SYM_GENERAL);
    /* the largest index there is: 2^31 - 1 columns, the last one used */
    static const trip limit[] = { { 1, 1, 0.5 }, { 1, 2147483647, 2.5 } };
    check_read("index-limit.mtx", 1, 2147483647, limit, 2, TC_FIELD_REAL, TC_SYM_GENERAL);
    /* (2,1) and (1,2) both listed in a symmetric file: each is mirrored and
       the two are summed, as SciPy's mmread does */
    static const trip both[] = { { 1, 2, 11 }, { 2, 1, 11 }, { 1, 3, 4 }, { 3, 1, 4 } };
    check_read("sym-both-triangles.mtx", 3, 3, both, 4, TC_FIELD_REAL, TC_SYM_SYMMETRIC);
    static const trip skew0[] = { { 1, 1, 0 }, { 2, 1, 2 }, { 1, 2, -2 } };
    check_read("skew-zero-diagonal.mtx", 2, 2, skew0, 3, TC_FIELD_REAL, TC_SYM_SKEW);

    tc_csr *a = NULL;
    tc_mtx_info info;
    tc_error err;
    tc_status st = tc_mtx_read(fixture("perm-comments.mtx"), NULL, &a, &info, NULL, &err);
    ok(st == TC_OK && info.comments &&
       strcmp(info.comments, "first comment\n second, with a leading blank\n\n"
                             "%fourth, with two percent signs") == 0,
       "comments kept without their %%, joined with newlines");
    is_str(info.banner, "%%MatrixMarket matrix coordinate pattern general", "banner kept");
    tc_mtx_info_clear(&info);
    ok(info.comments == NULL, "tc_mtx_info_clear frees the comments");
    tc_csr_free(a);

    st = tc_mtx_read(fixture("perm-crlf.mtx"), NULL, &a, &info, NULL, &err);
    is_str(st ? err.msg : info.banner, "%%MatrixMarket matrix coordinate real general",
           "CRLF: banner without its CR");
    is_str(info.comments, " CRLF line ends", "CRLF: comment without its CR");
    tc_mtx_info_clear(&info);
    tc_csr_free(a);

    st = tc_mtx_read(fixture("coord-real-symmetric.mtx"), NULL, &a, &info, NULL, &err);
    ok(st == TC_OK && !info.is_array && info.field == TC_FIELD_REAL &&
       info.symmetry == TC_SYM_SYMMETRIC && info.entries == 4 && info.comments == NULL,
       "info: coordinate real symmetric, 4 entries listed, no comments");
    tc_csr_free(a);
    st = tc_mtx_read(fixture("array-real-skew.mtx"), NULL, &a, &info, NULL, &err);
    ok(st == TC_OK && info.is_array && info.symmetry == TC_SYM_SKEW && info.entries == 3,
       "info: array skew-symmetric, 3 values listed");
    tc_csr_free(a);
}

static void test_values(void)
{
    tc_csr *a = NULL;
    tc_error err;
    tc_status st = tc_mtx_read(fixture("values-special.mtx"), NULL, &a, NULL, NULL, &err);
    if (!ok(st == TC_OK && a->nnz == 12, "values-special.mtx read")) {
        diag("%s", st ? err.msg : "wrong nnz");
        tc_csr_free(a);
        return;
    }
    const double *v = a->val;
    ok(isinf(v[0]) && v[0] > 0, "inf");
    ok(isinf(v[1]) && v[1] < 0, "-Infinity");
    ok(isnan(v[2]), "NaN");
    ok(v[3] == 0 && signbit(v[3]), "-0 keeps its sign");
    ok(v[4] == strtod("1e-320", NULL) && v[4] != 0, "subnormal 1e-320");
    ok(v[5] == 0.5 && v[6] == 5.0 && v[7] == 100.0 && v[8] == -0.025, ".5 5. 1E+2 -.25e-1");
    ok(v[9] == DBL_MAX, "1.7976931348623157e308 is DBL_MAX");
    ok(v[10] == strtod("123456789012345678901234567890", NULL), "30 digits as strtod reads them");
    ok(v[11] == 0.1, "35-digit decimal of 0.1 rounds to 0.1");
    tc_csr_free(a);

    /* below the smallest subnormal: rounded to zero as strtod does, sign
       kept, and still a stored entry */
    st = tc_mtx_read(fixture("values-underflow.mtx"), NULL, &a, NULL, NULL, &err);
    ok(st == TC_OK && a->nnz == 2 && a->val[0] == 0 && !signbit(a->val[0]) &&
       a->val[1] == 0 && signbit(a->val[1]), "1e-400 and -1e-400 read as stored 0 and -0");
    tc_csr_free(a);

    /* 2^53 + 1 is not a double: it rounds to nearest-even, 2^53 */
    st = tc_mtx_read(fixture("coord-integer-big.mtx"), NULL, &a, NULL, NULL, &err);
    ok(st == TC_OK && a->val[0] == 9007199254740992.0 && a->val[1] == 9007199254740992.0 &&
       a->val[2] == -9223372036854775808.0 && a->val[3] == 9.0,
       "integers read exactly as 64-bit integers, rounded to double beyond 2^53");
    tc_csr_free(a);
}

/* ------------------------------------------------------------------------ */
/* Malformed files: the exact message                                       */
/* ------------------------------------------------------------------------ */

typedef struct bad_case {
    const char *file;
    int sum_duplicates;
    tc_status st;
    const char *msg;    /* after the path */
} bad_case;

static const bad_case bad_cases[] = {
    { "bad-empty.mtx", 1, TC_ERR_PARSE, ":1: empty file: expected a %%MatrixMarket banner" },
    { "bad-no-banner.mtx", 1, TC_ERR_PARSE,
      ":1: expected a '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' banner, found '3 3 1'" },
    { "bad-banner-words.mtx", 1, TC_ERR_PARSE,
      ":1: expected 5 words in the banner (%%MatrixMarket matrix FORMAT FIELD SYMMETRY), "
      "found 4" },
    { "bad-object.mtx", 1, TC_ERR_UNSUPPORTED,
      ":1: unsupported object 'vector' (expected 'matrix')" },
    { "bad-format.mtx", 1, TC_ERR_PARSE,
      ":1: unknown format 'coordinates' (expected 'coordinate' or 'array')" },
    { "bad-field.mtx", 1, TC_ERR_PARSE,
      ":1: unknown field 'double' (expected 'real', 'integer' or 'pattern')" },
    { "bad-complex.mtx", 1, TC_ERR_UNSUPPORTED,
      ":1: complex matrices are not supported (field 'complex')" },
    { "bad-symmetry.mtx", 1, TC_ERR_PARSE,
      ":1: unknown symmetry 'symmetrical' (expected 'general', 'symmetric', 'skew-symmetric' "
      "or 'hermitian')" },
    { "bad-array-pattern.mtx", 1, TC_ERR_PARSE,
      ":1: field 'pattern' is not allowed with format 'array'" },
    { "bad-skew-pattern.mtx", 1, TC_ERR_PARSE,
      ":1: symmetry 'skew-symmetric' is not allowed with field 'pattern'" },
    { "bad-no-size.mtx", 1, TC_ERR_PARSE,
      ":3: expected the size line (rows columns entries), found the end of the file" },
    { "bad-size-fields.mtx", 1, TC_ERR_PARSE,
      ":2: expected 3 fields in the size line (rows columns entries), found 2" },
    { "bad-size-negative.mtx", 1, TC_ERR_PARSE,
      ":2: expected a non-negative integer for rows, found '-3'" },
    { "bad-size-rows.mtx", 1, TC_ERR_PARSE, ":2: rows 3000000000 exceeds the limit of 2147483647" },
    { "bad-size-rows-limit.mtx", 1, TC_ERR_PARSE,
      ":2: rows 2147483648 exceeds the limit of 2147483647" },
    { "bad-size-cols-64bit.mtx", 1, TC_ERR_PARSE,
      ":2: columns 18446744073709551616 exceeds the limit of 2147483647" },
    { "bad-size-entries.mtx", 1, TC_ERR_PARSE,
      ":2: entries 99999999999999999999 exceeds the limit of 9223372036854775807" },
    { "bad-size-nonsquare.mtx", 1, TC_ERR_PARSE,
      ":2: a symmetric matrix must be square, found 3 rows and 4 columns" },
    { "bad-array-size.mtx", 1, TC_ERR_PARSE,
      ":2: expected 2 fields in the size line (rows columns), found 3" },
    { "bad-fields.mtx", 1, TC_ERR_PARSE, ":4: expected 3 fields, found 2" },
    { "bad-extra-field.mtx", 1, TC_ERR_PARSE, ":3: expected 3 fields, found 4" },
    { "bad-pattern-value.mtx", 1, TC_ERR_PARSE, ":3: expected 2 fields, found 3" },
    { "bad-row-range.mtx", 1, TC_ERR_PARSE, ":3: row index 4 out of range: the matrix has 3 rows" },
    { "bad-col-zero.mtx", 1, TC_ERR_PARSE,
      ":3: column index 0 out of range: the matrix has 3 columns" },
    { "bad-index-huge.mtx", 1, TC_ERR_PARSE,
      ":3: column index 99999999999 out of range: the matrix has 3 columns" },
    { "bad-index-limit.mtx", 1, TC_ERR_PARSE,
      ":3: column index 2147483648 out of range: the matrix has 2147483647 columns" },
    { "bad-index-word.mtx", 1, TC_ERR_PARSE, ":3: expected a positive integer row index, found 'x'" },
    { "bad-index-negative.mtx", 1, TC_ERR_PARSE,
      ":3: expected a positive integer row index, found '-1'" },
    { "bad-real.mtx", 1, TC_ERR_PARSE, ":3: expected a real value, found '1.5x'" },
    { "bad-real-overflow.mtx", 1, TC_ERR_PARSE, ":3: value 1e400 is out of the range of a double" },
    { "bad-real-overflow-negative.mtx", 1, TC_ERR_PARSE,
      ":3: value -1e400 is out of the range of a double" },
    { "bad-real-exponent.mtx", 1, TC_ERR_PARSE, ":4: expected a real value, found '1e'" },
    { "bad-integer-nan.mtx", 1, TC_ERR_PARSE, ":3: expected an integer value, found 'nan'" },
    { "bad-integer.mtx", 1, TC_ERR_PARSE, ":3: expected an integer value, found '1.5'" },
    { "bad-integer-big.mtx", 1, TC_ERR_PARSE,
      ":3: integer value 9223372036854775808 does not fit in 64 bits" },
    { "bad-too-few.mtx", 1, TC_ERR_PARSE,
      ":5: unexpected end of file: expected 3 entries, found 2" },
    { "bad-too-few-no-newline.mtx", 1, TC_ERR_PARSE,
      ":4: unexpected end of file: expected 3 entries, found 2" },
    { "bad-too-many.mtx", 1, TC_ERR_PARSE, ":5: too many entries: the size line declares 1" },
    { "bad-entries-max.mtx", 1, TC_ERR_PARSE,
      ":4: unexpected end of file: expected 9223372036854775807 entries, found 1" },
    { "bad-entries-max-symmetric.mtx", 1, TC_ERR_PARSE,
      ":4: unexpected end of file: expected 9223372036854775807 entries, found 1" },
    { "bad-skew-diagonal.mtx", 1, TC_ERR_PARSE,
      ":4: skew-symmetric matrix with a nonzero diagonal entry (2, 2) = 1.5" },
    { "bad-array-few.mtx", 1, TC_ERR_PARSE,
      ":6: unexpected end of file: expected 4 values, found 3" },
    { "bad-array-many.mtx", 1, TC_ERR_PARSE,
      ":5: too many values: a 2 x 1 general array lists 2" },
    { "bad-array-fields.mtx", 1, TC_ERR_PARSE, ":3: expected 1 field, found 2" },
    { "bad-array-huge.mtx", 1, TC_ERR_PARSE,
      ":2: a 2000000000 x 2000000000 general array lists 4000000000000000000 values, more "
      "than the 65 bytes of input can hold" },
    { "bad-truncated.mtx.gz", 1, TC_ERR_IO, ": cannot decompress: unexpected end of file" },
    { "dup-sum.mtx", 0, TC_ERR_INVALID, ":5: duplicate entry (1, 1), first given at line 3" },
    { "sym-both-triangles.mtx", 0, TC_ERR_INVALID,
      ":4: duplicate entry (1, 2): line 3 gives (2, 1), its mirror in a symmetric file" },
    { "no-such-file.mtx", 1, TC_ERR_IO, ": cannot open: No such file or directory" },
};


static void check_error(const char *what, tc_status st, const tc_csr *a, const tc_error *err,
                        tc_status want_st, const char *want_msg)
{
    int good = st == want_st && a == NULL && strcmp(err->msg, want_msg) == 0;
    ok(good, "%s", what);
    if (!good)
        diag("  got  %s (%s)\n#   want %s (%s)", err->msg, tc_status_name(st), want_msg,
             tc_status_name(want_st));
}

static void test_malformed(void)
{
    for (size_t c = 0; c < sizeof bad_cases / sizeof bad_cases[0]; c++) {
        const bad_case *b = &bad_cases[c];
        const char *path = fixture(b->file);
        char want[2048], what[256];
        snprintf(want, sizeof want, "%s%s", path, b->msg);
        tc_mtx_read_opts opts = { b->sum_duplicates };
        static tc_csr sentinel;
        tc_csr *a = &sentinel;   /* must come back NULL */
        tc_error err;
        tc_status st = tc_mtx_read(path, &opts, &a, NULL, NULL, &err);
        snprintf(what, sizeof what, "%s: the exact message", b->file);
        check_error(what, st, a, &err, b->st, want);

        /* the same bytes from memory, named as the file */
        size_t len;
        char *bytes = tap_slurp(path, &len);
        if (!bytes)
            continue;
        st = tc_mtx_read_mem(bytes, len, path, &opts, &a, NULL, &err);
        snprintf(what, sizeof what, "%s from memory: the same message", b->file);
        check_error(what, st, a, &err, b->st, want);
        free(bytes);
    }

    tc_csr *a = NULL;
    tc_error err;
    char want[4200];
    tc_status st = tc_mtx_read(datadir, NULL, &a, NULL, NULL, &err);
    snprintf(want, sizeof want, "%s: cannot read: Is a directory", datadir);
    check_error("a directory: cannot read", st, a, &err, TC_ERR_IO, want);

    /* a line longer than the reader accepts (64 MiB) */
    size_t len = ((size_t)1 << 26) + 100;
    char *big = malloc(len);
    const char *banner = "%%MatrixMarket matrix coordinate real general\n%";
    memcpy(big, banner, strlen(banner));
    memset(big + strlen(banner), 'x', len - strlen(banner));
    st = tc_mtx_read_mem(big, len, "big.mtx", NULL, &a, NULL, &err);
    check_error("a 64 MiB line is refused", st, a, &err, TC_ERR_PARSE,
                "big.mtx:2: line longer than 67108864 bytes");
    free(big);

    /* A NUL byte anywhere is named with its line and column: not a banner
       cut short there, a bad number, nor a comment skipped */
#define BANNER "%%MatrixMarket matrix coordinate real general\n"
#define NUL_CASE(what, text, msg) { what, text, sizeof text - 1, msg }
    static const struct {
        const char *what, *text;
        size_t len;
        const char *msg;
    } nuls[] = {
        NUL_CASE("in the banner", "%%MatrixMarket matrix coordinate real general\0x\n2 2 1\n1 1 1\n",
                 "nul.mtx:1: NUL byte at column 46 (Matrix Market is text)"),
        NUL_CASE("in a comment line", BANNER "% a\0b\n2 2 1\n1 1 1\n",
                 "nul.mtx:2: NUL byte at column 4 (Matrix Market is text)"),
        NUL_CASE("in the size line", BANNER "2 2\0 1\n1 1 1\n",
                 "nul.mtx:2: NUL byte at column 4 (Matrix Market is text)"),
        NUL_CASE("after a value", BANNER "2 2 1\n1 1 1.0\0\n",
                 "nul.mtx:3: NUL byte at column 8 (Matrix Market is text)"),
        NUL_CASE("after an index", BANNER "2 2 1\n1\0 1 1\n",
                 "nul.mtx:3: NUL byte at column 2 (Matrix Market is text)"),
        NUL_CASE("alone on a line between entries", BANNER "2 2 2\n1 1 1\n\0\n2 2 1\n",
                 "nul.mtx:4: NUL byte at column 1 (Matrix Market is text)"),
        NUL_CASE("in a comment after the last entry", BANNER "2 2 1\n1 1 1\n% end\0\n",
                 "nul.mtx:4: NUL byte at column 6 (Matrix Market is text)"),
        NUL_CASE("in an array file", "%%MatrixMarket matrix array real general\n1 1\n1\0\n",
                 "nul.mtx:3: NUL byte at column 2 (Matrix Market is text)"),
    };
#undef NUL_CASE
#undef BANNER
    for (size_t c = 0; c < sizeof nuls / sizeof nuls[0]; c++) {
        char what[128];
        snprintf(what, sizeof what, "a NUL byte %s", nuls[c].what);
        st = tc_mtx_read_mem(nuls[c].text, nuls[c].len, "nul.mtx", NULL, &a, NULL, &err);
        check_error(what, st, a, &err, TC_ERR_PARSE, nuls[c].msg);
    }
}

/* ------------------------------------------------------------------------ */
/* gzip, stdin, memory                                                      */
/* ------------------------------------------------------------------------ */

static void test_sources(void)
{
    tc_csr *plain = NULL, *a = NULL;
    tc_error err;
    tc_mtx_info info;
    tc_mtx_read(fixture("coord-real-general.mtx"), NULL, &plain, NULL, NULL, &err);
    static const char *const same[] = {
        "coord-real-general.mtx.gz", "gzip-named-plain.mtx", "plain-named.mtx.gz",
        "two-members.mtx.gz"
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        tc_status st = tc_mtx_read(fixture(same[k]), NULL, &a, &info, NULL, &err);
        if (!ok(st == TC_OK && same_matrix(a, plain) && info.comments &&
                strcmp(info.comments, " a 3 x 4 real matrix") == 0,
                "%s: gzip detected by content, same matrix", same[k]) && st)
            diag("%s", err.msg);
        tc_mtx_info_clear(&info);
        tc_csr_free(a);
        size_t len;
        char *bytes = tap_slurp(fixture(same[k]), &len);
        st = tc_mtx_read_mem(bytes, len, same[k], NULL, &a, NULL, &err);
        ok(st == TC_OK && same_matrix(a, plain), "%s from memory: same matrix", same[k]);
        tc_csr_free(a);
        free(bytes);
    }

    /* "-" reads stdin, plain or gzip */
    int saved = dup(STDIN_FILENO);
    for (int gz = 0; gz <= 1; gz++) {
        int fd = open(fixture(gz ? "coord-real-general.mtx.gz" : "coord-real-general.mtx"),
                      O_RDONLY);
        dup2(fd, STDIN_FILENO);
        close(fd);
        tc_status st = tc_mtx_read("-", NULL, &a, NULL, NULL, &err);
        ok(st == TC_OK && same_matrix(a, plain), "\"-\" reads stdin (%s)", gz ? "gzip" : "plain");
        tc_csr_free(a);
    }
    int fd = open(fixture("bad-fields.mtx"), O_RDONLY);
    dup2(fd, STDIN_FILENO);
    close(fd);
    tc_status st = tc_mtx_read("-", NULL, &a, NULL, NULL, &err);
    check_error("stdin errors are named <stdin>", st, a, &err, TC_ERR_PARSE,
                "<stdin>:4: expected 3 fields, found 2");
    dup2(saved, STDIN_FILENO);
    close(saved);
    tc_csr_free(plain);
}

/* ------------------------------------------------------------------------ */
/* Round trips                                                              */
/* ------------------------------------------------------------------------ */

/* A random matrix: n random entries plus the awkward structures asked for
   (a dense row, a dense column, rows of 33, 257 and 4097 entries). With
   sym != general the matrix has that symmetry (skew: zero diagonal). */
typedef struct shape {
    int32_t rows, cols;
    int64_t n;
    int dense_row, dense_col, long_rows;
} shape;

static double random_value(tc_field field)
{
    /* below 2^61 in magnitude: sums of a few duplicates stay in 64 bits */
    if (field == TC_FIELD_INTEGER)
        return (double)((int64_t)(tap_rand64() >> (3 + (int32_t)tap_rand((uint32_t)(61)))) * ((int32_t)tap_rand((uint32_t)(2)) ? 1 : -1));
    /* every finite bit pattern: normals of all exponents, subnormals */
    double v;
    do
        v = from_bits(tap_rand64());
    while (!isfinite(v));
    return v;
}

static tc_csr *random_matrix(const shape *s, tc_field field, tc_symmetry sym)
{
    int64_t cap = s->n + (s->dense_row ? s->cols : 0) + (s->dense_col ? s->rows : 0) +
                  (s->long_rows ? 33 + 257 + 4097 : 0);
    int32_t *ri = malloc((size_t)(2 * cap + 1) * sizeof *ri);
    int32_t *ci = malloc((size_t)(2 * cap + 1) * sizeof *ci);
    double *v = malloc((size_t)(2 * cap + 1) * sizeof *v);
    int64_t n = 0;
    for (int64_t k = 0; k < s->n; k++, n++) {
        ri[n] = (int32_t)tap_rand((uint32_t)(s->rows));
        ci[n] = (int32_t)tap_rand((uint32_t)(s->cols));
    }
    for (int32_t j = 0; s->dense_row && j < s->cols; j++, n++) {
        ri[n] = s->rows / 2;
        ci[n] = j;
    }
    for (int32_t i = 0; s->dense_col && i < s->rows; i++, n++) {
        ri[n] = i;
        ci[n] = s->cols - 1;
    }
    static const int32_t lens[] = { 33, 257, 4097 };
    for (int r = 0; s->long_rows && r < 3; r++)
        for (int32_t j = 0; j < lens[r]; j++, n++) {
            ri[n] = r;
            ci[n] = j;
        }
    for (int64_t k = 0; k < n; k++)
        v[k] = random_value(field);
    if (sym != TC_SYM_GENERAL) {
        /* keep the lower triangle (strictly, for skew), then mirror it */
        int64_t m = 0;
        for (int64_t k = 0; k < n; k++) {
            int32_t i = ri[k] > ci[k] ? ri[k] : ci[k], j = ri[k] > ci[k] ? ci[k] : ri[k];
            if (sym == TC_SYM_SKEW && i == j)
                continue;
            ri[m] = i;
            ci[m] = j;
            v[m++] = v[k];
        }
        /* from_coo sums duplicated positions in order, the same values in
           the same order on both sides, so the sums stay mirrored */
        n = m;
        for (int64_t k = 0; k < m; k++) {
            if (ri[k] == ci[k])
                continue;
            ri[n] = ci[k];
            ci[n] = ri[k];
            v[n++] = sym == TC_SYM_SKEW ? -v[k] : v[k];
        }
    }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, s->rows, s->cols, n, ri, ci, field == TC_FIELD_PATTERN ? NULL : v,
                        1, &err))
        diag("from_coo: %s", err.msg);
    free(ri);
    free(ci);
    free(v);
    if (a) {
        a->field = field;
        a->symmetry = sym;
    }
    return a;
}

static void round_trip(const char *what, const tc_csr *a, tc_symmetry sym, const char *comments)
{
    const char *path = tmpfile_path("rt.mtx");
    tc_error err;
    tc_csr *b = NULL;
    tc_mtx_info info;
    tc_status st = tc_mtx_write(path, a, sym, comments, &err);
    if (!st)
        st = tc_mtx_read(path, NULL, &b, &info, NULL, &err);
    int good = st == TC_OK && tc_csr_equal(a, b) && b->field == a->field &&
               b->symmetry == sym &&
               (comments ? info.comments && strcmp(info.comments, comments) == 0
                         : info.comments == NULL);
    if (!ok(good, "round trip %s", what) && st)
        diag("%s", err.msg);
    if (!st)
        tc_mtx_info_clear(&info);
    tc_csr_free(b);
    unlink(path);
}

/* Round trips of random matrices of each shape, field and symmetry. */
static void round_trip_shapes(const shape *shapes, size_t nshapes, const tc_symmetry *syms,
                              size_t nsyms, const char *comments)
{
    static const tc_field fields[] = { TC_FIELD_REAL, TC_FIELD_INTEGER, TC_FIELD_PATTERN };
    for (size_t s = 0; s < nshapes; s++)
        for (int f = 0; f < 3; f++)
            for (size_t y = 0; y < nsyms; y++) {
                if (fields[f] == TC_FIELD_PATTERN && syms[y] == TC_SYM_SKEW)
                    continue;
                tc_csr *a = random_matrix(&shapes[s], fields[f], syms[y]);
                char what[128];
                snprintf(what, sizeof what, "%dx%d %s %s", shapes[s].rows, shapes[s].cols,
                         tc_field_name(fields[f]), tc_symmetry_name(syms[y]));
                round_trip(what, a, syms[y], comments);
                tc_csr_free(a);
            }
}

static void test_round_trips(void)
{
    static const shape shapes[] = {
        { 1, 1, 1, 0, 0, 0 },
        { 0, 0, 0, 0, 0, 0 },
        { 5, 3, 0, 0, 0, 0 },
        { 37, 53, 300, 0, 0, 0 },
        { 1100, 900, 20000, 1, 1, 0 },
        { 70001, 300, 200000, 0, 1, 0 },
        { 100, 6000, 1000, 1, 0, 1 },
    };
    static const tc_symmetry general[] = { TC_SYM_GENERAL };
    round_trip_shapes(shapes, sizeof shapes / sizeof shapes[0], general, 1, NULL);
    round_trip_shapes(shapes + 3, 1, general, 1, "one comment\n\nand another");
    static const shape square[] = {
        { 1, 1, 1, 0, 0, 0 },
        { 37, 37, 300, 0, 0, 0 },
        { 1100, 1100, 20000, 1, 1, 0 },
        { 70001, 70001, 30000, 1, 0, 0 },
        { 4200, 4200, 1000, 0, 0, 1 },
    };
    static const tc_symmetry syms[] = { TC_SYM_SYMMETRIC, TC_SYM_SKEW, TC_SYM_HERMITIAN };
    round_trip_shapes(square, sizeof square / sizeof square[0], syms, 3, NULL);
}

/* Random bit patterns and the awkward doubles read back bit-identical. */
static void test_value_round_trip(void)
{
    static const double special[] = {
        0.0, -0.0, 1e308, -1e308, DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324, -5e-324,
        2.2250738585072009e-308, 0.1, 1.0 / 3.0, 9007199254740991.0, 9007199254740992.0,
        9007199254740994.0, 1e23, 8.589973e9, 5e-310, 123456789.0, 0.30000000000000004
    };
    int32_t n = 200000;
    int32_t *ri = calloc((size_t)n, sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    int nspecial = (int)(sizeof special / sizeof special[0]);
    for (int32_t k = 0; k < n; k++) {
        ci[k] = k;
        if (k < nspecial)
            v[k] = special[k];
        else if (k % 4 == 0)   /* subnormals */
            v[k] = from_bits((tap_rand64() & 0x800fffffffffffffu));
        else
            v[k] = random_value(TC_FIELD_REAL);
    }
    tc_csr *a = NULL;
    tc_error err;
    tc_csr_from_coo(&a, 1, n, n, ri, ci, v, 1, &err);
    round_trip("200000 random doubles (subnormals, -0, 1e308...) bit-identical", a,
               TC_SYM_GENERAL, NULL);
    tc_csr_free(a);

    /* non-finite values are written as inf / nan and read back */
    double nf[3] = { INFINITY, -INFINITY, NAN };
    tc_csr_from_coo(&a, 1, 3, 3, ri, ci, nf, 1, &err);
    const char *path = tmpfile_path("nonfinite.mtx");
    tc_csr *b = NULL;
    tc_status st = tc_mtx_write(path, a, TC_SYM_GENERAL, NULL, &err);
    if (!st)
        st = tc_mtx_read(path, NULL, &b, NULL, NULL, &err);
    ok(st == TC_OK && b->val[0] == INFINITY && b->val[1] == -INFINITY && isnan(b->val[2]),
       "inf, -inf, nan round trip");
    tc_csr_free(a);
    tc_csr_free(b);
    unlink(path);
    free(ri);
    free(ci);
    free(v);
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void check_write_error(const char *what, const tc_csr *a, tc_symmetry sym,
                              tc_status want_st, const char *want_tail)
{
    const char *path = tmpfile_path("refused.mtx");
    char want[4400];
    snprintf(want, sizeof want, "%s%s", path, want_tail);
    tc_error err;
    tc_status st = tc_mtx_write(path, a, sym, NULL, &err);
    int good = st == want_st && strcmp(err.msg, want) == 0 && !file_exists(path);
    ok(good, "write refused: %s", what);
    if (!good)
        diag("  got  %s\n#   want %s", err.msg, want);
}

static void test_write_errors(void)
{
    static const trip lower_only[] = { { 2, 1, 1 } };
    tc_csr *a = from_trips(2, 2, lower_only, 1, 0);
    check_write_error("a missing mirror", a, TC_SYM_SYMMETRIC, TC_ERR_INVALID,
                      ": cannot write as symmetric: entry (2, 1) is stored but (1, 2) is not");
    tc_csr_free(a);
    static const trip unequal[] = { { 2, 1, 1 }, { 1, 2, 2 } };
    a = from_trips(2, 2, unequal, 2, 0);
    check_write_error("unequal mirrors", a, TC_SYM_SYMMETRIC, TC_ERR_INVALID,
                      ": cannot write as symmetric: entry (1, 2) = 2 but (2, 1) = 1");
    tc_csr_free(a);
    static const trip not_skew[] = { { 2, 1, 1 }, { 1, 2, 1 } };
    a = from_trips(2, 2, not_skew, 2, 0);
    check_write_error("mirror not negated", a, TC_SYM_SKEW, TC_ERR_INVALID,
                      ": cannot write as skew-symmetric: entry (1, 2) = 1 but (2, 1) = 1");
    tc_csr_free(a);
    static const trip skew_diag[] = { { 2, 2, 3 } };
    a = from_trips(2, 2, skew_diag, 1, 0);
    check_write_error("skew with a nonzero diagonal", a, TC_SYM_SKEW, TC_ERR_INVALID,
                      ": cannot write as skew-symmetric: diagonal entry (2, 2) = 3 is not zero");
    tc_csr_free(a);
    static const trip rect[] = { { 1, 1, 1 } };
    a = from_trips(2, 3, rect, 1, 0);
    check_write_error("not square", a, TC_SYM_SYMMETRIC, TC_ERR_INVALID,
                      ": cannot write a 2 x 3 matrix as symmetric: it is not square");
    tc_csr_free(a);
    a = from_trips(2, 2, lower_only, 1, 1);
    check_write_error("pattern as skew-symmetric", a, TC_SYM_SKEW, TC_ERR_INVALID,
                      ": cannot write a pattern matrix as skew-symmetric (the signs of the "
                      "mirrored entries would be lost)");
    tc_csr_free(a);
    static const trip frac[] = { { 1, 1, 1 }, { 2, 2, 1.5 } };
    a = from_trips(2, 2, frac, 2, 0);
    a->field = TC_FIELD_INTEGER;
    check_write_error("integer field with 1.5", a, TC_SYM_GENERAL, TC_ERR_INVALID,
                      ": cannot write as integer: entry (2, 2) = 1.5 is not a 64-bit integer");

    /* a failed write leaves the previous file as it was */
    const char *path = tmpfile_path("keep.mtx");
    FILE *f = fopen(path, "w");
    fputs("previous\n", f);
    fclose(f);
    tc_error err;
    tc_status st = tc_mtx_write(path, a, TC_SYM_GENERAL, NULL, &err);
    size_t len;
    char *kept = tap_slurp(path, &len);
    ok(st == TC_ERR_INVALID && kept && len == 9 && memcmp(kept, "previous\n", 9) == 0,
       "a refused write does not clobber the existing file");
    free(kept);
    unlink(path);
    tc_csr_free(a);
}

/* The exact text written, through "-" (stdout, captured in a file). */
static void test_write_text(void)
{
    static const trip t[] = { { 1, 1, 2 }, { 2, 1, -0.5 }, { 1, 2, -0.5 }, { 3, 3, 1e-300 } };
    tc_csr *a = from_trips(3, 3, t, 4, 0);
    const char *path = tmpfile_path("stdout.mtx");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    tc_error err;
    tc_status st = tc_mtx_write("-", a, TC_SYM_SYMMETRIC, "from t_mtx", &err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    size_t len;
    char *text = tap_slurp(path, &len);
    const char *want = "%%MatrixMarket matrix coordinate real symmetric\n"
                       "%from t_mtx\n"
                       "3 3 3\n"
                       "1 1 2\n"
                       "2 1 -0.5\n"
                       "3 3 1e-300\n";
    ok(st == TC_OK && text && len == strlen(want) && memcmp(text, want, len) == 0,
       "\"-\" writes to stdout: lower triangle, shortest round-trip values");
    free(text);
    unlink(path);

    a->field = TC_FIELD_INTEGER;
    a->val[1] = a->val[2] = -9007199254740993.0;   /* rounds to -2^53 */
    a->val[3] = 7;
    st = tc_mtx_write(path, a, TC_SYM_GENERAL, NULL, &err);
    text = tap_slurp(path, &len);
    want = "%%MatrixMarket matrix coordinate integer general\n"
           "3 3 4\n"
           "1 1 2\n"
           "1 2 -9007199254740992\n"
           "2 1 -9007199254740992\n"
           "3 3 7\n";
    ok(st == TC_OK && text && len == strlen(want) && memcmp(text, want, len) == 0,
       "integer field written as integers");
    free(text);

    free(a->val);
    a->val = NULL;
    a->field = TC_FIELD_PATTERN;
    st = tc_mtx_write(path, a, TC_SYM_GENERAL, NULL, &err);
    text = tap_slurp(path, &len);
    want = "%%MatrixMarket matrix coordinate pattern general\n"
           "3 3 4\n"
           "1 1\n"
           "1 2\n"
           "2 1\n"
           "3 3\n";
    ok(st == TC_OK && text && len == strlen(want) && memcmp(text, want, len) == 0,
       "pattern written without values");
    free(text);
    unlink(path);
    tc_csr_free(a);
}

static void test_dense(void)
{
    int32_t rows, cols;
    double *d = NULL;
    tc_error err;
    tc_status st = tc_mtx_read_dense(fixture("array-real-general.mtx"), &rows, &cols, &d, &err);
    static const double g[] = { 1, 3, 5, 2, 4, 6 };
    ok(st == TC_OK && rows == 2 && cols == 3 && memcmp(d, g, sizeof g) == 0,
       "read_dense: array, column-major on disk, row-major in memory");
    free(d);
    st = tc_mtx_read_dense(fixture("array-real-skew.mtx"), &rows, &cols, &d, &err);
    static const double s[] = { 0, -1, -2, 1, 0, -3, 2, 3, 0 };
    ok(st == TC_OK && rows == 3 && cols == 3 && memcmp(d, s, sizeof s) == 0,
       "read_dense: skew-symmetric array expanded");
    free(d);
    st = tc_mtx_read_dense(fixture("coord-pattern-symmetric.mtx"), &rows, &cols, &d, &err);
    static const double p[] = { 1, 0, 1, 0, 0, 1, 1, 1, 0 };
    ok(st == TC_OK && rows == 3 && cols == 3 && memcmp(d, p, sizeof p) == 0,
       "read_dense: a coordinate pattern file densified (entries are 1)");
    free(d);
    st = tc_mtx_read_dense(fixture("bad-array-few.mtx"), &rows, &cols, &d, &err);
    char want[4200];
    snprintf(want, sizeof want, "%s:6: unexpected end of file: expected 4 values, found 3",
             fixture("bad-array-few.mtx"));
    ok(st == TC_ERR_PARSE && d == NULL && strcmp(err.msg, want) == 0,
       "read_dense: errors as for sparse reads");

    /* round trip of awkward values, odd shape */
    int32_t r = 7, c = 5;
    double *x = malloc((size_t)r * c * sizeof *x);
    for (int k = 0; k < r * c; k++)
        x[k] = k % 3 == 0 ? from_bits(tap_rand64() & 0x800fffffffffffffu) : random_value(TC_FIELD_REAL);
    x[0] = -0.0;
    const char *path = tmpfile_path("dense.mtx");
    st = tc_mtx_write_dense(path, r, c, x, &err);
    if (!st)
        st = tc_mtx_read_dense(path, &rows, &cols, &d, &err);
    ok(st == TC_OK && rows == r && cols == c && memcmp(d, x, (size_t)r * c * sizeof *x) == 0,
       "write_dense -> read_dense bit-identical (7 x 5)");
    free(d);
    tc_csr *a = NULL;
    st = tc_mtx_read(path, NULL, &a, NULL, NULL, &err);
    ok(st == TC_OK && a->nnz == r * c && memcmp(a->val, x, (size_t)r * c * sizeof *x) == 0,
       "a dense array read as sparse stores every entry");
    tc_csr_free(a);
    free(x);
    unlink(path);
}

/* ------------------------------------------------------------------------ */
/* Buffering and progress                                                   */
/* ------------------------------------------------------------------------ */

typedef struct progress_log {
    int calls, monotone;
    int64_t last_done, last_total;
} progress_log;

static void on_progress(void *ctx, int64_t done, int64_t total)
{
    progress_log *p = ctx;
    if (done < p->last_done || done > total)
        p->monotone = 0;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

static void test_buffering(void)
{
    /* a comment line longer than the read block, then enough entries to
       cross many block boundaries */
    const char *path = tmpfile_path("long.mtx");
    FILE *f = fopen(path, "w");
    fputs("%%MatrixMarket matrix coordinate integer general\n%", f);
    for (int k = 0; k < 600000; k++)
        fputc('a' + k % 26, f);
    int32_t n = 400000;
    fprintf(f, "\n%d %d %d\n", n, 3, n);
    for (int32_t k = 0; k < n; k++)
        fprintf(f, "%d %d %d\n", k + 1, k % 3 + 1, k);
    fclose(f);
    progress_log log = { 0, 1, 0, 0 };
    tc_progress prog = { on_progress, &log };
    tc_csr *a = NULL;
    tc_mtx_info info;
    tc_error err;
    tc_status st = tc_mtx_read(path, NULL, &a, &info, &prog, &err);
    int good = st == TC_OK && a->rows == n && a->nnz == n && info.comments &&
               strlen(info.comments) == 600000;
    for (int32_t k = 0; good && k < n; k++)
        good = a->rowptr[k] == k && a->colidx[k] == k % 3 && a->val[k] == k;
    if (!ok(good, "a 600000-byte comment and 400000 entries across read blocks") && st)
        diag("%s", err.msg);
    ok(log.calls >= 2 && log.monotone && log.last_done == n && log.last_total == n,
       "progress reported %d times, monotone, ending at %lld of %lld", log.calls,
       (long long)log.last_done, (long long)log.last_total);
    if (!st)
        tc_mtx_info_clear(&info);
    tc_csr_free(a);
    unlink(path);
}

int main(void)
{
    const char *top = getenv("top_srcdir");
    snprintf(datadir, sizeof datadir, "%s/tests/data/mtx", top && *top ? top : ".");
    snprintf(tmpdir, sizeof tmpdir, "%s/t_mtx.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_banner_variants();
    test_permissive();
    test_values();
    test_malformed();
    test_sources();
    test_round_trips();
    test_value_round_trip();
    test_write_errors();
    test_write_text();
    test_dense();
    test_buffering();
    rmdir(tmpdir);
    return done_testing();
}
