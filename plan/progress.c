/*
 * progress.c: a plan's progress (tc_plan_opts.progress) as one bar from
 * start to end. Planning is steps (the reorderings the model ranks in,
 * then each candidate timed; on the CPU each order), each a share of the
 * bar; a reordering run inside a step reports its own progress within its
 * step's share, so that a wjaccard of most of a minute moves the bar too.
 */
#include <config.h>

#include "plan_internal.h"

/* Reports in millionths of the whole. */
#define UNITS 1000000

static void report(tc_plan *p, double f)
{
    const int64_t at = (int64_t)(f * UNITS);
    if (at > p->progress_at) {  /* never backwards */
        p->progress_at = at;
        tc_progress_report(p->o.progress, at, UNITS);
    }
}

static void step_report(void *ctx, int64_t done, int64_t total)
{
    tc_plan *p = ctx;
    const double f = done < total ? (double)done / (double)total : 1;
    report(p, p->step_lo + (p->step_hi - p->step_lo) * f);
}

void tc_plan_progress_start(tc_plan *p)
{
    p->progress_at = -1;
    p->step_lo = 0;
    p->step_hi = 1;
    p->step_progress = (tc_progress){ step_report, p };
}

void tc_plan_progress_step(tc_plan *p, double lo, double hi)
{
    p->step_lo = lo;
    p->step_hi = hi;
    report(p, lo);
}

double tc_plan_progress_at(const tc_plan *p)
{
    return p->progress_at > 0 ? (double)p->progress_at / UNITS : 0;
}

const tc_progress *tc_plan_step_progress(const tc_plan *p)
{
    return p->o.progress ? &p->step_progress : NULL;
}
