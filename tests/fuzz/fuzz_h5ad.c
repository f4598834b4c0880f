/*
 * fuzz_h5ad.c: libFuzzer target for the AnnData reader (lib/h5ad.c): the
 * input is an HDF5 file, read with tc_h5ad_read (X, then layers/counts)
 * after tc_h5ad_is has looked at it. Its seed corpus (corpus/h5ad) is
 * small files written by anndata (X csr, csc and dense, a layer) and ones
 * wrong in one way each (tests/containers.py bad). What must hold is
 * fuzz_check_read's, for both matrices.
 */
#include "config.h"

#include "tcsparse.h"
#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    path = fuzz_temp_path("f.h5ad");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const datasets[] = { NULL, "layers/counts" };
    fuzz_write_file(path, data, size);
    tc_h5ad_is(path);
    for (int i = 0; i < 2; i++) {
        tc_csr *a = NULL;
        tc_error err;
        int ok = tc_h5ad_read(path, datasets[i], &a, &err) == TC_OK;
        fuzz_check_read(ok, a, err.msg, path);
    }
    return 0;
}
