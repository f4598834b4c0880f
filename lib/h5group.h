/*
 * h5group.h: the narrow HDF5 interface that formats/ uses to store and load
 * their arrays (implemented in lib/h5group.c, h5attr.c and h5open.c). Keeps
 * <hdf5.h> out of formats/.
 * Internal to the library; not installed.
 */
#ifndef TC_H5GROUP_H
#define TC_H5GROUP_H

#include "tcsparse.h"

typedef enum tc_dtype {
    TC_U8, TC_I32, TC_U32, TC_I64, TC_U64, TC_F32, TC_F64
} tc_dtype;
size_t tc_dtype_size(tc_dtype t);

/* An open group of a .tcf.h5 file, with the file name and group path kept
   for messages ("m.tcf.h5: /formats/brp/local_id: ..."). */
typedef struct tc_h5grp tc_h5grp;
const char *tc_h5grp_path(const tc_h5grp *g);   /* "m.tcf.h5: /formats/brp" */

/* Opens group `path` ("/formats/brp") of an existing HDF5 file read-only,
   for reading arrays outside tc_h5_read (tests, inspection tools);
   tc_h5grp_close closes the file too. tc_h5_write and tc_h5_read hand
   formats groups of their own, which formats never close. */
tc_status tc_h5grp_open(const char *file, const char *path, tc_h5grp **out, tc_error *err);
void tc_h5grp_close(tc_h5grp *g);

/* Datasets: one-dimensional arrays of n elements (chunked and compressed
   above the size threshold when the file is written with compression). */
tc_status tc_h5grp_put(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                       const void *data, tc_error *err);
/* Reads a 1-D dataset, converting to type t (HDF5 refuses lossy
   conversions: a float dataset read as an integer type is an error). *data
   is malloc'ed (non-NULL even when n is 0). With optional set, a missing
   dataset gives TC_OK, *n = -1 and *data = NULL. */
tc_status tc_h5grp_get(tc_h5grp *g, const char *name, tc_dtype t, int64_t *n,
                       void **data, int optional, tc_error *err);
/* Reads exactly n elements, refusing any other length. */
tc_status tc_h5grp_get_n(tc_h5grp *g, const char *name, tc_dtype t, int64_t n,
                         void **data, tc_error *err);
int tc_h5grp_has(tc_h5grp *g, const char *name);

/* Scalar attributes of the group. */
tc_status tc_h5grp_put_attr_i64(tc_h5grp *g, const char *name, int64_t v, tc_error *err);
tc_status tc_h5grp_put_attr_f64(tc_h5grp *g, const char *name, double v, tc_error *err);
tc_status tc_h5grp_put_attr_str(tc_h5grp *g, const char *name, const char *v, tc_error *err);
tc_status tc_h5grp_get_attr_i64(tc_h5grp *g, const char *name, int64_t *v, tc_error *err);
tc_status tc_h5grp_get_attr_f64(tc_h5grp *g, const char *name, double *v, tc_error *err);
/* *v malloc'ed. */
tc_status tc_h5grp_get_attr_str(tc_h5grp *g, const char *name, char **v, tc_error *err);

#endif
