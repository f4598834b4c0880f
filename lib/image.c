/*
 * image.c: tc_image, the RGB pictures that lib/plot.c and lib/figure.c
 * draw and lib/png.c writes: making one, freeing one, and putting several
 * side by side.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

void tc_image_free(tc_image *img)
{
    if (!img)
        return;
    free(img->rgb);
    free(img);
}

tc_status plot_image_new(int32_t width, int32_t height, tc_image **out, tc_error *err)
{
    int64_t npix;
    if (width < 0 || height < 0 || tc_mul_overflows(width, height, &npix))
        return tc_error_set(err, TC_ERR_NOMEM, "picture of %d x %d pixels is too large",
                            (int)width, (int)height);
    tc_image *img = calloc(1, sizeof *img);
    if (!img)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory for a picture");
    img->width = width;
    img->height = height;
    img->rgb = tc_malloc_array(npix, 3, err);
    if (!img->rgb) {
        free(img);
        return TC_ERR_NOMEM;
    }
    memset(img->rgb, 255, (size_t)npix * 3);
    *out = img;
    return TC_OK;
}

tc_status tc_image_hstack(const tc_image *const *imgs, int n, int32_t gap, tc_image **out,
                          tc_error *err)
{
    if (n < 1 || gap < 0)
        return tc_error_set(err, TC_ERR_ARG, "no pictures to put side by side");
    int64_t width = (int64_t)gap * (n - 1);
    int32_t height = 0;
    for (int i = 0; i < n; i++) {
        width += imgs[i]->width;
        if (imgs[i]->height > height)
            height = imgs[i]->height;
    }
    if (width > INT32_MAX)
        return tc_error_set(err, TC_ERR_ARG, "pictures too wide to put side by side");
    tc_status st = plot_image_new((int32_t)width, height, out, err);
    if (st != TC_OK)
        return st;
    int64_t x0 = 0;
    for (int i = 0; i < n; i++) {
        const tc_image *m = imgs[i];
        for (int64_t y = 0; y < m->height; y++)
            memcpy((*out)->rgb + (y * width + x0) * 3, m->rgb + y * m->width * 3,
                   (size_t)m->width * 3);
        x0 += m->width + gap;
    }
    (*out)->area_x = imgs[0]->area_x;
    (*out)->area_y = imgs[0]->area_y;
    return TC_OK;
}
