/* t_figure: the decorations around a picture (lib/figure.c), probed pixel
   by pixel: the bare picture sits unchanged inside the decorated one; the
   title, the tick marks (at the pixels of their indices), tick labels that
   never touch, the colour bar's exact ramp and the legend's swatches are
   there when asked for and absent when not; the same picture twice gives
   the same pixels. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "tcsparse.h"
#include "tap.h"
#include "testmat.h"
#include "plot_internal.h"

/* Text and tick marks are drawn in grey 0.15 (38, 38, 38); antialiased
   text edges are lighter greys. */
static const uint8_t INK[3] = { 38, 38, 38 };

static tc_image *plot(int blocks, const tc_csr *a, int32_t size, unsigned decor,
                      const uint8_t *part)
{
    tc_plot_opts o = TC_PLOT_DEFAULTS;
    o.size = size;
    o.grid = 0;
    o.decor = decor;
    o.title = "A title";
    o.part = part;
    tc_image *img = NULL;
    tc_error err;
    if ((blocks ? tc_plot_blocks(a, &o, &img, &err) : tc_plot_spy(a, &o, &img, &err)) != TC_OK)
        tap_bail(err.msg);
    return img;
}

static const uint8_t *px(const tc_image *img, int64_t x, int64_t y)
{
    return img->rgb + (y * img->width + x) * 3;
}

/* A grey darker than the lightest text edge: no ramp colour is grey. */
static int is_text(const uint8_t *p)
{
    int lo = p[0] < p[1] ? p[0] : p[1], hi = p[0] > p[1] ? p[0] : p[1];
    lo = lo < p[2] ? lo : p[2];
    hi = hi > p[2] ? hi : p[2];
    return hi < 160 && hi - lo <= 8;
}

/* Text pixels in [x0, x1) x [y0, y1), clipped to the picture. */
static int64_t text_in(const tc_image *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    int64_t n = 0;
    for (int64_t y = y0 < 0 ? 0 : y0; y < y1 && y < img->height; y++)
        for (int64_t x = x0 < 0 ? 0 : x0; x < x1 && x < img->width; x++)
            n += is_text(px(img, x, y));
    return n;
}

/* small lies pixel for pixel in big at (x, y). */
static int holds(const tc_image *big, const tc_image *small, int32_t x, int32_t y)
{
    if (x < 0 || y < 0 || x + small->width > big->width || y + small->height > big->height)
        return 0;
    for (int64_t r = 0; r < small->height; r++)
        if (memcmp(px(big, x, y + r), px(small, 0, r), (size_t)small->width * 3))
            return 0;
    return 1;
}

/* Groups of columns holding text in rows [y0, y1), split by at least 5
   blank columns: one per label when no two labels touch. */
static int label_groups(const tc_image *img, int64_t y0, int64_t y1)
{
    int groups = 0, blank = 5;
    for (int64_t x = 0; x < img->width; x++) {
        if (text_in(img, x, y0, x + 1, y1)) {
            groups += blank >= 5;
            blank = 0;
        } else {
            blank++;
        }
    }
    return groups;
}

/* The first row of the picture holding ramp `id` from position lo to 1
   over 256 columns, left to right, exactly; -1 if none. */
static int64_t find_bar(const tc_image *img, plot_ramp_id id, double lo, int64_t *bar_x)
{
    uint8_t want[256][3];
    for (int x = 0; x < 256; x++)
        plot_ramp(id, lo + (1 - lo) * x / 255, want[x]);
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t x = 0; x + 256 <= img->width; x++) {
            int k = 0;
            while (k < 256 && !memcmp(px(img, x + k, y), want[k], 3))
                k++;
            if (k == 256) {
                *bar_x = x;
                return y;
            }
        }
    return -1;
}

/* A spy plot's ramp, which starts at the shade of one nonzero: that of
   log(2)/log(1 + max), max the nonzeros of the fullest pixel, tried from 2
   up. */
static int64_t find_spy_bar(const tc_image *img, plot_ramp_id id, int64_t *bar_x)
{
    int64_t y = -1;
    for (int64_t max = 2; max < 1000 && y < 0; max++) {
        plot_key k = { .max = max };
        y = find_bar(img, id, plot_key_position(&k, 1), bar_x);
    }
    return y;
}

