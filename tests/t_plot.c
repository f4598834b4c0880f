/* t_plot: spy and block-density pictures checked pixel by pixel, and PNG
   files read back with libpng. Expected colours were worked out by hand from
   the ramps documented in man/tcplot.1. */
#include "config.h"
#include <dirent.h>
#include <png.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "tcsparse.h"
#include "tap.h"

static const uint8_t WHITE[3] = { 255, 255, 255 }, NAVY[3] = { 8, 48, 107 },
                     FRAME[3] = { 128, 128, 128 }, GRID[3] = { 221, 221, 221 };

/* A pattern matrix from n (row, column) pairs. */
static tc_csr *coo(int32_t rows, int32_t cols, int64_t n, const int32_t *ij)
{
    int32_t *ri = malloc((size_t)(n + 1) * sizeof *ri), *ci = malloc((size_t)(n + 1) * sizeof *ci);
    for (int64_t k = 0; k < n; k++) {
        ri[k] = ij[2 * k];
        ci[k] = ij[2 * k + 1];
    }
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_from_coo(&a, rows, cols, n, ri, ci, NULL, 1, &err) != TC_OK) {
        diag("tc_csr_from_coo: %s", err.msg);
        exit(1);
    }
    free(ri);
    free(ci);
    return a;
}

static tc_image *draw(int blocks, const tc_csr *a, int32_t size, int grid)
{
    tc_plot_opts o = TC_PLOT_DEFAULTS;
    o.size = size;
    o.grid = grid;
    tc_image *img = NULL;
    tc_error err;
    tc_status st = blocks ? tc_plot_blocks(a, &o, &img, &err) : tc_plot_spy(a, &o, &img, &err);
    if (st != TC_OK) {
        diag("plot: %s", err.msg);
        exit(1);
    }
    return img;
}

static const uint8_t *px(const tc_image *img, int64_t x, int64_t y)
{
    return img->rgb + (y * img->width + x) * 3;
}

static int is_rgb(const tc_image *img, int64_t x, int64_t y, const uint8_t want[3])
{
    const uint8_t *p = px(img, x, y);
    if (memcmp(p, want, 3) == 0)
        return 1;
    diag("  pixel (%lld, %lld) is (%d, %d, %d), want (%d, %d, %d)", (long long)x, (long long)y,
         p[0], p[1], p[2], want[0], want[1], want[2]);
    return 0;
}

/* Every pixel of the rectangle [x0, x1) x [y0, y1) has colour want. */
static int rect_is(const tc_image *img, int x0, int y0, int x1, int y1, const uint8_t want[3])
{
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (!is_rgb(img, x, y, want))
                return 0;
    return 1;
}

static int framed(const tc_image *img)
{
    for (int x = 0; x < img->width; x++)
        if (!is_rgb(img, x, 0, FRAME) || !is_rgb(img, x, img->height - 1, FRAME))
            return 0;
    for (int y = 0; y < img->height; y++)
        if (!is_rgb(img, 0, y, FRAME) || !is_rgb(img, img->width - 1, y, FRAME))
            return 0;
    return 1;
}

static int64_t count_rgb(const tc_image *img, const uint8_t want[3])
{
    int64_t n = 0;
    for (int y = 1; y < img->height - 1; y++)
        for (int x = 1; x < img->width - 1; x++)
            n += memcmp(px(img, x, y), want, 3) == 0;
    return n;
}

static int not_white(const tc_image *img, int64_t x, int64_t y)
{
    return memcmp(px(img, x, y), WHITE, 3) != 0;
}

static int luma(const uint8_t *p) { return 299 * p[0] + 587 * p[1] + 114 * p[2]; }

