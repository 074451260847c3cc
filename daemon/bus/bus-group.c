/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.hcbsd1.Group: one object per group, found by decoding its path. Read-only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "bus-util.h"
#include "manager.h"

static HcbsNode *node_of(Manager *m, const char *path) {
        _cleanup_free_ char *name = NULL;

        if (sd_bus_path_decode(path, HCBS_GROUP_PREFIX, &name) <= 0)
                return NULL;
        return hcbs_admission_find(&m->admission, name);
}

static int group_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                      sd_bus_error *error) {
        Manager *m = bus_manager(userdata);

        if (!node_of(m, path))
                return 0;
        *found = userdata; /* getters decode the path again: a node may go away between calls */
        return 1;
}

static int append_pids(Manager *m, const HcbsNode *n, sd_bus_message *reply) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t count = 0;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "u");
        if (r < 0)
                return r;
        if (manager_group_pids(m, n, &pids, &count) >= 0)
                for (size_t i = 0; i < count && r >= 0; i++)
                        r = sd_bus_message_append(reply, "u", (uint32_t) pids[i]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int group_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = bus_manager(userdata);
        HcbsNode *n = node_of(m, path);

        if (!n)
                return sd_bus_error_setf(error, "org.hcbsd1.Error.NoSuchGroup", "the group went away");
        if (strcmp(property, "Name") == 0)
                return sd_bus_message_append(reply, "s", manager_group_name(m, n));
        if (strcmp(property, "Runtime") == 0)
                return sd_bus_message_append(reply, "t", (uint64_t) n->runtime_us);
        if (strcmp(property, "Period") == 0)
                return sd_bus_message_append(reply, "t", n->period_us);
        if (strcmp(property, "Bandwidth") == 0)
                return sd_bus_message_append(reply, "d", (double) n->bw / (double) HCBS_BW_UNIT);
        if (strcmp(property, "ChildrenBandwidth") == 0)
                return sd_bus_message_append(reply, "d", (double) n->children_bw / (double) HCBS_BW_UNIT);
        if (strcmp(property, "Leaf") == 0)
                return sd_bus_message_append(reply, "b", hcbs_node_is_leaf(n));
        if (strcmp(property, "Persistent") == 0)
                return sd_bus_message_append(reply, "b", manager_group_info(n)->persistent);
        if (strcmp(property, "CPUs") == 0 || strcmp(property, "EffectiveCPUs") == 0) {
                char cpus[HCBS_CPUSET_STRLEN];
                return sd_bus_message_append(reply, "s", hcbs_cpuset_format(property[0] == 'C' ? &n->cpus : &n->effective,
                                                                            cpus, sizeof(cpus)));
        }
        if (strcmp(property, "RTTasks") == 0) {
                manager_refresh_tasks_for_read(m, n);
                return sd_bus_message_append(reply, "u", n->nrt);
        }
        return append_pids(m, n, reply); /* Processes */
}

#define PROP(name, sig, flags) SD_BUS_PROPERTY(name, sig, group_property, 0, flags)

static const sd_bus_vtable group_vtable[] = {
        SD_BUS_VTABLE_START(0),
        PROP("Name", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("Runtime", "t", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("Period", "t", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("Bandwidth", "d", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("ChildrenBandwidth", "d", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("Leaf", "b", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("Persistent", "b", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("CPUs", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("EffectiveCPUs", "s", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("Processes", "au", SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        PROP("RTTasks", "u", SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_VTABLE_END,
};

static int enumerate(Manager *m, const HcbsNode *n, char ***list, size_t *count) {
        for (const HcbsNode *c = n->first_child; c; c = c->next) {
                char **l = realloc(*list, (*count + 2) * sizeof(char *));
                int r;

                if (!l)
                        return -ENOMEM;
                *list = l;
                r = bus_group_path(manager_group_name(m, c), &l[*count]);
                if (r < 0)
                        return r;
                l[++*count] = NULL;
                r = enumerate(m, c, list, count);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int group_enumerator(sd_bus *bus, const char *prefix, void *userdata, char ***nodes, sd_bus_error *error) {
        Manager *m = bus_manager(userdata);
        char **list = calloc(1, sizeof(char *));
        size_t count = 0;
        int r;

        if (!list)
                return -ENOMEM;
        r = enumerate(m, m->admission.base, &list, &count);
        if (r < 0) {
                for (size_t i = 0; i < count; i++)
                        free(list[i]);
                free(list);
                return r;
        }
        *nodes = list;
        return 0;
}

int bus_group_setup(BusServer *b) {
        int r = sd_bus_add_fallback_vtable(b->bus, NULL, HCBS_GROUP_PREFIX, HCBS_GROUP_IFACE, group_vtable, group_find,
                                           b);
        if (r < 0)
                return r;
        return sd_bus_add_node_enumerator(b->bus, NULL, HCBS_GROUP_PREFIX, group_enumerator, b);
}
