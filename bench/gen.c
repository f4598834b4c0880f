/* gen.c: writes the synthetic matrices the benches run on (gen.h lists
   the kinds: band, stencil, rmat, random, bipartite): SMaT's band matrices
   (Section VI-C, bench/bcsr.sh), the scale run past 2^31 nonzeros
   (bench/scale.sh), and the large graphs and meshes of issue 29's bench.

   usage: gen [-p] [-z] [-s SEED] [-o OUT.tcf.h5] KIND OPERANDS...

   Every kind is a function of the seed (default 1) and the row index, so
   that a run with the same arguments writes the same matrix. The values
   are a fixed hash of (i, j, seed) in [-1, 1); -p writes the pattern only.

   Without -o, Matrix Market on standard output. With -o, a .tcf.h5
   streamed through tc_h5_write_rows: memory holds the row pointers and one
   slab of entries, never the matrix, so that `band 2200000 1024` (2.25
   billion nonzeros, 9 GB of column indices) is written on any machine with
   the disk for it. Uncompressed unless -z. Each row is made twice: once to
   count it (the row pointers come first), once to write it. */
#include <getopt.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "gen.h"
#include "../tools/common.h"

/* A value in [-1, 1) from (i, j) and the seed: splitmix64's finaliser
   (seed 1 gives the values bench/band wrote before it became a kind). */
static double value(int64_t i, int64_t j, uint64_t seed)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15u + (uint64_t)j + seed;
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

/* Rows r0 .. r1 - 1 for tc_h5_write_rows. */
static tc_status fill_rows(void *ctx, int32_t r0, int32_t r1, int32_t *colidx, double *val,
                           tc_error *err)
{
    (void)err;
    gen_matrix *g = ctx;
    int64_t k = 0;
    for (int64_t i = r0; i < r1; i++) {
        const int64_t len = gen_row(g, i);
        for (int64_t q = 0; q < len; q++, k++) {
            colidx[k] = g->cols_buf[q];
            if (val)
                val[k] = value(i, g->cols_buf[q], g->seed);
        }
    }
    return TC_OK;
}

/* Every row's length summed into rowptr (rows + 1 entries, or NULL): the
   nonzeros. */
static int64_t count_rows(gen_matrix *g, int64_t *rowptr)
{
    int64_t nnz = 0;
    const tc_progress *prog = tool_progress("gen: counting");
    for (int64_t i = 0; i < g->rows; i++) {
        if (rowptr)
            rowptr[i] = nnz;
        nnz += gen_row(g, i);
        if (prog && (i & 0xffff) == 0)
            tc_progress_report(prog, i, g->rows);
    }
    tool_progress_end();
    if (rowptr)
        rowptr[g->rows] = nnz;
    return nnz;
}

static void write_tcf(const char *path, gen_matrix *g, int pattern, int compress)
{
    tc_error err;
    tc_csr shape = { .rows = (int32_t)g->rows, .cols = (int32_t)g->cols,
                     .field = pattern ? TC_FIELD_PATTERN : TC_FIELD_REAL,
                     .symmetry = TC_SYM_GENERAL };
    tc_provenance prov = { 0 };
    tc_h5_write_opts opts = { compress };
    shape.rowptr = tc_malloc_array(g->rows + 1, sizeof *shape.rowptr, &err);
    if (!shape.rowptr)
        tool_die(&err);
    shape.nnz = count_rows(g, shape.rowptr);
    tc_status st = tc_provenance_set(&prov, tool_argc(), tool_argv(), NULL, &err);
    if (st == TC_OK)
        st = tc_h5_write_rows(path, &shape, fill_rows, g, &prov, &opts,
                              tool_progress("gen: writing"), &err);
    tool_progress_end();
    free(shape.rowptr);
    tc_provenance_clear(&prov);
    if (st != TC_OK)
        tool_die(&err);
    tool_info("wrote %s: %lld x %lld, %lld nonzeros", path, (long long)g->rows,
              (long long)g->cols, (long long)shape.nnz);
}

static int write_mtx(gen_matrix *g, int argc, char **argv)
{
    const int64_t nnz = count_rows(g, NULL);
    printf("%%%%MatrixMarket matrix coordinate real general\n%% bench/gen");
    for (int i = 1; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n%lld %lld %lld\n", (long long)g->rows, (long long)g->cols, (long long)nnz);
    for (int64_t i = 0; i < g->rows; i++) {
        const int64_t len = gen_row(g, i);
        for (int64_t q = 0; q < len; q++)
            put_entry(i + 1, (int64_t)g->cols_buf[q] + 1, value(i, g->cols_buf[q], g->seed));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        tool_errorf("writing the matrix: %s", strerror(errno));
        return 1;
    }
    return 0;
}

static void usage(void)
{
    printf("Usage: gen [-p] [-z] [-s SEED] [-o OUT.tcf.h5] KIND OPERANDS...\n"
           "Writes a synthetic matrix, row by row (bounded memory at any size): Matrix\n"
           "Market on standard output, or with -o a .tcf.h5 streamed in slabs. Values are a\n"
           "fixed hash of (i, j, SEED) in [-1, 1). Kinds:\n");
    for (int i = 0; i < gen_kind_count(); i++)
        printf("  %-9s %-26s %s\n", gen_kind_at(i)->name, gen_kind_at(i)->params,
               gen_kind_at(i)->about);
    printf("\n  -o, --output FILE   write FILE.tcf.h5 instead of Matrix Market\n"
           "  -p, --pattern       no values (a pattern matrix; -o only)\n"
           "  -s, --seed SEED     the random kinds' seed and the values' (default 1)\n"
           "  -z, --compress      shuffle+deflate the datasets (-o only; slower)\n"
           "  -q, -v, -h, -V      quiet, verbose, this help, version\n");
}

int main(int argc, char **argv)
{
    tool_init("gen", argc, argv);
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "pattern", no_argument, NULL, 'p' },
        { "seed", required_argument, NULL, 's' }, { "compress", no_argument, NULL, 'z' },
        TOOL_COMMON_LONGOPTS
    };
    const char *out = NULL;
    int pattern = 0, compress = 0, c;
    gen_matrix g = { .seed = 1 };
    while ((c = getopt_long(argc, argv, ":o:ps:z" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1)
        switch (c) {
        case 'o': out = optarg; break;
        case 'p': pattern = 1; break;
        case 's': g.seed = (uint64_t)tool_parse_long("--seed", optarg, 0, LONG_MAX); break;
        case 'z': compress = 1; break;
        default: tool_common_option(c, argv, usage);
        }
    if (optind == argc)
        tool_usage_error("expected a KIND (band, stencil, rmat, random, bipartite)");
    g.kind = gen_kind_find(argv[optind]);
    if (!g.kind)
        tool_usage_error("unknown kind '%s' (band, stencil, rmat, random, bipartite)",
                         argv[optind]);
    const int count = argc - optind - 1;
    if (count < g.kind->nparams - g.kind->optional || count > g.kind->nparams)
        tool_usage_error("%s: expected %s", g.kind->name, g.kind->params);
    if (!out && (pattern || compress))
        tool_usage_error("-p and -z need -o (Matrix Market output always has values)");
    g.kind->init(&g, argv + optind + 1, count);
    const int rc = out ? (write_tcf(out, &g, pattern, compress), 0) : write_mtx(&g, argc, argv);
    gen_free(&g);
    return rc;
}