static void test_identity(void)
{
    int32_t ij[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
    tc_csr *a = coo(4, 4, 4, ij);
    tc_image *img = draw(0, a, 4, -1);
    ok(img->width == 6 && img->height == 6, "identity 4x4 at size 4: 6x6 with the frame");
    int good = 1;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            good = good && is_rgb(img, 1 + x, 1 + y, x == y ? NAVY : WHITE);
    ok(good, "identity: diagonal navy, the rest white");
    ok(framed(img), "identity: 1-pixel grey frame");
    tc_image_free(img);

    img = draw(0, a, 9, -1);
    ok(img->width == 10 && img->height == 10, "identity at size 9: zoom 2, 10x10");
    ok(rect_is(img, 1, 1, 3, 3, NAVY) && rect_is(img, 7, 7, 9, 9, NAVY) &&
       rect_is(img, 3, 1, 5, 3, WHITE) && count_rgb(img, NAVY) == 16,
       "zoomed identity: each entry a 2x2 square");
    tc_image_free(img);
    tc_csr_free(a);
}

static void test_buckets(void)
{
    /* 4x4 at size 2: 2x2 buckets holding 4, 1, 0 and 2 entries. */
    int32_t ij[] = { 0, 0, 0, 1, 1, 0, 1, 1, 0, 2, 2, 2, 3, 3 };
    tc_csr *a = coo(4, 4, 7, ij);
    tc_image *img = draw(0, a, 2, -1);
    static const uint8_t one_of_4[3] = { 79, 154, 202 }, two_of_4[3] = { 45, 110, 165 };
    ok(img->width == 4 && img->height == 4 && is_rgb(img, 1, 1, NAVY) &&
       is_rgb(img, 2, 1, one_of_4) && is_rgb(img, 1, 2, WHITE) && is_rgb(img, 2, 2, two_of_4),
       "2x2 buckets: counts 4, 1, 0, 2 shaded log(1+n)/log(1+4)");
    tc_image_free(img);
    tc_csr_free(a);

    /* log(1+2) / log(1+8) = 1/2: the middle stop of the ramp exactly. */
    int32_t ij2[16 + 4], n = 0;
    for (int i = 0; i < 8; i++) {
        ij2[n++] = i / 4;
        ij2[n++] = i % 4;
    }
    int32_t tail[] = { 4, 4, 7, 7 };
    memcpy(ij2 + n, tail, sizeof tail);
    a = coo(8, 8, 10, ij2);
    img = draw(0, a, 2, -1);
    static const uint8_t mid[3] = { 66, 146, 198 };
    ok(is_rgb(img, 1, 1, NAVY) && is_rgb(img, 2, 2, mid), "2 of max 8 is the middle blue");
    tc_image_free(img);
    tc_csr_free(a);

    /* 16 x 80 at size 5: buckets of 16x16 holding 1, 2, 4, 8, 16. */
    int32_t ij3[2 * 31];
    n = 0;
    for (int b = 0; b < 5; b++)
        for (int k = 0; k < 1 << b; k++) {
            ij3[n++] = k;
            ij3[n++] = 16 * b;
        }
    a = coo(16, 80, 31, ij3);
    img = draw(0, a, 5, -1);
    int good = img->width == 7 && img->height == 3 && not_white(img, 1, 1);
    for (int x = 2; x <= 5; x++)
        good = good && luma(px(img, x, 1)) < luma(px(img, x - 1, 1));
    ok(good && is_rgb(img, 5, 1, NAVY), "log scale: 1, 2, 4, 8, 16 ever darker, one not white");
    tc_image_free(img);
    tc_csr_free(a);
}

static void test_shapes(void)
{
    tc_csr *a = coo(2, 8, 0, NULL);
    tc_image *img = draw(0, a, 8, -1);
    ok(img->width == 10 && img->height == 4, "2x8 at size 8: 8x2 area");
    tc_image_free(img);
    tc_csr_free(a);

    a = coo(10, 3, 0, NULL);
    img = draw(0, a, 20, -1);
    ok(img->width == 8 && img->height == 22, "10x3 at size 20: zoom 2, 6x20 area");
    tc_image_free(img);
    tc_csr_free(a);

    /* 3x10 at size 9: rows fall in cells floor(i*9/10) = 0, 0, 1. Two cell
       rows, not ceil(2.7) = 3 with an empty third. */
    int32_t ij[60];
    for (int k = 0; k < 30; k++) {
        ij[2 * k] = k / 10;
        ij[2 * k + 1] = k % 10;
    }
    a = coo(3, 10, 30, ij);
    img = draw(0, a, 9, -1);
    ok(img->width == 11 && img->height == 4 && count_rgb(img, WHITE) == 0,
       "dense 3x10 at size 9: 9x2 area, no empty cell");
    tc_image_free(img);
    img = draw(1, a, 9, -1);
    ok(img->width == 11 && img->height == 4 && count_rgb(img, WHITE) == 0,
       "block plot of it: same geometry, no empty cell");
    tc_image_free(img);
    tc_csr_free(a);

    int32_t one[] = { 0, 0 };
    a = coo(1, 1, 1, one);
    img = draw(0, a, 1, -1);
    ok(img->width == 3 && img->height == 3 && is_rgb(img, 1, 1, NAVY) && framed(img),
       "1x1 at size 1: one navy pixel in the frame");
    tc_image_free(img);
    img = draw(0, a, 1024, -1);
    ok(img->width == 1026 && count_rgb(img, NAVY) == 1024 * 1024, "1x1 at size 1024: zoom 1024");
    tc_image_free(img);
    tc_csr_free(a);

    a = coo(5, 5, 0, NULL);
    img = draw(0, a, 10, 0);
    ok(img->width == 12 && count_rgb(img, WHITE) == 100 && framed(img),
       "5x5 without nonzeros: all white in the frame");
    tc_image_free(img);
    img = draw(1, a, 10, 0);
    ok(count_rgb(img, WHITE) == 100 && framed(img), "its block plot too");
    tc_image_free(img);
    tc_csr_free(a);

    a = coo(0, 0, 0, NULL);
    img = draw(0, a, 100, -1);
    ok(img->width == 2 && img->height == 2 && framed(img), "0x0: the frame alone");
    tc_image_free(img);
    tc_csr_free(a);
    a = coo(0, 7, 0, NULL);
    img = draw(1, a, 7, -1);
    ok(img->width == 9 && img->height == 2 && framed(img), "0x7: a flat frame");
    tc_image_free(img);
    tc_csr_free(a);
}

static void test_blocks(void)
{
    /* 32x16: block (0,0) full, (0,1) 16 nonzeros, (1,0) empty, (1,1) one. */
    int32_t ij[2 * (128 + 16 + 1)], n = 0;
    for (int k = 0; k < 128; k++) {
        ij[n++] = k / 8;
        ij[n++] = k % 8;
    }
    for (int k = 0; k < 16; k++) {
        ij[n++] = k;
        ij[n++] = 8 + k % 8;
    }
    ij[n++] = 20;
    ij[n++] = 9;
    tc_csr *a = coo(32, 16, n / 2, ij);
    tc_image *img = draw(1, a, 32, 0);
    static const uint8_t yellow[3] = { 253, 231, 37 }, purple[3] = { 68, 1, 84 },
                         sixteen[3] = { 50, 161, 128 };
    ok(img->width == 18 && img->height == 34, "block plot 32x16 at size 32: zoom 1");
    ok(rect_is(img, 1, 1, 9, 17, yellow), "full block: viridis top (yellow), every pixel");
    ok(rect_is(img, 9, 1, 17, 17, sixteen), "16 of 128: log 16 / log 128 of the ramp");
    ok(rect_is(img, 1, 17, 9, 33, WHITE), "no block: white");
    ok(rect_is(img, 9, 17, 17, 33, purple), "one nonzero: viridis bottom (purple), whole block");
    ok(framed(img), "block plot framed");
    tc_image_free(img);
    tc_csr_free(a);

    /* 64x64 at size 4: 16x16 buckets, each 1 block row x 2 block columns.
       Bucket (0,0): blocks of 1 and 3 nonzeros, mean 2. Bucket (1,1): one
       full block and one empty one: the empty block does not dilute it. */
    int32_t ij2[2 * (4 + 128)];
    n = 0;
    int32_t first[] = { 0, 0, 0, 8, 1, 8, 2, 8 };
    memcpy(ij2, first, sizeof first);
    n = 8;
    for (int k = 0; k < 128; k++) {
        ij2[n++] = 16 + k / 8;
        ij2[n++] = 16 + k % 8;
    }
    a = coo(64, 64, n / 2, ij2);
    img = draw(1, a, 4, -1);
    static const uint8_t two[3] = { 63, 47, 115 };
    ok(img->width == 6 && is_rgb(img, 1, 1, two) && is_rgb(img, 2, 2, yellow) &&
       is_rgb(img, 2, 1, WHITE) && count_rgb(img, WHITE) == 14,
       "bucketed blocks: mean nnz of the non-empty blocks");
    tc_image_free(img);
    tc_csr_free(a);

    /* 1x10 at size 6: columns fall in cells 0 0 1 1 2 3 3 4 4 5. Cell 4
       holds columns 7 and 8, where block 1 starts: it shows block 1 (empty),
       so block 0 (one nonzero) covers cells 0 to 3. */
    int32_t ij3[] = { 0, 0 };
    a = coo(1, 10, 1, ij3);
    img = draw(1, a, 6, 0);
    ok(img->width == 8 && rect_is(img, 1, 1, 5, 2, purple) && rect_is(img, 5, 1, 7, 2, WHITE),
       "a cell where a block starts shows that block");
    tc_image_free(img);
    tc_csr_free(a);
}

static void test_grid(void)
{
    int32_t ij[] = { 16, 0, 0, 8 };
    tc_csr *a = coo(64, 64, 2, ij);
    tc_image *img = draw(0, a, 64, -1);
    ok(is_rgb(img, 4, 17, GRID) && is_rgb(img, 9, 4, GRID) && is_rgb(img, 1, 17, NAVY) &&
       is_rgb(img, 9, 1, NAVY) && is_rgb(img, 4, 16, WHITE) && is_rgb(img, 4, 18, WHITE),
       "grid at zoom 1: grey lines at block edges, under the data");
    ok(count_rgb(img, GRID) == 3 * 64 + 7 * 64 - 3 * 7 - 2, "grid: 3 row and 7 column lines");
    tc_image_free(img);
    img = draw(0, a, 64, 0);
    ok(count_rgb(img, GRID) == 0, "--no-grid: none");
    tc_image_free(img);
    img = draw(0, a, 16, -1);
    ok(count_rgb(img, GRID) == 0, "auto: no grid when a block is 2 pixels wide");
    tc_image_free(img);
    img = draw(0, a, 32, -1);
    ok(count_rgb(img, GRID) > 0, "auto: grid when a block is 4 pixels wide");
    tc_image_free(img);
    img = draw(0, a, 16, 1);
    ok(count_rgb(img, GRID) > 0, "forced grid at 2 pixels a block");
    tc_image_free(img);
    img = draw(1, a, 64, -1);
    static const uint8_t purple[3] = { 68, 1, 84 };
    ok(is_rgb(img, 4, 33, GRID) && is_rgb(img, 3, 40, WHITE) && is_rgb(img, 4, 17, purple),
       "block plot grid: on empty pixels only");
    tc_image_free(img);
    tc_csr_free(a);
}

/* Columns at the edges of buckets of a 3 x (2^31 - 1) matrix land in the
   bucket that exact integer arithmetic gives (the inner loop uses floating
   point corrected by one step). */
static void test_exact_buckets(void)
{
    const int64_t L = INT32_MAX, S = 1024;
    const int64_t ks[] = { 1, 500, 1023 };
    /* Built by hand: tc_csr_from_coo takes time in the number of columns. */
    tc_csr *a = NULL;
    tc_error err;
    if (tc_csr_alloc(&a, 3, INT32_MAX, 6, 0, &err) != TC_OK) {
        diag("tc_csr_alloc: %s", err.msg);
        exit(1);
    }
    for (int i = 0; i < 3; i++) {
        int64_t c = (ks[i] * L + S - 1) / S;    /* first column of pixel k */
        a->colidx[2 * i] = (int32_t)(c - 1);
        a->colidx[2 * i + 1] = (int32_t)c;
        a->rowptr[i + 1] = 2 * (i + 1);
    }
    tc_image *img = draw(0, a, (int32_t)S, -1);
    int good = img->width == 1026 && img->height == 3 && count_rgb(img, WHITE) == 1024 - 6;
    for (int i = 0; i < 3; i++) {
        int64_t c = a->colidx[2 * i + 1];
        good = good && (c * S / L) == ks[i] && ((c - 1) * S / L) == ks[i] - 1;
        good = good && not_white(img, 1 + ks[i], 1) && not_white(img, ks[i], 1);
    }
    ok(good, "3 x 2^31-1: bucket edges exact");
    tc_image_free(img);
    img = draw(1, a, (int32_t)S, -1);
    ok(count_rgb(img, WHITE) >= 1024 - 6, "its block plot, without per-column arrays");
    tc_image_free(img);
    tc_csr_free(a);

    /* 100 * 290 / 1000 is 29 exactly, but 100 * (290.0 / 1000) < 29. */
    int32_t edge[] = { 100, 100 };
    a = coo(1000, 1000, 1, edge);
    img = draw(0, a, 290, -1);
    ok(is_rgb(img, 30, 30, NAVY) && count_rgb(img, WHITE) == 290 * 290 - 1,
       "1000x1000 at size 290: entry (100, 100) in pixel (29, 29)");
    tc_image_free(img);
    tc_csr_free(a);
}


/* A random matrix above the threading threshold, with a dense row and a
   dense column (longer than 4096), in a size-S picture: every pixel white
   exactly where no entry maps to it (floor(i*S/L) by integer division),
   one colour per count, darker as counts grow, and the same bytes on 1 and
   3 threads. */
static void check_random(int32_t rows, int32_t cols, int64_t n, int32_t S)
{
    int32_t *ij = malloc((size_t)(n + rows + cols) * 2 * sizeof *ij);
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++) {
        ij[m++] = (int32_t)tap_rand((uint32_t)rows);
        ij[m++] = (int32_t)(tap_rand(4) ? tap_rand((uint32_t)cols) : tap_rand((uint32_t)cols / 50 + 1));
    }
    for (int32_t j = 0; j < cols; j++) {
        ij[m++] = rows / 3;
        ij[m++] = j;
    }
    for (int32_t i = 0; i < rows; i++) {
        ij[m++] = i;
        ij[m++] = cols * 4 / 5;
    }
    tc_csr *a = coo(rows, cols, m / 2, ij);
    free(ij);
    int64_t L = rows > cols ? rows : cols;
    int64_t cw = (cols - 1) * (int64_t)S / L + 1, ch = (rows - 1) * (int64_t)S / L + 1;
    int64_t *count = calloc((size_t)(cw * ch), sizeof *count), max = 0;
    for (int32_t i = 0; i < rows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int64_t *c = &count[(i * (int64_t)S / L) * cw + a->colidx[k] * (int64_t)S / L];
            if (++*c > max)
                max = *c;
        }
    setenv("TC_THREADS", "1", 1);
    tc_image *one = draw(0, a, S, -1), *oneb = draw(1, a, S, -1);
    setenv("TC_THREADS", "3", 1);
    tc_image *three = draw(0, a, S, -1), *threeb = draw(1, a, S, -1);
    unsetenv("TC_THREADS");
    int good = one->width == cw + 2 && one->height == ch + 2;
    /* colour_of[count] must be a function of the count, darker as it grows. */
    uint8_t(*colour_of)[3] = calloc((size_t)max + 1, 3);
    char *seen = calloc((size_t)max + 1, 1);
    for (int64_t y = 0; good && y < ch; y++)
        for (int64_t x = 0; good && x < cw; x++) {
            int64_t c = count[y * cw + x];
            const uint8_t *p = px(one, 1 + x, 1 + y);
            good = (c == 0) == (memcmp(p, WHITE, 3) == 0);
            if (good && seen[c])
                good = memcmp(colour_of[c], p, 3) == 0;
            memcpy(colour_of[c], p, 3);
            seen[c] = 1;
        }
    ok(good, "random %dx%d, %lld nnz at size %d: white exactly where empty, one colour per count",
       rows, cols, (long long)a->nnz, S);
    int order = seen[max] && memcmp(colour_of[max], NAVY, 3) == 0;
    for (int64_t c = 1, prev = -1; c <= max; c++)
        if (seen[c]) {
            order = order && (prev < 0 || luma(colour_of[c]) <= luma(colour_of[prev]));
            prev = c;
        }
    ok(order, "colours darken with the count (max %lld is navy)", (long long)max);
    size_t bytes = (size_t)one->width * one->height * 3;
    ok(memcmp(one->rgb, three->rgb, bytes) == 0, "spy: same pixels on 1 and 3 threads");
    ok(oneb->width == one->width && memcmp(oneb->rgb, threeb->rgb, bytes) == 0,
       "blocks: same pixels on 1 and 3 threads");
    free(colour_of);
    free(seen);
    free(count);
    tc_image_free(one);
    tc_image_free(three);
    tc_image_free(oneb);
    tc_image_free(threeb);
    tc_csr_free(a);
}

