/*
 * h5internal.h: what the library's HDF5 files share below h5group.h: the
 * fields of a group handle and the hid_t-level helpers (implemented in
 * lib/h5group.c, h5attr.c, h5open.c) that the container (h5file.c) and dense datasets
 * (h5dense.c) are built from. formats/ never see it, so that <hdf5.h>
 * stays out of them. Internal to the library; not installed.
 */
#ifndef TC_H5INTERNAL_H
#define TC_H5INTERNAL_H

#include <hdf5.h>

#include "tcsparse.h"
#include "h5group.h"

#define WHERE_MAX 1024

struct tc_h5grp {
    hid_t id;
    hid_t file;
    int owns_file;          /* opened by tc_h5grp_open: closed with the group */
    int compress;           /* datasets put here may be compressed */
    char where[WHERE_MAX];  /* "m.tcf.h5: /formats/brp" */
};

/* HDF5 errors */

/* Called on entry to every public function: HDF5 prints its error stack on
   stderr by default, and the library never prints. */
void tc_h5_quiet(void);
/* Formats a message, appends the innermost description on HDF5's error
   stack (the most specific reason, e.g. "truncated file: eof = ..."), and
   sets err. */
__attribute__((format(printf, 3, 4)))
tc_status tc_h5_fail(tc_error *err, tc_status st, const char *fmt, ...);
/* Closes any HDF5 object, keeping the error stack as it was (every API
   call clears it, and tc_h5_fail wants the reason of the call that failed). */
void tc_h5_close(hid_t id);
/* "integer", "float", "string", ...: a type class, for messages. */
const char *tc_h5_class_name(H5T_class_t c);

/* Groups: a tc_h5grp of the container's own lives on the caller's stack,
   opened or created in a file the caller holds, and is released (its
   group closed, not its file) by tc_h5grp_release. */

/* "m.tcf.h5: /formats/brp/name": a member of g, for messages. */
void tc_h5grp_member(const tc_h5grp *g, const char *name, char *buf, size_t size);
/* Opens the group at absolute `path` of file, checking each component.
   With optional set, a missing group gives TC_OK and g->id < 0. */
tc_status tc_h5grp_open_at(tc_h5grp *g, hid_t file, const char *fname, const char *path,
                           int optional, tc_error *err);
/* Creates group `name` under parent (or the root when parent is NULL). */
tc_status tc_h5grp_create_at(tc_h5grp *g, hid_t file, const char *fname,
                             const tc_h5grp *parent, const char *name, int compress,
                             tc_error *err);
void tc_h5grp_release(tc_h5grp *g);
/* Group creation without modification times, so that files are
   reproducible. */
hid_t tc_h5_gcpl_new(void);

/* Datasets */

/* Creates and writes dataset `name` (rank 1 or 2) from memory of type mt,
   stored as ft. Chunked, shuffled and deflated when g->compress and the
   dataset is 1-D and large; contiguous otherwise. */
tc_status tc_h5ds_write(tc_h5grp *g, const char *name, hid_t mt, hid_t ft, int rank,
                        const hsize_t *dims, const void *data, tc_error *err);
/* Creates 1-D dataset `name` of n elements of type t (laid out as
   tc_h5ds_write would), to be filled piece by piece with tc_h5ds_write_at;
   the caller closes *ds. */
tc_status tc_h5ds_create_1d(tc_h5grp *g, const char *name, tc_dtype t, int64_t n, hid_t *ds,
                            tc_error *err);
/* HDF5's shuffle filter (h5filters.c), for count elements of esize
   bytes: byte j of element i of the plain bytes is byte j * stride + i of
   the shuffled ones. undo 0: from plain to shuffled; 1: from shuffled to
   plain. A whole chunk has stride = count; an edge chunk's elements
   inside the dataset are the first count of its stride. */
void tc_h5_shuffle(const unsigned char *from, unsigned char *to, size_t count, size_t esize,
                   size_t stride, int undo);
/* Chunks a batch over the threads holds (at least 1, at most nchunks when
   that is positive), and in *threads the threads to run it on: the
   threaded deflate and inflate of h5deflate.c and h5chunks.c. */
int64_t tc_h5_chunk_batch(int64_t nchunks, int *threads);
/* Writes all n elements of esize bytes at data into ds, a 1-D dataset of
   chunks of `chunk` elements with the shuffle and deflate (at level)
   filters, whose file type is the bytes at data: each chunk filtered on
   threads, stored raw (h5deflate.c). */
