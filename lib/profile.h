/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Kernel profiles: which admission rules a kernel interface applies.
 *
 * All three interfaces share tg_rt_schedulable() (kernel/sched/rt.c):
 * runtime <= period, every group's ratio <= the global
 * sched_rt_runtime_us/sched_rt_period_us, and at every level the sum of the
 * children's ratios <= the parent's. They differ in the details listed
 * below, each a flag so tests can exercise one rule at a time. The sources
 * are named next to each flag; docs/kernel-rules.md has the full table.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"

typedef enum HcbsInterface {
        HCBS_IFACE_RFC1,      /* HCBS RFC v1: cpu.rt_{runtime,period}_us on cgroup v2 */
        HCBS_IFACE_RTMAX,     /* HCBS v6 and later: cpu.rt.max "RUNTIME|max PERIOD", "max" delegation */
        HCBS_IFACE_LEGACY_V1, /* mainline RT_GROUP_SCHED on the cgroup-v1 cpu controller */
        HCBS_IFACE_LEGACY_V2, /* mainline rules behind v2 files (patches/0001, our qemu kernel) */
        _HCBS_IFACE_MAX,
} HcbsInterface;

typedef struct HcbsProfile {
        HcbsInterface interface;

        /* legacy: alloc_rt_sched_group() starts groups at the global period; rfc1 (seed 006): 0/0 */
        bool new_group_global_period;
        /* legacy: tg_set_rt_bandwidth() refuses runtime 0 on the root; rfc1 drops it (seed 009) */
        bool root_runtime_nonzero;
        /* rfc1 (seed 006, __rt_schedulable): 0 < runtime < 1024 ns and period MSB set -> EINVAL */
        bool dl_limits;
        /* legacy: runtime -> 0 is EBUSY only if the old runtime was non-zero; rfc1 (seed 006) always */
        bool ebusy_needs_old_runtime;
        /* rfc1 (seed 006): the root's ratio must fit beside SCHED_DEADLINE (dl_check_tg) -> EBUSY */
        bool root_reserve;
        /* rfc1 (seed 010): no runtime under a non-root parent with RT tasks; no RT task
         * into a group whose child has runtime; the root always accepts RT tasks (seed 009) */
        bool leaf_only;
        /* rtmax: one file sets both values in one write */
        bool atomic_write;
        /* rtmax (v6 17/25): runtime -1 is "max": no reservation, the group's RT tasks run on
         * its context's servers (the nearest ancestor with a reservation, or the root);
         * admission sums a context's reserved descendants through "max" groups; new groups
         * start at "max"; the root cannot be "max" and its runtime 0 blocks nothing */
        bool max_delegation;
        /* rtmax (v6 17/25, __checkparam_dl): runtime 0 with period 0 is accepted; otherwise
         * the period must lie in [dl_period_min_us, dl_period_max_us] */
        bool dl_period_range;
        /* rtmax v7 (devel-v7 __tg_compute_children_runtime): a context's reserved groups count
         * runtime * context period / their period in ns, truncated (mul_u64_u64_div_u64), summed
         * per CPU against the context's runtime on each CPU; v6 sums to_ratio() values */
        bool percpu_admission;
        /* rtmax v7 (devel-v7 cpuset integration): a reservation covers only the group's effective
         * cpuset (its servers elsewhere get 0); cpuset.cpus cannot change while the group or a group
         * below it holds a reservation (not "max"): EINVAL (cpuset_can_change) */
        bool cpuset_coupling;
        /* rtmax: 6 (cpu.rt.internal) or 7 (cpu.rt.max.effective.local); 0 on other interfaces */
        unsigned revision;

        /* The CPUs online: the root cpuset's effective CPUs, where per-CPU rules are checked. */
        HcbsCpuSet online;

        /* The machine: sysctl kernel.sched_rt_{runtime,period}_us (runtime -1 = unlimited). */
        int64_t global_runtime_us;
        uint64_t global_period_us;

        /* SCHED_DEADLINE accounting of the root domain, for root_reserve:
         * fails when dl_bw * cpus < dl_total_bw + root_ratio * cpus. */
        uint64_t dl_bw;       /* to_ratio(global period, global runtime); UINT64_MAX = unlimited */
        uint64_t dl_total_bw; /* bandwidth of DL tasks and servers (fair_server) in the domain */
        unsigned dl_cpus;
        /* The deadline servers hcbsd cannot see, per CPU, that dl_total_bw is estimated from
         * (hcbs_profile_set_cpus): the fair server, fair_server_init() in kernel/sched/fair.c,
         * 50ms every 1s. 6.12 adds a CPU's server to the root domain only once it has run, so
         * one per CPU is the most it accounts. */
        uint64_t dl_server_bw;

        /* sysctl kernel.sched_deadline_period_{min,max}_us, for dl_period_range */
        uint64_t dl_period_min_us;
        uint64_t dl_period_max_us;
} HcbsProfile;

/* Fills p with the rules of iface and the default machine (950000/1000000, one CPU, no DL load; rtmax: v6). */
void hcbs_profile_init(HcbsProfile *p, HcbsInterface iface);

/* rtmax: the revision's rules (6 or 7: percpu_admission and cpuset_coupling). -EINVAL otherwise. */
int hcbs_profile_set_revision(HcbsProfile *p, unsigned revision);

/* The machine's online CPUs 0..cpus-1: dl_cpus, and dl_total_bw as one dl_server_bw per CPU. */
void hcbs_profile_set_cpus(HcbsProfile *p, unsigned cpus);
/* The same for any set of online CPUs (CPU numbers may have holes). */
void hcbs_profile_set_online(HcbsProfile *p, const HcbsCpuSet *online);

/* Sets the global limits and keeps dl_bw in step with them. */
void hcbs_profile_set_global(HcbsProfile *p, int64_t runtime_us, uint64_t period_us);

/* The global limit as a ratio: to_ratio(global_rt_period(), global_rt_runtime()). */
uint64_t hcbs_profile_global_bw(const HcbsProfile *p);

/* "rfc1", "rtmax", "legacy-v1", "legacy-v2". */
const char *hcbs_interface_to_string(HcbsInterface i);
int hcbs_interface_from_string(const char *s);
