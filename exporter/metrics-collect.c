/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "hashmap.h"
#include "macro.h"
#include "metrics-collect.h"

/* A read-only call to the Manager (or to its properties); sd-bus style. */
static int new_call(sd_bus *bus, const MetricsCollectOptions *o, const char *iface, const char *method,
                    const char *arg, sd_bus_message **ret) {
        sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, HCBS_BUS_NAME, HCBS_MANAGER_PATH, iface, method);
        if (r >= 0 && arg)
                r = sd_bus_message_append(m, "s", arg);
        if (r >= 0 && o->no_auto_start)
                r = sd_bus_message_set_auto_start(m, false);
        if (r < 0) {
                sd_bus_message_unref(m);
                return r;
        }
        *ret = m;
        return 0;
}

static int call(sd_bus *bus, const MetricsCollectOptions *o, const char *iface, const char *method,
                const char *arg, sd_bus_message **ret, sd_bus_error *error) {
        sd_bus_message *m = NULL;
        int r;

        r = new_call(bus, o, iface, method, arg, &m);
        if (r < 0)
                return sd_bus_error_set_errno(error, r);
        r = sd_bus_call(bus, m, o->timeout_us, error, ret);
        sd_bus_message_unref(m);
        return r;
}

static int bad_reply(sd_bus_error *error, const char *what, int r) {
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "hcbsd's %s reply is not as org.hcbsd1(5) says: %s",
                                 what, strerror(r < 0 ? -r : EBADMSG));
}

static int read_props(sd_bus_message *reply, HcbsMetrics *m) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                static const struct { const char *name, *sig; size_t offset; } props[] = {
                        { "Version", "s", offsetof(HcbsMetrics, version) },
                        { "KernelInterface", "s", offsetof(HcbsMetrics, kernel_interface) },
                        { "StatsBackend", "s", offsetof(HcbsMetrics, stats_backend) },
                        { "CapacityRuntime", "t", offsetof(HcbsMetrics, capacity_runtime_us) },
                        { "CapacityPeriod", "t", offsetof(HcbsMetrics, capacity_period_us) },
                        { "AllocatedBandwidth", "d", offsetof(HcbsMetrics, allocated) },
                        { "GroupCount", "u", offsetof(HcbsMetrics, groups) },
                };
                const char *name;
                size_t i;

                r = sd_bus_message_read_basic(reply, 's', &name);
                if (r < 0)
                        return r;
                for (i = 0; i < sizeof(props) / sizeof(props[0]) && strcmp(props[i].name, name) != 0; i++)
                        ;
                if (i < sizeof(props) / sizeof(props[0]))
                        r = sd_bus_message_read(reply, "v", props[i].sig, (char *) m + props[i].offset);
                else
                        r = sd_bus_message_skip(reply, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        return r < 0 ? r : sd_bus_message_exit_container(reply);
}

