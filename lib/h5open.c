/*
 * h5open.c: HDF5 files for the generic layer (h5group.h, h5internal.h):
 * recognising one by its signature, opening one read-only with the layer's
 * checks, opening a group of one by path, and writing one atomically (a
 * temporary file in the target's directory, renamed into place when
 * complete).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcsparse.h"
#include "h5internal.h"

static const unsigned char h5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

/* Whether fp holds the HDF5 signature where a superblock may start: at 0,
   or at 512, 1024, 2048, ... after a user block. -1 on a read error. */
static int has_signature(FILE *fp)
{
    unsigned char buf[8];
    for (long off = 0; off >= 0 && off < (1L << 40); off = off ? off * 2 : 512) {
        if (fseek(fp, off, SEEK_SET) != 0)
            return 0;
        size_t got = fread(buf, 1, sizeof buf, fp);
        if (got < sizeof buf)
            return ferror(fp) ? -1 : 0;
        if (memcmp(buf, h5_signature, sizeof buf) == 0)
            return 1;
    }
    return 0;
}

int tc_h5_is_hdf5(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    int r = has_signature(fp);
    fclose(fp);
    return r == 1;
}

hid_t tc_h5_fopen(const char *path)
{
    hid_t file = -1, fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* strong close: closing the file also closes whatever an error path
       left open in it */
    if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    tc_h5_close(fapl);
    return file;
}

tc_status tc_h5_file_open(const char *path, hid_t *out, tc_error *err)
{
    *out = -1;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s", path);
    int sig = has_signature(fp);
    int errnum = errno;
    fclose(fp);
    if (sig < 0)
        return tc_error_errno(err, TC_ERR_IO, errnum, "%s", path);
    if (sig == 0)
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not an HDF5 file", path);
    tc_status st = tc_h5_guard(path, err);
    if (st != TC_OK)
        return st;
    *out = tc_h5_fopen(path);
    if (*out < 0)
        return tc_h5_fail(err, TC_ERR_FORMAT, "%s: cannot open as HDF5", path);
    return TC_OK;
}

tc_status tc_h5grp_open(const char *file, const char *path, tc_h5grp **out, tc_error *err)
{
    tc_h5_quiet();
    *out = NULL;
    tc_h5grp *g = calloc(1, sizeof *g);
    if (!g)
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    hid_t fid;
    tc_status st = tc_h5_file_open(file, &fid, err);
    if (st == TC_OK) {
        st = tc_h5grp_open_at(g, fid, file, path, 0, err);
        if (st != TC_OK)
            tc_h5_close(fid);
    }
    if (st != TC_OK) {
        free(g);
        return st;
    }
    g->owns_file = 1;
    *out = g;
    return TC_OK;
}

void tc_h5grp_close(tc_h5grp *g)
{
    if (!g)
        return;
    tc_h5grp_release(g);
    if (g->owns_file)
        tc_h5_close(g->file);
    free(g);
}

/* Creates tmp for writing, reproducibly: no modification times on any
   object, the oldest file-format versions that hold what we write (the
   library's default, readable by every HDF5 1.8 and later). */
static tc_status file_create(const char *tmp, const char *target, hid_t *out, tc_error *err)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    *out = -1;
    if (fcpl >= 0 && fapl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0 &&
        H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
        *out = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    tc_h5_close(fcpl);
    tc_h5_close(fapl);
    if (*out < 0)
        return tc_h5_fail(err, TC_ERR_IO, "%s: cannot create", target);
    return TC_OK;
}

/* Closes file (written to a.tmp) and commits a, or on failure (st) aborts
   it: nothing partial is ever left at the target. The data reaches the
   disk before the rename (HDF5 does not sync), so that a crash cannot leave
   an empty file under the target's name. */
static tc_status file_finish(hid_t file, tc_atomic *a, const char *target, tc_status st,
                             tc_error *err)
{
    if (file >= 0 && H5Fclose(file) < 0 && st == TC_OK)
        st = tc_h5_fail(err, TC_ERR_IO, "%s: cannot finish writing", target);
    if (st == TC_OK && !a->in_place) {   /* (a device or a fifo refuses fsync) */
        int fd = open(a->tmp, O_RDONLY);
        if (fd < 0 || fsync(fd) != 0)
            st = tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot sync", target);
        if (fd >= 0)
            close(fd);
    }
    if (st == TC_OK)
        return tc_atomic_commit(a, err);
    tc_atomic_abort(a);
    return st;
}

tc_status tc_h5_write_atomic(const char *target, tc_h5_fill_fn fill, void *ctx, tc_error *err)
{
    tc_atomic a;
    tc_status st = tc_atomic_open(&a, target, 0, err);
    if (st != TC_OK)
        return st;
    hid_t file;
    st = file_create(a.tmp, target, &file, err);
    if (st == TC_OK)
        st = fill(file, target, ctx, err);
    return file_finish(file, &a, target, st, err);
}
