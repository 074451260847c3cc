/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for polkitd on the test's private bus: answers
 * org.freedesktop.PolicyKit1.Authority.CheckAuthorization for
 * org.hcbsd1.manage with "authorized" (argument "allow") or not
 * ("deny"), after DELAY_MS (to show hcbsd keeps serving while it waits).
 * Prints "ready" once it owns the name. Exits on SIGTERM.
 *
 *   fake-polkit allow|deny [DELAY_MS]
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-names.h"

static bool allow;
static uint64_t delay_us;

typedef struct Pending {
        sd_bus_message *call;
} Pending;

static int answer(sd_event_source *s, uint64_t usec, void *userdata) {
        Pending *p = userdata;
        int r = sd_bus_reply_method_return(p->call, "(bba{ss})", allow, !allow, 0);
        sd_bus_message_unref(p->call);
        free(p);
        sd_event_source_unref(s);
        return r;
}

static int check_authorization(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_event *e = userdata;
        Pending *p = calloc(1, sizeof(*p));
        const char *action;
        uint64_t now;
        int r;

        if (!p)
                return -ENOMEM;
        r = sd_bus_message_skip(m, "(sa{sv})");
        if (r >= 0)
                r = sd_bus_message_read(m, "s", &action);
        if (r < 0 || strcmp(action, HCBS_POLKIT_ACTION) != 0) {
                free(p);
                return r < 0 ? r : sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "unknown action");
        }
        p->call = sd_bus_message_ref(m);
        (void) sd_event_now(e, CLOCK_MONOTONIC, &now);
        r = sd_event_add_time(e, NULL, CLOCK_MONOTONIC, now + delay_us, 0, answer, p);
        return r < 0 ? r : 1; /* answered later; 0 would mean "not handled" */
}

static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", check_authorization,
                      SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int main(int argc, char **argv) {
        sd_event *e = NULL;
        sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        if (argc < 2 || (strcmp(argv[1], "allow") != 0 && strcmp(argv[1], "deny") != 0))
                return fprintf(stderr, "usage: fake-polkit allow|deny [DELAY_MS]\n"), 2;
        allow = strcmp(argv[1], "allow") == 0;
        delay_us = argc > 2 ? strtoull(argv[2], NULL, 10) * 1000 : 0;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&e);
        if (r >= 0)
                r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/PolicyKit1/Authority",
                                             "org.freedesktop.PolicyKit1.Authority", vtable, e);
        /* the instance before may not have left the bus yet: "ready" only once the name is ours */
        for (unsigned tries = 0; r >= 0 && tries < 500; tries++) {
                r = sd_bus_request_name(bus, "org.freedesktop.PolicyKit1", 0);
                if (r != -EEXIST)
                        break;
                r = 0;
                usleep(10 * 1000);
        }
        if (r >= 0)
                r = sd_bus_attach_event(bus, e, 0);
        if (r < 0)
                return fprintf(stderr, "fake-polkit: %s\n", strerror(-r)), 1;
        printf("ready\n");
        fflush(stdout);
        r = sd_event_loop(e);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(e);
        return r < 0 ? 1 : 0;
}
