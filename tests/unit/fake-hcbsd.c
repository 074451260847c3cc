/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for hcbsd on a private bus ($DBUS_SYSTEM_BUS_ADDRESS), for
 * test-ctl-replies.sh: owns org.hcbsd1 and answers every method of
 * org.hcbsd1.Manager on /org/hcbsd1 either as hcbsd would ("right": the
 * reply signatures of dbus/org.hcbsd1.xml, empty lists, CheckBandwidth
 * ok) or with a reply of the wrong signature ("wrong": a single "u").
 * Prints "ready" once it owns the name. Exits on SIGTERM.
 *
 *   fake-hcbsd right|wrong
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-names.h"

static bool right;

static int reply_right(sd_bus_message *m) {
        const char *member = sd_bus_message_get_member(m);

        if (strcmp(member, "CreateGroup") == 0)
                return sd_bus_reply_method_return(m, "o", HCBS_GROUP_PREFIX "/fake");
        if (strcmp(member, "CheckBandwidth") == 0)
                return sd_bus_reply_method_return(m, "bss", 1, "", "");
        if (strcmp(member, "ListGroups") == 0)
                return sd_bus_reply_method_return(m, "a(sttbuu)", 0);
        if (strcmp(member, "ListUnits") == 0)
                return sd_bus_reply_method_return(m, "a(ssttsi)", 0);
        if (strcmp(member, "GetStats") == 0)
                return sd_bus_reply_method_return(m, "a{sv}", 0);
        return sd_bus_reply_method_return(m, NULL);
}

static int on_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        if (!sd_bus_message_is_method_call(m, HCBS_MANAGER_IFACE, NULL))
                return 0;
        return right ? reply_right(m) : sd_bus_reply_method_return(m, "u", 42);
}

int main(int argc, char **argv) {
        sd_event *e = NULL;
        sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        if (argc != 2 || (strcmp(argv[1], "right") != 0 && strcmp(argv[1], "wrong") != 0))
                return fprintf(stderr, "usage: fake-hcbsd right|wrong\n"), 2;
        right = strcmp(argv[1], "right") == 0;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&e);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_object(bus, NULL, HCBS_MANAGER_PATH, on_call, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, HCBS_BUS_NAME, 0);
        if (r >= 0)
                r = sd_bus_attach_event(bus, e, 0);
        if (r < 0)
                return fprintf(stderr, "fake-hcbsd: %s\n", strerror(-r)), 1;
        printf("ready\n");
        fflush(stdout);
        r = sd_event_loop(e);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(e);
        return r < 0 ? 1 : 0;
}
