/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-names.h"
#include "ctl-stats.h"
#include "ctl-why-bus.h"
#include "duration.h"
#include "strutil.h"

#define SYSTEMD_BUS_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define RTKIT_BUS_NAME "org.freedesktop.RealtimeKit1"

int why_ask_hcbsd(Ctl *ctl, WhyHcbsd *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        WhyHcbsd h = {};
        int r;

        *ret = h;
        r = ctl_get_all(ctl, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, ctl_manager_props, &h.props, &error);
        sd_bus_error_free(&error);
        if (r < 0) {
                ctl_props_free(ctl_manager_props, &h.props);
                return r == -ENOMEM ? r : 0;
        }
        h.running = true;
        /* ListUnits() prints its own failure: hcbsd did answer, so one is worth a line */
        if (ctl_list_units(ctl, true, &h.units) != CTL_EXIT_OK)
                h.units = (CtlUnitList) {};
        *ret = h;
        return 0;
}

void why_hcbsd_done(WhyHcbsd *h) {
        ctl_props_free(ctl_manager_props, &h->props);
        ctl_unit_list_done(&h->units);
}

typedef struct UnitProps {
        char *id;
        char *load_state;
        char *active_state;
        char *slice;
        char *control_group;
        uint32_t main_pid;
        bool restrict_realtime;
        uint64_t limit_rtprio_soft;
        int32_t cpu_policy;
        int32_t cpu_priority;
} UnitProps;

#define UPROP(n, sig, field) { n, sig, offsetof(UnitProps, field) }
static const CtlProp unit_props[] = {
        UPROP("Id", "s", id),
        UPROP("LoadState", "s", load_state),
        UPROP("ActiveState", "s", active_state),
        {},
};
/* org.freedesktop.systemd1.Service, and the two of them .Scope has too */
static const CtlProp service_props[] = {
        UPROP("Slice", "s", slice),
        UPROP("ControlGroup", "s", control_group),
        UPROP("MainPID", "u", main_pid),
        UPROP("RestrictRealtime", "b", restrict_realtime),
        UPROP("LimitRTPRIOSoft", "t", limit_rtprio_soft),
        UPROP("CPUSchedulingPolicy", "i", cpu_policy),
        UPROP("CPUSchedulingPriority", "i", cpu_priority),
        {},
};

/* ExecStartPre=: a(sasbttttuii); the argv of 'hcbsctl ... reserve-unit UNIT RUNTIME PERIOD' */
static int read_reserve_step(Ctl *ctl, const char *path, HcbsWhyFacts *f) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_msg_ sd_bus_message *reply = NULL;
        const char *exe, *arg;
        int r;

        r = sd_bus_get_property(ctl->bus, SYSTEMD_BUS_NAME, path, "org.freedesktop.systemd1.Service", "ExecStartPre",
                                &error, &reply, "a(sasbttttuii)");
        sd_bus_error_free(&error);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "(sasbttttuii)");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "sasbttttuii")) > 0) {
                const char *words[3] = {};
                int seen = -1; /* words after "reserve-unit" */

                r = sd_bus_message_read(reply, "s", &exe);
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'a', "s");
                while (r >= 0 && (r = sd_bus_message_read(reply, "s", &arg)) > 0) {
                        if (seen >= 0 && seen < 3)
                                words[seen++] = arg;
                        else if (strcmp(arg, "reserve-unit") == 0)
                                seen = 0;
                }
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_skip(reply, "bttttuii");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0 && seen == 3 && hcbs_duration_parse(words[1], &f->unit_runtime_us, NULL, 0) >= 0 &&
                    hcbs_duration_parse(words[2], &f->unit_period_us, NULL, 0) >= 0)
                        f->unit_reserves = true;
        }
        return r < 0 ? r : 0;
}

