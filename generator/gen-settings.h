/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's real-time reservation, read from its unit file and drop-ins:
 *
 *   [X-HCBS]   Runtime=2ms  Period=10ms
 *   [X-HCBS]   Tasks=WCET:PERIOD[:DEADLINE]...  [Period=P]  [CPUs=N]
 *                                                 (sized at generation time, lib/sizing.h)
 *   [X-HCBS]   CPUs=LIST                          (a list, 0-1 or 2,3: the unit's CPUs, rtmax v7)
 *   [Service]  RTRuntime=2ms  RTPeriod=10ms        (the same two settings)
 *              CPUSchedulingPolicy=  CPUSchedulingPriority=   (as systemd reads them)
 *
 * and the drop-in that turns it into an hcbsctl reserve step.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"
#include "gen-log.h"
#include "sizing.h"

typedef struct GenSetting {
        uint64_t us;
        bool set;
        const char *key; /* the key that set it: "Runtime" or "RTRuntime", ... */
        char *where;     /* "FILE:LINE" of that assignment */
} GenSetting;

/* What the files of one unit say, in the order systemd applies them. */
typedef struct GenSettings {
        GenSetting runtime, period;
        /* Tasks= (a list: each assignment appends, an empty one resets) and CPUs= */
        HcbsTask *tasks;
        size_t n_tasks;
        char *tasks_where;
        GenSetting cpus;        /* CPUs=N, a number: how many CPUs to size for */
        HcbsCpuSet cpu_list;    /* CPUs=LIST, with a '-' or a ',': the unit's CPUs (and as many to size for) */
        bool has_cpu_list;
        /* as systemd's ExecContext: cpu_sched_set, cpu_sched_policy, cpu_sched_priority */
        bool sched_set;
        int sched_policy;
        int sched_priority;
        char *sched_where; /* "FILE:LINE" of the last policy or priority assignment */
        unsigned n_errors; /* bad values seen, each already logged */
} GenSettings;

typedef struct GenReservation {
        uint64_t runtime_us, period_us;
        int policy; /* SCHED_FIFO, SCHED_RR, or -1: the unit's policy is not real-time */
        int priority;
        size_t sized_tasks; /* > 0: sized from Tasks= for sized_cpus CPUs */
        unsigned sized_cpus;
        bool has_cpus;          /* CPUs=LIST: cpus are AllowedCPUs= and reserve-unit --cpus */
        HcbsCpuSet cpus;
} GenReservation;

/* An empty GenSettings: nothing set, policy SCHED_OTHER. */
void gen_settings_init(GenSettings *s);

/* Frees what s owns (NULL-safe) and re-initializes it. */
void gen_settings_done(GenSettings *s);

/*
 * Applies one unit file or drop-in on top of s, read with systemd's syntax
 * (comments, line continuations, later assignments win, an empty assignment
 * resets). A bad value of ours is logged as "FILE:LINE: KEY=VALUE: reason"
 * and counted in s->n_errors. A missing file, a directory or a character
 * device (a mask) adds nothing. Returns 0, or -errno when the file cannot be
 * read (logged, and counted as an error) or memory runs out (-ENOMEM, not logged).
 */
int gen_settings_parse_file(GenSettings *s, const char *path, const GenLog *log);

/*
 * The reservation s describes: 1 with *ret filled, 0 when it has none, or
 * -EINVAL when a value is bad or they do not fit together (runtime without
 * period or the reverse, runtime 0 or above the period, period outside
 * 1us..4s, a real-time policy with priority 0); every such case is logged,
 * naming unit. With Tasks= (and no Runtime=), the reservation is the one
 * hcbs_size() designs for them at Period= (or the default range) on CPUs=
 * (default: the CPUs online now) within 100us..4s and the default global
 * limit 95%; a refusal is logged with its reason.
 */
int gen_settings_reservation(const GenSettings *s, const char *unit, const GenLog *log, GenReservation *ret);

/*
 * The drop-in for a reservation read from source (the unit file), calling
 * hcbsctl. Returns 0 and a malloc()ed text in *ret, or -ENOMEM.
 */
int gen_dropin_text(const GenReservation *r, const char *source, const char *hcbsctl, char **ret);

/* The drop-in that masks the one generated for masked_name, for unit (which has no reservation). */
int gen_dropin_mask_text(const char *unit, const char *masked_name, char **ret);