static void test_bad_args(void)
{
    tc_csr *a = coo(4, 4, 0, NULL);
    tc_plot_opts o = TC_PLOT_DEFAULTS;
    tc_image *img = NULL;
    tc_error err;
    o.size = 0;
    ok(tc_plot_spy(a, &o, &img, &err) == TC_ERR_ARG && !img, "size 0 refused");
    is_str(err.msg, "picture size must be 1 to 2147483645 pixels (got 0)", "its message");
    o.size = 10;
    o.block_w = 0;
    ok(tc_plot_blocks(a, &o, &img, &err) == TC_ERR_ARG && !img, "block width 0 refused");
    is_str(err.msg, "bad block shape 16x0", "its message");
    o.block_w = 8;
    ok(tc_plot_spy(a, NULL, &img, &err) == TC_OK && img->width == 1026,
       "NULL options: defaults (size 1024)");
    tc_image_free(img);
    tc_csr_free(a);
}

/* Reads a PNG back with libpng's simplified API, as 8-bit RGB. */
static tc_image *png_read_back(const char *path)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path))
        return NULL;
    pi.format = PNG_FORMAT_RGB;
    tc_image *img = calloc(1, sizeof *img);
    img->width = (int32_t)pi.width;
    img->height = (int32_t)pi.height;
    img->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (!png_image_finish_read(&pi, NULL, img->rgb, 0, NULL)) {
        tc_image_free(img);
        return NULL;
    }
    return img;
}


