/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The scheduling policy options of attach, run and reserve-unit (--fifo PRIO,
 * --rr PRIO, --other) and their a{sv} form ("policy" s, "priority" i).
 */

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "ctl-cmdline.h"

/* The getopt values of the policy options; a verb's table lists those it takes. */
enum {
        CTL_ARG_FIFO = CTL_ARG_VERB_FIRST,
        CTL_ARG_RR,
        CTL_ARG_OTHER,
};

typedef struct CtlPolicy {
        const char *policy; /* "fifo", "rr", "other"; NULL: keep (not sent) */
        int32_t priority;   /* 1..99 for fifo/rr; 0: not given */
} CtlPolicy;

/*
 * Records option (e.g. "--fifo") asking for policy, with its priority in arg
 * (NULL for --other). A second policy option is a usage error. CtlExit.
 */
int ctl_policy_set(const char *verb, const char *option, const char *policy, const char *arg, CtlPolicy *pol);

/* A verb's option callback (ctl_parse_verb) for the policy options; userdata is a CtlPolicy. */
int ctl_policy_option(const char *verb, int c, const char *arg, void *userdata);

/* Appends pol as an a{sv} of options; sd-bus style. */
int ctl_policy_append(sd_bus_message *m, const CtlPolicy *pol);
/* The same entries ({sv}) into an a{sv} the caller opened. */
int ctl_policy_append_entries(sd_bus_message *m, const CtlPolicy *pol);
