/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Per-group statistics: the backend hcbsd serves them from, and the set of
 * cgroups it counts. With the BPF collector (stats-bpf.c) every tracked
 * cgroup has a slot; without it (not built, or the kernel or the
 * environment refused it) the backend is "cgroupfs" and only the kernel's
 * cpu.stat is served, which cgroupfs.c reads (cgroupfs_read_cpu_stat(): the
 * one reader and parser of cpu.stat).
 *
 * The manager keeps the tracked set equal to its groups and units'
 * reservations: stats_sync_begin(), stats_track() for each, stats_sync_end()
 * drops the rest. A key is the group's path; a group recreated under the
 * same name has a new cgroup id and starts from zero.
 */

#include <stdbool.h>
#include <stdint.h>

#include "hcbs-stats.h"
#include "macro.h"

typedef struct Stats Stats;

typedef struct StatsFigures {
        uint64_t window_ns; /* how long the group has been counted */
        struct hcbs_slot c; /* the collector's counters, summed over the CPUs */
} StatsFigures;

/*
 * Picks the backend: BPF when built and the kernel takes it, unless
 * HCBS_STATS_BPF=0 is in the environment (for tests and for admins who do
 * not want the collector); HCBS_STATS_BPF=probe takes the collector built
 * on bpf_probe_read_kernel() even where the faster one loads (for tests of
 * older kernels' path). Fails only for lack of memory.
 */
int stats_new(Stats **ret);
Stats *stats_free(Stats *s);
DEFINE_FREE_FUNC(Stats, stats_free)

/* "bpf" or "cgroupfs". */
const char *stats_backend(const Stats *s);
/* Why the backend is cgroupfs ("" with BPF). */
const char *stats_backend_reason(const Stats *s);
bool stats_have_bpf(const Stats *s);
/* With BPF: how the collector reads the kernel ("direct loads" or "bpf_probe_read_kernel"); else "". */
const char *stats_bpf_how(const Stats *s);

void stats_sync_begin(Stats *s);
/* Counts the cgroup cgid under key (idempotent). -ENOSPC when every slot is taken. */
int stats_track(Stats *s, const char *key, uint64_t cgid);
/* Stops counting the keys not tracked since stats_sync_begin(). */
void stats_sync_end(Stats *s);

/* The figures of key; -ENOENT when it is not counted (or there is no BPF). */
int stats_read(Stats *s, const char *key, StatsFigures *ret);
