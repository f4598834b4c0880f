/*
 * replay.c: runs a harness of tests/fuzz/ on files, without libFuzzer, so
 * that `make check` (and ./check.sh --sanitize) replays every regression
 * and corpus file through the same LLVMFuzzerTestOneInput the fuzzer ran.
 * Built once per harness as tests/t_fuzz_NAME, with FUZZ_TARGET "NAME".
 *
 *   t_fuzz_NAME            every file of tests/fuzz/regressions/NAME and
 *                          tests/fuzz/corpus/NAME under $top_srcdir (.)
 *   t_fuzz_NAME FILE...    those files
 *
 * A crash aborts the program (the sanitizers report it first when the
 * build has them); each file that passes prints one TAP line, so a crash
 * is in the file after the last one printed.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET (the harness's name) is set by Makefile.am"
#endif

/* Harnesses without set-up leave it undefined. */
#pragma weak LLVMFuzzerInitialize

typedef struct files {
    int n, cap;
    char **path;
} files;

static void add_file(files *fs, const char *dir, const char *name)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->path = realloc(fs->path, (size_t)fs->cap * sizeof *fs->path);
    }
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = fs->path ? malloc(len) : NULL;
    if (!p) {
        fprintf(stderr, "replay: out of memory\n");
        exit(99);
    }
    snprintf(p, len, "%s%s%s", dir, *dir ? "/" : "", name);
    fs->path[fs->n++] = p;
}

static int visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* The files of $top_srcdir/tests/fuzz/KIND/FUZZ_TARGET in name order (none
   when the directory does not exist). */
static void add_dir(files *fs, const char *kind)
{
    const char *top = getenv("top_srcdir");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/%s/%s", top ? top : ".", kind, FUZZ_TARGET);
    struct dirent **list;
    int n = scandir(dir, &list, visible, alphasort);
    for (int i = 0; i < n; i++) {
        add_file(fs, dir, list[i]->d_name);
        free(list[i]);
    }
    if (n >= 0)
        free(list);
}

/* The whole of path into a malloc'ed buffer (non-NULL even when empty). */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap *= 2);
        if (!bigger)
            free(buf);
        buf = bigger;
    }
    if (buf && ferror(fp)) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    files fs = { 0, 0, NULL };
    for (int i = 1; i < argc; i++)
        add_file(&fs, "", argv[i]);
    if (argc == 1) {
        add_dir(&fs, "regressions");
        add_dir(&fs, "corpus");
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    printf("1..%d\n", fs.n);
    int bad = 0;
    for (int i = 0; i < fs.n; i++) {
        size_t len;
        uint8_t *data = slurp(fs.path[i], &len);
        if (!data) {
            printf("not ok %d - %s: cannot read\n", i + 1, fs.path[i]);
            bad = 1;
        } else {
            fflush(stdout);
            LLVMFuzzerTestOneInput(data, len);
            printf("ok %d - %s\n", i + 1, fs.path[i]);
        }
        free(data);
        free(fs.path[i]);
    }
    free(fs.path);
    return bad;
}
