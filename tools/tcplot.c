/* tcplot: PNG pictures of a matrix's nonzero pattern and block density. */
#include "config.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "picture.h"

#define MAX_SIZE 8192
#define MAX_BLOCK 1024

static void usage(void)
{
    printf(
"Usage: %s [OPTIONS] MATRIX -o SPY.png [--blocks BLOCKS.png]\n"
"Draw a sparse matrix as PNG pictures: its nonzero pattern (spy plot) and the\n"
"fill of its tensor-core blocks (block-density plot), either or both.\n"
"\n"
"MATRIX is a .mtx, .mtx.gz or .tcf.h5 file, or - for Matrix Market on standard\n"
"input. A reordered .tcf.h5 is drawn in its stored (reordered) order.\n"
"\n"
"The matrix keeps its aspect ratio; its longest side is SIZE pixels (a smaller\n"
"matrix is zoomed by a whole factor instead), inside a 1-pixel grey frame.\n"
"Around it: a title (the file's name, the shape and the nonzeros), row and\n"
"column ticks (0-based indices), a colour bar with the values of the shades,\n"
"and with -f brp or rstile a legend of the two parts; --bare leaves them out.\n"
"Spy plot: each pixel a bucket of entries, white when empty, else light blue\n"
"(one nonzero) to dark navy (the fullest bucket), on a log scale.\n"
"Block-density plot: the matrix tiled in aligned HxW blocks; each pixel shows\n"
"the mean nonzeros per non-empty block in it, log scale, from dark purple (1)\n"
"through teal to yellow (H*W: full), white where there is no block.\n"
"With -f FORMAT for a format that splits the nonzeros between tensor cores\n"
"and CUDA cores (brp, rstile), the spy plot shows the split: blue where the\n"
"nonzeros of a pixel are all in the tensor-core part, orange where all are in the\n"
"CUDA-core part, the two mixed in proportion where both are, same shading.\n"
"\n"
"Options:\n"
TOOL_INPUT_HELP
"  -o, --output FILE    write the spy plot to FILE (- for standard output)\n"
"      --blocks FILE    write the block-density plot to FILE (- for standard output)\n"
"  -s, --size N         longest side of the matrix area in pixels, 1 to %d\n"
"                       (default 1024)\n"
"      --grid           always draw the block grid (light grey, on empty pixels)\n"
"      --no-grid        never draw it (default: drawn when a block spans at least\n"
"                       4 pixels a side)\n"
"  -b, --block HxW      block shape for the grid and the block plot (default 16x8)\n"
"  -f, --format NAME    csr (default): --blocks draws the aligned HxW grid;\n"
"                       brp, rstile: the spy plot shows its two parts (the copy\n"
"                       stored in a .tcf.h5 MATRIX, else built with default\n"
"                       parameters); no --blocks\n"
"      --title TEXT     the title's first line (default: MATRIX's name)\n"
"      --no-title       no title\n"
"      --no-axes        no row and column ticks\n"
"      --no-colorbar    no colour bar\n"
"      --no-legend      no legend of the parts (-f brp, rstile)\n"
"      --bare           none of these: the matrix area in its frame only\n"
"  -t, --threads N      threads to draw with (default: $TC_THREADS, else all CPUs)\n"
"  -q, --quiet          no progress bar\n"
"  -v, --verbose        say what was drawn\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Examples:\n"
"  %s graph.mtx.gz -o graph.png\n"
"  %s --size 512 --blocks blocks.png -o spy.png graph.tcf.h5\n"
"  %s -f brp graph.mtx.gz -o parts.png\n",
        tool_name, MAX_SIZE, tool_name, tool_name, tool_name);
}

enum { OPT_GRID = 256, OPT_NO_GRID, OPT_BLOCKS, OPT_TITLE, OPT_NO_TITLE, OPT_NO_AXES,
       OPT_NO_COLORBAR, OPT_NO_LEGEND, OPT_BARE };

typedef struct options {
    const char *input, *spy, *blocks;
    const tc_format *format;
    tc_plot_opts plot;
    char title[256];
} options;

/* "HxW", each side 1..MAX_BLOCK. */
static void parse_block(const char *s, tc_plot_opts *p)
{
    char *end;
    long h = strtol(s, &end, 10), w = 0;
    if (end != s && *end == 'x') {
        const char *ws = end + 1;
        w = strtol(ws, &end, 10);
        if (end == ws)
            w = 0;
    }
    if (*end || h < 1 || w < 1 || h > MAX_BLOCK || w > MAX_BLOCK)
        tool_usage_error("--block: expected HxW with sides 1 to %d (e.g. 16x8), found '%s'",
                         MAX_BLOCK, s);
    p->block_h = (int)h;
    p->block_w = (int)w;
}

