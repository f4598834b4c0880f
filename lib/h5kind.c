/*
 * h5kind.c: telling kinds of HDF5 files apart by what their root holds
 * (an AnnData file's encoding-type, a binsparse descriptor), for the
 * tools' choice of reader when no --from names one.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tcsparse.h"
#include "h5internal.h"

int tc_h5_root_attr(const char *path, const char *attr, const char *want)
{
    tc_h5_quiet();
    if (!tc_h5_is_hdf5(path))
        return 0;
    hid_t file;
    tc_error err;
    if (tc_h5_file_open(path, &file, &err) != TC_OK)
        return 0;
    tc_h5grp root;
    char *v = NULL;
    int found = 0;
    if (tc_h5grp_open_at(&root, file, path, "/", 0, &err) == TC_OK) {
        htri_t e = H5Aexists(root.id, attr);
        found = e > 0 && (!want || (tc_h5attr_read_str(&root, attr, 1, &v, &err) == TC_OK &&
                                    v && strcmp(v, want) == 0));
        free(v);
    }
    tc_h5grp_release(&root);
    tc_h5_close(file);
    return found;
}
