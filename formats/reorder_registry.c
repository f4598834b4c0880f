/* reorder_registry.c: the registry of row reordering methods (the generic
   calls are lib/reorder/reorder.c). It sits in the formats layer because
   one method, tcbsort (formats/tcbsort.c), counts blocks as the bsb format
   builds them, and lib/ never calls up into formats/; the methods of
   lib/reorder/ are listed here with it so that there is one list. Adding a
   method is one line in `registry` below. */
#include "config.h"
#include <string.h>
#include "reorder/reorder.h"

extern const tc_reorder_method tc_reorder_degree, tc_reorder_rcm, tc_reorder_wjaccard, tc_reorder_hmatch,
    tc_reorder_jaccard, tc_reorder_tcbsort;

static const tc_reorder_method *const registry[] = {
    &tc_reorder_degree,
    &tc_reorder_rcm,
    &tc_reorder_wjaccard,
    &tc_reorder_jaccard,
    &tc_reorder_hmatch,
    &tc_reorder_tcbsort,
};
#define NMETHODS ((int)(sizeof registry / sizeof registry[0]))

int tc_reorder_count(void) { return NMETHODS; }

const tc_reorder_method *tc_reorder_at(int i)
{
    return i >= 0 && i < NMETHODS ? registry[i] : NULL;
}

const tc_reorder_method *tc_reorder_find(const char *name)
{
    for (int i = 0; i < NMETHODS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
