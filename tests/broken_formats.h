/*
 * broken_formats.h: formats that are wrong on purpose, registered only in
 * the tests, as the proof that the generic tests of tests/t_formats.c can
 * fail. Each is a copy of a real format's vtable (the first of the
 * registry that is stored in files) with one function replaced by a wrong
 * one, and names the generic checks that must catch it. They live outside
 * the registry: the generic tests call a format's functions through the
 * tc_format they are handed, never by looking its name up, so a format
 * under test needs no entry in formats/format_registry.h.
 */
#ifndef TC_BROKEN_FORMATS_H
#define TC_BROKEN_FORMATS_H

#include "formats.h"

/* The generic checks of a format (tests/t_formats.c), as bits of a mask. */
enum fmt_check {
    CHECK_DECODE,       /* to_csr gives the matrix back exactly */
    CHECK_SPMM,         /* spmm_ref equals CSR's float64 SpMM */
    CHECK_NONFINITE,    /* NaN and Inf of B reach C as in CSR's SpMM */
    CHECK_MUTATION,     /* validate refuses arrays that no longer encode the matrix */
    NCHECKS
};

typedef struct broken_format {
    tc_format f;            /* the real format's vtable, one function replaced */
    unsigned must_fail;     /* 1 << CHECK_...: the checks that must catch it */
} broken_format;

enum { NBROKEN = 4 };

/* Fills out[NBROKEN]; 0 when the registry has no format stored in files
   to copy. */
int broken_formats(broken_format out[NBROKEN]);

#endif
