/*
 * fuzz_mtx.c: libFuzzer target for the Matrix Market reader
 * (lib/mtx_*.c). The input is the file itself, read from memory by
 * tc_mtx_read_mem, which takes the gzip path when the bytes start with
 * gzip's magic (1f 8b), as tc_mtx_read does for files: seeds that are .gz
 * files fuzz the decompression and the parser behind it.
 *
 * Each input is read twice, summing duplicates and refusing them, and
 * the dense reader's coordinate-to-dense path is not reached (it takes
 * paths only). What must hold: a matrix that is accepted passes
 * tc_csr_validate, its nonzero count matches what the header's entries
 * can give, and a refusal names the input ("fuzz.mtx:...").
 */
#include "config.h"
#include <stdlib.h>

#include "tcsparse.h"
#include "fuzz.h"

#define NAME "fuzz.mtx"

static void read_once(const uint8_t *data, size_t size, int sum_duplicates)
{
    tc_mtx_read_opts opts = TC_MTX_READ_DEFAULTS;
    opts.sum_duplicates = sum_duplicates;
    tc_csr *a = NULL;
    tc_mtx_info info;
    tc_error err;
    if (tc_mtx_read_mem(data, size, NAME, &opts, &a, &info, &err) != TC_OK) {
        fuzz_check_message(err.msg, NAME);
        return;
    }
    if (tc_csr_validate(a, NAME, &err) != TC_OK)
        fuzz_fail("accepted matrix is invalid: %s", err.msg);
    /* Expanding a symmetric file at most doubles its entries; summing
       duplicates only removes some. */
    if (a->nnz > 2 * info.entries && !info.is_array)
        fuzz_fail("%lld nonzeros from %lld entries", (long long)a->nnz,
                  (long long)info.entries);
    tc_csr_free(a);
    tc_mtx_info_clear(&info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_once(data, size, 1);
    read_once(data, size, 0);
    return 0;
}
