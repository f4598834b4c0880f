/*
 * npy.c: reading and writing NumPy .npy arrays (npy.h). The header is a
 * Python dict literal; only the three keys NumPy writes are accepted, and
 * only the literals they take (strings, True/False, tuples of integers),
 * so a hostile header can neither run nor confuse anything.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static const char MAGIC[] = "\x93NUMPY";
enum { MAGIC_LEN = 6, ALIGN = 64 };

static uint64_t le_get(const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int b = size - 1; b >= 0; b--)
        v = v << 8 | p[b];
    return v;
}

/* ------------------------------------------------------------------------ */
/* The header dict                                                          */
/* ------------------------------------------------------------------------ */

typedef struct hdr_parser {
    const char *p, *end;
    const char *what;
    tc_error *err;
} hdr_parser;

static tc_status hdr_fail(hdr_parser *h, const char *expected)
{
    return tc_error_set(h->err, TC_ERR_FORMAT, "%s: malformed .npy header at \"%.20s\" "
                        "(expected %s)", h->what, h->p < h->end ? h->p : "", expected);
}

static void skip_space(hdr_parser *h)
{
    while (h->p < h->end && isspace((unsigned char)*h->p))
        h->p++;
}

static int eat(hdr_parser *h, char c)
{
    skip_space(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A quoted string (no escapes: NumPy's keys and dtypes have none). */
static tc_status hdr_string(hdr_parser *h, char *buf, size_t size)
{
    skip_space(h);
    char q = h->p < h->end ? *h->p : 0;
    if (q != '\'' && q != '"')
        return hdr_fail(h, "a quoted string");
    const char *s = ++h->p;
    while (h->p < h->end && *h->p != q && *h->p != '\\')
        h->p++;
    if (h->p >= h->end || *h->p != q || (size_t)(h->p - s) >= size)
        return hdr_fail(h, "a short quoted string");
    memcpy(buf, s, (size_t)(h->p - s));
    buf[h->p - s] = '\0';
    h->p++;
    return TC_OK;
}

static tc_status hdr_bool(hdr_parser *h, int *v)
{
    skip_space(h);
    size_t left = (size_t)(h->end - h->p);
    if (left >= 4 && memcmp(h->p, "True", 4) == 0) {
        h->p += 4;
        *v = 1;
    } else if (left >= 5 && memcmp(h->p, "False", 5) == 0) {
        h->p += 5;
        *v = 0;
    } else {
        return hdr_fail(h, "True or False");
    }
    return TC_OK;
}

/* "(3,)", "()", "(2, 4)": the extents, each a non-negative integer whose
   product fits in int64. */
static tc_status hdr_shape(hdr_parser *h, tc_npy *a)
{
    if (!eat(h, '('))
        return hdr_fail(h, "a shape tuple");
    a->rank = 0;
    a->count = 1;
    while (!eat(h, ')')) {
        skip_space(h);
        if (h->p >= h->end || !isdigit((unsigned char)*h->p) || a->rank == TC_NPY_MAX_RANK)
            return hdr_fail(h, "at most 4 non-negative extents");
        int64_t v = 0;
        while (h->p < h->end && isdigit((unsigned char)*h->p)) {
            if (v > (INT64_MAX - 9) / 10)
                return hdr_fail(h, "an extent that fits in 64 bits");
            v = v * 10 + (*h->p++ - '0');
        }
        a->shape[a->rank++] = v;
        if (tc_mul_overflows(a->count, v, &a->count))
            return hdr_fail(h, "extents whose product fits in 64 bits");
        if (!eat(h, ',') && (skip_space(h), h->p >= h->end || *h->p != ')'))
            return hdr_fail(h, "',' or ')'");
    }
    return TC_OK;
}

/* '<i4' and the like: the byte order, kind and size SciPy's arrays use. */
static tc_status parse_descr(hdr_parser *h, const char *d, tc_npy *a)
{
    snprintf(a->descr, sizeof a->descr, "%s", d);
    char order = d[0], *end;
    a->kind = order ? d[1] : 0;
    long size = a->kind ? strtol(d + 2, &end, 10) : 0;
    int ok = a->kind && isdigit((unsigned char)d[2]) && *end == '\0' && size > 0 &&
             size <= 1 << 20;
    if (ok) {
        switch (a->kind) {
        case 'b': ok = size == 1; break;
        case 'i': case 'u': ok = size == 1 || size == 2 || size == 4 || size == 8; break;
        case 'f': ok = size == 4 || size == 8; break;
        case 'S': break;
        case 'U': size *= 4; break;
        default: ok = 0;
        }
    }
    if (!ok)
        return tc_error_set(h->err, TC_ERR_UNSUPPORTED, "%s: dtype '%s' is not supported "
                            "(expected bool, int8 to int64, uint8 to uint64, float32, float64 "
                            "or a string)", h->what, d);
    if (order != '<' && !(order == '|' && (size == 1 || a->kind == 'S')))
        return tc_error_set(h->err, TC_ERR_UNSUPPORTED, "%s: dtype '%s' is not little-endian "
                            "(expected '<' or, for one-byte types, '|')", h->what, d);
    a->size = (int)size;
    return TC_OK;
}

static tc_status parse_header(hdr_parser *h, tc_npy *a)
{
    char key[32], descr[sizeof a->descr] = "";   /* a longer descr is refused whole */
    int fortran = 0, seen = 0;
    if (!eat(h, '{'))
        return hdr_fail(h, "'{'");
    while (!eat(h, '}')) {
        tc_status st = hdr_string(h, key, sizeof key);
        if (st == TC_OK && !eat(h, ':'))
            st = hdr_fail(h, "':'");
        if (st == TC_OK && strcmp(key, "descr") == 0) {
            st = hdr_string(h, descr, sizeof descr);
            seen |= 1;
        } else if (st == TC_OK && strcmp(key, "fortran_order") == 0) {
            st = hdr_bool(h, &fortran);
            seen |= 2;
        } else if (st == TC_OK && strcmp(key, "shape") == 0) {
            st = hdr_shape(h, a);
            seen |= 4;
        } else if (st == TC_OK) {
            st = hdr_fail(h, "the keys descr, fortran_order and shape");
        }
        if (st != TC_OK)
            return st;
        if (!eat(h, ',') && (skip_space(h), h->p >= h->end || *h->p != '}'))
            return hdr_fail(h, "',' or '}'");
    }
    if (seen != 7)
        return tc_error_set(h->err, TC_ERR_FORMAT, "%s: .npy header lacks %s", h->what,
                            !(seen & 1) ? "'descr'" : !(seen & 2) ? "'fortran_order'"
                                                                  : "'shape'");
    if (fortran && a->rank > 1)
        return tc_error_set(h->err, TC_ERR_UNSUPPORTED, "%s: a Fortran-ordered array of rank "
                            "%d is not supported (expected C order)", h->what, a->rank);
    return parse_descr(h, descr, a);
}

tc_status tc_npy_parse(const void *buf, size_t len, const char *what, tc_npy *a,
                       tc_error *err)
{
    const unsigned char *b = buf;
    memset(a, 0, sizeof *a);
    if (len < MAGIC_LEN + 4 || memcmp(b, MAGIC, MAGIC_LEN) != 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not a .npy array (expected the magic "
                            "\"\\x93NUMPY\")", what);
    int major = b[6];
    size_t at = major == 1 ? 10 : 12;
    if (major < 1 || major > 3 || len < at)
        return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: .npy version %d.%d is not supported "
                            "(expected 1.0, 2.0 or 3.0)", what, b[6], b[7]);
    uint64_t hlen = le_get(b + 8, major == 1 ? 2 : 4);
    if (hlen > len - at)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: .npy header of %" PRIu64 " bytes runs past "
                            "the end (%zu bytes)", what, hlen, len);
    hdr_parser h = { (const char *)b + at, (const char *)b + at + hlen, what, err };
    tc_status st = parse_header(&h, a);
    if (st != TC_OK)
        return st;
    skip_space(&h);
    if (h.p != h.end)
        return hdr_fail(&h, "the end of the header");
    size_t data_at = at + (size_t)hlen;
    int64_t bytes;
    if (tc_mul_overflows(a->count, a->size, &bytes))
        return tc_error_set(err, TC_ERR_FORMAT, "%s: %" PRId64 " elements of '%s' are too many",
                            what, a->count, a->descr);
    if ((uint64_t)bytes != len - data_at)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: expected %" PRId64 " bytes of data (%"
                            PRId64 " elements of '%s'), found %zu", what, bytes, a->count,
                            a->descr, len - data_at);
    a->data = b + data_at;
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Elements                                                                 */
/* ------------------------------------------------------------------------ */

static tc_status want_vector(const tc_npy *a, const char *what, const char *kinds,
                             const char *expected, tc_error *err)
{
    if (!strchr(kinds, a->kind))
        return tc_error_set(err, TC_ERR_FORMAT, "%s: dtype '%s', expected %s", what, a->descr,
                            expected);
    if (a->rank != 1)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: expected a 1-D array, found rank %d", what,
                            a->rank);
    return TC_OK;
}

tc_status tc_npy_to_i64(const tc_npy *a, const char *what, int64_t **out, tc_error *err)
{
    *out = NULL;
    tc_status st = want_vector(a, what, "iu", "an integer array (int32 or int64)", err);
    if (st != TC_OK)
        return st;
    int64_t *v = tc_malloc_array(a->count, sizeof *v, err);
    if (!v) {
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", what);
        return TC_ERR_NOMEM;
    }
    int sbits = 64 - 8 * a->size;
    for (int64_t k = 0; k < a->count; k++) {
        uint64_t u = le_get(a->data + k * a->size, a->size);
        if (a->kind == 'u' && u > INT64_MAX) {
            free(v);
            return tc_error_set(err, TC_ERR_FORMAT, "%s: element %" PRId64 " is %" PRIu64
                                ", beyond int64", what, k, u);
        }
        /* sign-extend: shift the element's top bit to bit 63 and back */
        v[k] = a->kind == 'i' ? (int64_t)(u << sbits) >> sbits : (int64_t)u;
    }
    *out = v;
    return TC_OK;
}

tc_status tc_npy_to_f64(const tc_npy *a, const char *what, double **out, tc_error *err)
{
    *out = NULL;
    tc_status st = want_vector(a, what, "biuf", "a boolean, integer or float array", err);
    int64_t *iv = NULL;
    if (st == TC_OK && (a->kind == 'i' || a->kind == 'u'))
        st = tc_npy_to_i64(a, what, &iv, err);
    if (st != TC_OK)
        return st;
    double *v = tc_malloc_array(a->count, sizeof *v, err);
    if (!v) {
        free(iv);
        tc_error_prefix(err, TC_ERR_NOMEM, "%s", what);
        return TC_ERR_NOMEM;
    }
    for (int64_t k = 0; k < a->count; k++) {
        uint64_t u = a->kind == 'f' ? le_get(a->data + k * a->size, a->size) : 0;
        if (a->kind == 'b') {
            v[k] = a->data[k] != 0;
        } else if (iv) {
            v[k] = (double)iv[k];
        } else if (a->size == 4) {
            uint32_t u32 = (uint32_t)u;
            float f;
            memcpy(&f, &u32, sizeof f);
            v[k] = f;
        } else {
            memcpy(&v[k], &u, sizeof v[k]);
        }
    }
    free(iv);
    *out = v;
    return TC_OK;
}

tc_status tc_npy_to_text(const tc_npy *a, const char *what, char *buf, size_t size,
                         tc_error *err)
{
    if ((a->kind != 'S' && a->kind != 'U') || a->count != 1 || a->rank > 1)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: dtype '%s' with %" PRId64 " elements, "
                            "expected one string", what, a->descr, a->count);
    int width = a->kind == 'U' ? 4 : 1;
    size_t n = 0;
    for (int at = 0; at < a->size; at += width) {
        uint64_t c = le_get(a->data + at, width);
        if (c == 0)
            break;
        if (c > 0x7e || c < 0x20 || n + 1 >= size)
            return tc_error_set(err, TC_ERR_FORMAT, "%s: expected a short ASCII string", what);
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return TC_OK;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

tc_status tc_npy_build(const char *descr, int rank, int64_t count, const void *data,
                       size_t elem_size, void **out, size_t *len, tc_error *err)
{
    char hdr[160];
    int n = rank == 0 ? snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, "
                                 "'shape': (), }", descr)
                      : snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, "
                                 "'shape': (%" PRId64 ",), }", descr, count);
    /* spaces, then '\n', so that the data starts on a 64-byte boundary */
    size_t total_hdr = ((size_t)MAGIC_LEN + 4 + (size_t)n + 1 + ALIGN - 1) / ALIGN * ALIGN;
    size_t hlen = total_hdr - MAGIC_LEN - 4;
    int64_t bytes;
    if (tc_mul_overflows(count, (int64_t)elem_size, &bytes) ||
        !(*out = tc_malloc_array((int64_t)total_hdr + bytes, 1, err)))
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory for a .npy of %" PRId64
                            " elements", count);
    unsigned char *b = *out;
    memcpy(b, MAGIC, MAGIC_LEN);
    b[6] = 1;
    b[7] = 0;
    b[8] = (unsigned char)(hlen & 0xff);
    b[9] = (unsigned char)(hlen >> 8);
    memcpy(b + 10, hdr, (size_t)n);
    memset(b + 10 + n, ' ', hlen - (size_t)n - 1);
    b[total_hdr - 1] = '\n';
    memcpy(b + total_hdr, data, (size_t)bytes);
    if (!host_is_little_endian() && elem_size > 1)
        for (int64_t k = 0; k < count; k++) {
            unsigned char *e = b + total_hdr + k * (int64_t)elem_size;
            for (size_t i = 0; i < elem_size / 2; i++) {
                unsigned char t = e[i];
                e[i] = e[elem_size - 1 - i];
                e[elem_size - 1 - i] = t;
            }
        }
    *len = total_hdr + (size_t)bytes;
    return TC_OK;
}
