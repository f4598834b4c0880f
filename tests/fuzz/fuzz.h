/*
 * fuzz.h: what the libFuzzer harnesses of tests/fuzz/ share with the
 * replay driver (replay.c) that runs them without libFuzzer in `make
 * check`. Each harness defines LLVMFuzzerTestOneInput; one that needs
 * set-up defines LLVMFuzzerInitialize too. A harness calls fuzz_fail (an
 * abort, which both libFuzzer and replay.c report as a crash) when the
 * library breaks a promise it makes on bad input.
 */
#ifndef TC_FUZZ_H
#define TC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints "fuzz: " and the message on stderr, then aborts. */
__attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...);

/* The library's error message must name the input it read: "NAME:..." */
void fuzz_check_message(const char *msg, const char *name);

/* A path named `name` in a new private directory on /dev/shm (tmpfs) when
   there is one, else $TMPDIR or /tmp; both are removed at exit. */
const char *fuzz_temp_path(const char *name);

/* Writes the fuzzer's bytes to path, for readers that take a file name. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);

/* What a reader of a whole matrix must do with any input: refuse it with
   a message naming path (ok 0, msg), or accept it (ok 1) with a matrix
   that passes tc_csr_validate (freed here). */
struct tc_csr;
void fuzz_check_read(int ok, struct tc_csr *a, const char *msg, const char *path);

/* The small matrix of the layout harnesses, from their input: byte 0 the
   rows and byte 1 the columns (modulo FUZZ_SMALL_DIM: windows of 16 rows
   and 32 columns, cut and not), byte 2 flags (FUZZ_PATTERN: no values,
   FUZZ_DENSE_ROW: the row rows / 2 full, value j - 3 at column j,
   FUZZ_DENSE_COL: the column 0 full, value 2^(i % 40 - 20) at row i), the
   harness's own bytes up to `head`, then one entry per `stride` bytes (at
   most FUZZ_SMALL_ENTRIES): row e[0] % rows, column e[1] % cols, value
   value(e); duplicates summed. size >= 3. Aborts (fuzz_fail) when it
   cannot be built. */
enum {
    FUZZ_SMALL_DIM = 71,
    FUZZ_SMALL_ENTRIES = 512,
    FUZZ_PATTERN = 1, FUZZ_DENSE_ROW = 2, FUZZ_DENSE_COL = 4
};
struct tc_csr *fuzz_small_matrix(const uint8_t *data, size_t size, size_t head, size_t stride,
                                 double (*value)(const uint8_t *e));

/* Reads the .tcf.h5 at path with its formats (readtcf.c): refused with a
   message naming it, or accepted with a valid /matrix and formats that
   decode to it and can be used. */
void fuzz_read_tcf(const char *path);

#endif
