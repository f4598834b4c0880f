/*
 * fuzz_layout.c: libFuzzer target for the host side of the rstile kernels'
 * layout (formats/rstile_layout.c): the arrays kernels/rstile.cu uploads,
 * built from any small matrix the format accepts, must keep every promise
 * rstile_layout_check restates (segments, padded value starts, fp16
 * values at their row's scale decoding back to the matrix, the window
 * index).
 *
 * The input (fuzz_small_matrix): byte 0 the rows and byte 1 the columns
 * (up to 70: windows of 16 rows, cut and not), byte 2 flags (pattern, a dense row, a dense
 * column), bytes 3-5 the parameters threshold (0-15 or auto), split (0-7
 * or auto) and min_density (0-31 or the default), then four bytes per
 * entry: row, column, a signed mantissa and an exponent of -48 .. 48, so
 * that one row holds magnitudes far apart (its scale is its largest; the
 * smallest become fp16 subnormals or zero). Values stay finite: the
 * layout's scale of a row holding an Inf or a NaN is 1 and its other
 * values are not meant to survive.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tcsparse.h"
#include "formats.h"
#include "fuzz.h"
#include "rstile_layout_check.h"

enum {
    HEAD = 6
};

/* rstile's parameters from three bytes: each its automatic or default value
   when the byte's top bit is set. */
static tc_status params_of(const uint8_t *b, tc_params *p, tc_error *err)
{
    char text[96];
    snprintf(text, sizeof text, "threshold=%d,split=%d,min_density=%g",
             b[0] & 0x80 ? -1 : b[0] % 16, b[1] & 0x80 ? -1 : b[1] % 8,
             b[2] & 0x80 ? 8.5 : b[2] % 32);
    *p = (tc_params){ 0 };
    return tc_params_parse(p, text, err);
}

/* An entry's value: a signed mantissa (byte 2) and an exponent of
   -48 .. 48 (byte 3). */
static double entry_value(const uint8_t *e)
{
    return ldexp((int8_t)e[2], e[3] % 97 - 48);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEAD)
        return 0;
    tc_csr *a = fuzz_small_matrix(data, size, HEAD, 4, entry_value);
    const int32_t rows = a->rows, cols = a->cols;
    tc_fmt *m;
    tc_params p;
    tc_error err;
    if (params_of(data + 3, &p, &err) != TC_OK)
        fuzz_fail("bad parameters: %s", err.msg);
    if (tc_fmt_build(tc_format_find("rstile"), a, &p, &m, &err) != TC_OK)
        fuzz_fail("rstile refused a %dx%d matrix: %s", rows, cols, err.msg);
    char why[256];
    if (!rstile_layout_check((const tc_rstile *)m, a, why, sizeof why))
        fuzz_fail("%dx%d: %s", rows, cols, why);
    tc_fmt_free(m);
    tc_csr_free(a);
    return 0;
}
