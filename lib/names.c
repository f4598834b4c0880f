/* names.c: numbered names with a hash table (names.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "mtx_internal.h"

static uint64_t hash_text(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;   /* FNV-1a */
    for (size_t k = 0; k < len; k++)
        h = (h ^ (unsigned char)s[k]) * 0x100000001b3u;
    return h;
}

static const char *name_at(const tc_names *nm, int32_t k, size_t *len)
{
    *len = (size_t)(nm->offset[k + 1] - nm->offset[k]);
    return nm->text + nm->offset[k];
}

/* The slot of [s, s + len): where it is, or the empty one where it goes. */
static uint64_t slot_of(const tc_names *nm, const char *s, size_t len)
{
    uint64_t mask = nm->nslots - 1;
    for (uint64_t h = hash_text(s, len);; h++) {
        int32_t k = nm->slot[h & mask];
        size_t klen;
        const char *name = k ? name_at(nm, k - 1, &klen) : NULL;
        if (!k || (klen == len && memcmp(name, s, len) == 0))
            return h & mask;
    }
}

static int rehash(tc_names *nm, tc_error *err)
{
    uint64_t nslots = nm->nslots ? 2 * nm->nslots : 1024;
    int32_t *slot = tc_calloc_array((int64_t)nslots, sizeof *slot, err);
    if (!slot)
        return -1;
    free(nm->slot);
    nm->slot = slot;
    nm->nslots = nslots;
    for (int32_t i = 0; i < nm->n; i++) {
        size_t len;
        const char *name = name_at(nm, i, &len);
        nm->slot[slot_of(nm, name, len)] = i + 1;
    }
    return 0;
}

int64_t tc_names_find(const tc_names *nm, const char *s, size_t len)
{
    if (!nm->nslots)
        return -1;
    int32_t k = nm->slot[slot_of(nm, s, len)];
    return k ? k - 1 : -1;
}

int64_t tc_names_intern(tc_names *nm, const char *s, size_t len, tc_error *err)
{
    if ((uint64_t)nm->n * 2 >= nm->nslots && rehash(nm, err))
        return -1;
    uint64_t at = slot_of(nm, s, len);
    if (nm->slot[at])
        return nm->slot[at] - 1;
    if (nm->n == INT32_MAX - 1) {
        tc_error_set(err, TC_ERR_UNSUPPORTED, "more than %d distinct ids", INT32_MAX - 1);
        return -1;
    }
    if (nm->n + 1 >= nm->cap) {
        int32_t cap = nm->cap ? (nm->cap > INT32_MAX / 2 ? INT32_MAX : 2 * nm->cap) : 1024;
        int64_t *o = tc_mtx_grow_array(nm->offset, (int64_t)cap + 1, sizeof *o, err);
        if (!o)
            return -1;
        nm->offset = o;
        nm->cap = cap;
        nm->offset[0] = 0;
    }
    if (nm->len + (int64_t)len > nm->text_cap) {
        int64_t cap = 2 * (nm->text_cap + (int64_t)len) + 4096;
        char *t = tc_mtx_grow_array(nm->text, cap, 1, err);
        if (!t)
            return -1;
        nm->text = t;
        nm->text_cap = cap;
    }
    memcpy(nm->text + nm->len, s, len);
    nm->len += (int64_t)len;
    nm->offset[nm->n + 1] = nm->len;
    nm->slot[at] = nm->n + 1;
    return nm->n++;
}

void tc_names_clear(tc_names *nm)
{
    free(nm->text);
    free(nm->offset);
    free(nm->slot);
    memset(nm, 0, sizeof *nm);
}
