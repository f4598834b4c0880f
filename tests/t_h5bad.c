/*
 * t_h5bad.c: every refusal of a bad .tcf.h5 file by the container's reader
 * (lib/tcf.c, lib/h5file.c, lib/h5group.c), with its exact message: a bad
 * /matrix, /permutation or /formats, unknown layout versions, files that
 * are not HDF5. Bad files are made here with raw HDF5 calls
 * (tests/h5test.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include <hdf5.h>

#include "tap.h"
#include "tcsparse.h"
#include "h5group.h"
#include "formats.h"
#include "h5test.h"

/* ------------------------------------------------------------------------ */
/* Bad files                                                                 */
/* ------------------------------------------------------------------------ */

/* The 4x5 matrix [1 . . 2 .; . 3 . . .; . . . . .; . . 4 . 5] as /matrix. */
static const int64_t good_shape[2] = { 4, 5 };
static const int64_t good_ptr[] = { 0, 2, 3, 3, 5 };
static const int32_t good_idx[] = { 0, 3, 1, 2, 4 };
static const double good_val[] = { 1, 2, 3, 4, 5 };

static hid_t raw_matrix(hid_t f)
{
    hid_t g = H5Gcreate2(f, "matrix", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    raw_attr_str(g, "encoding-type", "csr_matrix");
    raw_attr_str(g, "encoding-version", "0.1.0");
    raw_attr_i64(g, "shape", 2, good_shape);
    raw_attr_str(g, "field", "real");
    raw_attr_str(g, "symmetry", "general");
    raw_dataset(g, "indptr", H5T_NATIVE_INT64, 5, good_ptr);
    raw_dataset(g, "indices", H5T_NATIVE_INT32, 5, good_idx);
    raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 5, good_val);
    return g;
}

enum corruption {
    C_NONE, C_NO_MATRIX, C_PTR_NOT_MONOTONE, C_IDX_RANGE, C_PTR_LEN, C_DATA_LEN, C_IDX_FLOAT,
    C_PTR_RANK2, C_SHAPE3, C_CSC, C_HUGE, C_IDX_INT64_BIG, C_SOFT_LINK, C_EXTERNAL_MATRIX,
    C_PATTERN_DATA, C_REAL_NO_DATA, C_INTEGER_FRACTION, C_NO_INDICES, C_FIELD_COMPLEX,
    C_ANNDATA, C_ANNDATA_PATTERN, C_SHAPE_NEG,
    C_PERM_DUP, C_PERM_NOT_INVERSE, C_PERM_LEN, C_PERM_HALF, C_PERM_EMPTY, C_PERM_PARAM_STR,
    C_FMT_UNKNOWN, C_FMT_CSR
};

