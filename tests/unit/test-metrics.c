/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/metrics.c: the Prometheus text hcbs-exporter and hcbsctl stats --prometheus write. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loghist.h"
#include "macro.h"
#include "metrics.h"

static char *format(const HcbsMetrics *m) {
        char *text = NULL;
        size_t len = 0;

        cr_assert_eq(hcbs_metrics_format(m, &text, &len), 0);
        cr_assert_eq(strlen(text), len);
        return text;
}

/* The value of the sample line starting with prefix ("name{labels} "), or -1 when absent. */
static double sample(const char *text, const char *prefix) {
        for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
                if (strncmp(p, prefix, strlen(prefix)) == 0)
                        return strtod(p + strlen(prefix), NULL);
        return -1;
}

static HcbsMetrics manager(void) {
        return (HcbsMetrics) { .up = true, .version = "0.1.0", .kernel_interface = "rfc1", .stats_backend = "bpf",
                               .capacity_runtime_us = 900000, .capacity_period_us = 1000000, .allocated = 0.25,
                               .groups = 1, .units = 2, .containers = 3 };
}

Test(metrics, down_is_only_hcbs_up_0) {
        char *t = format(&(HcbsMetrics) { .up = false });

        cr_assert_str_eq(t, "# HELP hcbs_up 1 when hcbsd answered on the bus, else 0.\n# TYPE hcbs_up gauge\nhcbs_up 0\n");
        free(t);
}

Test(metrics, manager_figures) {
        HcbsMetrics m = manager();
        char *t = format(&m);

        cr_assert_eq(sample(t, "hcbs_up "), 1);
        cr_assert(strstr(t, "\nhcbs_info{version=\"0.1.0\",kernel_interface=\"rfc1\",stats_backend=\"bpf\"} 1\n"));
        cr_assert_float_eq(sample(t, "hcbs_capacity_ratio "), 0.9, 1e-12);
        cr_assert_float_eq(sample(t, "hcbs_allocated_ratio "), 0.25, 1e-12);
        cr_assert_eq(sample(t, "hcbs_reservations{kind=\"group\"} "), 1);
        cr_assert_eq(sample(t, "hcbs_reservations{kind=\"unit\"} "), 2);
        cr_assert_eq(sample(t, "hcbs_reservations{kind=\"container\"} "), 3);
        cr_assert_null(strstr(t, "hcbs_wakeup_latency"), "no target, no per-target family:\n%s", t);
        free(t);
}

/* Label values escape \, " and newline; names are otherwise passed through. */
Test(metrics, label_values_are_escaped) {
        HcbsStatValue v[] = { { "runtime_us", 't', { .u = 1000 } }, { "period_us", 't', { .u = 10000 } } };
        HcbsStats s = { .values = v, .n_values = 2 };
        HcbsMetricsTarget tg[] = { { "a\\x2db\"c\nd", HCBS_TARGET_UNIT, &s } };
        HcbsMetrics m = manager();
        m.targets = tg, m.n_targets = 1;
        char *t = format(&m);

        cr_assert(strstr(t, "\nhcbs_reservation_runtime_seconds{name=\"a\\\\x2db\\\"c\\nd\",kind=\"unit\"} 0.001\n"), "%s",
                  t);
        cr_assert_float_eq(sample(t, "hcbs_reservation_bandwidth_ratio{name=\"a\\\\x2db\\\"c\\nd\",kind=\"unit\"} "), 0.1,
                           1e-12);
        free(t);
}

/* Seconds are exact decimals of the integers hcbsd gave, and a key hcbsd did not give is no sample at all. */
Test(metrics, units_and_absent_keys) {
        HcbsStatValue v[] = {
                { "runtime_us", 't', { .u = 2500 } },       { "period_us", 't', { .u = 1000000 } },
                { "rt_time_ns", 't', { .u = 12000000001 } }, { "wakeups", 't', { .u = 42 } },
                { "usage_usec", 't', { .u = 7 } },          { "reservation_share", 'd', { .d = 0.5 } },
        };
        HcbsStats s = { .values = v, .n_values = ELEMENTSOF(v) };
        HcbsMetricsTarget tg[] = { { "g", HCBS_TARGET_GROUP, &s }, { "h", HCBS_TARGET_CONTAINER, NULL } };
        HcbsMetrics m = manager();
        m.targets = tg, m.n_targets = 2;
        char *t = format(&m);

        cr_assert(strstr(t, "\nhcbs_reservation_runtime_seconds{name=\"g\",kind=\"group\"} 0.0025\n"), "%s", t);
        cr_assert(strstr(t, "\nhcbs_reservation_period_seconds{name=\"g\",kind=\"group\"} 1\n"));
        cr_assert(strstr(t, "\nhcbs_rt_cpu_seconds_total{name=\"g\",kind=\"group\"} 12.000000001\n"));
        cr_assert(strstr(t, "\nhcbs_wakeups_total{name=\"g\",kind=\"group\"} 42\n"));
        cr_assert(strstr(t, "\nhcbs_cgroup_usage_seconds_total{name=\"g\",kind=\"group\"} 0.000007\n"));
        cr_assert(strstr(t, "# TYPE hcbs_wakeups_total counter\n"));
        cr_assert_null(strstr(t, "hcbs_preemptions_total"), "no preemptions key, no family");
        cr_assert_null(strstr(t, "name=\"h\""), "a target without stats has no sample");
        cr_assert_null(strstr(t, "hcbs_wakeup_latency"), "no latency_buckets, no histogram");
        free(t);
}

