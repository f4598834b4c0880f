/* degree.c: the `degree` reordering: rows by number of nonzeros, longest
   first (or shortest first with ascending=1), ties in original order. A
   stable counting sort on row length: O(rows + longest row). */
#include "config.h"
#include <stdlib.h>
#include "reorder.h"

extern const tc_reorder_method tc_reorder_degree;

static const tc_param_def degree_params[] = {
    { "ascending", "1: shortest rows first; 0: longest rows first", 0, 0, 1, 1 },
};

static tc_status degree_run(const tc_csr *a, const tc_params *p, int32_t *new2old,
                            const tc_progress *prog, tc_error *err)
{
    int ascending = tc_reorder_param(&tc_reorder_degree, p, "ascending") != 0;
    int64_t maxlen = 0;
    for (int32_t i = 0; i < a->rows; i++) {
        int64_t len = a->rowptr[i + 1] - a->rowptr[i];
        maxlen = len > maxlen ? len : maxlen;
    }
    int64_t *next = tc_calloc_array(maxlen + 1, sizeof *next, err);
    if (!next)
        return TC_ERR_NOMEM;
    for (int32_t i = 0; i < a->rows; i++)
        next[a->rowptr[i + 1] - a->rowptr[i]]++;
    /* Exclusive prefix sum over the lengths in output order: next[len] is
       where the first row of that length goes. */
    int64_t at = 0;
    for (int64_t k = 0; k <= maxlen; k++) {
        int64_t len = ascending ? k : maxlen - k, n = next[len];
        next[len] = at;
        at += n;
    }
    for (int32_t i = 0; i < a->rows; i++)
        new2old[next[a->rowptr[i + 1] - a->rowptr[i]]++] = i;
    free(next);
    tc_progress_report(prog, a->rows, a->rows);
    return TC_OK;
}

const tc_reorder_method tc_reorder_degree = {
    .name = "degree",
    .description = "rows sorted by number of nonzeros, longest first (stable)",
    .params = degree_params,
    .nparams = 1,
    .run = degree_run,
};
