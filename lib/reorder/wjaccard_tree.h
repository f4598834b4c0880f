/* wjaccard_tree.h: stages 4 and 5 of the `wjaccard` reordering
   (wjaccard.c): the minimum spanning forest of the kNN graph and the
   depth-first order of its trees (wjaccard_tree.c). Internal to the
   library; not installed. */
#ifndef TC_WJACCARD_TREE_H
#define TC_WJACCARD_TREE_H

#include "tcsparse.h"

/* The kNN graph: row u's neighbours are nbr[u*k .. u*k + k), most similar
   first, -1 past the last one; sim[] holds their J. */
typedef struct knn {
    int k;
    int32_t *nbr;
    double *sim;
} knn;

/* An edge of the graph, lo < hi. */
typedef struct edge {
    double sim;
    int32_t lo, hi;
} edge;

/* Union-find over the rows (union by size, path halving); after Kruskal
   size[find(r)] is the number of rows in r's tree. */
typedef struct components {
    int32_t *parent, *size;
} components;

/* The root of x's tree. */
int32_t tc_component_find(components *cc, int32_t x);

/* Kruskal over the kNN edges of similarity >= min_sim, sorted on up to
   `threads` threads (1 .. TC_MAX_JOBS, the same result on any number):
   *mst gets the m edges kept, most similar first, cc the trees. */
tc_status tc_spanning_forest(const knn *g, int32_t rows, double min_sim, int threads,
                             components *cc, edge **mst, int64_t *m, tc_error *err);

/* The rows of all trees of the forest mst[0 .. m) in walk order:
   walked[0 .. *n). */
tc_status tc_tree_order(const edge *mst, int64_t m, int32_t rows, int32_t *walked, int64_t *n,
                        tc_error *err);

#endif
