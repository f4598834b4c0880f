/*
 * fuzz_npz.c: libFuzzer target for the SciPy .npz reader (lib/npz.c,
 * lib/npy.c): the input is the archive, written to a file (libzip reads
 * by name, as the tools do) and read with tc_npz_read. Its seed corpus
 * (corpus/npz) is small archives written by scipy.sparse.save_npz in each
 * format, compressed or not, and ones wrong in one way each
 * (tests/containers.py bad). What must hold is fuzz_check_read's.
 */
#include "config.h"

#include "tcsparse.h"
#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    path = fuzz_temp_path("f.npz");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);
    tc_csr *a = NULL;
    tc_error err;
    int ok = tc_npz_read(path, &a, &err) == TC_OK;
    fuzz_check_read(ok, a, err.msg, path);
    return 0;
}
