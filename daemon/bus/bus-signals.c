/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The core's record of what changed (changes.h) as D-Bus signals, once
 * per call, when the call is done (manager-changes.c decides when):
 * GroupCreated and GroupRemoved in the order they happened; then, for each
 * group that changed and was not created by the same calls (GroupCreated
 * says it all), BandwidthChanged if its bandwidth did, and one
 * PropertiesChanged with every property that changed; then the Manager's
 * PropertiesChanged once. A create sends three messages: the reply,
 * GroupCreated, the Manager's PropertiesChanged.
 */
#include "bus-util.h"

static void emit_group_properties(BusServer *b, const char *name, unsigned what) {
        _cleanup_free_ char *path = NULL;
        const char *props[9];
        size_t k = 0;

        if (bus_group_path(name, &path) < 0)
                return;
        if (what & CHANGE_BANDWIDTH) {
                props[k++] = "Runtime";
                props[k++] = "Period";
                props[k++] = "Bandwidth";
                props[k++] = "ChildrenBandwidth";
                props[k++] = "CPUs"; /* a plan writes them beside the reservation (rtmax v7) */
                props[k++] = "EffectiveCPUs";
        }
        if (what & CHANGE_TASKS) {
                props[k++] = "Processes";
                props[k++] = "RTTasks";
        }
        props[k] = NULL;
        (void) sd_bus_emit_properties_changed_strv(b->bus, path, HCBS_GROUP_IFACE, (char **) props);
}

static void emit_group(BusServer *b, const GroupChange *g) {
        const HcbsNode *n = hcbs_admission_find(&b->manager->admission, g->name);

        if (!n || g->created || g->what == 0)
                return; /* gone again, or new: GroupCreated and GroupRemoved tell */
        if (g->what & CHANGE_BANDWIDTH)
                (void) sd_bus_emit_signal(b->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "BandwidthChanged", "stt",
                                          g->name, (uint64_t) n->runtime_us, n->period_us);
        emit_group_properties(b, g->name, g->what);
}

void bus_emit_changes(Manager *m, const Changes *c, void *userdata) {
        BusServer *b = userdata;

        for (size_t i = 0; i < c->n_events; i++) {
                const GroupEvent *e = &c->events[i];
                _cleanup_free_ char *path = NULL;

                if (!e->created)
                        (void) sd_bus_emit_signal(b->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "GroupRemoved", "s",
                                                  e->name);
                else if (bus_group_path(e->name, &path) >= 0)
                        (void) sd_bus_emit_signal(b->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "GroupCreated", "so",
                                                  e->name, path);
        }
        for (size_t i = 0; i < c->n_groups; i++)
                emit_group(b, &c->groups[i]);
        if (c->manager)
                (void) sd_bus_emit_properties_changed(b->bus, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                                      "AllocatedBandwidth", "GroupCount", "CapacityRuntime",
                                                      "CapacityPeriod", NULL);
}
