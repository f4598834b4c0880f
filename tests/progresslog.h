/*
 * progresslog.h: a tc_progress that records what a plan reported of its
 * progress, for the plan tests. Include after tcsparse.h.
 */
#ifndef TC_PROGRESSLOG_H
#define TC_PROGRESSLOG_H

typedef struct progress_log {
    int64_t last, total;
    int reports, backwards;     /* backwards: reports below the one before, or
                                   of another total */
} progress_log;

__attribute__((unused)) static void log_progress(void *ctx, int64_t done, int64_t total)
{
    progress_log *l = ctx;
    l->backwards += l->reports > 0 && (done < l->last || total != l->total);
    l->last = done;
    l->total = total;
    l->reports++;
}

/* 1 when the reports went one way, of one total, to its end. */
__attribute__((unused)) static int progress_log_whole(const progress_log *l)
{
    return l->backwards == 0 && l->total > 0 && l->last == l->total;
}

#endif
