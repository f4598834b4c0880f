/* gen.h: the matrix kinds bench/gen writes (gen_kinds.c). Each kind makes
   its matrix one row at a time from that row's index and the seed alone,
   so that rows can be made in any order, twice (once to count, once to
   write), and never all at once: the generator's memory is the row
   pointers and one slab, whatever the size. */
#ifndef TC_BENCH_GEN_H
#define TC_BENCH_GEN_H

#include <stdint.h>

#define GEN_MAX_PARAMS 4

typedef struct gen_matrix gen_matrix;

typedef struct gen_kind {
    const char *name;
    const char *params;         /* "SCALE EDGEFACTOR" for the usage text */
    const char *about;          /* one line for --help */
    int nparams, optional;      /* operands: nparams, the last `optional` may be left out */
    /* Checks the operands (a bad one is a usage error: tool_usage_error)
       and sets the shape and the kind's tables (tool_die when out of
       memory). */
    void (*init)(gen_matrix *g, char *const *params, int count);
    /* Row i's columns, ascending and distinct, into g's row buffer;
       returns how many. */
    int64_t (*row)(gen_matrix *g, int64_t i);
} gen_kind;

struct gen_matrix {
    const gen_kind *kind;
    uint64_t seed;
    int64_t rows, cols;
    int32_t *cols_buf;          /* the row buffer (gen_row_room grows it) */
    int64_t room;
    double p[GEN_MAX_PARAMS];   /* the kind's parameters */
    int32_t *perm, *inv;        /* the kind's relabelling, or NULL */
    double *cdf;                /* the kind's table, or NULL */
};

const gen_kind *gen_kind_find(const char *name);
int gen_kind_count(void);
const gen_kind *gen_kind_at(int i);
/* Row i into g->cols_buf (ascending, distinct); its length. */
int64_t gen_row(gen_matrix *g, int64_t i);
void gen_free(gen_matrix *g);

#endif
