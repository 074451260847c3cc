/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The maps shared by the BPF collector (hcbs-stats.bpf.c) and its loader
 * (stats-bpf.c). The daemon puts each cgroup it counts into `groups` (its
 * id -> its counters, one struct hcbs_counters per possible CPU, each in a
 * cache line of its own: per-CPU counters that a CPU adds to without a lock
 * or an atomic, in a plain hash so that a new group is one allocation, not
 * one per CPU) and sets the id's bit in the membership filter
 * (`member_bits`, in the collector's .bss, which it writes through the
 * skeleton's mmap). The latency histogram of a group (`hists`, by cgroup
 * id, shared by the CPUs) is made by the collector at its first wakeup.
 * Both maps are sized for the daemon's capacity at load (at most
 * HCBS_STATS_MAP_MAX) and allocate per group: memory follows the groups
 * counted, not the capacity. A counted task's timestamps live in the task
 * itself (task-local storage, `task_states`, which the kernel frees with
 * the task), and its switch-in in the CPU's `runs`: there is no table of
 * tasks that one group could fill for the others.
 */

#include "loghist.h"

/* one layout on both sides: uint64_t in the daemon, __u64 (vmlinux.h) in BPF */
#ifdef __bpf__
typedef __u64 hcbs_u64;
#else
#include <stdint.h>
typedef uint64_t hcbs_u64;
#endif

/* The most cgroups the collector's maps are made for (hcbsd's default is MaxGroups=65536 plus 256 units). */
#define HCBS_STATS_MAP_MAX (1u << 17)
/* The bytes of one CPU's counters in a value of `groups`: two cache lines, so CPUs never share one. */
#define HCBS_STATS_CPU_STRIDE 128u

/*
 * The membership filter: bit (id mod HCBS_FILTER_BITS) is set when some
 * counted cgroup's id maps there. Cgroup ids are allocated in sequence,
 * so the low bits spread them; a clear bit answers "not counted" with one
 * load, and only a set bit costs the hash lookup.
 */
#define HCBS_FILTER_BITS (1u << 17)
#define HCBS_FILTER_WORDS (HCBS_FILTER_BITS / 64)

/* What the running kernel offers (bits of `features`, set by the hcbs_features program). */
#define HCBS_FEATURE_LOADED 1u      /* the features program ran */
#define HCBS_FEATURE_SERVERS 2u     /* task_group.dl_se: HCBS's per-CPU deadline servers */

/* One counted group's counters on one CPU (at HCBS_STATS_CPU_STRIDE * cpu in its value of `groups`). */
struct hcbs_counters {
        hcbs_u64 rt_time_ns;    /* on CPU with SCHED_FIFO/SCHED_RR, charged at switch-out */
        hcbs_u64 cpu_time_ns;   /* on CPU, any policy (both as the kernel accounts it: sum_exec_runtime) */
        hcbs_u64 wakeups;       /* sched_wakeup/sched_wakeup_new of the group's tasks */
        hcbs_u64 preemptions;   /* switched out while still runnable */
        hcbs_u64 wait_ns;       /* runnable but not running: wakeup or preemption until switch-in */
        hcbs_u64 latency_sum_ns; /* the RT tasks' wakeup-to-run latency (with the histogram) */
        hcbs_u64 latency_max_ns;
        hcbs_u64 task_drops;    /* events lost: the kernel could not allocate a task's storage */
        /* the group's deadline server on this CPU (HCBS kernels) */
        hcbs_u64 exhaustions;     /* switched out by a throttled server: its runtime ran out */
        hcbs_u64 throttled_ns;    /* from an exhaustion until the group ran again on this CPU */
        hcbs_u64 replenishments;  /* server deadlines the group ran under: budgets it started */
        /* the collector's state, not figures */
        hcbs_u64 throttled_since; /* bpf_ktime_get_ns() of the exhaustion not yet over; 0: none */
        hcbs_u64 server_deadline; /* the server deadline the group last ran under */
};

_Static_assert(sizeof(struct hcbs_counters) <= HCBS_STATS_CPU_STRIDE, "a CPU's counters fit its stride");

/* One counted group's latency histogram (the value of `hists`), shared by the CPUs: atomic adds. */
struct hcbs_hist {
        hcbs_u64 latency[LOGHIST_BUCKETS]; /* an RT task's wakeup -> its switch-in, log-linear (loghist.h) */
};

