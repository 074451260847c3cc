/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl why: what it asks over the bus, each question read-only, open to
 * any user and bounded by a 5 s timeout: hcbsd's properties, ListUnits()
 * (units' and containers' reservations) and GetStats(); systemd's unit of a
 * process (GetUnitByPID) or by name (LoadUnit) and its settings
 * (RestrictRealtime=, LimitRTPRIO=, CPUSchedulingPolicy=, its
 * ExecStartPre= 'hcbsctl reserve-unit'); whether rtkit is on the bus. A
 * peer that does not answer leaves its facts unknown: why still diagnoses
 * what it can read itself.
 */

#include "ctl-bus.h"
#include "ctl-units.h"
#include "why.h"

typedef struct WhyHcbsd {
        bool running;
        CtlManagerProps props;
        CtlUnitList units; /* units' and containers' reservations */
} WhyHcbsd;

/* Asks hcbsd; ret->running false when nothing answers. 0 or -ENOMEM. */
int why_ask_hcbsd(Ctl *ctl, WhyHcbsd *ret);
void why_hcbsd_done(WhyHcbsd *h);

/*
 * systemd's unit for pid (GetUnitByPID) or named unit (LoadUnit), into f:
 * its name, slice, state and real-time settings, and the reservation its
 * ExecStartPre= asks hcbsd for. ret_main_pid and ret_cgroup (relative to the
 * mount, at least HCBS_WHY_PATH_MAX) may be NULL. 0 when systemd answered,
 * -ENOENT for a unit it does not know, other -errno when it did not answer.
 */
int why_ask_systemd(Ctl *ctl, pid_t pid, const char *unit, HcbsWhyFacts *f, pid_t *ret_main_pid, char *ret_cgroup);

/* Whether org.freedesktop.RealtimeKit1 has an owner or can be activated. */
HcbsTri why_ask_rtkit(Ctl *ctl);

/* GetStats(name) into f's collector facts; false when hcbsd gives none. */
bool why_ask_stats(Ctl *ctl, const char *name, HcbsWhyFacts *f);
