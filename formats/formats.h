/*
 * formats.h: the vtable every tensor-core format fills in, and the registry.
 *
 * A format is one file formats/NAME.c (plus its header) that defines
 * `const tc_format tc_format_NAME`, one file kernels/NAME.cu that defines
 * its kernel `const tc_kernel tc_kernel_NAME`, and one entry in
 * formats/format_registry.h that names both (TC_FORMAT_CPU_GPU(NAME), or
 * TC_FORMAT_CPU(NAME) for a format without a kernel). formats/formats.c
 * builds the formats registry from that entry and the GPU library its
 * kernel table, so nothing else in the tree names a format; in a build
 * without CUDA, or where the GPU library cannot be loaded, the GPU side is
 * empty (kernels.h).
 */
#ifndef TC_FORMATS_H
#define TC_FORMATS_H

#include "tcsparse.h"
#include "h5group.h"

/* Every built matrix starts with this header; formats embed it first and
   cast (struct my_fmt { tc_fmt base; ... }). */
struct tc_fmt {
    const tc_format *kind;
    int32_t rows, cols;
    int64_t nnz;
    int has_values;
    tc_params params;       /* the parameters it was built with (all of them,
                               defaults filled in) */
};

struct tc_format {
    const char *name;
    const char *description;
    const tc_param_def *params;
    int nparams;
    /* 1 for the format that is /matrix itself (csr): nothing is stored
       under /formats for it, and write_h5 / read_h5 are NULL. */
    int canonical;

    tc_status (*build)(const tc_csr *a, const tc_params *p, tc_fmt **out, tc_error *err);
    tc_status (*to_csr)(const tc_fmt *m, tc_csr **out, tc_error *err);
    tc_status (*spmm_ref)(const tc_fmt *m, const double *B, int64_t ldb, int32_t n,
                          double *C, int64_t ldc, tc_error *err);
    int64_t (*bytes)(const tc_fmt *m);
    /* Stores the format's arrays and parameters in g (the group exists). */
    tc_status (*write_h5)(const tc_fmt *m, tc_h5grp *g, tc_error *err);
    /* Loads from g; the generic header (rows, cols, nnz, has_values, params)
       is already read and checked and passed in `hdr`. */
    tc_status (*read_h5)(tc_h5grp *g, const tc_fmt *hdr, tc_fmt **out, tc_error *err);
    /* Bounds and consistency checks of arrays read from a file, against the
       canonical matrix they claim to encode (a may be NULL: checks that need
       it are skipped). `what` names the group in messages. */
    tc_status (*validate)(const tc_fmt *m, const tc_csr *a, const char *what, tc_error *err);
    /* Format-specific figures for tcstat, under section "format.NAME"
       (NULL when the format has none beyond its bytes). */
    tc_status (*stats)(const tc_fmt *m, tc_report *r, const char *section, tc_error *err);
    /* For formats that split a matrix between tensor cores and CUDA cores
       (brp, rstile; NULL for the others): fills part[k], for every nonzero
       k of a (the canonical matrix m was built from, in CSR order), with 0
       when m computes it on tensor cores and 1 on CUDA cores. */
    tc_status (*nnz_part)(const tc_fmt *m, const tc_csr *a, uint8_t *part, tc_error *err);
    /* The shape of the kernel's row windows for the traffic model
       (tc_traffic_params): rows of A per window and rows of B gathered
       together (1: each compacted column its own row). NULL: one row at a
       time, gathering its own columns (a CSR kernel's). */
    void (*window_shape)(const tc_fmt *m, int32_t *window_rows, int32_t *col_unit);
    /* 1 when the kernel's fp16 variants convert only the rows of B that the
       matrix's nonzeros name and keep only the most used of them in L2
       (tc_traffic_params.convert_used), 0 when they convert all of B
       (those that gather whole blocks, whose padded columns read rows no
       nonzero names). */
    int convert_used;
    void (*free)(tc_fmt *m);
    /* Parameter settings ("seg=64,order=1"; NULL-terminated; NULL: none)
       that a PATIENT or EXHAUSTIVE plan times besides the defaults: those
       whose best value depends on n and the device, which a format built
       before either is known cannot choose (plan/gpu.c). */
    const char *const *plan_params;
    /* 0 when plan setting `setting` (one of plan_params) cannot pay on a,
       so that a patient plan lists it untimed and unbuilt; NULL: every
       setting can. */
    int (*plan_param_pays)(const tc_csr *a, const char *setting);
    /* Settings (NULL-terminated; NULL: none) that a PATIENT plan times
       again with each cut of one or two waves of a kernel that says what
       a wave of it runs (tc_kernel.wave_items; the format's parameter
       segs): those whose best value changes when the work is one wave's. */
    const char *const *wave_params;
};

/* Fills the generic header of a newly built format from a and p (with the
   defaults of kind's parameters filled in). */
void tc_fmt_init(tc_fmt *m, const tc_format *kind, const tc_csr *a, const tc_params *p);

#endif
