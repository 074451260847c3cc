/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd's figures in the Prometheus text exposition format (version 0.0.4),
 * written by one formatter for both hcbs-exporter (/metrics) and `hcbsctl
 * stats --prometheus` (node_exporter's textfile collector).
 *
 * The input is what the bus gave: the Manager's properties and, for each
 * group, unit and container reservation, the open-ended GetStats()
 * dictionary (HcbsStats, filled by lib/bus-stats.c). Which dictionary keys
 * become which metric is one table in metrics.c; a key the table does not
 * know is not exported, and a metric whose key is absent (a backend without
 * it, a kernel without it) is left out for that target rather than given 0.
 *
 * Names follow Prometheus' conventions: the hcbs_ prefix, base units
 * (seconds, ratios of one CPU), counters ending in _total. Labels are
 * bounded: name and kind of a reservation, cpu for per-CPU counters, and the
 * manager's version, kernel interface and statistics backend on hcbs_info.
 *
 * The wakeup latency is a Prometheus histogram whose bounds are upper edges
 * of the collector's log-linear buckets (lib/loghist.h), two per power of
 * two from 1 us to 1 s (values in ns: 2^h - 1 and 3 * 2^(h-1) - 1), so
 * every cumulative count is exact, not interpolated; PromQL's
 * histogram_quantile() then interpolates within a bucket at most 1.5x wide.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One basic value of GetStats' a{sv}. */
typedef struct HcbsStatValue {
        const char *key;
        char type; /* 't', 'u', 'x', 'i', 'd', 'b' or 's' (u and b read as t, i as x) */
        union {
                uint64_t u;
                int64_t i;
                double d;
                const char *s;
        } v;
} HcbsStatValue;

/* A latency bucket of GetStats' latency_buckets: bounds in ns, inclusive. */
typedef struct HcbsStatBucket {
        uint64_t lower, upper, count;
} HcbsStatBucket;

/* GetStats' servers (a(uttt)): the group's deadline server on one CPU (HCBS kernels). */
typedef struct HcbsStatServer {
        uint32_t cpu;
        uint64_t exhaustions, throttled_ns, replenishments;
} HcbsStatServer;

typedef struct HcbsStats {
        HcbsStatValue *values;
        size_t n_values;
        HcbsStatBucket *buckets;
        size_t n_buckets;
        bool have_buckets; /* latency_buckets was in the reply (it may be empty) */
        HcbsStatServer *servers;
        size_t n_servers;
        bool have_servers; /* servers was in the reply (it may be empty) */
} HcbsStats;

const HcbsStatValue *hcbs_stats_find(const HcbsStats *s, const char *key);
/* An unsigned value (t or u) of key; false when absent or of another type. */
bool hcbs_stats_u(const HcbsStats *s, const char *key, uint64_t *ret);

typedef enum HcbsTargetKind {
        HCBS_TARGET_GROUP,
        HCBS_TARGET_UNIT,
        HCBS_TARGET_CONTAINER,
} HcbsTargetKind;

/* "group", "unit", "container". */
const char *hcbs_target_kind_name(HcbsTargetKind k);

typedef struct HcbsMetricsTarget {
        const char *name; /* "" for hcbsd's root group */
        HcbsTargetKind kind;
        const HcbsStats *stats;
} HcbsMetricsTarget;

typedef struct HcbsMetrics {
        bool up; /* hcbsd answered; without it only hcbs_up is written */
        const char *version, *kernel_interface, *stats_backend;
        uint64_t capacity_runtime_us, capacity_period_us;
        double allocated; /* AllocatedBandwidth */
        uint32_t groups;  /* GroupCount */
        size_t units, containers;
        const HcbsMetricsTarget *targets;
        size_t n_targets;
} HcbsMetrics;

/* The histogram's bounds in ns, ascending (+Inf not included); their number in *ret_n. */
const uint64_t *hcbs_metrics_latency_bounds(size_t *ret_n);

/*
 * m in the text exposition format, as one NUL-terminated string (caller
 * frees) and its length. -ENOMEM only.
 */
int hcbs_metrics_format(const HcbsMetrics *m, char **ret, size_t *ret_len);
