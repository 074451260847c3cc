/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The scheduling policy options of attach, run and reserve-unit (--fifo PRIO,
 * --rr PRIO, --other) and their a{sv} form ("policy" s, "priority" i).
 */

#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct CtlPolicy {
        const char *policy; /* "fifo", "rr", "other"; NULL: keep (not sent) */
        int32_t priority;   /* 1..99 for fifo/rr; 0: not given */
} CtlPolicy;

/*
 * Records option (e.g. "--fifo") asking for policy, with its priority in arg
 * (NULL for --other). A second policy option is a usage error. CtlExit.
 */
int ctl_policy_set(const char *verb, const char *option, const char *policy, const char *arg, CtlPolicy *pol);

/* Appends pol as an a{sv} of options; sd-bus style. */
int ctl_policy_append(sd_bus_message *m, const CtlPolicy *pol);