/* An 11 x 11 square of colour rgb somewhere in the picture. */
static int has_swatch(const tc_image *img, const uint8_t rgb[3])
{
    for (int64_t y = 0; y + 11 <= img->height; y++)
        for (int64_t x = 0; x + 11 <= img->width; x++) {
            int same = 1;
            for (int k = 0; k < 121 && same; k++)
                same = !memcmp(px(img, x + k % 11, y + k / 11), rgb, 3);
            if (same)
                return 1;
        }
    return 0;
}

/* Expected tick marks of an axis of n indices over len pixels: every
   plot_nice_step(min_spacing * n / len) from 0, at the centre pixel of
   their index. Checks each along the line (x0 + t, y) or (x, y0 + t). */
static int ticks_at(const tc_image *img, int64_t n, int32_t len, double min_spacing,
                    int vertical, int64_t fixed, int64_t start, int *count)
{
    int64_t step = plot_nice_step(min_spacing * (double)n / len);
    int good = 1;
    *count = 0;
    for (int64_t i = 0; i < n; i += step, (*count)++) {
        int64_t t = start + (int64_t)((i + 0.5) * len / (double)n);
        const uint8_t *p = vertical ? px(img, fixed, t) : px(img, t, fixed);
        if (memcmp(p, INK, 3)) {
            diag("  tick %lld: no mark at pixel %lld", (long long)i, (long long)t);
            good = 0;
        }
    }
    return good;
}

static void test_placement(void)
{
    static const struct { int32_t rows, cols, per_row, size; const char *what; } m[] = {
        { 40, 70, 3, 1024, "40 x 70 zoomed" },
        { 1, 1000, 300, 1024, "1 x 1000" },
        { 100000, 10, 1, 1024, "100000 x 10" },
        { 1, 1, 1, 64, "1 x 1" },
        { 5, 5, 0, 10, "5 x 5 without nonzeros" },
        { 3001, 1500, 20, 600, "3001 x 1500 in buckets" },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        tc_csr *a = tap_random_matrix(m[i].rows, m[i].cols, m[i].per_row, -1, -1, 1);
        for (int blocks = 0; blocks < 2; blocks++) {
            tc_image *bare = plot(blocks, a, m[i].size, 0, NULL);
            tc_image *fig = plot(blocks, a, m[i].size, TC_PLOT_ALL, NULL);
            tc_image *again = plot(blocks, a, m[i].size, TC_PLOT_ALL, NULL);
            ok(bare->area_x == 0 && bare->area_y == 0, "%s, %s: bare, the area at 0, 0",
               m[i].what, blocks ? "blocks" : "spy");
            ok(fig->width > bare->width && fig->height > bare->height &&
               holds(fig, bare, fig->area_x, fig->area_y),
               "%s, %s: decorated, %d x %d: the bare %d x %d inside it at (%d, %d)",
               m[i].what, blocks ? "blocks" : "spy", fig->width, fig->height, bare->width,
               bare->height, fig->area_x, fig->area_y);
            ok(fig->width == again->width && fig->height == again->height &&
               !memcmp(fig->rgb, again->rgb, (size_t)fig->width * fig->height * 3),
               "%s, %s: the same pixels twice", m[i].what, blocks ? "blocks" : "spy");
            ok(text_in(fig, 0, 0, fig->width, fig->area_y - 4) > 40,
               "%s, %s: text in the title band", m[i].what, blocks ? "blocks" : "spy");
            tc_image_free(bare);
            tc_image_free(fig);
            tc_image_free(again);
        }
        tc_csr_free(a);
    }
}

/* The ticks of both axes, at the pixels of their indices, their labels
   apart; none without TC_PLOT_AXES. */
static void check_axes(int32_t rows, int32_t cols, int32_t size, int want_rows, int want_cols,
                       const char *what)
{
    tc_csr *a = tap_random_matrix(rows, cols, 1, -1, -1, 1);
    tc_image *bare = plot(0, a, size, 0, NULL);
    tc_image *fig = plot(0, a, size, TC_PLOT_AXES, NULL);
    int32_t w = bare->width - 2, h = bare->height - 2, nr, nc;
    int64_t below = fig->area_y + bare->height;
    int rows_ok = ticks_at(fig, rows, h, 60, 1, fig->area_x - 1, fig->area_y + 1, &nr);
    ok(rows_ok && nr == want_rows, "%s: %d row ticks (want %d), each at its row's pixels",
       what, nr, want_rows);
    int cols_ok = ticks_at(fig, cols, w, 80, 0, below, fig->area_x + 1, &nc);
    ok(cols_ok && nc == want_cols, "%s: %d column ticks (want %d), each at its column's pixels",
       what, nc, want_cols);
    int groups = label_groups(fig, below + 6, fig->height);
    ok(groups == want_cols, "%s: %d column labels apart (%d groups of text)", what,
       want_cols, groups);
    ok(text_in(fig, 0, fig->area_y, fig->area_x, fig->area_y + bare->height) > 0,
       "%s: row labels left of the area", what);
    tc_image *none = plot(0, a, size, TC_PLOT_ALL & ~(unsigned)TC_PLOT_AXES, NULL);
    ok(text_in(none, 0, none->area_y, none->area_x, none->area_y + bare->height) == 0 &&
       memcmp(px(none, none->area_x + 1 + w / 2, none->area_y + bare->height), INK, 3),
       "%s: no row labels, no column tick without TC_PLOT_AXES", what);
    tc_image_free(bare);
    tc_image_free(fig);
    tc_image_free(none);
    tc_csr_free(a);
}

