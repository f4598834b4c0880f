/*
 * fuzz_edgelist.c: libFuzzer target for the edge-list reader
 * (lib/edgelist_read.c). The input is the file itself, read from memory by
 * tc_edgelist_read_mem (gzip when the bytes start with its magic), once
 * with each relabelling policy and direction, so that the number paths,
 * the names, the header and the undirected mirror are all reached.
 *
 * What must hold: an accepted matrix passes tc_csr_validate, is square
 * unless a header shaped it, has at most its edge lines' nonzeros (twice
 * them undirected), labels that pass tc_labels_validate and number its
 * rows; a refusal names the input ("fuzz.el:...").
 */
#include "config.h"
#include <stdlib.h>

#include "tcsparse.h"
#include "fuzz.h"

#define NAME "fuzz.el"

static void read_once(const uint8_t *data, size_t size, tc_relabel relabel, int undirected)
{
    tc_edgelist_opts opts = TC_EDGELIST_DEFAULTS;
    opts.relabel = relabel;
    opts.undirected = undirected;
    tc_csr *a = NULL;
    tc_labels *labels = NULL;
    tc_edgelist_info info;
    tc_error err;
    if (tc_edgelist_read_mem(data, size, NAME, &opts, &a, &labels, &info, &err) != TC_OK) {
        fuzz_check_message(err.msg, NAME);
        return;
    }
    if (tc_csr_validate(a, NAME, &err) != TC_OK)
        fuzz_fail("accepted matrix is invalid: %s", err.msg);
    if (a->nnz > (undirected ? 2 : 1) * info.edges)
        fuzz_fail("%lld nonzeros from %lld edges", (long long)a->nnz, (long long)info.edges);
    if (labels) {
        if (tc_labels_validate(labels, NAME, &err) != TC_OK)
            fuzz_fail("labels are invalid: %s", err.msg);
        if (labels->n != a->rows || labels->n != a->cols)
            fuzz_fail("%d labels for %d x %d", labels->n, a->rows, a->cols);
        if (info.base != -1)
            fuzz_fail("relabelled, yet base %d", info.base);
    } else if (relabel == TC_RELABEL_ALWAYS) {
        fuzz_fail("relabel always gave no labels");
    }
    tc_labels_free(labels);
    tc_csr_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_once(data, size, TC_RELABEL_AUTO, 0);
    read_once(data, size, TC_RELABEL_ALWAYS, 1);
    read_once(data, size, TC_RELABEL_NEVER, 0);
    return 0;
}
