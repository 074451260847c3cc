/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Reads what lib/metrics.c formats from hcbsd, with read-only calls only:
 * the Manager's properties (GetAll), ListGroups, ListUnits, ListContainers,
 * then GetStats of each group, unit and container reservation. Shared by
 * hcbs-exporter and `hcbsctl stats --prometheus`.
 */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "bus-stats.h"
#include "metrics.h"

typedef struct MetricsSnapshot {
        HcbsMetrics m; /* its strings and targets point into the fields below */
        sd_bus_message *props, *groups, *units, *containers;
        HcbsMetricsTarget *targets;
        HcbsStatsReply *stats; /* one per target */
} MetricsSnapshot;

typedef struct MetricsCollectOptions {
        const char *only;  /* one group, unit or container; NULL for all */
        bool no_auto_start; /* never let the bus start hcbsd (the exporter) */
        uint64_t timeout_us; /* of each call; 0 for sd-bus' default */
} MetricsCollectOptions;

/*
 * Fills ret (m.up set) or returns sd-bus style: a negative errno with error
 * set (hcbsd not running, a call refused or timed out, a reply not as the
 * API says). A target removed between the lists and its GetStats is left
 * out; with opts->only, a name hcbsd does not know is an error
 * (org.hcbsd1.Error.NoSuchGroup).
 */
int metrics_collect(sd_bus *bus, const MetricsCollectOptions *opts, MetricsSnapshot *ret, sd_bus_error *error);
void metrics_snapshot_done(MetricsSnapshot *s);
