/* mtx_internal.h: what the files of the Matrix Market reader share: the
   input (mtx_source.c), which hands out lines and blocks of text, and the
   header read from it (mtx_header.c); mtx_read.c reads the data lines that
   follow. The scanners are in mtx_scan.h. Internal to the library; not
   installed. */
#ifndef TC_MTX_INTERNAL_H
#define TC_MTX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "tcsparse.h"

enum {
    PAD_BYTES = 8               /* zeroed bytes after the buffer: scan_index
                                   loads 8 bytes at a time */
};

/* ------------------------------------------------------------------------ */
/* Input: blocks of text from a file, stdin or memory, plain or gzip        */
/* ------------------------------------------------------------------------ */

typedef struct mtx_reader {
    const char *name;           /* for messages */
    const char *what;           /* the kind of text, for messages: "Matrix
                                   Market" (the default), "an edge list" */
    tc_error *err;
    gzFile gz;                  /* files and stdin: zlib looks at the first
                                   bytes and inflates only when they are the
                                   gzip magic, so detection is by content */
    const unsigned char *mem;   /* tc_mtx_read_mem */
    size_t mem_len, mem_pos;
    int64_t raw_bytes;          /* size of the file or memory, -1 unknown */
    z_stream zs;                /* gzip bytes in memory */
    int zs_open, zs_done;
    char *buf;                  /* cap bytes, one for a final '\n', PAD_BYTES */
    size_t cap;
    size_t pos, lim, end;       /* [pos, lim): complete lines not parsed yet;
                                   [lim, end): the start of a cut line */
    int eof, added_newline;     /* the last line had no '\n' of its own */
    int64_t line;               /* lines consumed so far */
    const tc_progress *prog;
    int64_t done, total;        /* entries read and declared, for progress */
    int64_t unreported;         /* bytes read since the last report */
} mtx_reader;

/* realloc of n elements of sz bytes for the readers' growing arrays: NULL
   (err set) on overflow or no memory. */
void *tc_mtx_grow_array(void *p, int64_t n, size_t sz, tc_error *err);

/* "name:line: message" into r->err, with st. */
__attribute__((format(printf, 4, 5)))
tc_status tc_mtx_fail(const mtx_reader *r, int64_t line, tc_status st, const char *fmt, ...);

/* A NUL byte in the line [s, e) refused with its column: text cut there
   would read as something else (a banner cut short, a bad number). */
tc_status tc_mtx_refuse_nul(const mtx_reader *r, int64_t line, const char *s, const char *e);

/* Opens a file (stdin for "-") or bytes in memory. r is closed by
   tc_mtx_reader_close whether the open succeeded or not. */
tc_status tc_mtx_reader_open_path(mtx_reader *r, const char *path, tc_error *err);
tc_status tc_mtx_reader_open_mem(mtx_reader *r, const void *buf, size_t len, const char *name,
                                 tc_error *err);
void tc_mtx_reader_close(mtx_reader *r);

/* Called when [pos, lim) is used up: moves the cut line at [lim, end) to the
   front and reads until the buffer holds at least one complete line (the
   last line of the input gets a '\n' if it has none). Returns 1 when lines
   are available, 0 at the end of the input, -1 on error (r->err set). */
int tc_mtx_refill(mtx_reader *r);
/* The next line as [*s, *e) with *e at its '\n'. Returns 1, 0 at the end of
   the input, -1 on error (a NUL byte in the line among them). */
int tc_mtx_next_line(mtx_reader *r, const char **s, const char **e);
/* The line number to quote when the input ended early. */
int64_t tc_mtx_eof_line(const mtx_reader *r);
/* The most lines of line_bytes bytes or more that the input can hold
   (gzip data inflates DEFLATE_MAX_RATIO times at most), or -1 when its
   size is unknown (a pipe). */
int64_t tc_mtx_lines_bound(const mtx_reader *r, int64_t line_bytes);

/* ------------------------------------------------------------------------ */
/* Header: banner, comments, size line                                      */
/* ------------------------------------------------------------------------ */

typedef struct mtx_header {
    int is_array;
    tc_field field;
    tc_symmetry symmetry;
    int32_t rows, cols;
    int64_t entries;        /* entries the file lists */
} mtx_header;

/* Reads the banner, the comment lines (into info->comments) and the size
   line, leaving r at the first data line. info is filled even on failure,
   as far as the header was read: the caller frees its comments. */
tc_status tc_mtx_read_header(mtx_reader *r, mtx_header *h, tc_mtx_info *info);

#endif
