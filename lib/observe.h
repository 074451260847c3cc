/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Sizing from observation (hcbsctl size --observe): what one thread's jobs
 * say about it. A job runs from a wakeup to the next voluntary sleep (the
 * BPF collector sends each, daemon/stats/hcbs-stats.h); its execution time
 * is the thread's CPU time in between, its release the wakeup.
 *
 * A thread's shape, from its jobs:
 *   - unbounded: it ran half the observation without a sleep (the
 *     collector says so): no WCET exists, nothing can be sized;
 *   - too few: fewer than HCBS_JOBS_MIN jobs, no period to estimate;
 *   - periodic: the intervals between releases are multiples k of one
 *     period (the median interval; k = 1 for 90% of them, at most
 *     HCBS_JOBS_GAP_MAX for the others: k > 1 is a release
 *     not seen, a job merged into the next when the thread did not sleep in
 *     between, or one the collector did not see), each within
 *     HCBS_JOBS_PERIODIC_PERCENT of k periods, but for at most
 *     HCBS_JOBS_IRREGULAR_PERMILLE of them; the period is the sum of those
 *     intervals over the sum of their k (a periodic thread's intervals
 *     average to its period whatever its release jitter), the jitter the
 *     largest distance of one from its k periods;
 *   - sporadic: not periodic, but no two releases closer than
 *     HCBS_JOBS_SPORADIC_PERCENT of the mean: sized as the sporadic task
 *     it is, at its least interval (its minimum inter-arrival time);
 *   - aperiodic: releases closer than that (bursts): no minimum
 *     inter-arrival time to size it with; never forced into a period.
 * A periodic or sporadic thread becomes the task WCET:PERIOD (implicit
 * deadline) with WCET the largest execution time seen plus the margin:
 * the largest of N jobs is a sample, not a bound.
 * Pure: no I/O (lib/ rule); test-observe checks the shapes and the limits.
 */

#include <stdbool.h>
#include <stdint.h>

#include "loghist.h"

#define HCBS_JOBS_MIN 3
#define HCBS_JOBS_PERIODIC_PERCENT 20
#define HCBS_JOBS_IRREGULAR_PERMILLE 20
#define HCBS_JOBS_GAP_MAX 4 /* an interval of at most 4 periods counts as periodic with releases not seen */
#define HCBS_JOBS_SPORADIC_PERCENT 20
#define HCBS_JOBS_INTERVALS_MAX 16384 /* kept per thread for the shape (128 kB); later ones count in min/max/mean */
#define HCBS_OBSERVE_MARGIN_DEFAULT 20 /* percent added to the largest execution time */
#define HCBS_OBSERVE_MARGIN_MAX 1000

typedef struct HcbsJobStats {
        uint64_t jobs;
        uint64_t exec_max_ns, exec_sum_ns;
        uint64_t exec_hist[LOGHIST_BUCKETS];
        uint64_t first_release_ns, last_release_ns;
        uint64_t interval_min_ns, interval_max_ns; /* between consecutive releases */
        uint64_t *intervals_ns;  /* the first HCBS_JOBS_INTERVALS_MAX: 64-bit, a period may be longer than 4.29 s */
        size_t n_intervals, intervals_size;
        bool unbounded;
        uint64_t unbounded_ns; /* how long it ran without a sleep when the collector said so */
} HcbsJobStats;

/* One job (release_ns: a CLOCK_MONOTONIC time; releases come in order for one thread). 0 or -ENOMEM. */
int hcbs_job_stats_add(HcbsJobStats *s, uint64_t release_ns, uint64_t exec_ns);
void hcbs_job_stats_done(HcbsJobStats *s);

typedef enum HcbsJobKind {
        HCBS_JOBS_PERIODIC,
        HCBS_JOBS_SPORADIC,
        HCBS_JOBS_APERIODIC,
        HCBS_JOBS_UNBOUNDED,
        HCBS_JOBS_TOO_FEW,
} HcbsJobKind;

typedef struct HcbsJobShape {
        HcbsJobKind kind;
        uint64_t jobs;
        uint64_t exec_mean_ns;                           /* exact */
        uint64_t exec_p50_ns, exec_p999_ns, exec_max_ns; /* percentiles: loghist's, at most 12.5% high */
        uint64_t period_ns;   /* periodic: the mean interval; sporadic: the least; else 0 */
        uint64_t jitter_ns;   /* periodic: the largest distance of an interval from the period; else 0 */
        uint64_t interval_min_ns, interval_max_ns;
        uint64_t wcet_us;     /* the task: exec_max plus the margin, rounded up; 0 when not sizable */
        uint64_t task_period_us; /* its period (rounded down: never less demanding), 0 when not sizable */
} HcbsJobShape;

/* 0, or -ENOMEM (a copy of the intervals is sorted). */
int hcbs_job_shape(const HcbsJobStats *s, unsigned margin_percent, HcbsJobShape *ret);
/* "periodic", "sporadic", "aperiodic", "unbounded", "too few jobs" */
const char *hcbs_job_kind_to_string(HcbsJobKind k);
/* Whether a thread of this kind has no task to size: the set without it would be short of its demand. */
static inline bool hcbs_job_kind_blocks(HcbsJobKind k) {
        return k != HCBS_JOBS_PERIODIC && k != HCBS_JOBS_SPORADIC;
}
