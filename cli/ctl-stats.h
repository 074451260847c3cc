/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What other verbs read of GetStats() (hcbsctl why). */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "ctl.h"

typedef struct CtlStatsSummary {
        uint64_t latency_count, latency_p99_ns, latency_max_ns; /* count 0: none */
        double reservation_share;                                /* < 0: not given */
        uint64_t window_ns;
        bool have_exhaustions; /* the per-CPU servers' budget exhaustions, where the kernel has them (HCBS) */
        uint64_t exhaustions;
        uint64_t throttled_ns; /* from each exhaustion until the group ran again */
} CtlStatsSummary;

/* GetStats(name) summed up; sd-bus style, nothing printed. */
int ctl_stats_summary(Ctl *ctl, const char *name, CtlStatsSummary *ret, sd_bus_error *error);
