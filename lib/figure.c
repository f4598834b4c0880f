/*
 * figure.c: the decorations around a bare picture (lib/plot.c's matrix
 * area in its frame): a title, row and column ticks, a colour bar with the
 * values of its ramp, and a legend for the parts of a format. Text and tick
 * marks are drawn by cairo in DejaVu Sans (a system font, found through
 * fontconfig); the matrix area and the colour bar are copied in pixel for
 * pixel, so the decorated picture holds exactly the bare one.
 *
 * Layout, top to bottom, each band centred: title and subtitle; the matrix
 * area with its row ticks on the left and column ticks below (as MATLAB's
 * spy: row 0 at the top); the colour bar, its caption above it and its
 * values below; the legend. Ticks are 0-based indices on a 1-2-5 step
 * wide enough that no two labels touch, so tall, wide and tiny matrices
 * all get readable axes (a 1-pixel-wide axis gets the single tick 0).
 *
 * Deterministic: no time, no locale (numbers are formatted by hand with
 * %lld), fixed font options (greyscale antialiasing, no subpixel order
 * from the desktop's settings).
 */
#include "config.h"
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"

#define FONT "DejaVu Sans"
#define TITLE_PX 15.0       /* font sizes in pixels */
#define TEXT_PX 12.0
#define PAD 10              /* outer margin */
#define GAP 8               /* between bands */
#define TICK_LEN 4
#define TICK_GAP 2          /* between a tick mark and its label */
#define BAR_W 256           /* colour bar: one pixel per step of the ramp */
#define BAR_H 12            /* per ramp */
#define SWATCH 11           /* legend squares */
#define MAX_BAR_TICKS 64
/* Ticks at least this far apart (pixels), however short their labels:
   about ten to a 1024-pixel axis, as matplotlib gives. */
#define MIN_X_SPACING 80
#define MIN_Y_SPACING 60

static const double INK = 0.15;     /* grey level of text and tick marks */

/* One axis of the matrix area: n indices over len pixels, a tick every
   step indices from 0. */
typedef struct axis_ticks {
    int64_t n;
    int32_t len;
    int64_t step;
} axis_ticks;

/* Everything placed: the figure is computed on a measuring context first,
   then drawn at these positions. */
typedef struct figure {
    const tc_image *panel;
    const plot_key *k;
    const tc_plot_opts *o;
    unsigned decor;             /* o->decor, less what there is nothing to show for */
    char title[1024];           /* o->title, as valid UTF-8 */
    char sub[160];              /* the subtitle: shape and counts */
    char caption[96];           /* above the colour bar */
    double ascent, descent;     /* of TEXT_PX, for bands of text */
    double title_ascent, title_descent;
    int32_t width, height;
    int32_t px, py;             /* panel's top-left */
    double title_y, sub_y;      /* baselines */
    axis_ticks rows, cols;
    int32_t bar_x, bar_y, bar_h;
    double bar_lo;              /* ramp position of the value 1 */
    int64_t bar_ticks[MAX_BAR_TICKS];
    int nbar_ticks;
    double caption_y, legend_y;
    int32_t legend_x;
} figure;

static void set_font(cairo_t *cr, double px, int bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
}

/* Font options fixed here, not taken from the desktop's settings, so that
   the same picture comes out everywhere the same font is installed. */