static void test_axes(void)
{
    /* 40 rows over 560 pixels: a tick every 5 rows (>= 60 pixels: 4.3);
       70 columns over 980: every 10 (>= 80 pixels: 5.7) */
    check_axes(40, 70, 1024, 8, 7, "40 x 70 at zoom 14");
    check_axes(1, 1000, 1000, 1, 10, "1 x 1000");
    check_axes(100000, 10, 1024, 10, 1, "100000 x 10 (one pixel wide)");
    check_axes(100000, 100000, 1024, 10, 10, "100000 x 100000");
    /* labels of ten digits, wider than 80 pixels apart: the step grows */
    tc_csr *a = tap_random_matrix(1, INT32_MAX, 1, -1, -1, 1);
    tc_image *fig = plot(0, a, 1024, TC_PLOT_AXES, NULL);
    int64_t below = fig->area_y + 3;
    int groups = label_groups(fig, below + 6, fig->height), marks = 0;
    for (int64_t x = 0; x < fig->width; x++)
        marks += !memcmp(px(fig, x, below), INK, 3);
    ok(marks >= 5 && groups == marks, "1 x 2^31-1: %d column labels of ten digits, apart "
       "(%d tick marks)", groups, marks);
    tc_image_free(fig);
    tc_csr_free(a);
}

static void test_title(void)
{
    tc_csr *a = tap_random_matrix(300, 300, 4, -1, -1, 1);
    tc_image *fig = plot(0, a, 256, TC_PLOT_ALL, NULL);
    tc_image *none = plot(0, a, 256, TC_PLOT_ALL & ~(unsigned)TC_PLOT_TITLE, NULL);
    ok(none->area_y < fig->area_y - 20, "no title: the area moves up (%d, not %d)", none->area_y,
       fig->area_y);
    ok(text_in(none, 0, 0, none->width, none->area_y - 6) == 0, "  and nothing is drawn above it");
    tc_image_free(fig);
    tc_image_free(none);
    tc_csr_free(a);
}

static void test_colorbar(void)
{
    tc_csr *a = tap_random_matrix(3001, 1500, 20, 7, 9, 1);
    int64_t bx, by;
    tc_image *fig = plot(1, a, 400, TC_PLOT_ALL, NULL);
    by = find_bar(fig, PLOT_VIRIDIS, 0, &bx);
    ok(by > fig->area_y, "blocks: the viridis ramp, 1 to 128 nonzeros, below the area");
    ok(by > 0 && text_in(fig, bx - 10, by + 12, bx + 266, by + 30) > 20 &&
       text_in(fig, bx, by - 16, bx + 256, by) > 20, "  with its values below and its caption above");
    tc_image *none = plot(1, a, 400, TC_PLOT_ALL & ~(unsigned)TC_PLOT_COLORBAR, NULL);
    ok(find_bar(none, PLOT_VIRIDIS, 0, &bx) < 0 && none->height < fig->height,
       "no ramp without TC_PLOT_COLORBAR");
    tc_image_free(fig);
    tc_image_free(none);

    /* the spy plot's ramp starts at the shade of one nonzero */
    fig = plot(0, a, 400, TC_PLOT_COLORBAR, NULL);
    ok(find_spy_bar(fig, PLOT_BLUES, &bx) > fig->area_y, "spy: the blue ramp below the area");
    tc_image_free(fig);
    tc_csr_free(a);

    /* a zoomed picture has one value: no bar */
    a = tap_random_matrix(20, 20, 2, -1, -1, 1);
    fig = plot(0, a, 200, TC_PLOT_ALL & ~(unsigned)TC_PLOT_TITLE, NULL);
    tc_image *bare = plot(0, a, 200, TC_PLOT_ALL & ~(unsigned)TC_PLOT_TITLE & ~(unsigned)TC_PLOT_COLORBAR,
                NULL);
    ok(fig->width == bare->width && fig->height == bare->height &&
       !memcmp(fig->rgb, bare->rgb, (size_t)fig->width * fig->height * 3),
       "spy at a zoom (one nonzero a pixel): no colour bar to draw");
    tc_image_free(fig);
    tc_image_free(bare);
    tc_csr_free(a);
}

