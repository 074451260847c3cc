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
 * Loads the collector, its maps sized for capacity counted cgroups (at most
 * HCBS_STATS_MAP_MAX), and
 * attaches its tracepoints. On failure returns -errno and writes why (one
 * line for a person: what was missing) into why.
 */
int stats_bpf_open(StatsBpf **ret, uint32_t capacity, char *why, size_t whylen);
/* HCBS_FEATURE_* (hcbs-stats.h): what the running kernel lets the collector count. */
unsigned stats_bpf_features(const StatsBpf *b);
/* The possible CPUs: the length of stats_bpf_read()'s per-CPU figures. */
unsigned stats_bpf_ncpus(const StatsBpf *b);
/* Detaches and unloads: no program, map or link is left. NULL-safe. */
StatsBpf *stats_bpf_free(StatsBpf *b);

/* How many cgroups the collector's maps hold (the capacity given at load): the tracking table (stats.c) uses no more. */
uint32_t stats_bpf_slots(const StatsBpf *b);
/* Counts the cgroup with id cgid, from zero (again, if it was counted). -E2BIG beyond the capacity. */
int stats_bpf_track(StatsBpf *b, uint64_t cgid);
/* Stops counting cgid; -ENOENT if it was not counted. */
int stats_bpf_untrack(StatsBpf *b, uint64_t cgid);
/*
 * The counters of cgid summed over the CPUs, and (when per_cpu is not NULL)
 * its server's figures on each of the stats_bpf_ncpus() CPUs; -ENOENT when
 * not counted. Lock-free: collection goes on meanwhile.
 */
int stats_bpf_read(StatsBpf *b, uint64_t cgid, struct hcbs_slot *ret, struct hcbs_server_cpu *per_cpu);

/*
 * Observation of a cgroup's RT tasks' jobs (hcbs-stats.h): the job records
 * of every observation come through one ring buffer, whose reader calls fn
 * for each when stats_bpf_jobs_consume() runs (when *ret_fd, an epoll fd,
 * is readable).
 */
typedef void (*StatsBpfJobFn)(const struct hcbs_job *job, void *userdata);
int stats_bpf_jobs_open(StatsBpf *b, StatsBpfJobFn fn, void *userdata, int *ret_fd);
int stats_bpf_jobs_consume(StatsBpf *b);
/* Job records the ring buffer had no room for, since the collector loaded. */
uint64_t stats_bpf_jobs_lost(const StatsBpf *b);
/* Starts observing cgid (id: the observation's, not 0); -EEXIST if it is observed, -E2BIG past HCBS_OBSERVE_MAX. */
int stats_bpf_observe(StatsBpf *b, uint64_t cgid, unsigned id, uint64_t duration_ns);
int stats_bpf_unobserve(StatsBpf *b, uint64_t cgid);

/* The sched_switch program's fd, for tests/bench/bench-stats (its run time and count). */
int stats_bpf_switch_fd(StatsBpf *b);