/* Names in dir other than keep. */
static int stray_files(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, keep);
    closedir(d);
    return n;
}

static void test_png(void)
{
    char dir[] = "/tmp/t_plot.XXXXXX", path[64], path2[64];
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/p.png", dir);
    snprintf(path2, sizeof path2, "%s/q.png", dir);
    int32_t ij[] = { 0, 0, 3, 1, 20, 9, 31, 15, 7, 12 };
    tc_csr *a = coo(32, 16, 5, ij);
    tc_image *img = draw(1, a, 50, -1);
    tc_error err;
    ok(tc_png_write(path, img, &err) == TC_OK, "PNG written");
    tc_image *back = png_read_back(path);
    ok(back && back->width == img->width && back->height == img->height &&
       memcmp(back->rgb, img->rgb, (size_t)img->width * img->height * 3) == 0,
       "read back with libpng: same size, same pixels");
    tc_image_free(back);
    size_t n1 = 0, n2 = 0;
    ok(tc_png_write(path2, img, &err) == TC_OK, "written again");
    char *b1 = tap_slurp(path, &n1), *b2 = tap_slurp(path2, &n2);
    ok(b1 && b2 && n1 == n2 && n1 > 8 && memcmp(b1, b2, n1) == 0 &&
       memcmp(b1, "\x89PNG\r\n\x1a\n", 8) == 0, "same bytes both times (no time chunk)");
    free(b1);
    free(b2);
    unlink(path2);

    ok(tc_png_write("/nonexistent-dir/x.png", img, &err) == TC_ERR_IO, "missing directory");
    is_str(err.msg, "/nonexistent-dir/x.png: cannot create: No such file or directory",
           "its message");
    tc_image none = { .width = 0, .height = 0, .rgb = NULL };
    ok(tc_png_write(path2, &none, &err) == TC_ERR_ARG && access(path2, F_OK) != 0,
       "empty image refused, no file made");
    tc_image_free(img);

    /* A write that fails half-way (file size limit): an error, the previous
       file untouched, no temporary left. A noisy picture does not compress. */
    tc_image noisy = { .width = 1000, .height = 1000, .rgb = malloc(3000000) };
    for (int i = 0; i < 3000000; i++)
        noisy.rgb[i] = (uint8_t)tap_rand(256);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100000;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &lim);
    tc_status st = tc_png_write(path, &noisy, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    ok(st == TC_ERR_IO && strstr(err.msg, "File too large"), "failed write: %s", err.msg);
    back = png_read_back(path);
    ok(back && back->width == 18 && back->height == 34, "previous file kept");
    ok(stray_files(dir, "p.png") == 0, "no temporary file left");
    tc_image_free(back);
    free(noisy.rgb);
    tc_csr_free(a);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_identity();
    test_buckets();
    test_shapes();
    test_blocks();
    test_grid();
    test_exact_buckets();
    check_random(3001, 5003, 400000, 700);
    check_random(70001, 37, 300000, 1024);
    check_random(17, 100003, 300000, 999);
    test_bad_args();
    test_png();
    return done_testing();
}
