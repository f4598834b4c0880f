/*
 * h5guard.c: the last line of defence against files that crash libhdf5.
 *
 * HDF5 1.10 trusts some lengths it reads from a file: a global heap
 * object's size (behind every variable-length string attribute), the
 * length stored with a variable-length value, and more that no public
 * call lets us check first. A corrupted file can make it read or write
 * past its buffers and die with a signal. So the whole read is done first
 * in a child process (fork: the same code on the same file), which either
 * finishes or dies; only when it finished does the caller's process do
 * the read for real, and a child that died becomes "FILE: corrupt file"
 * instead of a crash. HDF5 can also loop for ever on a corrupted file (a
 * global heap whose free-space object has length 0), so the child gets a
 * limit on its CPU time, generous for the file's size: a slow disk does
 * not count against it, a loop does. The checks of h5group.c still refuse what they can
 * with a precise message: they run in both processes.
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
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcsparse.h"
#include "h5internal.h"

/* CPU seconds the child may take: reading and checking a file takes well
   under a second per 10 MB (gupta2: 2.0 MB, -f all, 0.3 s), so this is
   ten times that at least. */
#define CPU_BASE_SECONDS 10
#define CPU_BYTES_PER_SECOND (1 << 20)

static void child_run(tc_h5_guarded_fn fn, void *ctx, rlim_t cpu_seconds)
{
    struct rlimit cpu = { cpu_seconds, cpu_seconds + 1 };
    setrlimit(RLIMIT_CPU, &cpu);
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], SIG_DFL);
    }
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, STDERR_FILENO);
    tc_error err;
    fn(ctx, &err);   /* a refusal is the caller's to report, from its own read */
    _exit(0);
}

tc_status tc_h5_guard(const char *path, tc_h5_guarded_fn fn, void *ctx, tc_error *err)
{
    struct stat sb;
    rlim_t cpu = CPU_BASE_SECONDS +
                 (stat(path, &sb) == 0 ? (rlim_t)sb.st_size / CPU_BYTES_PER_SECOND : 0);
    pid_t pid = fork();
    if (pid < 0)
        return tc_error_errno(err, TC_ERR_IO, errno,
                              "%s: cannot start a process to read it safely", path);
    if (pid == 0)
        child_run(fn, ctx, cpu);
    int ws;
    pid_t r;
    while ((r = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        return tc_error_errno(err, TC_ERR_IO, errno, "%s: lost the process reading it", path);
    if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGXCPU)
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: corrupt file (the HDF5 library did not finish reading it in "
                            "%llu s of CPU time)", path, (unsigned long long)cpu);
    if (WIFSIGNALED(ws))
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: corrupt file (the HDF5 library faulted reading it: %s)", path,
                            strsignal(WTERMSIG(ws)));
    if (WEXITSTATUS(ws) != 0)   /* a sanitizer's report, in a checked build */
        return tc_error_set(err, TC_ERR_FORMAT,
                            "%s: corrupt file (the HDF5 library faulted reading it: a memory "
                            "error)", path);
    return fn(ctx, err);
}