/* What -f can show: csr's aligned blocks, or a format's tensor-core and
   CUDA-core parts. Any other format would give csr's picture under its
   name. */
static int drawable(const tc_format *f)
{
    return tc_format_is_canonical(f) || tc_format_has_parts(f);
}

static noreturn void refuse_format(const tc_format *f)
{
    char names[512];
    tool_format_names(names, sizeof names, drawable);
    tool_usage_error("--format: %s has no tensor-core and CUDA-core parts to draw "
                     "(tcplot draws %s)", tc_format_name(f), names);
}

static void parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "blocks", required_argument, NULL, OPT_BLOCKS },
        { "size", required_argument, NULL, 's' },
        { "grid", no_argument, NULL, OPT_GRID },
        { "no-grid", no_argument, NULL, OPT_NO_GRID },
        { "block", required_argument, NULL, 'b' },
        { "format", required_argument, NULL, 'f' },
        { "title", required_argument, NULL, OPT_TITLE },
        { "no-title", no_argument, NULL, OPT_NO_TITLE },
        { "no-axes", no_argument, NULL, OPT_NO_AXES },
        { "no-colorbar", no_argument, NULL, OPT_NO_COLORBAR },
        { "no-legend", no_argument, NULL, OPT_NO_LEGEND },
        { "bare", no_argument, NULL, OPT_BARE },
        TOOL_COMMON_LONGOPTS
    };
    static const tc_plot_opts defaults = TC_PLOT_DEFAULTS;
    memset(o, 0, sizeof *o);
    o->plot = defaults;
    o->plot.decor = TC_PLOT_ALL;
    const char *format = "csr", *title = NULL;
    int c;
    while ((c = getopt_long(argc, argv, ":o:b:s:f:" TOOL_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->spy = optarg; break;
        case OPT_BLOCKS: o->blocks = optarg; break;
        case 's': o->plot.size = (int32_t)tool_parse_long("--size", optarg, 1, MAX_SIZE); break;
        case OPT_GRID: o->plot.grid = 1; break;
        case OPT_NO_GRID: o->plot.grid = 0; break;
        case 'b': parse_block(optarg, &o->plot); break;
        case 'f': format = optarg; break;
        case OPT_TITLE: title = optarg; break;
        case OPT_NO_TITLE: o->plot.decor &= ~(unsigned)TC_PLOT_TITLE; break;
        case OPT_NO_AXES: o->plot.decor &= ~(unsigned)TC_PLOT_AXES; break;
        case OPT_NO_COLORBAR: o->plot.decor &= ~(unsigned)TC_PLOT_COLORBAR; break;
        case OPT_NO_LEGEND: o->plot.decor &= ~(unsigned)TC_PLOT_LEGEND; break;
        case OPT_BARE: o->plot.decor = 0; break;
        default: tool_common_option(c, argv, usage);
        }
    }
    if (optind != argc - 1)
        tool_usage_error(optind == argc ? "no input file" : "more than one input file");
    o->input = argv[optind];
    if (!o->spy && !o->blocks)
        tool_usage_error("nothing to draw: give -o FILE and/or --blocks FILE");
    /* a picture in place of the matrix would lose it */
    const tool_output outs[] = { { "--output", o->spy, 0 }, { "--blocks", o->blocks, 0 } };
    for (int i = 0; i < 2; i++)
        if (outs[i].path)   /* - (standard output) has no extension */
            tool_check_output_name(outs[i].option, outs[i].path,
                                   TOOL_NAMES(TOOL_NAME_PLAIN) | TOOL_NAMES(TOOL_NAME_PNG),
                                   "PNG (a name ending in .png, or without an extension)");
    tool_check_outputs(outs, 2, (const char *const *)&o->input, 1);
    o->format = tool_parse_format(format);
    if (!drawable(o->format))
        refuse_format(o->format);
    /* a picture of the parts has no blocks of its own: its tiles are packed
       from scattered or compacted columns, not the aligned HxW grid */
    if (o->blocks && !tc_format_is_canonical(o->format))
        tool_usage_error("--blocks draws the aligned HxW blocks of csr, not those of %s "
                         "(drop -f %s, or --blocks)", tc_format_name(o->format),
                         tc_format_name(o->format));
    tool_matrix_title(o->title, sizeof o->title, title, o->input);
    /* the parts drawn are a format's: say which, unless the user titled it */
    size_t len = strlen(o->title);
    if (!title && tc_format_has_parts(o->format))
        snprintf(o->title + len, sizeof o->title - len, "%s%s parts", len ? ", " : "",
                 tc_format_name(o->format));
    o->plot.title = o->title[0] ? o->title : NULL;
}

