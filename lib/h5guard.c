/*
 * h5guard.c: the last line of defence against files that crash libhdf5.
 *
 * HDF5 1.10 trusts some lengths it reads from a file: a global heap
 * object's size (behind every variable-length string attribute), the
 * length stored with a variable-length value, and more that no public
 * call lets us check first. A corrupted file can make it read or write
 * past its buffers and die with a signal, or loop for ever (a global heap
 * whose free-space object has length 0). So before a file is read, a child
 * process (fork) opens it and asks HDF5 for all of its metadata: every
 * group and link, every object header, every attribute (string values
 * read, which decodes the global heap), every dataset's type, extent,
 * layout, filters and chunk index. Only when that child finished does the
 * caller read the file for real; a child that died becomes "FILE: corrupt
 * file" instead of a crash, and one that runs past a CPU limit (generous
 * for the file's size: a slow disk does not count against it, a loop
 * does) too. Dataset contents are not read in the child, which keeps its
 * cost to the metadata: what H5Dread will trust (storage sizes, chunk
 * addresses and sizes) is checked by h5group.c before each read.
 *
 * The child says nothing (its stderr goes to /dev/null: a sanitizer's
 * report of a fault inside libhdf5 is what it exists to contain) and
 * leaves with _exit, so that it flushes no stdio buffer of the caller and
 * runs no atexit handler. Signals whose handler would remove the caller's
 * pending output files (lib/atomic.c) are reset to their default in it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcsparse.h"
#include "h5internal.h"

/* CPU seconds the child may take: its walk of a well-formed file takes
   milliseconds whatever the file's size, so this is only there to stop a
   loop. */
#define CPU_SECONDS 10

/* What the child sends back: for each variable-length string attribute
   of one value, "OBJECT\0NAME\0VALUE\0". */
struct probe {
    int fd;
    const char *obj;
};

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(2);
        p += w;
        n -= (size_t)w;
    }
}

/* Attribute `name` of the object being probed: decoded with its object
   header; a variable-length string's value read (from the global heap)
   and sent to the caller, who never reads one itself. */
static herr_t probe_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    const struct probe *p = data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a < 0 ? -1 : H5Aget_type(a);
    hid_t space = a < 0 ? -1 : H5Aget_space(a);
    char *v = NULL;
    if (t >= 0 && space >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0 &&
        H5Sget_simple_extent_npoints(space) == 1 && tc_h5attr_str_value(a, 1, &v) >= 0 && v) {
        send_all(p->fd, p->obj, strlen(p->obj) + 1);
        send_all(p->fd, name, strlen(name) + 1);
        send_all(p->fd, v, strlen(v) + 1);
    }
    free(v);
    H5Sclose(space);
    H5Tclose(t);
    H5Aclose(a);
    return 0;
}

/* A dataset's metadata and its chunk index, walked to the end. */
static void probe_dataset(hid_t file, const char *name)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return;
    hid_t t = H5Dget_type(ds), space = H5Dget_space(ds), dcpl = H5Dget_create_plist(ds);
    H5Dget_storage_size(ds);
    if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED) {
        int nfilters = H5Pget_nfilters(dcpl);
        for (int i = 0; i < nfilters; i++) {
            unsigned flags, cd[8];
            size_t ncd = 8;
            char fname[64];
            H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
        }
        hsize_t nchunks = 0, offset[H5S_MAX_RANK], size;
        unsigned mask;
        haddr_t addr;
        H5Dget_num_chunks(ds, space, &nchunks);
        for (hsize_t i = 0; i < nchunks; i++)
            H5Dget_chunk_info(ds, space, i, offset, &mask, &addr, &size);
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(t);
    H5Dclose(ds);
}

static herr_t probe_object(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    struct probe *p = data;
    char obj[4096];
    /* H5Ovisit names the root "." and the others without the leading / */
    snprintf(obj, sizeof obj, "/%s", strcmp(name, ".") == 0 ? "" : name);
    p->obj = obj;
    H5Aiterate_by_name(root, name, H5_INDEX_NAME, H5_ITER_INC, NULL, probe_attr, p,
                       H5P_DEFAULT);
    if (info->type == H5O_TYPE_DATASET)
        probe_dataset(root, name);
    return 0;
}

