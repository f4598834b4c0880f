/* band.c: writes a band matrix, the synthetic input of SMaT's Section VI-C
   (run by bench/bcsr.sh) and of the scale run past 2^31 nonzeros
   (bench/scale.sh).

   usage: band [-p] [-z] [-o OUT.tcf.h5] ORDER WIDTH

   An ORDER x ORDER real matrix whose row i holds the columns
   max(0, i - WIDTH/2) .. min(ORDER, i + WIDTH - WIDTH/2) - 1: WIDTH
   nonzeros per row away from the corners, a dense matrix once WIDTH reaches
   2 ORDER. The values are a fixed hash of (i, j) in [-1, 1), so that every
   run gets the same matrix; -p writes the pattern only.

   Without -o, Matrix Market on standard output. With -o, a .tcf.h5
   streamed through tc_h5_write_rows: memory holds the row pointers and one
   slab of entries, never the matrix, so that ORDER 2200000 WIDTH 1024
   (2.25 billion nonzeros, 9 GB of column indices) is written on any
   machine with the disk for it. Uncompressed unless -z. */
#include <getopt.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "../tools/common.h"

/* A value in [-1, 1) from (i, j): splitmix64's finaliser. */
static double value(int64_t i, int64_t j)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15u + (uint64_t)j + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

/* Writes v as decimal digits at p, returns the end (printf is the
   bottleneck for the dense end of the sweep: 67 million entries). */
static char *put_uint(char *p, uint64_t v)
{
    char d[20];
    int k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k > 0)
        *p++ = d[--k];
    return p;
}

/* One entry line: "i j v" with v to 6 decimals (|v| < 1). */
static void put_entry(int64_t i, int64_t j, double v)
{
    char line[64], *p = line;
    p = put_uint(p, (uint64_t)i);
    *p++ = ' ';
    p = put_uint(p, (uint64_t)j);
    *p++ = ' ';
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    uint64_t micro = (uint64_t)(v * 1e6 + 0.5);
    p = put_uint(p, micro / 1000000);
    *p++ = '.';
    for (uint64_t div = 100000; div > 0; div /= 10)
        *p++ = (char)('0' + micro / div % 10);
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), stdout);
}

/* Row i's columns: [*lo, *hi). */
static void row_span(int64_t i, int64_t n, int64_t w, int64_t *lo, int64_t *hi)
{
    *lo = i - w / 2 > 0 ? i - w / 2 : 0;
    *hi = i + w - w / 2 < n ? i + w - w / 2 : n;
}

struct band {
    int64_t n, w;
};

/* Rows r0 .. r1 - 1 for tc_h5_write_rows. */
static tc_status fill_rows(void *ctx, int32_t r0, int32_t r1, int32_t *colidx, double *val,
                           tc_error *err)
{
    (void)err;
    const struct band *b = ctx;
    int64_t k = 0;
    for (int64_t i = r0; i < r1; i++) {
        int64_t lo, hi;
        row_span(i, b->n, b->w, &lo, &hi);
        for (int64_t j = lo; j < hi; j++, k++) {
            colidx[k] = (int32_t)j;
            if (val)
                val[k] = value(i, j);
        }
    }
    return TC_OK;
}

static void write_tcf(const char *path, const struct band *b, int pattern, int compress)
{
    tc_error err;
    tc_csr shape = { .rows = (int32_t)b->n, .cols = (int32_t)b->n,
                     .field = pattern ? TC_FIELD_PATTERN : TC_FIELD_REAL,
                     .symmetry = TC_SYM_GENERAL };
    tc_provenance prov = { 0 };
    tc_h5_write_opts opts = { compress };
    shape.rowptr = tc_malloc_array(b->n + 1, sizeof *shape.rowptr, &err);
    if (!shape.rowptr)
        tool_die(&err);
    shape.rowptr[0] = 0;
    for (int64_t i = 0; i < b->n; i++) {
        int64_t lo, hi;
        row_span(i, b->n, b->w, &lo, &hi);
        shape.rowptr[i + 1] = shape.rowptr[i] + hi - lo;
    }
    shape.nnz = shape.rowptr[b->n];
    tc_status st = tc_provenance_set(&prov, tool_argc(), tool_argv(), NULL, &err);
    if (st == TC_OK)
        st = tc_h5_write_rows(path, &shape, fill_rows, (void *)b, &prov, &opts,
                              tool_progress("band: writing"), &err);
    tool_progress_end();
    free(shape.rowptr);
    tc_provenance_clear(&prov);
    if (st != TC_OK)
        tool_die(&err);
    tool_info("wrote %s: %lld x %lld, %lld nonzeros", path, (long long)b->n, (long long)b->n,
              (long long)shape.nnz);
}

static int write_mtx(const struct band *b)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < b->n; i++) {
        int64_t lo, hi;
        row_span(i, b->n, b->w, &lo, &hi);
        nnz += hi - lo;
    }
    printf("%%%%MatrixMarket matrix coordinate real general\n");
    printf("%% band matrix, order %lld, width %lld (bench/band.c)\n", (long long)b->n,
           (long long)b->w);
    printf("%lld %lld %lld\n", (long long)b->n, (long long)b->n, (long long)nnz);
    for (int64_t i = 0; i < b->n; i++) {
        int64_t lo, hi;
        row_span(i, b->n, b->w, &lo, &hi);
        for (int64_t j = lo; j < hi; j++)
            put_entry(i + 1, j + 1, value(i, j));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        tool_errorf("writing the matrix: %s", strerror(errno));
        return 1;
    }
    return 0;
}

static void usage(void)
{
    printf("Usage: band [-p] [-z] [-o OUT.tcf.h5] ORDER WIDTH\n"
           "Writes the ORDER x ORDER band matrix of WIDTH nonzeros per row (values a fixed\n"
           "hash of (i, j) in [-1, 1)): Matrix Market on standard output, or with -o a\n"
           ".tcf.h5 streamed in slabs (bounded memory, past 2^31 nonzeros).\n\n"
           "  -o, --output FILE   write FILE.tcf.h5 instead of Matrix Market\n"
           "  -p, --pattern       no values (a pattern matrix; -o only)\n"
           "  -z, --compress      shuffle+deflate the datasets (-o only; slower)\n"
           "  -q, -v, -h, -V      quiet, verbose, this help, version\n");
}

int main(int argc, char **argv)
{
    tool_init("band", argc, argv);
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "pattern", no_argument, NULL, 'p' },
        { "compress", no_argument, NULL, 'z' }, TOOL_COMMON_LONGOPTS
    };
    const char *out = NULL;
    int pattern = 0, compress = 0, c;
    while ((c = getopt_long(argc, argv, ":o:pz" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1)
        switch (c) {
        case 'o': out = optarg; break;
        case 'p': pattern = 1; break;
        case 'z': compress = 1; break;
        default: tool_common_option(c, argv, usage);
        }
    if (argc - optind != 2)
        tool_usage_error("expected ORDER and WIDTH");
    if (!out && (pattern || compress))
        tool_usage_error("-p and -z need -o (Matrix Market output always has values)");
    struct band b = { tool_parse_long("ORDER", argv[optind], 1, INT32_MAX),
                      tool_parse_long("WIDTH", argv[optind + 1], 1, INT32_MAX) };
    if (!out)
        return write_mtx(&b);
    write_tcf(out, &b, pattern, compress);
    return 0;
}
