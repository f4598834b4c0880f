/*
 * fuzz_binsparse.c: libFuzzer target for the binsparse reader
 * (lib/binsparse.c): the input is an HDF5 file, read with
 * tc_binsparse_read at its root after tc_binsparse_is has looked at it.
 * Its seed corpus (corpus/binsparse) is the specification's examples
 * (tests/data/binsparse), small files of each format written with h5py,
 * and ones wrong in one way each (tests/containers.py bad): the fuzzer
 * mutates the JSON descriptor inside the attribute as well as HDF5's own
 * structures. What must hold is fuzz_check_read's.
 */
#include "config.h"

#include "tcsparse.h"
#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    path = fuzz_temp_path("f.bsp.h5");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);
    tc_binsparse_is(path);
    tc_csr *a = NULL;
    tc_error err;
    int ok = tc_binsparse_read(path, NULL, &a, &err) == TC_OK;
    fuzz_check_read(ok, a, err.msg, path);
    return 0;
}
