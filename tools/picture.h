/*
 * picture.h: what tcplot and tcreorder share about the pictures they
 * draw.
 */
#ifndef TC_TOOL_PICTURE_H
#define TC_TOOL_PICTURE_H

#include <stddef.h>

/* A picture's title for the matrix read from path: `given` when not NULL,
   else the file's name without its folder and its matrix extension
   (.mtx, .mtx.gz, .tcf.h5, .h5, .hdf5), "" for standard input. */
void tool_matrix_title(char *buf, size_t size, const char *given, const char *path);

#endif
