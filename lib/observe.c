/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"

int hcbs_job_stats_add(HcbsJobStats *s, uint64_t release_ns, uint64_t exec_ns) {
        unsigned b = loghist_bucket(exec_ns);

        if (s->jobs > 0 && release_ns > s->last_release_ns) {
                uint64_t d = release_ns - s->last_release_ns;
                if (s->n_intervals == 0 || d < s->interval_min_ns)
                        s->interval_min_ns = d;
                if (d > s->interval_max_ns)
                        s->interval_max_ns = d;
                if (s->n_intervals < HCBS_JOBS_INTERVALS_MAX) {
                        if (s->n_intervals == s->intervals_size) {
                                size_t size = s->intervals_size ? 2 * s->intervals_size : 64;
                                uint64_t *v = realloc(s->intervals_ns, size * sizeof(uint64_t));
                                if (!v)
                                        return -ENOMEM;
                                s->intervals_ns = v;
                                s->intervals_size = size;
                        }
                        s->intervals_ns[s->n_intervals++] = d;
                }
        }
        if (s->jobs == 0)
                s->first_release_ns = release_ns;
        if (release_ns > s->last_release_ns)
                s->last_release_ns = release_ns;
        s->jobs++;
        s->exec_sum_ns += exec_ns;
        if (exec_ns > s->exec_max_ns)
                s->exec_max_ns = exec_ns;
        s->exec_hist[b < LOGHIST_BUCKETS ? b : LOGHIST_BUCKETS - 1]++;
        return 0;
}

void hcbs_job_stats_done(HcbsJobStats *s) {
        free(s->intervals_ns);
        s->intervals_ns = NULL;
        s->n_intervals = s->intervals_size = 0;
}

static uint64_t div_up(uint64_t a, uint64_t b) {
        return a / b + (a % b != 0);
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/*
 * Periodic? Each interval against the median m: k = round(d / m) periods,
 * regular when within HCBS_JOBS_PERIODIC_PERCENT of k m. Sets the period
 * and the jitter when it is.
 */
static int periodic(const HcbsJobStats *s, uint64_t *ret_period, uint64_t *ret_jitter, bool *ret_yes) {
        uint64_t m, sum = 0, ks = 0, ones = 0, irregular = 0, period, jitter = 0;
        uint64_t *v = malloc(s->n_intervals * sizeof(uint64_t));

        if (!v)
                return -ENOMEM;
        memcpy(v, s->intervals_ns, s->n_intervals * sizeof(uint64_t));
        qsort(v, s->n_intervals, sizeof(uint64_t), cmp_u64);
        m = v[s->n_intervals / 2];
        free(v);
        *ret_yes = false;
        if (m == 0)
                return 0;
        for (size_t i = 0; i < s->n_intervals; i++) {
                uint64_t d = s->intervals_ns[i], k = (d + m / 2) / m;
                if (k >= 1 && k <= HCBS_JOBS_GAP_MAX &&
                    (d > k * m ? d - k * m : k * m - d) * 100 <= m * HCBS_JOBS_PERIODIC_PERCENT) {
                        sum += d;
                        ks += k;
                        ones += k == 1;
                } else
                        irregular++;
        }
        /* nearly every interval one period: a few gaps (k > 1) and fewer irregular ones */
        if (ks == 0 || irregular * 1000 > s->n_intervals * HCBS_JOBS_IRREGULAR_PERMILLE ||
            ones * 100 < s->n_intervals * 90)
                return 0;
        period = sum / ks;
        for (size_t i = 0; i < s->n_intervals; i++) {
                uint64_t d = s->intervals_ns[i], k = (d + period / 2) / period, e;
                if (k == 0)
                        continue;
                e = d > k * period ? d - k * period : k * period - d;
                if (e * 100 <= period * HCBS_JOBS_PERIODIC_PERCENT && e > jitter)
                        jitter = e;
        }
        *ret_period = period;
        *ret_jitter = jitter;
        *ret_yes = true;
        return 0;
}

int hcbs_job_shape(const HcbsJobStats *s, unsigned margin_percent, HcbsJobShape *ret) {
        HcbsJobShape v = {
                .jobs = s->jobs,
                .exec_max_ns = s->exec_max_ns,
                .exec_mean_ns = s->jobs ? s->exec_sum_ns / s->jobs : 0,
                .exec_p50_ns = loghist_quantile(s->exec_hist, 0.5, s->exec_max_ns),
                .exec_p999_ns = loghist_quantile(s->exec_hist, 0.999, s->exec_max_ns),
                .interval_min_ns = s->interval_min_ns,
                .interval_max_ns = s->interval_max_ns,
        };
        bool yes;
        int r;

        if (s->unbounded)
                v.kind = HCBS_JOBS_UNBOUNDED;
        else if (s->jobs < HCBS_JOBS_MIN || s->n_intervals == 0)
                v.kind = HCBS_JOBS_TOO_FEW;
        else {
                uint64_t mean = (s->last_release_ns - s->first_release_ns) / (s->jobs - 1);
                r = periodic(s, &v.period_ns, &v.jitter_ns, &yes);
                if (r < 0)
                        return r;
                if (yes)
                        v.kind = HCBS_JOBS_PERIODIC;
                else if (s->interval_min_ns * 100 >= mean * HCBS_JOBS_SPORADIC_PERCENT) {
                        v.kind = HCBS_JOBS_SPORADIC;
                        v.period_ns = s->interval_min_ns;
                } else
                        v.kind = HCBS_JOBS_APERIODIC;
        }
        if (v.kind == HCBS_JOBS_PERIODIC || v.kind == HCBS_JOBS_SPORADIC) {
                v.wcet_us = div_up(div_up(s->exec_max_ns * (100 + margin_percent), 100), 1000);
                v.task_period_us = v.period_ns / 1000;
                if (v.wcet_us == 0)
                        v.wcet_us = 1;
        }
        *ret = v;
        return 0;
}

const char *hcbs_job_kind_to_string(HcbsJobKind k) {
        static const char *const names[] = {
                [HCBS_JOBS_PERIODIC] = "periodic",   [HCBS_JOBS_SPORADIC] = "sporadic",
                [HCBS_JOBS_APERIODIC] = "aperiodic", [HCBS_JOBS_UNBOUNDED] = "unbounded",
                [HCBS_JOBS_TOO_FEW] = "too few jobs",
        };
        return (unsigned) k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}
