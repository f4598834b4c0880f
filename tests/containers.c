/*
 * containers.c: the test driver of tests/containers.sh, which reaches the
 * library's readers and writers of other libraries' files (SciPy .npz,
 * binsparse, AnnData) directly, with Matrix Market on the other side so
 * that the existing tools and SciPy can compare results:
 *
 *   containers read KIND FILE OUT.mtx [DATASET]   KIND npz, binsparse, h5ad
 *   containers write KIND IN.mtx OUT              KIND npz, binsparse
 *   containers is KIND FILE                       prints 1 or 0
 *
 * DATASET is binsparse's group or AnnData's dataset. Errors: the library's
 * message on stderr, exit status as the tools have it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tcsparse.h"

static int usage(void)
{
    fputs("usage: containers read KIND FILE OUT.mtx [DATASET] | write KIND IN.mtx OUT | "
          "is KIND FILE\n", stderr);
    return 2;
}

static tc_status read_kind(const char *kind, const char *path, const char *dataset,
                           tc_csr **a, tc_error *err)
{
    if (strcmp(kind, "npz") == 0)
        return tc_npz_read(path, a, err);
    if (strcmp(kind, "binsparse") == 0)
        return tc_binsparse_read(path, dataset, a, err);
    if (strcmp(kind, "h5ad") == 0)
        return tc_h5ad_read(path, dataset, a, err);
    return tc_error_set(err, TC_ERR_ARG, "unknown kind '%s'", kind);
}

static tc_status write_kind(const char *kind, const char *path, const tc_csr *a, tc_error *err)
{
    if (strcmp(kind, "npz") == 0)
        return tc_npz_write(path, a, err);
    if (strcmp(kind, "binsparse") == 0)
        return tc_binsparse_write(path, a, err);
    return tc_error_set(err, TC_ERR_ARG, "kind '%s' cannot be written", kind);
}

int main(int argc, char **argv)
{
    tc_error err;
    tc_csr *a = NULL;
    tc_status st;
    if (argc == 4 && strcmp(argv[1], "is") == 0) {
        if (strcmp(argv[2], "h5ad") != 0 && strcmp(argv[2], "binsparse") != 0)
            return usage();
        printf("%d\n", strcmp(argv[2], "h5ad") == 0 ? tc_h5ad_is(argv[3])
                                                     : tc_binsparse_is(argv[3]));
        return 0;
    }
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "read") == 0) {
        st = read_kind(argv[2], argv[3], argc == 6 ? argv[5] : NULL, &a, &err);
        if (st == TC_OK)
            st = tc_mtx_write(argv[4], a, TC_SYM_GENERAL, NULL, &err);
    } else if (argc == 5 && strcmp(argv[1], "write") == 0) {
        st = tc_mtx_read(argv[3], NULL, &a, NULL, NULL, &err);
        if (st == TC_OK)
            st = write_kind(argv[2], argv[4], a, &err);
    } else {
        return usage();
    }
    tc_csr_free(a);
    if (st != TC_OK) {
        fprintf(stderr, "containers: %s\n", err.msg);
        return tc_status_exit_code(st);
    }
    return 0;
}
