/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What hcbsd tells its service manager (sd_notify(3)).
 *
 * READY=1 once it serves; STATUS= says what it holds ("3 groups, 1 unit,
 * 42.0% of 90.0% reserved", per CPU as hcbsctl status says) and follows
 * every change: a post source runs after each event-loop iteration that
 * dispatched anything and sends the line only if it differs from the last
 * one sent. A reload (SIGHUP, which ExecReload= sends, or the Reload
 * method) is framed by RELOADING=1 with MONOTONIC_USEC= and READY=1, so
 * `systemctl reload hcbsd` returns once the new configuration is applied:
 * systemd 253 and later wait for READY=1; systemd 252 (Debian 12) ignores
 * both lines, and its reload job ends when ExecReload='s kill returns, as
 * before. The watchdog (WatchdogSec= in the unit) is sd-event's own: it
 * sends WATCHDOG=1 from the loop at a fraction of WATCHDOG_USEC, so a
 * loop that stops turning stops the pings.
 *
 * Without --no-notify and $NOTIFY_SOCKET nothing here runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "bandwidth.h"
#include "log.h"
#include "manager-internal.h"

static bool notifying(const Manager *m) {
        return m->opts.notify && getenv("NOTIFY_SOCKET");
}

static void format_status(Manager *m, char *buf, size_t size) {
        const HcbsNode *cap = manager_capacity_node(m);
        char held[HCBS_BW_STRLEN], total[HCBS_BW_STRLEN];
        int64_t cap_runtime;
        uint64_t cap_period;
        size_t groups = manager_group_count(m), units = manager_unit_count(m);

        manager_capacity(m, &cap_runtime, &cap_period);
        snprintf(buf, size, "%zu group%s, %zu unit%s, %s of %s reserved", groups, groups == 1 ? "" : "s", units,
                 units == 1 ? "" : "s", hcbs_bw_format(cap->children_bw - cap->foreign_bw, held),
                 hcbs_bw_format(hcbs_bw(cap_period, cap_runtime), total));
}

/* Sends STATUS= if it changed since the last one; with ready, READY=1 and STATUS= in one message. */
static void send_status(Manager *m, bool ready) {
        char status[sizeof(m->notify_status)];

        format_status(m, status, sizeof(status));
        if (!ready && strcmp(status, m->notify_status) == 0)
                return;
        memcpy(m->notify_status, status, sizeof(status));
        (void) sd_notifyf(false, "%sSTATUS=%s", ready ? "READY=1\n" : "", status);
}

static int on_post(sd_event_source *s, void *userdata) {
        send_status(userdata, false);
        return 0;
}

int manager_notify_ready(Manager *m) {
        int r;

        if (!notifying(m))
                return 0;
        r = sd_event_set_watchdog(m->event, true); /* 0 without WATCHDOG_USEC= */
        if (r < 0)
                return log_error_errno(r, "Cannot enable the watchdog: %m");
        if (r > 0)
                log_debug("Watchdog enabled");
        r = sd_event_add_post(m->event, &m->notify_source, on_post, m);
        if (r < 0)
                return log_error_errno(r, "Cannot follow the status for the service manager: %m");
        (void) sd_event_source_set_description(m->notify_source, "notify-status");
        send_status(m, true);
        return 0;
}

void manager_notify_reloading(Manager *m) {
        struct timespec ts;

        if (!notifying(m) || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
                return;
        (void) sd_notifyf(false, "RELOADING=1\nSTATUS=Reloading the configuration\nMONOTONIC_USEC=%" PRIu64,
                          (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000);
}

void manager_notify_reloaded(Manager *m) {
        if (notifying(m) && m->notify_source)
                send_status(m, true);
}

void manager_notify_stopping(Manager *m) {
        if (notifying(m))
                (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
}
