/*
 * png.c: writes a tc_image as an 8-bit RGB PNG through libpng.
 *
 * libpng reports errors by longjmp. Its "simplified" write API
 * (png_image_write_to_stdio, libpng >= 1.6) sets the jump buffer itself and
 * returns 0 with image.message filled, freeing what it allocated; so no
 * longjmp ever crosses this file and the error becomes a tc_status here.
 * The output goes through tc_atomic: a failed write leaves no file behind
 * and keeps the previous one. libpng writes no tIME chunk unless asked, so
 * the same image always gives the same bytes.
 */
#include "config.h"
#include <errno.h>
#include <png.h>
#include <string.h>

#include "tcsparse.h"

tc_status tc_png_write_fp(FILE *fp, const char *name, const tc_image *img, tc_error *err)
{
    if (!img || !img->rgb || img->width < 1 || img->height < 1)
        return tc_error_set(err, TC_ERR_ARG, "%s: no picture to write", name);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->width;
    pi.height = (png_uint_32)img->height;
    pi.format = PNG_FORMAT_RGB;
    errno = 0;
    if (png_image_write_to_stdio(&pi, fp, 0, img->rgb, 0, NULL))
        return TC_OK;
    /* libpng's "Write Error" says nothing of why: add errno if set. */
    if (errno)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot write PNG (%s)", name,
                              pi.message);
    return tc_error_set(err, TC_ERR_IO, "%s: cannot write PNG: %s", name, pi.message);
}

tc_status tc_png_write(const char *path, const tc_image *img, tc_error *err)
{
    tc_atomic out;
    tc_status st = tc_atomic_open(&out, path, 1, err);
    if (st != TC_OK)
        return st;
    st = tc_png_write_fp(out.fp, out.is_stdout ? "standard output" : path, img, err);
    if (st != TC_OK) {
        tc_atomic_abort(&out);
        return st;
    }
    return tc_atomic_commit(&out, err);
}
