/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ctl-getopt.h"
#include "ctl-policy.h"
#include "ctl.h"

int ctl_policy_set(const char *verb, const char *option, const char *policy, const char *arg, CtlPolicy *pol) {
        if (pol->policy)
                return ctl_fail(CTL_EXIT_USAGE, "%s: %s: give at most one scheduling policy", verb, option);
        pol->policy = policy;
        if (!arg)
                return CTL_EXIT_OK;
        return ctl_parse_priority(verb, option, arg, &pol->priority);
}

int ctl_policy_append_entries(sd_bus_message *m, const CtlPolicy *pol) {
        int r = 0;

        if (pol->policy)
                r = sd_bus_message_append(m, "{sv}", "policy", "s", pol->policy);
        if (r >= 0 && pol->priority > 0)
                r = sd_bus_message_append(m, "{sv}", "priority", "i", pol->priority);
        return r;
}

int ctl_policy_append(sd_bus_message *m, const CtlPolicy *pol) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = ctl_policy_append_entries(m, pol);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

int ctl_policy_option(const char *verb, int c, const char *arg, void *userdata) {
        CtlPolicy *pol = userdata;

        switch (c) {
        case CTL_ARG_FIFO:
                return ctl_policy_set(verb, "--fifo", "fifo", arg, pol);
        case CTL_ARG_RR:
                return ctl_policy_set(verb, "--rr", "rr", arg, pol);
        case CTL_ARG_OTHER:
                return ctl_policy_set(verb, "--other", "other", NULL, pol);
        default:
                return ctl_fail(CTL_EXIT_USAGE, "%s: unexpected option", verb);
        }
}