static void test_parts(void)
{
    tc_csr *a = tap_random_matrix(2000, 2000, 6, -1, -1, 1);
    uint8_t *part = malloc((size_t)a->nnz);
    for (int64_t i = 0; i < a->nnz; i++)
        part[i] = a->colidx[i] >= 1000;
    uint8_t blue[3], orange[3];
    plot_ramp(PLOT_BLUES, 0.5, blue);
    plot_ramp(PLOT_ORANGES, 0.5, orange);
    tc_image *fig = plot(0, a, 300, TC_PLOT_ALL, part);
    ok(has_swatch(fig, blue) && has_swatch(fig, orange), "parts: a legend swatch for each part");
    int64_t bx, bx2, ys = find_spy_bar(fig, PLOT_BLUES, &bx),
                     yo = find_spy_bar(fig, PLOT_ORANGES, &bx2);
    ok(ys > 0 && yo == ys + 12 && bx == bx2, "parts: the blue ramp, the orange one just below");
    tc_image *none = plot(0, a, 300, TC_PLOT_ALL & ~(unsigned)TC_PLOT_LEGEND, part);
    ok(!has_swatch(none, orange) && none->height < fig->height, "no legend without TC_PLOT_LEGEND");
    tc_image *plain = plot(0, a, 300, TC_PLOT_ALL, NULL);
    ok(!has_swatch(plain, orange), "no legend without parts");
    tc_image_free(fig);
    tc_image_free(none);
    tc_image_free(plain);
    free(part);
    tc_csr_free(a);
}

static void test_hstack(void)
{
    tc_csr *a = tap_random_matrix(30, 60, 2, -1, -1, 1), *b = tap_random_matrix(60, 30, 2, -1, -1, 1);
    tc_image *l = plot(0, a, 120, TC_PLOT_ALL, NULL), *r = plot(0, b, 120, TC_PLOT_ALL, NULL);
    const tc_image *two[2] = { l, r };
    tc_image *s = NULL;
    tc_error err;
    ok(tc_image_hstack(two, 2, 24, &s, &err) == TC_OK && s->width == l->width + 24 + r->width &&
       s->height == (l->height > r->height ? l->height : r->height),
       "side by side: widths and the gap add up, the taller's height");
    ok(s && holds(s, l, 0, 0) && holds(s, r, l->width + 24, 0) && s->area_x == l->area_x &&
       s->area_y == l->area_y, "  each picture at the top, the first's area kept");
    ok(s && text_in(s, l->width, 0, l->width + 24, s->height) == 0, "  white between them");
    tc_image_free(s);
    s = NULL;
    ok(tc_image_hstack(two, 0, 24, &s, &err) == TC_ERR_ARG && !s, "no pictures: refused");
    tc_image_free(l);
    tc_image_free(r);
    tc_csr_free(a);
    tc_csr_free(b);
}

static void test_ticks(void)
{
    ok(plot_nice_step(0.2) == 1 && plot_nice_step(1) == 1 && plot_nice_step(1.01) == 2 &&
       plot_nice_step(4.3) == 5 && plot_nice_step(7.8) == 10 && plot_nice_step(150) == 200 &&
       plot_nice_step(2.1e8) == 500000000, "steps 1, 2, 5 times a power of ten");
    int64_t v[8];
    int n = plot_log_ticks(128, v, 8);
    ok(n == 7 && v[0] == 1 && v[1] == 2 && v[2] == 5 && v[3] == 10 && v[6] == 100,
       "colour bar values up to 128: 1 2 5 10 20 50 100");
    ok(plot_log_ticks(1, v, 8) == 1 && v[0] == 1, "  up to 1: 1");
    ok(plot_log_ticks(INT64_MAX, v, 8) == 8, "  no more than asked for");
}

int main(void)
{
    test_ticks();
    test_placement();
    test_axes();
    test_title();
    test_colorbar();
    test_parts();
    test_hstack();
    return done_testing();
}