/*
 * A counted task's timestamps (its task-local storage, `task_states`), from
 * its wakeup or preemption to its next switch-in. Each carries the task's
 * context-switch count (nvcsw + nivcsw) when it was taken: if the task
 * switched while hcbsd did not count it (it was in another cgroup), the
 * counts disagree and the stale value is dropped instead of charging the
 * group for time it did not see.
 */
struct hcbs_task {
        hcbs_u64 wake_ns;   /* last wakeup while not on CPU; 0: none pending */
        hcbs_u64 queued_ns; /* runnable since (wakeup or preemption); 0: not waiting */
        hcbs_u64 cs_wake, cs_queued; /* the switch counts with wake_ns, queued_ns */
        /*
         * An observed RT task's job (hcbs_observation): it starts at the task's
         * first switch-in after a sleep, released at the wakeup before it (or at
         * that switch-in, when the wakeup was not seen), and ends at its next
         * sleep.
         */
        hcbs_u64 job_release_ns; /* 0: no job open */
        hcbs_u64 job_sum;        /* its se.sum_exec_runtime at the job's start */
        hcbs_u64 job_wake_ns;    /* its last wakeup */
        unsigned int job_observation; /* the observation the fields above belong to */
        unsigned int job_flags;       /* HCBS_JOB_SLEPT: asleep since its last job; HCBS_JOB_UNBOUNDED: said */
};

/*
 * Observation (hcbsctl size --observe): the RT tasks of the cgroups in
 * `observed` have their jobs sent to the daemon through the ring buffer
 * `jobs`, one struct hcbs_job each: a job runs from a wakeup to the next
 * voluntary sleep, its execution time the task's CPU time in between.
 */
#define HCBS_OBSERVE_MAX 64u          /* cgroups observed at once */
#define HCBS_JOBS_RING (1u << 20)     /* bytes of the ring buffer */
#define HCBS_JOB_DONE 1u              /* a job ended: release_ns, exec_ns */
#define HCBS_JOB_UNBOUNDED 2u         /* the task did not sleep for half the observation (once per task) */
#define HCBS_JOB_SLEPT 4u             /* (a task's flag) it slept since its last job: the next switch-in starts one */

struct hcbs_observation {
        hcbs_u64 start_ns;   /* bpf_ktime_get_ns() when it began */
        hcbs_u64 half_ns;    /* half its length: a task running that long without a sleep is unbounded */
        unsigned int id;     /* the daemon's, never 0 */
        unsigned int pad;
};

struct hcbs_job {
        hcbs_u64 release_ns;
        hcbs_u64 exec_ns;
        unsigned int tid, tgid;
        unsigned int observation;
        unsigned int kind; /* HCBS_JOB_DONE or HCBS_JOB_UNBOUNDED */
        char comm[16];
};

/* What the task running on a CPU had when it was switched in (`runs`, one per CPU). */
struct hcbs_run {
        hcbs_u64 sum_in;   /* its se.sum_exec_runtime */
        hcbs_u64 delay_in; /* its sched_info.run_delay (the kernel's wait total, before this stay's wait) */
        hcbs_u64 switches; /* its nvcsw + nivcsw */
        unsigned int pid;  /* 0: no counted task */
        unsigned int pad;
};

/* The daemon's view of a group: the counters summed over the CPUs, and the histogram. */
struct hcbs_slot {
        hcbs_u64 rt_time_ns;
        hcbs_u64 cpu_time_ns;
        hcbs_u64 wakeups;
        hcbs_u64 preemptions;
        hcbs_u64 wait_ns;
        hcbs_u64 latency_max_ns;
        hcbs_u64 latency_sum_ns;
        hcbs_u64 task_drops;
        hcbs_u64 exhaustions;
        hcbs_u64 throttled_ns;
        hcbs_u64 replenishments;
        hcbs_u64 latency[LOGHIST_BUCKETS];
};

/* The daemon's view of a group's deadline server on one CPU (HCBS kernels). */
struct hcbs_server_cpu {
        hcbs_u64 exhaustions;
        hcbs_u64 throttled_ns;
        hcbs_u64 replenishments;
};
