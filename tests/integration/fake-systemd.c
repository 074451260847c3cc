/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for systemd's bus API on the test's private bus, for
 * test-units.sh: owns org.freedesktop.systemd1 and answers what hcbsd
 * asks about units, each unit as its name says:
 *
 *   slow-*.service    ControlGroup after SLOW_MS (default 2000)
 *   mute-*.service    ControlGroup never (the call is kept until exit)
 *   nosuch-*.service  org.freedesktop.systemd1.NoSuchUnit
 *   any other         ControlGroup at once
 *
 * A ControlGroup is /SLICE/UNIT; ActiveState is "active", MainPID 0.
 * Manager.Subscribe succeeds; GetUnitByControlGroup knows no unit.
 * Each question is logged on stdout ("ask UNIT PROPERTY"); "ready" once the
 * name is owned. Exits on SIGTERM.
 *
 *   fake-systemd SLICE [SLOW_MS]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define UNIT_PREFIX "/org/freedesktop/systemd1/unit"

static const char *slice;
static uint64_t slow_us = 2000 * 1000;
static sd_event *event;
static sd_bus_message *kept[64]; /* the calls of mute units, never answered */
static size_t n_kept;

static int begins(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int reply_cgroup(sd_bus_message *call) {
        char *unit = NULL, cgroup[512];
        int r = sd_bus_path_decode(sd_bus_message_get_path(call), UNIT_PREFIX, &unit);

        if (r <= 0)
                return r < 0 ? r : -EINVAL;
        snprintf(cgroup, sizeof(cgroup), "/%s/%s", slice, unit);
        free(unit);
        return sd_bus_reply_method_return(call, "v", "s", cgroup);
}

static int answer_later(sd_event_source *s, uint64_t usec, void *userdata) {
        sd_bus_message *call = userdata;
        (void) reply_cgroup(call); /* a caller gone meanwhile is no reason to stop */
        sd_bus_message_unref(call);
        sd_event_source_unref(s);
        return 0;
}

static int control_group(sd_bus_message *call, const char *unit) {
        uint64_t now;
        int r;

        if (begins(unit, "mute-")) {
                if (n_kept >= sizeof(kept) / sizeof(kept[0]))
                        return -ENOBUFS;
                kept[n_kept++] = sd_bus_message_ref(call);
                return 1;
        }
        if (!begins(unit, "slow-"))
                return reply_cgroup(call);
        (void) sd_event_now(event, CLOCK_MONOTONIC, &now);
        r = sd_event_add_time(event, NULL, CLOCK_MONOTONIC, now + slow_us, 0, answer_later,
                              sd_bus_message_ref(call));
        return r < 0 ? r : 1;
}

/* Properties.Get on any unit object. */
static int unit_object(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        const char *iface, *prop;
        char *unit = NULL;
        int r;

        if (!sd_bus_message_is_method_call(call, "org.freedesktop.DBus.Properties", "Get"))
                return 0;
        r = sd_bus_message_read(call, "ss", &iface, &prop);
        if (r < 0)
                return r;
        r = sd_bus_path_decode(sd_bus_message_get_path(call), UNIT_PREFIX, &unit);
        if (r <= 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "no such object");
        printf("ask %s %s\n", unit, prop);
        fflush(stdout);
        if (begins(unit, "nosuch-"))
                r = sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not loaded.", unit);
        else if (strcmp(prop, "ControlGroup") == 0)
                r = control_group(call, unit);
        else if (strcmp(prop, "ActiveState") == 0)
                r = sd_bus_reply_method_return(call, "v", "s", "active");
        else if (strcmp(prop, "MainPID") == 0)
                r = sd_bus_reply_method_return(call, "v", "u", 0);
        else
                r = sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no property %s", prop);
        free(unit);
        return r < 0 ? r : 1;
}

static int subscribe(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        return sd_bus_reply_method_return(call, NULL);
}

static int unit_by_cgroup(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        const char *cgroup;
        int r = sd_bus_message_read(call, "s", &cgroup);

        if (r < 0)
                return r;
        return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit", "No unit for control group %s.",
                                 cgroup);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Subscribe", "", "", subscribe, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("GetUnitByControlGroup", "s", "o", unit_by_cgroup, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int main(int argc, char **argv) {
        sd_bus *bus = NULL;
        sigset_t mask;
        int r;

        if (argc < 2)
                return fprintf(stderr, "usage: fake-systemd SLICE [SLOW_MS]\n"), 2;
        slice = argv[1];
        if (argc > 2)
                slow_us = strtoull(argv[2], NULL, 10) * 1000;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1",
                                             "org.freedesktop.systemd1.Manager", manager_vtable, NULL);
        if (r >= 0)
                r = sd_bus_add_fallback(bus, NULL, UNIT_PREFIX, unit_object, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0);
        if (r >= 0)
                r = sd_bus_attach_event(bus, event, 0);
        if (r < 0)
                return fprintf(stderr, "fake-systemd: %s\n", strerror(-r)), 1;
        printf("ready\n");
        fflush(stdout);
        r = sd_event_loop(event);
        for (size_t i = 0; i < n_kept; i++)
                sd_bus_message_unref(kept[i]);
        sd_bus_flush_close_unref(bus);
        sd_event_unref(event);
        return r < 0 ? 1 : 0;
}
