/* band.c: writes a band matrix in Matrix Market format to standard output,
   the synthetic input of SMaT's Section VI-C (run by bench/bcsr.sh).

   usage: band ORDER WIDTH

   An ORDER x ORDER real matrix whose row i holds the columns
   max(0, i - WIDTH/2) .. min(ORDER, i + WIDTH - WIDTH/2) - 1: WIDTH
   nonzeros per row away from the corners, a dense matrix once WIDTH reaches
   2 ORDER. The values are a fixed hash of (i, j) in [-1, 1), so that every
   run gets the same matrix. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static long parse(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > (1L << 30)) {
        fprintf(stderr, "band: %s: expected an integer from 1 to 2^30, found '%s'\n", what, s);
        exit(2);
    }
    return v;
}

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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: band ORDER WIDTH\n");
        return 2;
    }
    const int64_t n = parse(argv[1], "ORDER"), w = parse(argv[2], "WIDTH");
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo, hi;
        row_span(i, n, w, &lo, &hi);
        nnz += hi - lo;
    }
    printf("%%%%MatrixMarket matrix coordinate real general\n");
    printf("%% band matrix, order %lld, width %lld (bench/band.c)\n", (long long)n, (long long)w);
    printf("%lld %lld %lld\n", (long long)n, (long long)n, (long long)nnz);
    for (int64_t i = 0; i < n; i++) {
        int64_t lo, hi;
        row_span(i, n, w, &lo, &hi);
        for (int64_t j = lo; j < hi; j++)
            put_entry(i + 1, j + 1, value(i, j));
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("band: writing the matrix");
        return 1;
    }
    return 0;
}
