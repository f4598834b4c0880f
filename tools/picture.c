/* picture.c: what tcplot and tcreorder share about their pictures. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "picture.h"

void tool_matrix_title(char *buf, size_t size, const char *given, const char *path)
{
    /* longest first: .mtx.gz before .gz, .tcf.h5 before .h5 */
    static const char *const ext[] = { ".mtx.gz", ".tcf.h5", ".mtx", ".hdf5", ".h5" };
    if (given || strcmp(path, "-") == 0) {
        snprintf(buf, size, "%s", given ? given : "");
        return;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && strcmp(base + n - e, ext[i]) == 0) {
            n -= e;
            break;
        }
    }
    snprintf(buf, size, "%.*s", (int)n, base);
}