static int unit_path(Ctl *ctl, pid_t pid, const char *unit, char **ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_msg_ sd_bus_message *reply = NULL;
        const char *path;
        int r;

        if (unit)
                r = sd_bus_call_method(ctl->bus, SYSTEMD_BUS_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER_IFACE, "LoadUnit",
                                       &error, &reply, "s", unit);
        else
                r = sd_bus_call_method(ctl->bus, SYSTEMD_BUS_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER_IFACE,
                                       "GetUnitByPID", &error, &reply, "u", (uint32_t) pid);
        if (r < 0 && (sd_bus_error_has_names(&error, "org.freedesktop.systemd1.NoSuchUnit",
                                             "org.freedesktop.systemd1.NoUnitForPID", SD_BUS_ERROR_INVALID_ARGS)))
                r = -ENOENT;
        sd_bus_error_free(&error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

int why_ask_systemd(Ctl *ctl, pid_t pid, const char *unit, HcbsWhyFacts *f, pid_t *ret_main_pid, char *ret_cgroup) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        UnitProps u = {};
        const char *iface;
        int r;

        r = unit_path(ctl, pid, unit, &path);
        if (r < 0)
                return r;
        f->systemd_answered = true;
        r = ctl_get_all_from(ctl, SYSTEMD_BUS_NAME, path, "org.freedesktop.systemd1.Unit", unit_props, &u, &error);
        sd_bus_error_free(&error);
        /* LoadUnit() answers for any name: a unit without a file is "not-found" */
        if (r < 0 || !u.id || (u.load_state && strcmp(u.load_state, "not-found") == 0)) {
                ctl_props_free(unit_props, &u);
                return r < 0 ? r : -ENOENT;
        }
        f->unit_is_service = hcbs_endswith(u.id, ".service") != NULL;
        iface = f->unit_is_service ? "org.freedesktop.systemd1.Service" : "org.freedesktop.systemd1.Scope";
        u.limit_rtprio_soft = HCBS_WHY_UNLIMITED;
        r = ctl_get_all_from(ctl, SYSTEMD_BUS_NAME, path, iface, service_props, &u, &error);
        sd_bus_error_free(&error);
        snprintf(f->unit, sizeof(f->unit), "%s", u.id);
        snprintf(f->unit_state, sizeof(f->unit_state), "%s", u.active_state ? u.active_state : "");
        snprintf(f->unit_slice, sizeof(f->unit_slice), "%s", u.slice ? u.slice : "");
        f->restrict_realtime = u.restrict_realtime;
        f->unit_rtprio_soft = u.limit_rtprio_soft;
        f->unit_policy = u.cpu_policy;
        f->unit_priority = u.cpu_priority;
        if (ret_main_pid)
                *ret_main_pid = (pid_t) u.main_pid;
        if (ret_cgroup)
                snprintf(ret_cgroup, HCBS_WHY_PATH_MAX, "%s",
                         u.control_group ? u.control_group + (u.control_group[0] == '/') : "");
        if (f->unit_is_service)
                (void) read_reserve_step(ctl, path, f);
        ctl_props_free(unit_props, &u);
        ctl_props_free(service_props, &u);
        return 0;
}

HcbsTri why_ask_rtkit(Ctl *ctl) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_msg_ sd_bus_message *reply = NULL;
        const char *name;
        int has, r;

        r = sd_bus_call_method(ctl->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &error, &reply, "s", RTKIT_BUS_NAME);
        if (r >= 0)
                r = sd_bus_message_read(reply, "b", &has);
        if (r >= 0 && has) {
                sd_bus_error_free(&error);
                return HCBS_TRI_YES;
        }
        reply = sd_bus_message_unref(reply);
        if (r >= 0)
                r = sd_bus_call_method(ctl->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "ListActivatableNames", &error, &reply, NULL);
        sd_bus_error_free(&error);
        if (r < 0)
                return HCBS_TRI_UNKNOWN;
        r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read(reply, "s", &name)) > 0)
                if (strcmp(name, RTKIT_BUS_NAME) == 0)
                        return HCBS_TRI_YES;
        return r < 0 ? HCBS_TRI_UNKNOWN : HCBS_TRI_NO;
}

/*
 * The collector's figures for name. Budget exhaustions are counted since
 * hcbsd began to count the group, so one that ran out while its service
 * started (exec, page faults: tens of ms under a 1 ms budget) would show
 * them for good: when it has any, they are counted again over the next
 * WHY_RECENT_USEC, and only those are the group's present.
 */
#define WHY_RECENT_USEC 1000000 /* 1 s */
bool why_ask_stats(Ctl *ctl, const char *name, HcbsWhyFacts *f) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        CtlStatsSummary s, then;
        int r;

        r = ctl_stats_summary(ctl, name, &s, &error);
        if (r >= 0 && s.have_exhaustions && s.exhaustions > 0) {
                then = s;
                (void) usleep(WHY_RECENT_USEC);
                r = ctl_stats_summary(ctl, name, &s, &error);
                if (r >= 0 && s.exhaustions >= then.exhaustions && s.window_ns >= then.window_ns) {
                        s.exhaustions -= then.exhaustions;
                        s.throttled_ns = s.throttled_ns >= then.throttled_ns ? s.throttled_ns - then.throttled_ns : 0;
                        s.window_ns -= then.window_ns;
                }
        }
        sd_bus_error_free(&error);
        if (r < 0)
                return false;
        f->have_stats = true;
        f->latency_count = s.latency_count;
        f->latency_p99_ns = s.latency_p99_ns;
        f->latency_max_ns = s.latency_max_ns;
        f->reservation_share = s.reservation_share;
        f->window_ns = s.window_ns;
        f->have_exhaustions = s.have_exhaustions;
        f->exhaustions = s.exhaustions;
        f->throttled_ns = s.throttled_ns;
        return true;
}