/* GetStats' servers (a(uttt), HCBS kernels): one sample per CPU where the server ran; none without servers. */
Test(metrics, budget_per_cpu_from_servers) {
        HcbsStatServer sv[] = { { 0, 3, 1500000, 40 }, { 5, 0, 0, 7 } };
        HcbsStats s = { .servers = sv, .n_servers = ELEMENTSOF(sv), .have_servers = true };
        HcbsStats none = {};
        HcbsMetricsTarget tg[] = { { "g", HCBS_TARGET_GROUP, &s }, { "h", HCBS_TARGET_UNIT, &none } };
        HcbsMetrics m = manager();
        m.targets = tg, m.n_targets = 2;
        char *t = format(&m);

        cr_assert(strstr(t, "# TYPE hcbs_budget_exhaustions_total counter\n"), "%s", t);
        cr_assert_eq(sample(t, "hcbs_budget_exhaustions_total{name=\"g\",kind=\"group\",cpu=\"0\"} "), 3);
        cr_assert_eq(sample(t, "hcbs_budget_exhaustions_total{name=\"g\",kind=\"group\",cpu=\"5\"} "), 0);
        cr_assert(strstr(t, "\nhcbs_budget_throttled_seconds_total{name=\"g\",kind=\"group\",cpu=\"0\"} 0.0015\n"),
                  "%s", t);
        cr_assert_eq(sample(t, "hcbs_budget_replenishments_total{name=\"g\",kind=\"group\",cpu=\"5\"} "), 7);
        cr_assert_null(strstr(t, "cpu=\"1\""), "a CPU where the server did nothing has no sample");
        cr_assert_null(strstr(t, "name=\"h\""), "no servers (mainline), no per-CPU sample");
        free(t);
}

/* Every bound is the upper edge of one of the collector's buckets: 2^h - 1 and 3 * 2^(h-1) - 1 ns. */
Test(metrics, bounds_are_loghist_edges) {
        size_t n;
        const uint64_t *b = hcbs_metrics_latency_bounds(&n);

        cr_assert_eq(n, (size_t) 41);
        cr_assert_eq(b[0], 1023);
        cr_assert_eq(b[1], 1535);
        cr_assert_eq(b[n - 1], (1ULL << 30) - 1);
        for (size_t i = 0; i < n; i++) {
                cr_assert_eq(loghist_upper(loghist_bucket(b[i])), b[i], "bound %zu (%llu) is a bucket's upper edge", i,
                             (unsigned long long) b[i]);
                if (i > 0)
                        cr_assert_gt(b[i], b[i - 1]);
                if (i > 0) /* each Prometheus bucket at most 1.5x wide */
                        cr_assert_leq((double) (b[i] + 1), 1.5 * (double) (b[i - 1] + 1));
        }
}

/* Cumulative counts equal the sum of the log-linear buckets at or below each bound, exactly. */
Test(metrics, histogram_is_exact_and_cumulative) {
        uint64_t counts[LOGHIST_BUCKETS] = {};
        uint64_t values[] = { 5, 1023, 1024, 1535, 1536, 40000, 40000, 999999, 1ULL << 30, 1ULL << 35 };
        HcbsStatBucket buckets[LOGHIST_BUCKETS];
        size_t nb = 0, n;
        uint64_t sum = 0;

        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                counts[loghist_bucket(values[i])]++;
                sum += values[i];
        }
        for (unsigned b = 0; b < LOGHIST_BUCKETS; b++)
                if (counts[b])
                        buckets[nb++] = (HcbsStatBucket) { loghist_lower(b), loghist_upper(b), counts[b] };
        HcbsStatValue v[] = { { "latency_sum_ns", 't', { .u = sum } }, { "latency_count", 't', { .u = 10 } } };
        HcbsStats s = { .values = v, .n_values = 2, .buckets = buckets, .n_buckets = nb, .have_buckets = true };
        HcbsMetricsTarget tg[] = { { "g", HCBS_TARGET_GROUP, &s } };
        HcbsMetrics m = manager();
        m.targets = tg, m.n_targets = 1;
        char *t = format(&m);
        const uint64_t *bounds = hcbs_metrics_latency_bounds(&n);

        static const char bucket[] = "hcbs_wakeup_latency_seconds_bucket{name=\"g\",kind=\"group\",le=\"";
        size_t i = 0;

        cr_assert(strstr(t, "# TYPE hcbs_wakeup_latency_seconds histogram\n"));
        for (const char *p = t; (p = strstr(p, bucket)) && strncmp(p + strlen(bucket), "+Inf", 4) != 0; i++) {
                uint64_t want = 0;

                p += strlen(bucket);
                cr_assert_lt(i, n);
                for (size_t k = 0; k < ELEMENTSOF(values); k++)
                        want += values[k] <= bounds[i];
                cr_assert_float_eq(strtod(p, NULL), (double) bounds[i] / 1e9, 1e-15, "bound %zu", i);
                cr_assert_eq((uint64_t) strtoull(strstr(p, "} ") + 2, NULL, 10), want, "the count at bound %zu", i);
        }
        cr_assert_eq(i, n, "one bucket per bound, then +Inf");
        cr_assert_eq(sample(t, "hcbs_wakeup_latency_seconds_bucket{name=\"g\",kind=\"group\",le=\"+Inf\"} "), 10);
        cr_assert_eq(sample(t, "hcbs_wakeup_latency_seconds_count{name=\"g\",kind=\"group\"} "), 10);
        cr_assert_float_eq(sample(t, "hcbs_wakeup_latency_seconds_sum{name=\"g\",kind=\"group\"} "), (double) sum / 1e9,
                           1e-9);
        free(t);
}
