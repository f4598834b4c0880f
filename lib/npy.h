/*
 * npy.h: NumPy's .npy array format (the members of a .npz), as its
 * specification (numpy.lib.format) defines it: the magic "\x93NUMPY", a
 * version, a header that is a Python dict literal with 'descr',
 * 'fortran_order' and 'shape', then the elements (lib/npy.c). Only what
 * SciPy's sparse matrices use: little-endian (or one-byte) booleans,
 * integers and floats, byte and unicode strings. Internal to the library;
 * not installed.
 */
#ifndef TC_NPY_H
#define TC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "tcsparse.h"

#define TC_NPY_MAX_RANK 4

typedef struct tc_npy {
    char kind;                  /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float,
                                   'S' bytes, 'U' unicode (UCS-4) */
    int size;                   /* bytes per element */
    char descr[32];             /* as written ("<i4"), for messages */
    int rank;
    int64_t shape[TC_NPY_MAX_RANK];
    int64_t count;              /* elements: the product of shape */
    const unsigned char *data;  /* count * size bytes inside the parsed buffer */
} tc_npy;

/* Parses the .npy in buf (len bytes); `what` ("m.npz: indices.npy") starts
   every message. Refuses a bad magic or header, big-endian or other
   dtypes, and data that is not exactly count * size bytes. */
tc_status tc_npy_parse(const void *buf, size_t len, const char *what, tc_npy *out,
                       tc_error *err);

/* The elements of a 1-D integer array as int64 (unsigned ones above
   INT64_MAX refused); *out malloc'ed (non-NULL when empty). */
tc_status tc_npy_to_i64(const tc_npy *a, const char *what, int64_t **out, tc_error *err);
/* The elements of a 1-D boolean, integer or float array as double. */
tc_status tc_npy_to_f64(const tc_npy *a, const char *what, double **out, tc_error *err);
/* The text of a 0-D or one-element byte or unicode string array (ASCII
   only), NUL-terminated, into buf of size bytes. */
tc_status tc_npy_to_text(const tc_npy *a, const char *what, char *buf, size_t size,
                         tc_error *err);

/* A new .npy in memory: header for descr ("<i4", "<f8", "|S3") and shape
   (rank 0 or 1: count elements), then count elements of data, already in
   little-endian order. *out is malloc'ed, *len its size. */
tc_status tc_npy_build(const char *descr, int rank, int64_t count, const void *data,
                       size_t elem_size, void **out, size_t *len, tc_error *err);

#endif