static void child_run(const char *path, int fd)
{
    struct rlimit cpu = { CPU_SECONDS, CPU_SECONDS + 1 };
    setrlimit(RLIMIT_CPU, &cpu);    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], SIG_DFL);
    }
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, STDERR_FILENO);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file;
    /* a refusal is the caller's to report, from its own read */
    if ((file = tc_h5_fopen(path)) >= 0)
        H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, probe_object, &(struct probe){ fd, "/" },
                  H5O_INFO_BASIC);
    _exit(0);
}

/* The strings each guarded file's child sent, by the file's name: the
   last one guarded under that name counts. Kept until exit (a tool reads
   a few files). */
typedef struct table {
    struct table *next;
    char *path, *buf;
    size_t len;
} table;
static table *tables;

static void free_tables(void)
{
    while (tables) {
        table *t = tables;
        tables = t->next;
        free(t->path);
        free(t->buf);
        free(t);
    }
}

/* Everything the child sends, until it closes the pipe. */
static tc_status receive(int fd, const char *path, char **buf, size_t *len, tc_error *err)
{
    size_t cap = 4096;
    *len = 0;
    *buf = malloc(cap);
    for (;;) {
        if (*buf && *len == cap) {
            char *more = realloc(*buf, cap *= 2);
            if (!more) {
                free(*buf);
                *buf = NULL;
            } else
                *buf = more;
        }
        if (!*buf) {
            char sink[4096];   /* keep draining, so that the child can finish */
            if (read(fd, sink, sizeof sink) > 0)
                continue;
            return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path);
        }
        ssize_t r = read(fd, *buf + *len, cap - *len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return tc_error_errno(err, TC_ERR_IO, errno, "%s: lost the process reading it",
                                  path);
        if (r == 0)
            return TC_OK;
        *len += (size_t)r;
    }
}

static tc_status keep(const char *path, char *buf, size_t len, tc_error *err)
{
    static int registered;
    table *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        free(t);
        free(buf);
        return tc_error_set(err, TC_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!registered)
        registered = atexit(free_tables) == 0;
    t->buf = buf;
    t->len = len;
    t->next = tables;
    tables = t;
    return TC_OK;
}

int tc_h5_guard_string(const char *path, const char *obj, const char *attr,
                       const char **value)
{
    for (const table *t = tables; t; t = t->next) {
        if (strcmp(t->path, path) != 0)
            continue;
        /* records of three NUL-terminated strings; a cut last one is ignored */
        const char *p = t->buf, *end = t->buf + t->len;
        while (p < end) {
            const char *o = p, *n = memchr(o, 0, end - o);
            const char *v = n ? memchr(n + 1, 0, end - n - 1) : NULL;
            const char *next = v ? memchr(v + 1, 0, end - v - 1) : NULL;
            if (!next)
                break;
            if (strcmp(o, obj) == 0 && strcmp(n + 1, attr) == 0) {
                *value = v + 1;
                return 1;
            }
            p = next + 1;
        }
        return 0;
    }
    return 0;
}

tc_status tc_h5_guard(const char *path, tc_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return tc_error_errno(err, TC_ERR_IO, errno,
                              "%s: cannot start a process to read it safely", path);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return tc_error_errno(err, TC_ERR_IO, errno,
                              "%s: cannot start a process to read it safely", path);
    }
    if (pid == 0) {
        close(fds[0]);
        child_run(path, fds[1]);
    }
    close(fds[1]);
    char *buf;
    size_t len;
    tc_status st = receive(fds[0], path, &buf, &len, err);
    close(fds[0]);
    int ws;
    pid_t r;
    while ((r = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
        ;
    if (st == TC_OK && r < 0)
        st = tc_error_errno(err, TC_ERR_IO, errno, "%s: lost the process reading it", path);
    else if (st == TC_OK && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGXCPU)
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: corrupt file (the HDF5 library did not finish reading it in "
                          "%d s of CPU time)", path, CPU_SECONDS);
    else if (st == TC_OK && WIFSIGNALED(ws))
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: corrupt file (the HDF5 library faulted reading it: %s)", path,
                          strsignal(WTERMSIG(ws)));
    else if (st == TC_OK && WEXITSTATUS(ws) != 0)   /* a sanitizer's report, in a checked build */
        st = tc_error_set(err, TC_ERR_FORMAT,
                          "%s: corrupt file (the HDF5 library faulted reading it: a memory "
                          "error)", path);
    if (st != TC_OK) {
        free(buf);
        return st;
    }
    return keep(path, buf, len, err);
}
