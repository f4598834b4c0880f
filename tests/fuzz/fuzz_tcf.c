/*
 * fuzz_tcf.c: libFuzzer target for the whole .tcf.h5 read, fed the raw
 * bytes of a file: superblock, object headers, attributes, heaps, chunk
 * indexes and array contents alike. Its seed corpus (corpus/tcf) is real
 * small files written by `tcconv -f all`, with provenance, permutations
 * and compressed datasets.
 *
 * The bytes are written to a file on /dev/shm (tmpfs) when there is one
 * (fuzz_temp_path), which the library then opens by name as the tools do: through the
 * signature check of tc_h5_file_open and HDF5's default (sec2) driver. A
 * file image in memory (H5Pset_file_image, the core driver) would skip
 * both, and writing a few kilobytes to tmpfs costs little beside HDF5's
 * own open. What must hold is fuzz_read_tcf's (readtcf.c).
 */
#include "config.h"

#include <hdf5.h>

#include "fuzz.h"

static const char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    path = fuzz_temp_path("f.tcf.h5");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);
    fuzz_read_tcf(path);
    return 0;
}
