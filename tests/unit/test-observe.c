/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/observe.c: a thread's shape from its jobs, and the task derived from it. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "observe.h"
#include "../random.h"

#define MS 1000000ULL
#define US 1000ULL

/* n jobs of exec ns, released every period ns, each late by a pseudo-random 0..jitter ns */
static void periodic(HcbsJobStats *s, unsigned n, uint64_t period, uint64_t jitter, uint64_t exec) {
        Rng r = { 42 };

        for (unsigned i = 0; i < n; i++)
                cr_assert_eq(hcbs_job_stats_add(s, 1000 * MS + i * period + rng_below(&r, jitter), exec), 0);
}

Test(observe, a_periodic_thread_gives_its_period_and_its_wcet_with_the_margin) {
        HcbsJobStats s = {};
        HcbsJobShape v;

        periodic(&s, 500, 10 * MS, 500 * US, 2 * MS);
        cr_assert_eq(hcbs_job_stats_add(&s, 1000 * MS + 500 * 10 * MS, 2100 * US), 0); /* the largest job */
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_PERIODIC);
        cr_assert_eq(v.jobs, 501);
        /* the mean of the intervals: the jitter of the first and the last release, over 500 intervals */
        cr_assert(v.period_ns >= 10 * MS - 1 * US && v.period_ns <= 10 * MS + 1 * US, "period %llu",
                  (unsigned long long) v.period_ns);
        cr_assert_leq(v.jitter_ns, 500 * US);
        cr_assert_eq(v.exec_max_ns, 2100 * US);
        cr_assert_eq(v.wcet_us, 2520, "2.1 ms + 20%%");
        cr_assert_eq(v.task_period_us, v.period_ns / 1000);
        cr_assert(v.exec_p50_ns >= 2 * MS && v.exec_p50_ns <= 2 * MS + 2 * MS / 8, "p50 %llu",
                  (unsigned long long) v.exec_p50_ns);
        cr_assert_str_eq(hcbs_job_kind_to_string(v.kind), "periodic");
        cr_assert(!hcbs_job_kind_blocks(v.kind));
        hcbs_job_stats_done(&s);
}

Test(observe, the_margin_rounds_up_to_the_microsecond) {
        HcbsJobStats s = {};
        HcbsJobShape v;

        periodic(&s, 10, 10 * MS, 0, 1001);
        cr_assert_eq(hcbs_job_shape(&s, 0, &v), 0);
        cr_assert_eq(v.wcet_us, 2, "1001 ns is 2 us, never 1");
        cr_assert_eq(hcbs_job_shape(&s, 100, &v), 0);
        cr_assert_eq(v.wcet_us, 3, "2002 ns");
        hcbs_job_stats_done(&s);
}

Test(observe, a_thread_released_at_irregular_times_is_sporadic_at_its_least_interval) {
        HcbsJobStats s = {};
        HcbsJobShape v;
        uint64_t t = 0;
        Rng r = { 7 };

        for (unsigned i = 0; i < 200; i++) {
                cr_assert_eq(hcbs_job_stats_add(&s, t, 1 * MS), 0);
                t += 10 * MS + rng_below(&r, 30 * MS); /* 10..40 ms apart */
        }
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_SPORADIC, "%s", hcbs_job_kind_to_string(v.kind));
        cr_assert_eq(v.period_ns, s.interval_min_ns);
        cr_assert_geq(v.period_ns, 10 * MS);
        cr_assert_eq(v.wcet_us, 1200);
        hcbs_job_stats_done(&s);
}

Test(observe, bursts_are_aperiodic_and_never_forced_into_a_period) {
        HcbsJobStats s = {};
        HcbsJobShape v;
        uint64_t t = 0;

        for (unsigned i = 0; i < 100; i++) {
                cr_assert_eq(hcbs_job_stats_add(&s, t, 100 * US), 0);
                t += i % 10 == 9 ? 100 * MS : 100 * US; /* ten jobs 0.1 ms apart, then 100 ms of quiet */
        }
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_APERIODIC);
        cr_assert_eq(v.period_ns, 0);
        cr_assert_eq(v.wcet_us, 0);
        cr_assert_eq(v.task_period_us, 0);
        cr_assert(hcbs_job_kind_blocks(v.kind));
        hcbs_job_stats_done(&s);
}

Test(observe, unbounded_and_too_few_have_no_task) {
        HcbsJobStats s = {};
        HcbsJobShape v;

        periodic(&s, 2, 10 * MS, 0, 1 * MS);
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_TOO_FEW);
        cr_assert_eq(v.wcet_us, 0);
        cr_assert(hcbs_job_kind_blocks(v.kind));

        periodic(&s, 100, 10 * MS, 0, 1 * MS);
        s.unbounded = true; /* the collector saw one run half the observation without a sleep */
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_UNBOUNDED);
        cr_assert_eq(v.wcet_us, 0);
        cr_assert_str_eq(hcbs_job_kind_to_string(v.kind), "unbounded");
        hcbs_job_stats_done(&s);
}

Test(observe, a_periodic_thread_with_a_few_jobs_not_seen_is_still_periodic) {
        HcbsJobStats s = {};
        HcbsJobShape v;

        /* 500 releases every 10 ms, two of them missing (a 20 ms and a 30 ms interval) */
        for (unsigned i = 0; i < 500; i++)
                if (i != 100 && i != 300 && i != 301)
                        cr_assert_eq(hcbs_job_stats_add(&s, 1000 * MS + i * 10 * MS, 2 * MS), 0);
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_PERIODIC, "%s", hcbs_job_kind_to_string(v.kind));
        cr_assert_eq(v.period_ns, 10 * MS);
        cr_assert_eq(v.jitter_ns, 0);
        cr_assert_eq(v.interval_max_ns, 30 * MS);
        hcbs_job_stats_done(&s);
}

/* Intervals are 64-bit nanoseconds: a period past 2^32 ns (4.29 s) is neither capped nor misjudged. */
Test(observe, a_period_longer_than_4_29_s_is_observed_as_it_is) {
        HcbsJobStats s = {};
        HcbsJobShape v;

        periodic(&s, 20, 6000 * MS, 10 * MS, 3 * MS);
        cr_assert_eq(hcbs_job_shape(&s, 20, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_PERIODIC);
        cr_assert(v.period_ns >= 6000 * MS - 1 * MS && v.period_ns <= 6000 * MS + 1 * MS, "period %llu",
                  (unsigned long long) v.period_ns);
        cr_assert_gt(v.interval_min_ns, UINT32_MAX);
        cr_assert_eq(v.task_period_us, v.period_ns / 1000);
        cr_assert_eq(v.wcet_us, 3600);
        hcbs_job_stats_done(&s);

        /* one interval 4.5 s, the others 9 s: a gap past 2^32 ns kept apart from one past 2^33 */
        HcbsJobStats t = {};
        uint64_t at = 1000 * MS;
        for (unsigned i = 0; i < 12; i++) {
                cr_assert_eq(hcbs_job_stats_add(&t, at, 1 * MS), 0);
                at += i == 5 ? 4500 * MS : 9000 * MS;
        }
        cr_assert_eq(hcbs_job_shape(&t, 0, &v), 0);
        cr_assert_eq(v.kind, HCBS_JOBS_SPORADIC, "%s", hcbs_job_kind_to_string(v.kind));
        cr_assert_eq(v.period_ns, 4500 * MS);
        cr_assert_eq(v.interval_max_ns, 9000 * MS);
        hcbs_job_stats_done(&t);
}
