/*
 * sparse_arrays.h: a sparse matrix as the arrays another library stored
 * (SciPy's .npz, binsparse, AnnData), before it becomes a tc_csr
 * (sparse_arrays.c). The readers of those containers only find the arrays;
 * checking them and building the canonical matrix is done once, here, by
 * the same path tc_mtx_read takes (tc_csr_from_coo_sym: rows bucketed,
 * columns sorted, duplicates summed, symmetric triangles mirrored).
 * Internal to the library; not installed.
 */
#ifndef TC_SPARSE_ARRAYS_H
#define TC_SPARSE_ARRAYS_H

#include <stdint.h>

#include "tcsparse.h"

/* How the entries are listed. "Major" is the dimension the pointers run
   over: rows for CSR and DCSR, columns for CSC and DCSC; COO lists both
   coordinates of every entry. */
typedef enum tc_sparse_layout {
    TC_LAYOUT_CSR, TC_LAYOUT_CSC, TC_LAYOUT_DCSR, TC_LAYOUT_DCSC, TC_LAYOUT_COO
} tc_sparse_layout;

/* Which triangle of a symmetric or skew-symmetric matrix is listed. */
typedef enum tc_triangle { TC_TRI_ALL, TC_TRI_LOWER, TC_TRI_UPPER } tc_triangle;

/* One array as found: int64 (indices, pointers) or double (values), its
   length and its name for messages ("indptr", "pointers_to_1"). */
typedef struct tc_sparse_array {
    const char *name;
    int64_t n;
    const int64_t *i64;
    const double *f64;
} tc_sparse_array;

typedef struct tc_sparse_arrays {
    const char *what;           /* "m.npz", "m.h5: /X": starts every message */
    tc_sparse_layout layout;
    int64_t rows, cols;         /* the declared shape (checked here) */
    tc_sparse_array ptr;        /* CSR/CSC: major + 1 entries; DCSR/DCSC: one
                                   more than major_ids; unused for COO */
    tc_sparse_array major_ids;  /* DCSR/DCSC: the non-empty majors, increasing;
                                   COO: every entry's row */
    tc_sparse_array minor;      /* every entry's column (CSR, DCSR, COO) or
                                   row (CSC, DCSC) */
    tc_sparse_array val;        /* as many as minor, or one with iso, or
                                   none (f64 NULL: a pattern) */
    int iso;                    /* every entry has the value val.f64[0] */
    tc_field field;             /* real or integer when there are values */
    tc_symmetry symmetry;       /* general, or what tri lists one triangle of */
    tc_triangle tri;
} tc_sparse_arrays;

/* Checks the arrays against the shape and each other (pointers start at 0,
   never decrease and end at the number of entries; indices in range;
   DCSR/DCSC majors increasing; with a triangle, no entry outside it) and
   builds *out from them, naming the array and position of the first
   problem found (TC_ERR_FORMAT). */
tc_status tc_csr_from_arrays(const tc_sparse_arrays *s, tc_csr **out, tc_error *err);

#endif
