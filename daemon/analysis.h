/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Analyses off the event loop (docs/architecture.md, "Work a caller's input
 * decides"). Work whose cost a caller's input decides (SizeReservation's
 * designer) never runs in the loop: it runs on a thread of its own at
 * SCHED_IDLE, and the call it answers waits, as polkit's and systemd's
 * calls do, until the loop learns (an eventfd) that the thread is done.
 *
 * An analysis is two functions and a job:
 * - run(job, cancel) runs on the thread. It reads and writes only job, a
 *   copy of everything it needs made before the start (the manager's state
 *   changes meanwhile); it calls nothing of the daemon (no log, no model);
 *   and it bounds its own cost: it counts its steps against a budget and
 *   stops with a refusal that names it (lib/sizing.c's HcbsSizingRequest
 *   work_limit), and returns -ECANCELED soon after *cancel is set.
 * - done(r, job) runs on the loop, exactly once for every analysis started,
 *   with run's return, or -ECANCELED if the analysis was cancelled
 *   (analysis_cancel(), or hcbsd stopping). It answers the call and frees
 *   job; it may start or cancel other analyses.
 *
 * At most HCBS_ANALYSES_PER_USER run for one uid at once, and at most the
 * limit the caller gives in all (one per CPU: a thread each); the others
 * wait, oldest first, up to HCBS_ANALYSES_WAITING_PER_USER for one uid and
 * HCBS_ANALYSES_WAITING_MAX in all. A start past those is refused with
 * LimitsExceeded, to be tried again later. So a caller looping on an
 * expensive input waits for its own answers (its calls queue behind each
 * other) and costs the loop nothing meanwhile.
 */

#include <stdatomic.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

#include "error.h"

#define HCBS_ANALYSES_PER_USER 1
#define HCBS_ANALYSES_WAITING_PER_USER 8
#define HCBS_ANALYSES_WAITING_MAX 64

typedef struct Analyses Analyses;
typedef struct Analysis Analysis;

typedef int (*AnalysisRunFn)(void *job, const atomic_bool *cancel);
typedef void (*AnalysisDoneFn)(int r, void *job);

/* The analyses of one event loop. Returns 0 or -errno. */
int analyses_new(sd_event *event, Analyses **ret);
/* Cancels every analysis, waits for its thread, calls its done(-ECANCELED), and frees. */
Analyses *analyses_free(Analyses *as);

/*
 * Runs run(job) for uid on a thread of its own, now if fewer than
 * max_running run (and none of uid's), else once they have. The rule of
 * error.h: 0, done will be called (*ret, if not NULL, is the analysis until
 * then); HCBS_E_LIMITS_EXCEEDED with v saying which limit; -ENOMEM. On a
 * refusal or a failure done is never called and job stays the caller's.
 */
int analyses_start(Analyses *as, uid_t uid, unsigned max_running, AnalysisRunFn run, AnalysisDoneFn done,
                   void *job, Analysis **ret, HcbsVerdict *v);

/* Asks an analysis to stop, or never to start: its done gets -ECANCELED, from the loop, once its thread returned. */
void analysis_cancel(Analysis *a);

/* How many run now (for one uid, or all with uid (uid_t) -1). */
unsigned analyses_running(const Analyses *as, uid_t uid);
