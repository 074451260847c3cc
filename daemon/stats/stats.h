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
 * The tracking table says which cgroups are counted, by key (the group's
 * path): the manager tracks a group when it appears and untracks it when it
 * goes, each in O(1) (a hash by key, a stack of free slots), so no call
 * ever costs the size of the tree. A group recreated under the same name
 * has a new cgroup id and starts from zero. Its capacity is fixed at
 * stats_new(), from MaxGroups=; the collector's maps may hold fewer.
 */

#include <stdbool.h>
#include <stddef.h>
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
 * not want the collector). HCBS_STATS_BPF=table keeps the tracking table
 * without the collector (for the manager's unit tests: what would be
 * counted, with no BPF and no root). capacity: the most cgroups counted at
 * once. Fails only for lack of memory.
 */
int stats_new(Stats **ret, uint32_t capacity);
Stats *stats_free(Stats *s);
DEFINE_FREE_FUNC(Stats, stats_free)

/* "bpf" or "cgroupfs". */
const char *stats_backend(const Stats *s);
/* Why the backend is cgroupfs ("" with BPF). */
const char *stats_backend_reason(const Stats *s);
bool stats_have_bpf(const Stats *s);
/* Why a kernel without HCBS's servers has no budget exhaustion figures. */
#define HCBS_STATS_NO_SERVERS "not available on this kernel (no per-CPU deadline servers: task_group.dl_se)"

/* With BPF: what the collector counts beyond the basics, for the log; else "". */
const char *stats_bpf_how(const Stats *s);

/* The most cgroups counted at once: the capacity given, or what the collector's maps hold if fewer; 0 without the table. */
uint32_t stats_capacity(const Stats *s);
/* How many are counted now. */
size_t stats_tracked(const Stats *s);

/*
 * Counts the cgroup cgid under key, in O(1): idempotent for the same id; a
 * new id under a tracked key (the group was recreated) starts from zero.
 * 0; -ENOSPC when every slot is taken; -errno from the collector. A no-op
 * without the table (no collector).
 */
int stats_track(Stats *s, const char *key, uint64_t cgid);
/* Stops counting key, in O(1), and frees its slot: 0, or -ENOENT when it was not counted. */
int stats_untrack(Stats *s, const char *key);

/* The figures of key; -ENOENT when it is not counted (or there is no BPF). */
int stats_read(Stats *s, const char *key, StatsFigures *ret);

/* With BPF: HCBS_FEATURE_* (hcbs-stats.h), what the kernel lets the collector count; else 0. */
unsigned stats_features(const Stats *s);
/* With BPF: the possible CPUs, the length of stats_read_servers()'s array; else 0. */
unsigned stats_ncpus(const Stats *s);
/* key's deadline-server figures on each CPU into per_cpu[stats_ncpus()]; -ENOENT when not counted. */
int stats_read_servers(Stats *s, const char *key, struct hcbs_server_cpu *per_cpu);

/*
 * Observation (manager-observe.c) with the collector, -EOPNOTSUPP without:
 * the RT tasks of cgroup cgid send their jobs, as struct hcbs_job with
 * observation id, to fn, which stats_jobs_consume() calls for each record
 * that came (run it when *ret_fd, from stats_jobs_open(), is readable).
 */
typedef void (*StatsJobsFn)(const struct hcbs_job *job, void *userdata);
int stats_jobs_open(Stats *s, StatsJobsFn fn, void *userdata, int *ret_fd);
int stats_jobs_consume(Stats *s);
uint64_t stats_jobs_lost(const Stats *s);
int stats_observe(Stats *s, uint64_t cgid, unsigned id, uint64_t duration_ns);
int stats_unobserve(Stats *s, uint64_t cgid);
