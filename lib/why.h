/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl why: the rules that explain why a thread cannot be SCHED_FIFO or
 * SCHED_RR, or why it does not get its share, from facts gathered elsewhere
 * (cli/ctl-why-facts.c reads /proc and the cgroup files; cli/ctl-why.c asks
 * hcbsd and systemd over the bus). Pure: every rule is a unit test
 * (tests/unit/test-why.c).
 *
 * What the kernel does, the source of each rule (docs/why.md has more):
 *  - sched_setscheduler(SCHED_FIFO|RR) by the thread itself needs
 *    CAP_SYS_NICE, or a priority <= RLIMIT_RTPRIO (kernel/sched/syscalls.c,
 *    user_check_sched_setscheduler); a seccomp filter (systemd's
 *    RestrictRealtime=) refuses it with EPERM whatever the rest says. hcbsd
 *    sets the policy from outside with its own CAP_SYS_NICE, which neither
 *    the thread's limits nor its filter touch;
 *  - with RT group scheduling, a group whose runtime is 0 takes no RT task:
 *    sched_setscheduler() says EPERM and moving an RT task in says EINVAL
 *    (sched_rt_can_attach); mainline on cgroup v2 has no files to raise it;
 *  - HCBS RFC v1 (seed patch 9): no RT task in a group whose child has a
 *    runtime, the root excepted (the leaf rule);
 *  - HCBS v6 (rtmax): a "max" group runs its RT tasks on the nearest
 *    ancestor's reservation;
 *  - RLIMIT_RTTIME: SIGXCPU after that much CPU time without blocking,
 *    SIGKILL at the hard limit (kernel/sched/rt.c, watchdog()).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel-mode.h"

#define HCBS_WHY_CHAIN_MAX 32
#define HCBS_WHY_PATH_MAX 512
#define HCBS_WHY_NAME_MAX 256
#define HCBS_WHY_UNLIMITED UINT64_MAX /* an rlimit of RLIM_INFINITY */

/* One cgroup on the thread's path, from the hierarchy's root down. */
typedef struct HcbsWhyNode {
        char path[HCBS_WHY_PATH_MAX]; /* relative to the mount, "" for the root */
        bool has_files;               /* cpu.rt_* here (v2: its parent enabled the cpu controller) */
        bool max;                     /* rtmax: "max", no reservation of its own */
        int64_t runtime_us;
        uint64_t period_us;
} HcbsWhyNode;

typedef enum HcbsWhyManaged {
        HCBS_WHY_NOT_MANAGED,
        HCBS_WHY_MANAGED_GROUP,     /* below hcbsd's root: managed_name is the group */
        HCBS_WHY_MANAGED_UNIT,      /* a unit's reservation in hcbsd's pool */
        HCBS_WHY_MANAGED_CONTAINER, /* a container's scope */
} HcbsWhyManaged;

typedef struct HcbsWhyFacts {
        /* the thread (pid 0: a unit without a process) */
        pid_t pid, tid;
        char comm[64];
        uid_t uid; /* real */
        int policy, priority;
        unsigned threads, rt_threads; /* of its process */
        bool cap_sys_nice;            /* effective */
        bool seccomp_filter;          /* Seccomp: 2 in /proc/PID/status */
        uint64_t rtprio_soft, rtprio_hard;
        uint64_t rttime_soft_us, rttime_hard_us;

        /* the kernel */
        HcbsKernelVerdict mode;
        bool mode_from_hcbsd;
        char mount[HCBS_WHY_PATH_MAX];   /* the hierarchy of the RT files, "" none */
        bool have_sysctls;
        int64_t rt_runtime_us;
        uint64_t rt_period_us;

        /* its cgroup, root first (n_chain 0: unknown) */
        HcbsWhyNode chain[HCBS_WHY_CHAIN_MAX];
        size_t n_chain;
        char busy_child[HCBS_WHY_PATH_MAX]; /* rfc1: a child of its group with a runtime, "" none */
        bool busy_child_managed;            /* ... one of hcbsd's groups */

        /* systemd: the unit that holds it (or that was asked about) */
        bool systemd_answered;
        char unit[HCBS_WHY_NAME_MAX];       /* "" none */
        char unit_slice[HCBS_WHY_NAME_MAX];
        char unit_state[32];                /* ActiveState */
        bool unit_is_service;
        bool restrict_realtime;
        uint64_t unit_rtprio_soft;          /* LimitRTPRIOSoft= */
        int unit_policy, unit_priority;     /* CPUSchedulingPolicy=, CPUSchedulingPriority= */
        bool unit_reserves;                 /* its ExecStartPre= runs 'hcbsctl reserve-unit' */
        uint64_t unit_runtime_us, unit_period_us; /* what it asks for */

        /* hcbsd */
        bool hcbsd_running;
        bool hcbsd_under_systemd;           /* its root is in hcbs.slice: units may hold reservations */
        char hcbsd_root[HCBS_WHY_PATH_MAX]; /* its cgroup root, relative to the mount */
        HcbsWhyManaged managed;
        char managed_name[HCBS_WHY_PATH_MAX];
        bool unit_reservation_held;         /* unit is in hcbsd's ListUnits */
        uint64_t free_bw;                   /* hcbsd's capacity minus what is allocated (kernel fixed point) */

        /* the collector (GetStats of its group), when hcbsd manages it */
        bool have_stats;
        uint64_t latency_count, latency_p99_ns, latency_max_ns;
        double reservation_share; /* < 0: not given */
        uint64_t window_ns;
        bool have_exhaustions; /* GetStats' "exhaustions" (HCBS kernels' per-CPU servers) */
        uint64_t exhaustions, throttled_ns;

        /* rtkit (org.freedesktop.RealtimeKit1) on the system bus, or activatable */
        HcbsTri rtkit;
} HcbsWhyFacts;

typedef enum HcbsWhyKind {
        HCBS_WHY_BLOCKS, /* the thread cannot become SCHED_FIFO/RR */
        HCBS_WHY_SHARE,  /* it is RT (or may be) but does not get, or may lose, its share */
        HCBS_WHY_NOTE,   /* worth knowing; nothing wrong */
} HcbsWhyKind;

typedef struct HcbsWhyCause {
        const char *id;     /* "budget-zero", "rlimit-rtprio", ... (docs/why.md lists them) */
        HcbsWhyKind kind;
        bool hcbsd_can_fix; /* the fix is an hcbsctl command or an [X-HCBS] setting */
        char message[512];
        char fix[512];      /* the command that fixes it, or "hcbsd cannot fix this: ..." */
} HcbsWhyCause;

#define HCBS_WHY_CAUSES_MAX 16

/* The facts before anything is known. */
void hcbs_why_facts_init(HcbsWhyFacts *f);

/* The causes, blocking ones first; returns how many (at most max). */
size_t hcbs_why_diagnose(const HcbsWhyFacts *f, HcbsWhyCause *ret, size_t max);

/* "blocks", "share", "note" */
const char *hcbs_why_kind_to_string(HcbsWhyKind k);

/* Whether any cause is wrong (not a note): hcbsctl why's exit status 1. */
bool hcbs_why_any_wrong(const HcbsWhyCause *c, size_t n);

/* The first chain node at runtime 0 below the root that decides (see the rules), or NULL. */
const HcbsWhyNode *hcbs_why_first_zero(const HcbsWhyFacts *f);

/* rtmax: the reservation a "max" group's threads run on (its nearest configured ancestor), or NULL. */
const HcbsWhyNode *hcbs_why_context(const HcbsWhyFacts *f);
