/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The libbpf loader of the collector (hcbs-stats.bpf.c, through the
 * skeleton bpftool generates at build time). Only built with the meson
 * feature bpf; stats.c is the interface the daemon uses.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcbs-stats.h"

typedef struct StatsBpf StatsBpf;

/*
 * Loads the collector and attaches its tracepoints: the direct-load build
 * when the kernel takes it (and direct is true), else the probe-read one.
 * On failure returns -errno and writes why (one line for a person: what
 * was missing) into why.
 */
int stats_bpf_open(StatsBpf **ret, bool direct, char *why, size_t whylen);
/* How the collector reads the kernel's structures: "direct loads" (6.2+) or "bpf_probe_read_kernel". */
const char *stats_bpf_variant(const StatsBpf *b);
/* Detaches and unloads: no program, map or link is left. NULL-safe. */
StatsBpf *stats_bpf_free(StatsBpf *b);

/* How many slots the collector's maps hold: the tracking table (stats.c) uses no more. */
uint32_t stats_bpf_slots(const StatsBpf *b);
/* Counts the cgroup with id cgid into slot (< HCBS_STATS_MAX_GROUPS), zeroed first. */
int stats_bpf_track(StatsBpf *b, uint64_t cgid, uint32_t slot);
/* Stops counting cgid; -ENOENT if it was not counted. */
int stats_bpf_untrack(StatsBpf *b, uint64_t cgid);
/* The sum over the CPUs of slot's counters. Collection goes on meanwhile. */
int stats_bpf_read(StatsBpf *b, uint32_t slot, struct hcbs_slot *ret);

/* The sched_switch program's fd, for tests/bench/bench-stats (its run time and count). */
int stats_bpf_switch_fd(StatsBpf *b);
