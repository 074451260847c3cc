/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The maps shared by the BPF collector (hcbs-stats.bpf.c) and its loader
 * (stats-bpf.c). The daemon fills `groups` (a cgroup's id -> a slot) with
 * the cgroups it manages; the collector counts only tasks whose cpu-
 * controller cgroup is in it, into slot's entry of the per-CPU array
 * `slots`, and the daemon sums the CPUs when it reads. Per-task timestamps
 * live in `tasks` (by thread id), created the first time a managed task
 * wakes or runs and deleted when it exits.
 */

#include "loghist.h"

/* one layout on both sides: uint64_t in the daemon, __u64 (vmlinux.h) in BPF */
#ifdef __bpf__
typedef __u64 hcbs_u64;
#else
#include <stdint.h>
typedef uint64_t hcbs_u64;
#endif

#define HCBS_STATS_MAX_GROUPS 256
#define HCBS_STATS_MAX_TASKS 16384

struct hcbs_slot {
        hcbs_u64 rt_time_ns;    /* on CPU with SCHED_FIFO/SCHED_RR, charged at switch-out */
        hcbs_u64 cpu_time_ns;   /* on CPU, any policy (both as the kernel accounts it: sum_exec_runtime) */
        hcbs_u64 wakeups;       /* sched_wakeup/sched_wakeup_new of the group's tasks */
        hcbs_u64 preemptions;   /* switched out while still runnable */
        hcbs_u64 wait_ns;       /* runnable but not running: wakeup or preemption until switch-in */
        hcbs_u64 latency_max_ns;
        hcbs_u64 latency_sum_ns;
        hcbs_u64 task_drops;    /* events lost because the task table was full */
        hcbs_u64 latency[LOGHIST_BUCKETS]; /* wakeup -> switch-in, log-linear (loghist.h) */
};

/*
 * Each timestamp carries the task's context-switch count (nvcsw + nivcsw)
 * when it was taken: if the task switched while hcbsd did not count it (it
 * was in another cgroup), the counts disagree and the stale value is
 * dropped instead of charging the group for time it did not see.
 */
struct hcbs_task {
        hcbs_u64 wake_ns;   /* last wakeup while not on CPU; 0: none pending */
        hcbs_u64 queued_ns; /* runnable since (wakeup or preemption); 0: not waiting */
        hcbs_u64 run_ns;    /* switched in at; 0: not on CPU */
        hcbs_u64 sum_in;    /* its se.sum_exec_runtime when switched in */
        hcbs_u64 cs_wake, cs_queued, cs_in; /* the switch counts with wake_ns, queued_ns, run_ns */
};
