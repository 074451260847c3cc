/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Observing a target's RT threads (hcbsctl size --observe,
 * ObserveTasks): for DURATION the BPF collector sends each job of
 * every SCHED_FIFO/SCHED_RR thread in the target's cgroup (a job runs from
 * a wakeup to the next voluntary sleep, daemon/stats/hcbs-stats.h); the
 * loop gathers them per thread (lib/observe.h) as they come, without
 * waiting, and when DURATION is over calls done with the threads. The
 * target is a group, a unit's reservation, or a process (its cgroup,
 * whatever it is, and only its threads).
 *
 * Costs: the collector's job records go through a ring buffer the loop
 * reads when it has something (O(1) a job: a table of threads by tid);
 * a thread keeps a latency-sized histogram of its execution times (2.4 kB);
 * at most HCBS_OBSERVE_THREADS threads per observation (more are counted,
 * not kept), HCBS_OBSERVATIONS_MAX at once, one per uid.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "manager.h"
#include "observe.h"

#define HCBS_OBSERVE_THREADS 256
#define HCBS_OBSERVATIONS_MAX 8
#define HCBS_OBSERVE_MIN_USEC 1000000ULL   /* 1 s */
#define HCBS_OBSERVE_MAX_USEC 600000000ULL /* 10 min */

typedef struct ObservedThread {
        pid_t tid, tgid;
        char comm[16];
        HcbsJobStats jobs;
} ObservedThread;

typedef struct ObservationResult {
        const char *group;  /* the group or unit observed; NULL for a process outside hcbsd's groups */
        bool unit;          /* group is a unit's name */
        pid_t pid;          /* the process observed, 0 for a group or a unit */
        uint64_t duration_us;
        ObservedThread *threads; /* done may take them (TAKE_PTR, then manager_observed_threads_free()) */
        size_t n_threads;
        uint64_t jobs_dropped;  /* job records not kept: their thread came past HCBS_OBSERVE_THREADS, or no memory */
        uint64_t jobs_lost;     /* job records the collector had no room for meanwhile (all observations') */
} ObservationResult;

typedef struct ManagerObservation ManagerObservation;

/*
 * r: 0 with res (whose threads done may take: they are freed after done
 * unless it set res->threads to NULL), or -ECANCELED (manager_observation_cancel(), hcbsd
 * stopping) or another -errno without it. Called from the loop, once.
 */
typedef void (*ObserveDoneFn)(Manager *m, int r, ObservationResult *res, void *userdata);

/*
 * Starts observing target (a group's name, a unit's name, or a process id
 * in decimal) for duration_us. The rule of error.h: 0 and done will be
 * called (*ret is the observation until then); a refusal (NoSuchGroup,
 * NoSuchProcess, InvalidArgument for the duration, LimitsExceeded,
 * NotSupported without the collector) with v saying why; -errno. On a
 * refusal or a failure done is never called.
 */
int manager_observe(Manager *m, const char *target, uint64_t duration_us, uid_t uid, ObserveDoneFn done,
                    void *userdata, ManagerObservation **ret, HcbsVerdict *v);
/* Stops it now: its done gets -ECANCELED before this returns. */
void manager_observation_cancel(ManagerObservation *o);
/* Cancels them all (hcbsd stopping) and calls their done at once. */
void manager_observations_stop(Manager *m);
/* Frees threads taken from an ObservationResult. */
void manager_observed_threads_free(ObservedThread *threads, size_t n_threads);
