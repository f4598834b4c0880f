/* atomic.c: outputs are written to a temporary file beside the target and
   renamed into place only when complete, so a failed or interrupted run never
   leaves a half-written file and never clobbers the previous one. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tcsparse.h"

/* Temporary files in flight, for the signal handler (which may only call
   async-signal-safe functions: unlink, signal, raise). */
#define MAX_PENDING 64
static char *volatile pending[MAX_PENDING];

static void pending_add(char *path)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending[i]) {
            pending[i] = path;
            return;
        }
}

static void pending_remove(const char *path)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i] == path)
            pending[i] = NULL;
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i])
            unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A signal ignored when the program started stays ignored: `nohup tcconv
   ...` must outlive its terminal (SIGHUP), a caller that ignores SIGPIPE
   expects EPIPE, and a shell starts background jobs with SIGINT ignored. */
void tc_atomic_install_signal_handlers(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* mkstemp(tmp), the file then on the pending list. Signals are held in
   between, so that an interrupt cannot leave a file the handler does not
   know of. */
static int create_pending(char *tmp)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int fd = mkstemp(tmp);
    int e = errno;
    if (fd >= 0)
        pending_add(tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

int tc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A device or a fifo (-o /dev/null, a named pipe read by another program)
   is written in place: it holds no previous contents to keep, and renaming
   a temporary file onto it would replace the node itself (as root, even
   /dev/null) with a regular file. So is anything under /dev or /proc:
   /dev/stdout and /proc/self/fd/N lead to whatever the descriptor is open on
   (a file the shell redirected to as well), and a rename would replace the
   link, not that file. */
static tc_status open_in_place(tc_atomic *a, const char *target, int want_fp, tc_error *err)
{
    a->in_place = 1;
    a->target = strdup(target);
    a->tmp = strdup(target);
    if (!a->target || !a->tmp) {
        tc_atomic_abort(a);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    if (want_fp && !(a->fp = fopen(target, "wb"))) {
        int e = errno;
        tc_atomic_abort(a);
        return tc_error_errno(err, TC_ERR_IO, e, "%s: cannot open", target);
    }
    return TC_OK;
}

tc_status tc_atomic_open(tc_atomic *a, const char *target, int want_fp, tc_error *err)
{
    memset(a, 0, sizeof *a);
    if (strcmp(target, "-") == 0) {
        a->is_stdout = 1;
        a->fp = stdout;
        return TC_OK;
    }
    struct stat st;
    int exists = stat(target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return tc_error_set(err, TC_ERR_IO, "%s: is a directory", target);
    if (exists && (!S_ISREG(st.st_mode) || strncmp(target, "/dev/", 5) == 0 ||
                   strncmp(target, "/proc/", 6) == 0))
        return open_in_place(a, target, want_fp, err);
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target + 1) : 0;
    size_t len = strlen(target);
    a->target = strdup(target);
    a->tmp = malloc(len + 16);
    if (!a->target || !a->tmp) {
        tc_atomic_abort(a);
        return tc_error_set(err, TC_ERR_NOMEM, "out of memory");
    }
    /* DIR/.NAME.XXXXXX: same directory, so rename() is atomic. */
    memcpy(a->tmp, target, dirlen);
    snprintf(a->tmp + dirlen, len + 16 - dirlen, ".%s.XXXXXX", target + dirlen);
    int fd = create_pending(a->tmp);
    if (fd < 0) {
        int e = errno;
        free(a->tmp);
        a->tmp = NULL;
        tc_atomic_abort(a);
        return tc_error_errno(err, TC_ERR_IO, e, "%s: cannot create", target);
    }
    /* mkstemp makes 0600; give the output the mode a plain creat() would. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (want_fp) {
        a->fp = fdopen(fd, "wb");
        if (!a->fp) {
            int e = errno;
            close(fd);
            tc_atomic_abort(a);
            return tc_error_errno(err, TC_ERR_IO, e, "%s: cannot open", target);
        }
    } else {
        close(fd);
    }
    return TC_OK;
}

tc_status tc_atomic_commit(tc_atomic *a, tc_error *err)
{
    if (a->is_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return tc_error_errno(err, TC_ERR_IO, errno, "standard output: write failed");
        return TC_OK;
    }
    if (a->fp) {
        /* (fsync is for files: a device or a fifo refuses it) */
        int bad = ferror(a->fp) || fflush(a->fp) != 0 ||
                  (!a->in_place && fsync(fileno(a->fp)) != 0);
        int e = errno;
        if (fclose(a->fp) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        a->fp = NULL;
        if (bad) {
            tc_error_errno(err, TC_ERR_IO, e ? e : EIO, "%s: write failed", a->target);
            tc_atomic_abort(a);
            return TC_ERR_IO;
        }
    }
    if (!a->in_place && rename(a->tmp, a->target) != 0) {
        tc_error_errno(err, TC_ERR_IO, errno, "%s: cannot rename temporary file into place",
                       a->target);
        tc_atomic_abort(a);
        return TC_ERR_IO;
    }
    pending_remove(a->tmp);
    free(a->tmp);
    free(a->target);
    memset(a, 0, sizeof *a);
    return TC_OK;
}

void tc_atomic_abort(tc_atomic *a)
{
    if (a->is_stdout) {
        fflush(stdout);
        memset(a, 0, sizeof *a);
        return;
    }
    if (a->fp)
        fclose(a->fp);
    if (a->tmp && !a->in_place) {
        unlink(a->tmp);
        pending_remove(a->tmp);
    }
    free(a->tmp);
    free(a->target);
    memset(a, 0, sizeof *a);
}
