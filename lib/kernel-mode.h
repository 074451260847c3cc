/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The kernel's mode: which kind of RT group scheduling this machine has, and
 * whether hcbsd can work on it, with the fix when it cannot.
 *
 * The facts are read by the backend (daemon/kernel-facts.c: mounts,
 * /proc/cgroups, the RT files, the command line, the kernel's
 * configuration, the sysctls, where hcbsd's root would live); the decision
 * here is pure, so every case is a unit test on a fixture
 * (tests/fixtures/kernel/, tests/unit/test-kernel-mode.c).
 *
 * What the cases are (docs/kernel-modes.md has the sources):
 *  - HCBS: cpu.rt_runtime_us (RFC v1) or cpu.rt.max (v6+) on cgroup v2;
 *  - mainline CONFIG_RT_GROUP_SCHED: its files are cgroup-v1 "legacy" files
 *    (kernel/sched/core.c, cpu_legacy_files, and since 6.16 rt_group_files
 *    added with cgroup_add_legacy_cftypes()), so it works on a v1 cpu
 *    hierarchy, and on cgroup v2 it has nothing to configure: every cgroup
 *    with the cpu controller but the root has RT runtime 0, and RT tasks
 *    there are refused (EPERM). The project's stage-1 kernel
 *    (patches/0001) puts the same rules behind v2 files;
 *  - since 6.16 the boot switch rt_group_sched=0|1 (and
 *    CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED) turns it off: no files at all;
 *  - kernels built without CONFIG_RT_GROUP_SCHED: no files at all;
 *  - kernel.sched_rt_runtime_us = -1: the kernel admits everything, so
 *    hcbsd works but nothing it reserves is guaranteed;
 *  - the cpu controller disabled (cgroup_disable=cpu) or not enabled on the
 *    cgroup hcbsd's root would live in.
 */

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef enum HcbsTri {
        HCBS_TRI_UNKNOWN = -1,
        HCBS_TRI_NO = 0,
        HCBS_TRI_YES = 1,
} HcbsTri;

#define HCBS_FACTS_PATH_MAX 512

typedef struct HcbsKernelFacts {
        char release[65]; /* kernel.osrelease, "" unknown */

        /* cgroup file systems (/proc/self/mountinfo) */
        char v2_mount[HCBS_FACTS_PATH_MAX];     /* "" without a cgroup2 mount */
        char v1_cpu_mount[HCBS_FACTS_PATH_MAX]; /* a cgroup-v1 hierarchy with the cpu controller, or "" */
        bool v2_has_cpu;                        /* "cpu" in the v2 root's cgroup.controllers */
        HcbsTri cpu_enabled;                    /* /proc/cgroups' "enabled" for cpu (cgroup_disable=cpu) */

        /* the RT files at the roots of those hierarchies */
        bool v2_rt_runtime; /* cpu.rt_runtime_us on cgroup v2 */
        bool v2_rt_max;     /* cpu.rt.max on cgroup v2 */
        bool v1_rt_runtime; /* cpu.rt_runtime_us on the v1 cpu hierarchy */

        /* how the kernel was built and booted (read only when no RT files are found) */
        HcbsTri config_rt_group_sched; /* CONFIG_RT_GROUP_SCHED */
        HcbsTri has_switch;            /* the rt_group_sched= boot switch exists (6.16+) */
        bool default_disabled;         /* CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED=y */
        int cmdline_switch;            /* rt_group_sched= on the command line: -1 absent, 0 or 1 (the last one) */
        bool cmdline_cpu_disabled;     /* cgroup_disable= names cpu */
        char config_source[HCBS_FACTS_PATH_MAX]; /* where the build facts came from, "" none */

        /* kernel.sched_rt_{runtime,period}_us */
        bool have_sysctls;
        int64_t rt_runtime_us;
        uint64_t rt_period_us;

        /* where hcbsd's root would live ("" root: the kernel alone) */
        char root[HCBS_FACTS_PATH_MAX];
        char root_mount[HCBS_FACTS_PATH_MAX]; /* the cgroup mount holding it, "" when none */
        bool root_mount_v2;
        bool root_mount_has_cpu;             /* v1: the hierarchy has the cpu controller */
        char root_anchor[HCBS_FACTS_PATH_MAX]; /* its deepest existing cgroup (itself when it exists) */
        bool anchor_has_cpu;                 /* v2: "cpu" in the anchor's cgroup.controllers */

        /* the interface found by start-up's probe (rfc1 vs legacy-v2), or -1 */
        int probed;
} HcbsKernelFacts;

typedef enum HcbsKernelMode {
        HCBS_MODE_HCBS_RFC1,        /* HCBS RFC v1: reservations by per-CPU deadline servers */
        HCBS_MODE_HCBS_RTMAX,       /* HCBS v6+: cpu.rt.max */
        HCBS_MODE_MAINLINE_V1,      /* mainline RT_GROUP_SCHED on the v1 cpu controller */
        HCBS_MODE_MAINLINE_V2,      /* mainline rules behind v2 files (the project's stage-1 kernel) */
        HCBS_MODE_UNLIMITED,        /* any of the above with kernel.sched_rt_runtime_us = -1 */
        HCBS_MODE_MAINLINE_V1_ONLY, /* mainline RT_GROUP_SCHED, whose files are v1-only, with the cpu controller on v2 */
        HCBS_MODE_SWITCH_OFF,       /* rt_group_sched=0 (or built default-off without =1) */
        HCBS_MODE_NONE,             /* no CONFIG_RT_GROUP_SCHED */
        HCBS_MODE_NO_CPU_CONTROLLER, /* the cpu controller disabled, or absent where hcbsd's root lives */
        _HCBS_MODE_MAX,
} HcbsKernelMode;

#define HCBS_MODE_TEXT_MAX 512

typedef struct HcbsKernelVerdict {
        HcbsKernelMode mode;
        bool usable;     /* hcbsd can run here */
        bool guaranteed; /* HCBS reservations (not throttling, not unlimited) */
        HcbsInterface iface; /* when usable */
        char reason[HCBS_MODE_TEXT_MAX]; /* what holds, for a person */
        char fix[HCBS_MODE_TEXT_MAX];    /* the command or setting that fixes it; "" when nothing to fix */
} HcbsKernelVerdict;

/* "hcbs-rfc1", "mainline-v1", "switch-off", ...; NULL out of range. */
const char *hcbs_kernel_mode_to_string(HcbsKernelMode m);
int hcbs_kernel_mode_from_string(const char *s);

/* Decides the mode from the facts. Pure. */
void hcbs_kernel_mode_decide(const HcbsKernelFacts *f, HcbsKernelVerdict *ret);

/* The facts before anything is read: everything unknown or absent. */
void hcbs_kernel_facts_init(HcbsKernelFacts *f);
