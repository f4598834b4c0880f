/* names.h: a set of names (byte strings) numbered in the order they were
   added, with a hash table from name to number: the edge-list reader's ids
   that are names, and the lookup of labels by their text. The names sit
   end to end in `text`, cut by `offset`, the layout of tc_labels' names.
   Internal to the library; not installed. */
#ifndef TC_NAMES_H
#define TC_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include "tcsparse.h"

typedef struct tc_names {
    char *text;
    int64_t len, text_cap;
    int64_t *offset;        /* n + 1 */
    int32_t n, cap;
    int32_t *slot;          /* open addressing: number + 1, 0 empty */
    uint64_t nslots;
} tc_names;

/* The number of [s, s + len), added when new; -1 (err set) when memory
   is short or INT32_MAX - 1 names are there already. */
int64_t tc_names_intern(tc_names *nm, const char *s, size_t len, tc_error *err);
/* Its number, or -1 when it is not there. */
int64_t tc_names_find(const tc_names *nm, const char *s, size_t len);
void tc_names_clear(tc_names *nm);

#endif
