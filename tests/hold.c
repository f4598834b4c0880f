/* hold.c: an LD_PRELOAD module for tests/faults-signal.sh that stops a
   writing tool at a chosen point of its output, so that a signal is sure to
   arrive there (timing a kill against a fast write would be a race).

   TC_HOLD=write    hold at a write (fwrite, write, pwrite) into a
                    temporary output file that already holds data: part of
                    the output is in it, the rest is to come
   TC_HOLD=rename   hold when the complete temporary file is about to be
                    renamed into place
   TC_HOLD_MARK     a file created once the process holds

   A temporary output file is one whose name starts with a dot
   (lib/atomic.c names them DIR/.NAME.XXXXXX). Holding is pause() until a
   signal ends the process; without TC_HOLD every call goes straight to the
   C library. */
#include "config.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_temporary(const char *path)
{
    const char *slash = strrchr(path, '/');
    return (slash ? slash[1] : path[0]) == '.';
}

static int fd_is_temporary(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return is_temporary(path);
}

static int holding(const char *point)
{
    const char *want = getenv("TC_HOLD");
    return want && strcmp(want, point) == 0;
}

static void hold(void)
{
    const char *mark = getenv("TC_HOLD_MARK");
    if (mark)
        close(open(mark, O_WRONLY | O_CREAT, 0644));
    for (;;)
        pause();
}

static void before_write(int fd)
{
    struct stat st;
    if (holding("write") && fd_is_temporary(fd) && fstat(fd, &st) == 0 && st.st_size > 0)
        hold();
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

size_t fwrite(const void *p, size_t size, size_t n, FILE *fp)
{
    before_write(fileno(fp));
    return REAL(fwrite)(p, size, n, fp);
}

ssize_t write(int fd, const void *p, size_t n)
{
    before_write(fd);
    return REAL(write)(fd, p, n);
}

ssize_t pwrite(int fd, const void *p, size_t n, off_t at)
{
    before_write(fd);
    return REAL(pwrite)(fd, p, n, at);
}

ssize_t pwrite64(int fd, const void *p, size_t n, off64_t at)
{
    before_write(fd);
    return REAL(pwrite64)(fd, p, n, at);
}

int rename(const char *from, const char *to)
{
    if (holding("rename") && is_temporary(from))
        hold();
    return REAL(rename)(from, to);
}
