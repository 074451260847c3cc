/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The signals of a call. The manager reports each change as it makes it
 * (manager_bus_*()); here they are recorded, and emitted once the call is
 * done, from a deferred event source: each group's PropertiesChanged once
 * with every property that changed, no BandwidthChanged or
 * PropertiesChanged for a group the same call created (GroupCreated says
 * it all), and the Manager's PropertiesChanged once. A create used to
 * send six messages; it sends three (the reply, GroupCreated, the
 * Manager's PropertiesChanged).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"
#include "log.h"

typedef struct BusChange {
        BusChangeKind kind;
        char *name;
} BusChange;

struct BusSignals {
        BusChange *v;
        size_t n;
        bool manager_changed;
        sd_event_source *flush;
};

static void changes_clear(BusSignals *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i].name);
        free(s->v);
        s->v = NULL;
        s->n = 0;
        s->manager_changed = false;
}

void bus_signals_free(Manager *m) {
        BusSignals *s = m->signals;

        if (!s)
                return;
        changes_clear(s);
        sd_event_source_disable_unref(s->flush);
        free(s);
        m->signals = NULL;
}

/* Whether name was created by this batch after index i... or at all (i = n). */
static bool created_in_batch(const BusSignals *s, const char *name) {
        bool created = false;

        for (size_t i = 0; i < s->n; i++)
                if (s->v[i].name && strcmp(s->v[i].name, name) == 0) {
                        if (s->v[i].kind == BUS_CHANGE_CREATED)
                                created = true;
                        else if (s->v[i].kind == BUS_CHANGE_REMOVED)
                                created = false;
                }
        return created;
}

static void emit_group_properties(Manager *m, const char *name, bool bandwidth, bool tasks) {
        _cleanup_free_ char *path = NULL;
        const char *props[7];
        size_t k = 0;

        if (!hcbs_policy_find(&m->policy, name) || bus_group_path(name, &path) < 0)
                return; /* gone again */
        if (bandwidth) {
                props[k++] = "Runtime";
                props[k++] = "Period";
                props[k++] = "Bandwidth";
                props[k++] = "ChildrenBandwidth";
        }
        if (tasks) {
                props[k++] = "Processes";
                props[k++] = "RTTasks";
        }
        props[k] = NULL;
        (void) sd_bus_emit_properties_changed_strv(m->bus, path, HCBS_GROUP_IFACE, (char **) props);
}

/* The group-level signals and properties of one name, once, at its first change in the batch. */
static void emit_group(Manager *m, BusSignals *s, size_t first) {
        const char *name = s->v[first].name;
        bool bandwidth = false, tasks = false;
        HcbsNode *n;

        for (size_t i = first; i < s->n; i++)
                if (s->v[i].name && strcmp(s->v[i].name, name) == 0) {
                        bandwidth |= s->v[i].kind == BUS_CHANGE_BANDWIDTH;
                        tasks |= s->v[i].kind == BUS_CHANGE_TASKS;
                }
        if (bandwidth && (n = hcbs_policy_find(&m->policy, name)))
                (void) sd_bus_emit_signal(m->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "BandwidthChanged", "stt",
                                          name, (uint64_t) n->runtime_us, n->period_us);
        emit_group_properties(m, name, bandwidth, tasks);
}

static bool seen_before(const BusSignals *s, size_t i) {
        for (size_t j = 0; j < i; j++)
                if ((s->v[j].kind == BUS_CHANGE_BANDWIDTH || s->v[j].kind == BUS_CHANGE_TASKS) && s->v[j].name &&
                    strcmp(s->v[j].name, s->v[i].name) == 0)
                        return true;
        return false;
}

static int flush(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        BusSignals *s = m->signals;

        for (size_t i = 0; i < s->n; i++) {
                BusChange *c = &s->v[i];
                _cleanup_free_ char *path = NULL;

                switch (c->kind) {
                case BUS_CHANGE_CREATED:
                        if (bus_group_path(c->name, &path) >= 0)
                                (void) sd_bus_emit_signal(m->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                                          "GroupCreated", "so", c->name, path);
                        break;
                case BUS_CHANGE_REMOVED:
                        (void) sd_bus_emit_signal(m->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "GroupRemoved", "s",
                                                  c->name);
                        break;
                default:
                        if (c->name && !created_in_batch(s, c->name) && !seen_before(s, i))
                                emit_group(m, s, i);
                }
        }
        if (s->manager_changed)
                (void) sd_bus_emit_properties_changed(m->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                                      "AllocatedBandwidth", "GroupCount", "CapacityRuntime",
                                                      "CapacityPeriod", NULL);
        changes_clear(s);
        return sd_event_source_set_enabled(source, SD_EVENT_OFF);
}

static int signals_get(Manager *m, BusSignals **ret) {
        int r;

        if (!m->signals) {
                BusSignals *s = calloc(1, sizeof(BusSignals));
                if (!s)
                        return -ENOMEM;
                r = sd_event_add_defer(m->event, &s->flush, flush, m);
                if (r < 0) {
                        free(s);
                        return r;
                }
                (void) sd_event_source_set_description(s->flush, "bus-signals");
                m->signals = s;
        }
        *ret = m->signals;
        return sd_event_source_set_enabled(m->signals->flush, SD_EVENT_ONESHOT);
}

void bus_signals_record(Manager *m, BusChangeKind kind, const char *name) {
        BusSignals *s;
        BusChange *v;

        int r;

        if (!m->bus || !m->event || sd_event_get_state(m->event) == SD_EVENT_FINISHED)
                return; /* start-up or shutdown: the loop that would emit them does not run */
        r = signals_get(m, &s);
        if (r < 0) {
                log_warning_errno(r, "A change goes without its D-Bus signal: %m");
                return;
        }
        s->manager_changed |= kind != BUS_CHANGE_TASKS;
        if (!name)
                return;
        v = reallocarray(s->v, s->n + 1, sizeof(BusChange));
        if (!v)
                goto oom;
        s->v = v;
        v[s->n] = (BusChange) { kind, strdup(name) };
        if (!v[s->n].name)
                goto oom;
        s->n++;
        return;
oom:
        log_warning_errno(-ENOMEM, "Out of memory: a change goes without its D-Bus signal");
}