tc_status tc_h5ds_write_deflated(hid_t ds, const void *data, int64_t n, size_t esize,
                                 int64_t chunk, int level, const char *what, tc_error *err);
/* Writes elements at .. at + count - 1 of ds from data (memory type t). */
tc_status tc_h5ds_write_at(tc_h5grp *g, const char *name, hid_t ds, tc_dtype t, int64_t at,
                           int64_t count, const void *data, tc_error *err);
/* Opens dataset `name` of g for reading as type t: a hard link to a dataset
   whose data lives in this file, of a class that converts to t without loss
   of kind (integers from integer datasets only; floats from integer or
   float ones). With optional set, a missing dataset gives TC_OK, *out < 0. */
tc_status tc_h5ds_open(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                       hid_t *out, tc_error *err);
/* The extents of ds, which must have the given rank, refused when the
   storage the file gives it cannot hold that many elements: nothing is
   allocated for a size that the file does not back. Its chunks are
   checked when it is read (tc_h5ds_read). */
tc_status tc_h5ds_extent(const tc_h5grp *g, const char *name, hid_t ds, int rank,
                         int64_t *dims, tc_error *err);
/* Each chunk of ds, when it is compressed, inside the file of fsize bytes
   and inflating to exactly its size (h5chunks.c); only the deflate and
   shuffle filters are accepted. With that, all of a 1-D deflated dataset
   whose file type is mem_type into buf (n elements), inflated and
   unshuffled on threads, *done 1; *done 0 (and TC_OK when every chunk
   passed) where it reads nothing: not chunked and deflated, another rank
   or type, chunks never written; HDF5 reads those (tc_h5ds_read). A
   shuffle after deflate fails the check. */
tc_status tc_h5ds_read_chunks(hid_t ds, hid_t mem_type, void *buf, const char *what,
                              uint64_t fsize, int *done, tc_error *err);
/* Reads all of ds into buf (already sized from tc_h5ds_extent) as type t,
   each chunk of a compressed ds checked first (tc_h5ds_read_chunks, which
   reads it too where it can, else HDF5). Every read of a dataset goes
   through here. */
tc_status tc_h5ds_read(const tc_h5grp *g, const char *name, hid_t ds, tc_dtype t,
                       void *buf, tc_error *err);
/* Opens a 1-D dataset and checks its length against `want` (>= 0; `why`,
   if not NULL, says where that number comes from), without reading it. */
tc_status tc_h5ds_open_1d(const tc_h5grp *g, const char *name, tc_dtype t, int optional,
                          int64_t want, const char *why, hid_t *ds, int64_t *n,
                          tc_error *err);
/* The whole of a 1-D dataset into a new array; want < 0 takes any length. */
tc_status tc_h5ds_get_1d(tc_h5grp *g, const char *name, tc_dtype t, int64_t want,
                         const char *why, int optional, int64_t *n, void **data, tc_error *err);

/* Attributes */

/* Writes attribute `name` of g from v (memory type mt, stored as ft): a
   scalar when rank is 0, else n values. */
tc_status tc_h5attr_write(tc_h5grp *g, const char *name, hid_t ft, hid_t mt, int rank,
                          hsize_t n, const void *v, tc_error *err);
/* Reads `count` numbers from attribute `name` into v as memory type mt
   (integers only when `integer`). */
tc_status tc_h5attr_read_num(const tc_h5grp *g, const char *name, hssize_t count,
                             int integer, hid_t mt, void *v, tc_error *err);
/* Reads a string attribute, variable-length or fixed-size, ASCII or UTF-8
   (h5py and anndata write either). Optional: a missing one gives *v NULL. */
tc_status tc_h5attr_read_str(const tc_h5grp *g, const char *name, int optional, char **v,
                             tc_error *err);

/* The value of string attribute a (variable-length or not) into a
   malloc'ed copy (*v NULL when out of memory). For the guard's child only
   when variable-length: see tc_h5attr_read_str. */
herr_t tc_h5attr_str_value(hid_t a, int variable, char **v);

/* Files */

/* Opens path read-only, with a plain error when it cannot be read or is
   not HDF5 at all (HDF5's own messages for those are obscure), after
   tc_h5_guard has walked it in a child process. */
