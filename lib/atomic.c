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

void tc_atomic_install_signal_handlers(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
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

tc_status tc_atomic_open(tc_atomic *a, const char *target, int want_fp, tc_error *err)
{
    memset(a, 0, sizeof *a);
    if (strcmp(target, "-") == 0) {
        a->is_stdout = 1;
        a->fp = stdout;
        return TC_OK;
    }
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
        return tc_error_set(err, TC_ERR_IO, "%s: is a directory", target);
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
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        int e = errno;
        free(a->tmp);
        a->tmp = NULL;
        tc_atomic_abort(a);
        return tc_error_errno(err, TC_ERR_IO, e, "%s: cannot create", target);
    }
    pending_add(a->tmp);
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
        int bad = ferror(a->fp) || fflush(a->fp) != 0 || fsync(fileno(a->fp)) != 0;
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
    if (rename(a->tmp, a->target) != 0) {
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
    if (a->tmp) {
        unlink(a->tmp);
        pending_remove(a->tmp);
    }
    free(a->tmp);
    free(a->target);
    memset(a, 0, sizeof *a);
}