static void set_font_options(cairo_t *cr)
{
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

static double text_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

static void format_int(char *buf, size_t size, int64_t v)
{
    snprintf(buf, size, "%lld", (long long)v);
}

/* ------------------------------------------------------------------- layout */

/* The pixel (from the area's first) where index i's entry is centred. */
static int32_t tick_pixel(const axis_ticks *a, int64_t i)
{
    return (int32_t)floor(((double)i + 0.5) * a->len / (double)a->n);
}

/* The tick step of an axis: labels `room` pixels apart at least. */
static void axis_init(axis_ticks *a, int64_t n, int32_t len, double room, double min_spacing)
{
    a->n = n;
    a->len = len;
    double spacing = room > min_spacing ? room : min_spacing;
    a->step = n > 0 && len > 0 ? plot_nice_step(spacing * (double)n / len) : 1;
}

/* Colour bar values: 1, 2, 5, 10, ... and max itself, dropping those whose
   labels would touch their neighbour's (max always stays: it is the scale's
   end). */
static void bar_ticks(figure *f, cairo_t *cr)
{
    int64_t v[MAX_BAR_TICKS];
    int n = plot_log_ticks(f->k->max, v, MAX_BAR_TICKS - 1);
    if (n == 0 || v[n - 1] != f->k->max)
        v[n++] = f->k->max;
    char buf[32];
    double last_right = -1e9, max_left;
    format_int(buf, sizeof buf, f->k->max);
    max_left = BAR_W - 1 - text_width(cr, buf) / 2;
    f->nbar_ticks = 0;
    for (int i = 0; i < n; i++) {
        double x = (plot_key_position(f->k, (double)v[i]) - f->bar_lo) / (1 - f->bar_lo) *
                   (BAR_W - 1);
        format_int(buf, sizeof buf, v[i]);
        double w = text_width(cr, buf), left = x - w / 2, right = x + w / 2;
        int is_max = i == n - 1;
        if (!is_max && (left < last_right + 6 || right > max_left - 6))
            continue;
        f->bar_ticks[f->nbar_ticks++] = v[i];
        last_right = right;
    }
}

/* What there is something to show for: the colour bar needs more than one
   value on its ramp, the legend a picture with parts. */
static unsigned shown(const plot_key *k, unsigned decor)
{
    if (k->max <= 1)
        decor &= ~(unsigned)TC_PLOT_COLORBAR;
    if (!k->parts)
        decor &= ~(unsigned)TC_PLOT_LEGEND;
    return decor;
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
   forms, no surrogates, nothing above U+10FFFF), 0 if there is none. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int n;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* src with every byte that does not start valid UTF-8 (a file name in
   Latin-1, say) replaced by '?': cairo draws only valid UTF-8. */
static void utf8_clean(char *dst, size_t size, const char *src)
{
    size_t j = 0;
    for (const unsigned char *s = (const unsigned char *)src; *s && j + 4 < size;) {
        int n = utf8_length(s);
        if (n == 0) {
            dst[j++] = '?';
            s++;
            continue;
        }
        memcpy(dst + j, s, (size_t)n);
        j += (size_t)n;
        s += n;
    }
    dst[j] = 0;
}

static void make_texts(figure *f)
{
    const plot_key *k = f->k;
    utf8_clean(f->title, sizeof f->title, f->o->title ? f->o->title : "");
    int n = snprintf(f->sub, sizeof f->sub, "%d x %d, %lld nonzero%s", (int)k->rows,
                     (int)k->cols, (long long)k->nnz, k->nnz == 1 ? "" : "s");
    if (k->blocks)
        snprintf(f->sub + n, sizeof f->sub - (size_t)n, " in %lld aligned %dx%d block%s",
                 (long long)k->nblocks, (int)k->block_h, (int)k->block_w,
                 k->nblocks == 1 ? "" : "s");
    if (k->blocks)
        snprintf(f->caption, sizeof f->caption, "mean nonzeros per non-empty %dx%d block",
                 (int)k->block_h, (int)k->block_w);
    else
        snprintf(f->caption, sizeof f->caption, "nonzeros per pixel");
}

static const char *const LEGEND[2] = { "tensor-core part", "CUDA-core part" };

static double legend_width(cairo_t *cr)
{
    return 2 * (SWATCH + 4) + text_width(cr, LEGEND[0]) + 16 + text_width(cr, LEGEND[1]);
}

static int32_t max_i(int32_t a, int32_t b) { return a > b ? a : b; }

static void layout(figure *f, cairo_t *cr)
{
    const tc_image *p = f->panel;
    const int has_title = f->decor & TC_PLOT_TITLE, has_axes = f->decor & TC_PLOT_AXES;
    const int has_bar = f->decor & TC_PLOT_COLORBAR, has_legend = f->decor & TC_PLOT_LEGEND;
    cairo_font_extents_t fe;
    set_font(cr, TITLE_PX, 1);
    cairo_font_extents(cr, &fe);
    f->title_ascent = fe.ascent;
    f->title_descent = fe.descent;
    double title_w = text_width(cr, f->title);
    set_font(cr, TEXT_PX, 0);
    cairo_font_extents(cr, &fe);
    f->ascent = fe.ascent;
    f->descent = fe.descent;
    double line = ceil(fe.ascent + fe.descent);

    /* Axes: the widest label is the last index's. */
    char buf[32];
    double row_label_w = 0, col_label_w = 0;
    if (has_axes && f->k->rows > 0) {
        format_int(buf, sizeof buf, f->k->rows - 1);
        row_label_w = ceil(text_width(cr, buf));
    }
    if (has_axes && f->k->cols > 0) {
        format_int(buf, sizeof buf, f->k->cols - 1);
        col_label_w = ceil(text_width(cr, buf));
    }
    axis_init(&f->rows, f->k->rows, p->height - 2, line + 4, MIN_Y_SPACING);
    axis_init(&f->cols, f->k->cols, p->width - 2, col_label_w + 12, MIN_X_SPACING);

    /* The block of the axes and the area: a row label may stand out above
       and below the area (a matrix of one row), a column label left and
       right of it (a matrix of one column). */
    int32_t left = has_axes ? (int32_t)row_label_w + TICK_LEN + TICK_GAP : 0;
    int32_t col_over = has_axes ? (int32_t)ceil(col_label_w / 2) : 0;
    int32_t row_over = has_axes ? (int32_t)ceil(line / 2) : 0;
    int32_t block_left = max_i(left, col_over - 1);
    int32_t block_w = block_left + p->width + max_i(col_over - 1, 0);
    /* the bar's end labels stand out by half their width */
    int32_t bar_w = 0;
    if (has_bar) {
        format_int(buf, sizeof buf, f->k->max);
        bar_w = max_i(BAR_W + (int32_t)ceil(text_width(cr, buf)),
                      (int32_t)ceil(text_width(cr, f->caption)));
    }
    int32_t inner = max_i(block_w, (int32_t)ceil(title_w));
    if (has_title)
        inner = max_i(inner, (int32_t)ceil(text_width(cr, f->sub)));
    inner = max_i(inner, bar_w);
    if (has_legend)
        inner = max_i(inner, (int32_t)ceil(legend_width(cr)));
    f->width = inner + 2 * PAD;

    double y = PAD;
    if (has_title) {
        if (f->title[0]) {
            f->title_y = y + f->title_ascent;
            y += ceil(f->title_ascent + f->title_descent) + 2;
        }
        f->sub_y = y + f->ascent;
        y += line + GAP;
    }
    f->px = (f->width - block_w) / 2 + block_left;
    f->py = (int32_t)y + max_i(row_over - 1, 0);
    y = f->py + p->height;
    if (has_axes)
        y = fmax(y + TICK_LEN + TICK_GAP + line, f->py + p->height + row_over);
    if (has_bar) {
        y += GAP;
        f->caption_y = y + f->ascent;
        y += line + 2;
        f->bar_x = (f->width - BAR_W) / 2;
        f->bar_y = (int32_t)y;
        f->bar_h = f->k->parts ? 2 * BAR_H : BAR_H;
        f->bar_lo = plot_key_position(f->k, 1);
        bar_ticks(f, cr);
        y += f->bar_h + TICK_LEN + TICK_GAP + line;
    }
    if (has_legend) {
        y += GAP;
        f->legend_x = (f->width - (int32_t)ceil(legend_width(cr))) / 2;
        f->legend_y = y;
        y += fmax(line, SWATCH);
    }
    f->height = (int32_t)ceil(y) + PAD;
}

/* -------------------------------------------------------------------- pixels */

static void put_rgb(unsigned char *data, int stride, int64_t x, int64_t y, const uint8_t rgb[3])
{
    uint32_t *p = (uint32_t *)(data + y * stride) + x;
    *p = 0xff000000u | (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2];
}

/* The bare picture, pixel for pixel, and the colour bar's ramps, one
   column per position. */
static void put_pixels(const figure *f, cairo_surface_t *s)
{
    cairo_surface_flush(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    const tc_image *p = f->panel;
    for (int64_t y = 0; y < p->height; y++)
        for (int64_t x = 0; x < p->width; x++)
            put_rgb(data, stride, f->px + x, f->py + y, p->rgb + (y * p->width + x) * 3);
    if (f->decor & TC_PLOT_COLORBAR) {
        const plot_ramp_id ramps[2] = { f->k->blocks ? PLOT_VIRIDIS : PLOT_BLUES, PLOT_ORANGES };
        int nramps = f->k->parts ? 2 : 1;
        for (int x = 0; x < BAR_W; x++) {
            double t = f->bar_lo + (1 - f->bar_lo) * x / (BAR_W - 1);
            for (int r = 0; r < nramps; r++) {
                uint8_t rgb[3];
                plot_ramp(ramps[r], t, rgb);
                for (int y = 0; y < BAR_H; y++)
                    put_rgb(data, stride, f->bar_x + x, f->bar_y + r * BAR_H + y, rgb);
            }
        }
    }
    cairo_surface_mark_dirty(s);
}

/* ---------------------------------------------------------------- drawing */

static void fill_rect(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
}

/* s centred on x (align 0.5), or ending at x (align 1), baseline y. */
static void show_text(cairo_t *cr, const char *s, double x, double y, double align)
{
    cairo_move_to(cr, round(x - align * text_width(cr, s)), round(y));
    cairo_show_text(cr, s);
}

/* The vertical offset from a label's centre to its baseline. */
static double centre_to_baseline(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return -(e.y_bearing + e.height / 2);
}

static void draw_axes(const figure *f, cairo_t *cr)
{
    char buf[32];
    const int32_t x0 = f->px + 1, y0 = f->py + 1, bottom = f->py + f->panel->height;
    for (int64_t i = 0; f->rows.n > 0 && i < f->rows.n; i += f->rows.step) {
        double y = y0 + tick_pixel(&f->rows, i);
        fill_rect(cr, f->px - TICK_LEN, y, TICK_LEN, 1);
        format_int(buf, sizeof buf, i);
        show_text(cr, buf, f->px - TICK_LEN - TICK_GAP, y + 0.5 + centre_to_baseline(cr, buf), 1);
    }
    for (int64_t j = 0; f->cols.n > 0 && j < f->cols.n; j += f->cols.step) {
        double x = x0 + tick_pixel(&f->cols, j);
        fill_rect(cr, x, bottom, 1, TICK_LEN);
        format_int(buf, sizeof buf, j);
        show_text(cr, buf, x + 0.5, bottom + TICK_LEN + TICK_GAP + f->ascent, 0.5);
    }
}

static void draw_bar(const figure *f, cairo_t *cr)
{
    char buf[32];
    show_text(cr, f->caption, f->width / 2.0, f->caption_y, 0.5);
    const int32_t below = f->bar_y + f->bar_h;
    for (int i = 0; i < f->nbar_ticks; i++) {
        double t = plot_key_position(f->k, (double)f->bar_ticks[i]);
        double x = f->bar_x + round((t - f->bar_lo) / (1 - f->bar_lo) * (BAR_W - 1));
        fill_rect(cr, x, below, 1, TICK_LEN);
        format_int(buf, sizeof buf, f->bar_ticks[i]);
        show_text(cr, buf, x + 0.5, below + TICK_LEN + TICK_GAP + f->ascent, 0.5);
    }
}

static void draw_legend(const figure *f, cairo_t *cr)
{
    double x = f->legend_x, mid = f->legend_y + SWATCH / 2.0;
    const plot_ramp_id hue[2] = { PLOT_BLUES, PLOT_ORANGES };
    for (int i = 0; i < 2; i++) {
        uint8_t rgb[3];
        plot_ramp(hue[i], 0.5, rgb);
        cairo_set_source_rgb(cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
        fill_rect(cr, x, f->legend_y, SWATCH, SWATCH);
        cairo_set_source_rgb(cr, INK, INK, INK);
        x += SWATCH + 4;
        show_text(cr, LEGEND[i], x, mid + centre_to_baseline(cr, LEGEND[i]), 0);
        x += text_width(cr, LEGEND[i]) + 16;
    }
}

static void draw(const figure *f, cairo_t *cr)
{
    set_font_options(cr);
    cairo_set_source_rgb(cr, INK, INK, INK);
    if (f->decor & TC_PLOT_TITLE) {
        if (f->title[0]) {
            set_font(cr, TITLE_PX, 1);
            show_text(cr, f->title, f->width / 2.0, f->title_y, 0.5);
        }
        set_font(cr, TEXT_PX, 0);
        show_text(cr, f->sub, f->width / 2.0, f->sub_y, 0.5);
    }
    set_font(cr, TEXT_PX, 0);
    if (f->decor & TC_PLOT_AXES)
        draw_axes(f, cr);
    if (f->decor & TC_PLOT_COLORBAR)
        draw_bar(f, cr);
    if (f->decor & TC_PLOT_LEGEND)
        draw_legend(f, cr);
}

/* ----------------------------------------------------------------- output */

static tc_status cairo_failed(cairo_status_t cs, tc_error *err)
{
    return tc_error_set(err, cs == CAIRO_STATUS_NO_MEMORY ? TC_ERR_NOMEM : TC_ERR_IO,
                        "cannot draw the picture's decorations: %s", cairo_status_to_string(cs));
}

/* The cairo surface as an RGB tc_image. */
static tc_status surface_to_image(cairo_surface_t *s, const figure *f, tc_image **out,
                                  tc_error *err)
{
    tc_status st = plot_image_new(f->width, f->height, out, err);
    if (st != TC_OK)
        return st;
    cairo_surface_flush(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int64_t y = 0; y < f->height; y++) {
        const uint32_t *row = (const uint32_t *)(data + y * stride);
        uint8_t *q = (*out)->rgb + y * f->width * 3;
        for (int64_t x = 0; x < f->width; x++, q += 3) {
            q[0] = (uint8_t)(row[x] >> 16);
            q[1] = (uint8_t)(row[x] >> 8);
            q[2] = (uint8_t)row[x];
        }
    }
    (*out)->area_x = f->px;
    (*out)->area_y = f->py;
    return TC_OK;
}

/* A 1 x 1 surface to measure text on, before the figure's size is known. */
static tc_status measure(figure *f, tc_error *err)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(s);
    set_font_options(cr);
    layout(f, cr);
    cairo_status_t cs = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return cs == CAIRO_STATUS_SUCCESS ? TC_OK : cairo_failed(cs, err);
}

tc_status plot_decorate(const tc_image *panel, const plot_key *k, const tc_plot_opts *o,
                        tc_image **out, tc_error *err)
{
    figure f = { .panel = panel, .k = k, .o = o, .decor = shown(k, o->decor) };
    make_texts(&f);
    tc_status st = measure(&f, err);
    if (st != TC_OK)
        return st;
    /* cairo's image surfaces stop at 32767 pixels a side */
    if (f.width > 32767 || f.height > 32767)
        return tc_error_set(err, TC_ERR_ARG, "picture of %d x %d pixels is too large",
                            (int)f.width, (int)f.height);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, f.width, f.height);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    put_pixels(&f, s);
    draw(&f, cr);
    cairo_status_t cs = cairo_status(cr);
    st = cs == CAIRO_STATUS_SUCCESS ? surface_to_image(s, &f, out, err) : cairo_failed(cs, err);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return st;
}