/* Appends a target; names point into the list replies, which the snapshot keeps. */
static int add_target(MetricsSnapshot *s, size_t *cap, const char *name, HcbsTargetKind kind) {
        if (s->m.n_targets == *cap) {
                size_t n = *cap ? 2 * *cap : 64;
                HcbsMetricsTarget *v = realloc(s->targets, n * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                s->targets = v;
                *cap = n;
        }
        s->targets[s->m.n_targets++] = (HcbsMetricsTarget) { .name = name, .kind = kind };
        return 0;
}

static bool only_is(const MetricsCollectOptions *o, const char *name) {
        return !o->only || strcmp(o->only, name) == 0;
}

/* ListGroups: a(sttbuu) */
static int add_groups(MetricsSnapshot *s, const MetricsCollectOptions *o, size_t *cap) {
        const char *name;
        int r;

        r = sd_bus_message_enter_container(s->groups, 'a', "(sttbuu)");
        while (r >= 0 && (r = sd_bus_message_read(s->groups, "(sttbuu)", &name, NULL, NULL, NULL, NULL, NULL)) > 0)
                if (only_is(o, name))
                        r = add_target(s, cap, name, HCBS_TARGET_GROUP);
        return r < 0 ? r : sd_bus_message_exit_container(s->groups);
}

/*
 * ListContainers, then the units of ListUnits that are not containers
 * (ListUnits lists both): a(ssttsi) each.
 */
static int add_units(MetricsSnapshot *s, const MetricsCollectOptions *o, size_t *cap) {
        _cleanup_(hashmap_freep) Hashmap *containers = NULL;
        const char *unit;
        int r;

        r = hashmap_new(&containers);
        if (r >= 0)
                r = sd_bus_message_enter_container(s->containers, 'a', "(ssttsi)");
        while (r >= 0 && (r = sd_bus_message_read(s->containers, "(ssttsi)", &unit, NULL, NULL, NULL, NULL, NULL)) > 0) {
                s->m.containers++;
                r = hashmap_put(containers, unit, (void *) unit);
                if (r == -EEXIST)
                        r = 0;
                if (r >= 0 && only_is(o, unit))
                        r = add_target(s, cap, unit, HCBS_TARGET_CONTAINER);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(s->containers);
        if (r >= 0)
                r = sd_bus_message_enter_container(s->units, 'a', "(ssttsi)");
        while (r >= 0 && (r = sd_bus_message_read(s->units, "(ssttsi)", &unit, NULL, NULL, NULL, NULL, NULL)) > 0) {
                if (hashmap_get(containers, unit))
                        continue;
                s->m.units++;
                if (only_is(o, unit))
                        r = add_target(s, cap, unit, HCBS_TARGET_UNIT);
        }
        return r < 0 ? r : sd_bus_message_exit_container(s->units);
}

/*
 * GetStats of every target, STATS_WINDOW calls in flight at a time: a
 * scrape of 1,000 groups then costs what hcbsd takes to answer them, not
 * 1,000 round trips through the bus one after the other.
 */
#define STATS_WINDOW 16

typedef struct StatsCalls StatsCalls;

typedef struct StatsCall {
        StatsCalls *calls;
        sd_bus_slot *slot;
        sd_bus_message *reply; /* NULL until answered */
} StatsCall;

struct StatsCalls {
        sd_bus *bus;
        const MetricsCollectOptions *o;
        MetricsSnapshot *s;
        StatsCall *v; /* one per target */
        size_t sent, answered;
        int error; /* sending a later call failed */
};

static int stats_answered(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error);

static int stats_send(StatsCalls *c) {
        sd_bus_message *m = NULL;
        size_t i = c->sent;
        int r;

        r = new_call(c->bus, c->o, HCBS_MANAGER_IFACE, "GetStats", c->s->targets[i].name, &m);
        if (r >= 0)
                r = sd_bus_call_async(c->bus, &c->v[i].slot, m, stats_answered, &c->v[i], c->o->timeout_us);
        sd_bus_message_unref(m);
        if (r >= 0)
                c->sent++;
        return r;
}

static int stats_answered(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        StatsCall *call = userdata;
        StatsCalls *c = call->calls;

        call->reply = sd_bus_message_ref(reply);
        c->answered++;
        if (c->sent < c->s->m.n_targets && c->error >= 0)
                c->error = MIN(stats_send(c), 0);
        return 0;
}

/* Sends the calls and waits for every answer (each bounded by the call timeout); sd-bus style. */
static int stats_call_all(StatsCalls *c) {
        int r = 0;

        while (r >= 0 && c->sent < MIN((size_t) STATS_WINDOW, c->s->m.n_targets))
                r = stats_send(c);
        while (r >= 0 && c->answered < c->sent) {
                r = sd_bus_process(c->bus, NULL);
                if (r == 0)
                        r = sd_bus_wait(c->bus, UINT64_MAX);
        }
        return r < 0 ? r : c->error;
}

/* Reads the answers in order; a target removed meanwhile is dropped. */
static int read_stats(sd_bus *bus, const MetricsCollectOptions *o, MetricsSnapshot *s, sd_bus_error *error) {
        StatsCalls c = { .bus = bus, .o = o, .s = s };
        size_t kept = 0, n = s->m.n_targets;
        int r;

        s->stats = calloc(n ? n : 1, sizeof(HcbsStatsReply));
        c.v = calloc(n ? n : 1, sizeof(StatsCall));
        if (!s->stats || !c.v) {
                free(c.v);
                return sd_bus_error_set_errno(error, -ENOMEM);
        }
        for (size_t i = 0; i < n; i++)
                c.v[i].calls = &c;
        r = stats_call_all(&c);
        if (r < 0)
                sd_bus_error_set_errno(error, r);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                sd_bus_message *reply = c.v[i].reply;
                const sd_bus_error *e = sd_bus_message_get_error(reply);

                if (e && !o->only && hcbs_bus_error_to_hcbs(e) == HCBS_E_NO_SUCH_GROUP)
                        continue;
                if (e) {
                        r = sd_bus_error_copy(error, e);
                        break;
                }
                r = hcbs_stats_reply_read(reply, &s->stats[kept]);
                if (r < 0) {
                        r = bad_reply(error, "GetStats", r);
                        break;
                }
                s->targets[kept] = s->targets[i];
                s->targets[kept].stats = &s->stats[kept].s;
                kept++;
        }
        for (size_t i = 0; i < n; i++) {
                sd_bus_slot_unref(c.v[i].slot); /* cancels a call still waiting, after a failure */
                sd_bus_message_unref(c.v[i].reply);
        }
        free(c.v);
        s->m.n_targets = kept;
        return r < 0 ? r : 0;
}

int metrics_collect(sd_bus *bus, const MetricsCollectOptions *o, MetricsSnapshot *ret, sd_bus_error *error) {
        MetricsSnapshot s = {};
        size_t cap = 0;
        int r;

        r = call(bus, o, "org.freedesktop.DBus.Properties", "GetAll", HCBS_MANAGER_IFACE, &s.props, error);
        if (r >= 0 && (r = read_props(s.props, &s.m)) < 0)
                r = bad_reply(error, "GetAll", r);
        if (r >= 0)
                r = call(bus, o, HCBS_MANAGER_IFACE, "ListGroups", NULL, &s.groups, error);
        if (r >= 0)
                r = call(bus, o, HCBS_MANAGER_IFACE, "ListUnits", NULL, &s.units, error);
        if (r >= 0)
                r = call(bus, o, HCBS_MANAGER_IFACE, "ListContainers", NULL, &s.containers, error);
        if (r >= 0 && (r = add_groups(&s, o, &cap)) < 0)
                r = r == -ENOMEM ? sd_bus_error_set_errno(error, r) : bad_reply(error, "ListGroups", r);
        if (r >= 0 && (r = add_units(&s, o, &cap)) < 0)
                r = r == -ENOMEM ? sd_bus_error_set_errno(error, r) : bad_reply(error, "ListUnits", r);
        if (r >= 0 && o->only && s.m.n_targets == 0)
                r = add_target(&s, &cap, o->only, HCBS_TARGET_GROUP) < 0 ? sd_bus_error_set_errno(error, -ENOMEM) : 0;
        if (r >= 0)
                r = read_stats(bus, o, &s, error);
        if (r < 0) {
                metrics_snapshot_done(&s);
                return r;
        }
        s.m.up = true;
        s.m.targets = s.targets;
        *ret = s;
        return 0;
}

void metrics_snapshot_done(MetricsSnapshot *s) {
        for (size_t i = 0; s->stats && i < s->m.n_targets; i++)
                hcbs_stats_reply_done(&s->stats[i]);
        free(s->stats);
        free(s->targets);
        sd_bus_message_unref(s->props);
        sd_bus_message_unref(s->groups);
        sd_bus_message_unref(s->units);
        sd_bus_message_unref(s->containers);
        *s = (MetricsSnapshot) {};
}