tc_status tc_h5_file_open(const char *path, hid_t *out, tc_error *err);
/* H5Fopen, read-only, with a strong close degree; no checks. */
hid_t tc_h5_fopen(const char *path);
/* Opens path in a child process and asks HDF5 for all its metadata
   (h5guard.c): TC_OK when that finished, "PATH: corrupt file (...)"
   (TC_ERR_FORMAT) when the child died or looped. */
tc_status tc_h5_guard(const char *path, tc_error *err);
/* The value of variable-length string attribute `attr` of object `obj`
   ("/matrix") of the file last guarded under the name `path`, as the
   guard's child read it: 1 and *value, or 0 when it has none. */
int tc_h5_guard_string(const char *path, const char *obj, const char *attr,
                       const char **value);
/* For telling kinds of HDF5 files apart (tc_h5ad_is, tc_binsparse_is):
   1 when path is an HDF5 file (guarded, as tc_h5_file_open does) whose
   root group has attribute `attr`, and, when want is not NULL, that
   attribute is a string equal to want; 0 otherwise, silently. */
int tc_h5_root_attr(const char *path, const char *attr, const char *want);
/* Fills file, the new HDF5 file that will become target. */
typedef tc_status (*tc_h5_fill_fn)(hid_t file, const char *target, void *ctx, tc_error *err);
/* Writes target as a new HDF5 file, atomically: fill(file, target, ctx,
   err) writes into a temporary file beside it, created reproducibly (no
   modification times), which is synced and renamed into place only when
   fill succeeded. Nothing is left behind on failure. */
tc_status tc_h5_write_atomic(const char *target, tc_h5_fill_fn fill, void *ctx, tc_error *err);

/* Pieces of the container that tc_h5_write (h5file.c) and the streaming
   tc_h5_write_rows (h5stream.c) both write. */

/* What every .tcf.h5 writer does first: HDF5's printing off, *opts the
   defaults when NULL, path "-" refused (HDF5 needs a seekable file). */
tc_status tc_h5_write_start(const char *path, const tc_h5_write_opts **opts, tc_error *err);
/* The root's tcf_layout_version attribute. */
tc_status tc_h5_write_layout_version(hid_t file, const char *fname, tc_error *err);
/* /matrix's attributes (encoding, shape, field, symmetry) from a's header. */
tc_status tc_h5_matrix_attrs(tc_h5grp *g, const tc_csr *a, tc_error *err);
/* The /provenance group. */
tc_status tc_h5_write_provenance(hid_t file, const char *fname, const tc_provenance *p,
                                 tc_error *err);

/* The parts of tc_h5_write and tc_h5_read (formats/tcf_formats.c) below
   /formats, which the formats layer adds. */

/* What f must satisfy, but for its formats, for readers to accept the file
   it writes: a valid /matrix, permutations of its size. */
tc_status tc_h5_check_base(const char *path, const tc_tcf *f, tc_error *err);
/* The layout version, /matrix and /permutation of f. */
tc_status tc_h5_write_base(hid_t file, const char *fname, const tc_tcf *f, int compress,
                           tc_error *err);
/* Parameters as attributes of g: whole ones as int64 (h5dump shows h=16,
   not 1.6e+01), others as float64. */
tc_status tc_h5_put_params(tc_h5grp *g, const tc_params *p, tc_error *err);
/* Appends name = v to p; `where` names the group in messages. */
tc_status tc_h5_params_add(tc_params *p, const char *name, double v, const char *where,
                           tc_error *err);
/* Checks the layout version, reads /matrix and /permutation into f and
   checks /matrix against its symmetry attribute. */
tc_status tc_h5_read_base(hid_t file, const char *fname, tc_tcf *f, tc_error *err);
/* /labels (h5labels.c): written as group `name` under parent (NULL: the
   root) when the container has labels, or beside a dense result; read
   (NULL when absent) and checked against the matrix a. */
tc_status tc_h5_write_labels(hid_t file, const char *fname, const tc_h5grp *parent,
                             const char *name, const tc_labels *l, int compress, tc_error *err);
tc_status tc_h5_read_labels(hid_t file, const char *fname, const tc_csr *a, tc_labels **out,
                            tc_error *err);
/* Reads /provenance, when present, into p. */
tc_status tc_h5_read_provenance(hid_t file, const char *fname, tc_provenance *p,
                                tc_error *err);

#endif