static void raw_perm(hid_t f, enum corruption c)
{
    int32_t n2o[] = { 2, 0, 3, 1 }, o2n[] = { 1, 3, 0, 2 };
    hid_t p = H5Gcreate2(f, "permutation", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (c == C_PERM_DUP)
        n2o[3] = 0;
    if (c == C_PERM_NOT_INVERSE)
        o2n[0] = 2, o2n[2] = 1;
    if (c != C_PERM_EMPTY && c != C_PERM_HALF)
        raw_dataset(p, "row_new_to_old", H5T_NATIVE_INT32, c == C_PERM_LEN ? 3 : 4, n2o);
    if (c != C_PERM_EMPTY)
        raw_dataset(p, "row_old_to_new", H5T_NATIVE_INT32, 4, o2n);
    if (c == C_PERM_PARAM_STR)
        raw_attr_str(p, "seed", "seven");
    H5Gclose(p);
}

static void make_bad(const char *path, enum corruption c)
{
    hid_t f = raw_create(path, "1.0");
    if (c == C_NO_MATRIX) {
        H5Fclose(f);
        return;
    }
    if (c == C_EXTERNAL_MATRIX) {
        H5Lcreate_external("elsewhere.h5", "/matrix", f, "matrix", H5P_DEFAULT, H5P_DEFAULT);
        H5Fclose(f);
        return;
    }
    hid_t g = raw_matrix(f);
    int64_t ptr[5];
    int32_t idx[5];
    memcpy(ptr, good_ptr, sizeof ptr);
    memcpy(idx, good_idx, sizeof idx);
    switch (c) {
    case C_PTR_NOT_MONOTONE:
        ptr[2] = 1;
        raw_dataset(g, "indptr", H5T_NATIVE_INT64, 5, ptr);
        break;
    case C_IDX_RANGE:
        idx[4] = 5;
        raw_dataset(g, "indices", H5T_NATIVE_INT32, 5, idx);
        break;
    case C_PTR_LEN:
        raw_dataset(g, "indptr", H5T_NATIVE_INT64, 4, ptr);
        break;
    case C_DATA_LEN:
        raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 4, good_val);
        break;
    case C_IDX_FLOAT:
        raw_dataset(g, "indices", H5T_NATIVE_DOUBLE, 5, good_val);
        break;
    case C_PTR_RANK2: {
        hsize_t dims[2] = { 5, 1 };
        H5Ldelete(g, "indptr", H5P_DEFAULT);
        hid_t s = H5Screate_simple(2, dims, NULL);
        hid_t d = H5Dcreate2(g, "indptr", H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, good_ptr);
        H5Dclose(d);
        H5Sclose(s);
        break;
    }
    case C_SHAPE3: {
        int64_t s3[3] = { 4, 5, 6 };
        raw_attr_i64(g, "shape", 3, s3);
        break;
    }
    case C_SHAPE_NEG: {
        int64_t sn[2] = { -4, 5 };
        raw_attr_i64(g, "shape", 2, sn);
        break;
    }
    case C_CSC:
        raw_attr_str(g, "encoding-type", "csc_matrix");
        break;
    case C_HUGE: {
        /* a chunked dataset claiming 2^40 elements, none of them written */
        hsize_t n = 1ull << 40, chunk = 1024;
        H5Ldelete(g, "indices", H5P_DEFAULT);
        hid_t s = H5Screate_simple(1, &n, NULL);
        hid_t p = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(p, 1, &chunk);
        hid_t d = H5Dcreate2(g, "indices", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
        H5Dclose(d);
        H5Pclose(p);
        H5Sclose(s);
        break;
    }
    case C_IDX_INT64_BIG: {
        int64_t big[5] = { 0, 3, 1, 2, 1ll << 33 };
        raw_dataset(g, "indices", H5T_NATIVE_INT64, 5, big);
        break;
    }
    case C_SOFT_LINK:
        H5Ldelete(g, "indices", H5P_DEFAULT);
        H5Lcreate_soft("/matrix/indptr", g, "indices", H5P_DEFAULT, H5P_DEFAULT);
        break;
    case C_PATTERN_DATA:
        raw_attr_str(g, "field", "pattern");
        break;
    case C_REAL_NO_DATA:
    case C_ANNDATA_PATTERN:
        H5Ldelete(g, "data", H5P_DEFAULT);
        if (c == C_ANNDATA_PATTERN)
            H5Adelete(g, "field");
        break;
    case C_INTEGER_FRACTION: {
        double v[5] = { 1, 2, 3.5, 4, 5 };
        raw_attr_str(g, "field", "integer");
        raw_dataset(g, "data", H5T_NATIVE_DOUBLE, 5, v);
        break;
    }
    case C_NO_INDICES:
        H5Ldelete(g, "indices", H5P_DEFAULT);
        break;
    case C_FIELD_COMPLEX:
        raw_attr_str(g, "field", "complex");
        break;
    case C_ANNDATA: {
        /* what anndata writes: no field or symmetry, int32 indptr, int64 data */
        int32_t p32[5] = { 0, 2, 3, 3, 5 };
        int64_t v64[5] = { 1, 2, 3, 4, 5 };
        H5Adelete(g, "field");
        H5Adelete(g, "symmetry");
        raw_dataset(g, "indptr", H5T_NATIVE_INT32, 5, p32);
        raw_dataset(g, "data", H5T_NATIVE_INT64, 5, v64);
        break;
    }
    case C_PERM_DUP: case C_PERM_NOT_INVERSE: case C_PERM_LEN: case C_PERM_HALF:
    case C_PERM_EMPTY: case C_PERM_PARAM_STR:
        raw_perm(f, c);
        break;
    case C_FMT_UNKNOWN: case C_FMT_CSR: {
        hid_t fg = H5Gcreate2(f, "formats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t x = H5Gcreate2(fg, c == C_FMT_CSR ? "csr" : "zzz", H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        H5Gclose(x);
        H5Gclose(fg);
        break;
    }
    default:
        break;
    }
    H5Gclose(g);
    H5Fclose(f);
}

static void bad(enum corruption c, tc_status want, const char *msg, const char *name)
{
    const char *path = in_dir("bad.tcf.h5");
    tc_tcf *f = NULL;
    tc_error err;
    make_bad(path, c);
    fails(tc_h5_read(path, 1, &f, &err), &err, want, path, msg, name);
    ok(f == NULL, "%s: nothing returned", name);
}

static void good(enum corruption c, tc_field field, int with_values, const char *name)
{
    const char *path = in_dir("bad.tcf.h5");
    tc_tcf *f = NULL;
    tc_error err;
    make_bad(path, c);
    tc_status st = tc_h5_read(path, 1, &f, &err);
    ok(st == TC_OK && f->matrix->field == field && (f->matrix->val != NULL) == with_values &&
       f->matrix->nnz == 5 && f->matrix->colidx[4] == 4 && f->matrix->rowptr[4] == 5 &&
       (!with_values || f->matrix->val[4] == 5), "%s", name);
    if (st != TC_OK)
        diag("%s", err.msg);
    tc_tcf_free(f);
}

static void test_bad_matrix(void)
{
    good(C_NONE, TC_FIELD_REAL, 1, "the hand-made file is accepted");
    good(C_ANNDATA, TC_FIELD_REAL, 1,
         "anndata's csr_matrix (no field, int32 indptr, int64 data) is accepted");
    good(C_ANNDATA_PATTERN, TC_FIELD_PATTERN, 0, "no field and no data: pattern");
    bad(C_NO_MATRIX, TC_ERR_FORMAT, "%s: /matrix: no such group", "no /matrix");
    bad(C_PTR_NOT_MONOTONE, TC_ERR_INVALID,
        "%s: /matrix: row pointers not monotone at row 1 (2 then 1, nnz 5)",
        "indptr not monotone");
    bad(C_IDX_RANGE, TC_ERR_INVALID, "%s: /matrix: row 3: column index 5 outside 0..4",
        "column index out of range");
    bad(C_PTR_LEN, TC_ERR_FORMAT,
        "%s: /matrix/indptr: expected 5 entries (shape[0]+1), found 4", "indptr length wrong");
    bad(C_DATA_LEN, TC_ERR_FORMAT,
        "%s: /matrix/data: expected 5 entries (as many as indices), found 4",
        "data and indices differ in length");
    bad(C_IDX_FLOAT, TC_ERR_FORMAT,
        "%s: /matrix/indices: expected an integer dataset, found float", "float indices");
    bad(C_PTR_RANK2, TC_ERR_FORMAT, "%s: /matrix/indptr: expected a 1-D dataset, found rank 2",
        "indptr of rank 2");
    bad(C_SHAPE3, TC_ERR_FORMAT, "%s: /matrix: attribute shape: expected 2 values, found 3",
        "shape of 3 values");
    bad(C_SHAPE_NEG, TC_ERR_FORMAT,
        "%s: /matrix: shape [-4, 5] out of range (0 to 2147483647)", "negative shape");
    bad(C_CSC, TC_ERR_FORMAT, "%s: /matrix: encoding-type is 'csc_matrix', expected 'csr_matrix'",
        "csc_matrix");
    bad(C_HUGE, TC_ERR_FORMAT,
        "%s: /matrix/indices: claims 4398046511104 bytes of data but the file holds only 0 "
        "bytes for it (unwritten or corrupt)", "2^40 elements claimed, nothing stored");
    bad(C_IDX_INT64_BIG, TC_ERR_FORMAT, "%s: /matrix/indices: a value does not fit in int32",
        "int64 index beyond int32");
    bad(C_SOFT_LINK, TC_ERR_FORMAT,
        "%s: /matrix/indices: is a soft or external link (only hard links are followed)",
        "soft link");
    bad(C_EXTERNAL_MATRIX, TC_ERR_FORMAT,
        "%s: /matrix: is a soft or external link (only hard links are followed)",
        "external link");
    bad(C_PATTERN_DATA, TC_ERR_FORMAT, "%s: /matrix/data: present, but field is pattern",
        "pattern with data");
    bad(C_REAL_NO_DATA, TC_ERR_FORMAT, "%s: /matrix/data: no such dataset (field is real)",
        "real without data");
    bad(C_INTEGER_FRACTION, TC_ERR_INVALID,
        "%s: /matrix/data: entry 2 is 3.5, not a whole number (field is integer)",
        "integer field with a fraction");
    bad(C_NO_INDICES, TC_ERR_FORMAT, "%s: /matrix/indices: no such dataset", "no indices");
    bad(C_FIELD_COMPLEX, TC_ERR_FORMAT,
        "%s: /matrix: attribute field: unknown value 'complex' (expected real, integer or "
        "pattern)", "complex field");
}

static void test_bad_perm_and_formats(void)
{
    bad(C_PERM_DUP, TC_ERR_INVALID,
        "%s: /permutation/row_new_to_old: index 0 appears twice (entries 1 and 3): not a "
        "permutation", "permutation with a repeated index");
    bad(C_PERM_NOT_INVERSE, TC_ERR_FORMAT,
        "%s: /permutation/row_old_to_new: entry 0 is 2, but row_new_to_old gives 1 (not its "
        "inverse)", "the two directions disagree");
    bad(C_PERM_LEN, TC_ERR_FORMAT,
        "%s: /permutation/row_new_to_old: expected 4 entries (rows of /matrix), found 3",
        "permutation of the wrong length");
    bad(C_PERM_HALF, TC_ERR_FORMAT,
        "%s: /permutation/row_new_to_old: no such dataset (row_old_to_new is present)",
        "one direction only");
    bad(C_PERM_EMPTY, TC_ERR_FORMAT,
        "%s: /permutation: holds neither row_new_to_old nor col_new_to_old",
        "empty /permutation");
    bad(C_PERM_PARAM_STR, TC_ERR_FORMAT,
        "%s: /permutation: attribute seed: expected a number, found string",
        "non-numeric permutation parameter");
    bad(C_FMT_UNKNOWN, TC_ERR_UNSUPPORTED,
        "%s: /formats/zzz: unknown format 'zzz' (written by a newer tcsparse?)",
        "unknown format");
    bad(C_FMT_CSR, TC_ERR_FORMAT, "%s: /formats/csr: format csr is /matrix itself, not a group",
        "csr under /formats");
}

static void version_case(const char *version, tc_status want, const char *msg,
                         const char *name)
{
    const char *path = in_dir("v.tcf.h5");
    hid_t f = raw_create(path, version);
    H5Gclose(raw_matrix(f));
    H5Fclose(f);
    tc_tcf *t = NULL;
    tc_error err;
    tc_status st = tc_h5_read(path, 1, &t, &err);
    if (want == TC_OK)
        ok(st == TC_OK, "%s", name);
    else
        fails(st, &err, want, path, msg, name);
    tc_tcf_free(t);
}

static void test_versions(void)
{
    version_case("2.0", TC_ERR_UNSUPPORTED,
                 "%s: tcf layout version 2.0 is not supported (tcsparse " TC_VERSION_STRING
                 " reads 1.x and writes " TC_LAYOUT_VERSION ")", "layout version 2.0 refused");
    version_case("0.9", TC_ERR_UNSUPPORTED,
                 "%s: tcf layout version 0.9 is not supported (tcsparse " TC_VERSION_STRING
                 " reads 1.x and writes " TC_LAYOUT_VERSION ")", "layout version 0.9 refused");
    version_case("1.7", TC_OK, NULL, "a later minor version (1.7) is read");
    version_case("one", TC_ERR_FORMAT,
                 "%s: malformed tcf_layout_version 'one' (expected MAJOR.MINOR)",
                 "malformed version");
    version_case(NULL, TC_ERR_FORMAT,
                 "%s: not a .tcf.h5 file (no tcf_layout_version attribute on /)",
                 "no version attribute");
}

static void test_bad_files(void)
{
    tc_tcf *f = NULL;
    tc_error err;
    const char *text = in_dir("text.mtx");
    write_text(text, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
    fails(tc_h5_read(text, 1, &f, &err), &err, TC_ERR_FORMAT, text, "%s: not an HDF5 file",
          "a text file");
    ok(!tc_h5_is_hdf5(text), "is_hdf5: text file");
    const char *absent = in_dir("absent.tcf.h5");
    fails(tc_h5_read(absent, 1, &f, &err), &err, TC_ERR_IO, absent,
          "%s: No such file or directory", "a missing file");
    ok(!tc_h5_is_hdf5(absent), "is_hdf5: missing file");
    fails(tc_h5_read(dir, 1, &f, &err), &err, TC_ERR_IO, dir, "%s: Is a directory",
          "a directory");

    /* truncated: the first half of a real file */
    const char *whole = in_dir("whole.tcf.h5"), *half = in_dir("half.tcf.h5");
    tc_tcf *t = tcf_of(random_csr(2000, 2000, 20000, TC_FIELD_REAL, 0));
    tc_h5_write(whole, t, NULL, &err);
    tc_tcf_free(t);
    size_t len = 0;
    char *bytes = tap_slurp(whole, &len);
    FILE *fp = fopen(half, "wb");
    fwrite(bytes, 1, len / 2, fp);
    fclose(fp);
    free(bytes);
    ok(tc_h5_is_hdf5(whole) && tc_h5_is_hdf5(half), "is_hdf5: written file and its first half");
    char want[1024];
    snprintf(want, sizeof want,
             "%%s: cannot open as HDF5: truncated file: eof = %zu, sblock->base_addr = 0, "
             "stored_eof = %zu", len / 2, len);
    fails(tc_h5_read(half, 1, &f, &err), &err, TC_ERR_FORMAT, half, want, "a truncated file");

    /* HDF5 prints its error stack only when asked */
    fflush(stderr);
    int saved = dup(2), fd = open(in_dir("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    tc_h5_read(half, 1, &f, &err);
    fflush(stderr);
    struct stat quiet;
    fstat(fd, &quiet);
    tc_h5_set_verbose(1);
    tc_h5_read(half, 1, &f, &err);
    tc_h5_set_verbose(0);
    fflush(stderr);
    struct stat loud;
    fstat(fd, &loud);
    dup2(saved, 2);
    close(fd);
    close(saved);
    ok(quiet.st_size == 0 && loud.st_size > 0,
       "HDF5 error stack silent by default (%lld bytes), printed when verbose (%lld bytes)",
       (long long)quiet.st_size, (long long)loud.st_size);

    /* a user block before the superblock */
    const char *ub = in_dir("userblock.h5");
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 1024);
    hid_t h = H5Fcreate(ub, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    H5Fclose(h);
    ok(tc_h5_is_hdf5(ub), "is_hdf5: superblock after a 1024-byte user block");
}


int main(void)
{
    scratch_open("t_h5bad");
    test_versions();
    test_bad_matrix();
    test_bad_perm_and_formats();
    test_bad_files();
    scratch_close();
    return done_testing();
}