/* Draws one picture (spy or blocks) into *img. */
static tc_status draw(options *o, const tc_csr *a, int blocks, tc_image **img, tc_error *err)
{
    o->plot.progress = tool_progress("drawing");
    tc_status st = blocks ? tc_plot_blocks(a, &o->plot, img, err)
                          : tc_plot_spy(a, &o->plot, img, err);
    tool_progress_end();
    if (st)
        return st;
    tool_info("%s: %s plot, %d x %d pixels", blocks ? o->blocks : o->spy,
              blocks ? "block-density" : "spy", (*img)->width, (*img)->height);
    return TC_OK;
}

/* Which part of format f each nonzero is in (*part, to free), from the
   copy stored in the .tcf.h5 when it holds one (with the parameters it was
   built with), else from one built now with default parameters. */
static tc_status find_parts(const tool_matrix *m, const tc_format *f, uint8_t **part,
                            tc_error *err)
{
    const tc_fmt *stored = NULL;
    tc_fmt *built = NULL;
    for (int k = 0; m->tcf && k < m->tcf->nformats; k++)
        if (tc_fmt_format(m->tcf->formats[k]) == f)
            stored = m->tcf->formats[k];
    tc_status st = stored ? TC_OK : tc_fmt_build(f, m->a, NULL, &built, err);
    if (!st && !(*part = tc_malloc_array(m->a->nnz, 1, err)))
        st = TC_ERR_NOMEM;
    if (!st)
        st = tc_fmt_nnz_part(stored ? stored : built, m->a, *part, err);
    tc_fmt_free(built);
    return st;
}

/* Writes the pictures to their targets together: every target is opened
   (as a temporary file) before any is written, and they are renamed into
   place only when all were written, so that one bad target leaves no other
   picture behind. */
static tc_status write_all(const char *const *paths, tc_image *const *imgs, int n,
                           tc_error *err)
{
    tc_atomic out[2];
    int opened = 0, committed = 0;
    tc_status st = TC_OK;
    while (!st && opened < n)
        if (!(st = tc_atomic_open(&out[opened], paths[opened], 1, err)))
            opened++;
    for (int i = 0; !st && i < n; i++)
        st = tc_png_write_fp(out[i].fp, out[i].is_stdout ? "standard output" : paths[i],
                             imgs[i], err);
    while (!st && committed < n) {
        st = tc_atomic_commit(&out[committed], err);
        committed++;    /* a failed commit removes its own temporary file */
    }
    for (int i = committed; i < opened; i++)
        tc_atomic_abort(&out[i]);
    return st;
}

int main(int argc, char **argv)
{
    tool_init("tcplot", argc, argv);
    options o;
    parse_args(argc, argv, &o);

    tc_error err;
    tool_matrix in;
    int parts = o.spy && tc_format_has_parts(o.format);
    if (tool_load_matrix(o.input, parts, &in, &err))
        tool_die(&err);
    tool_info("%s: %d x %d, %lld nonzeros", o.input, in.a->rows, in.a->cols,
              (long long)in.a->nnz);
    const char *paths[2];
    tc_image *imgs[2] = { NULL, NULL };
    int n = 0;
    uint8_t *part = NULL;
    tc_status st = parts ? find_parts(&in, o.format, &part, &err) : TC_OK;
    o.plot.part = part;
    if (!st && o.spy) {
        paths[n] = o.spy;
        st = draw(&o, in.a, 0, &imgs[n++], &err);
    }
    if (!st && o.blocks) {
        paths[n] = o.blocks;
        st = draw(&o, in.a, 1, &imgs[n++], &err);
    }
    free(part);
    tool_matrix_free(&in);
    if (!st)
        st = write_all(paths, imgs, n, &err);
    for (int i = 0; i < n; i++)
        tc_image_free(imgs[i]);
    if (st)
        tool_die(&err);
    return 0;
}
