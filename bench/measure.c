/* measure.c: runs a command and records its wall time and peak resident
   memory, for bench/scale.sh (GNU time is not on every machine we
   measure on).

   usage: measure OUT COMMAND [ARGS...]

   Appends "SECONDS<TAB>PEAK_RSS_KIB<TAB>STATUS<TAB>CPU_SECONDS" to OUT and
   exits with the command's status (128 + signal when it was killed). The
   peak is the kernel's ru_maxrss of the child, which counts the command's
   own process (its largest resident set), not the sum of any processes it
   starts; CPU_SECONDS is its user and system time, all threads: on a
   machine others load too, the wall time says little. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: measure OUT COMMAND [ARGS...]\n");
        return 2;
    }
    const double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "measure: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "measure: wait: %s\n", strerror(errno));
            return 1;
        }
    const double secs = now() - t0;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *out = fopen(argv[1], "a");
    const double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                       1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    if (!out || fprintf(out, "%.3f\t%ld\t%d\t%.3f\n", secs, ru.ru_maxrss, code, cpu) < 0 ||
        fclose(out) != 0) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    return code;
}
