/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ReserveUnit, ReleaseUnit, ListUnits of org.hcbsd1.Manager: translation only. */
#include <errno.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "manager.h"

int bus_method_reserve_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *policy = "keep";
        int32_t priority = 0;
        BusOption opts[] = { { "policy", 's', &policy }, { "priority", 'i', &priority } };
        UnitReservation u = {};
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "stt", &u.unit, &u.runtime_us, &u.period_us);
        if (r >= 0)
                r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r >= 0)
                r = bus_parse_policy(policy, priority, &u.policy, error);
        if (r >= 0)
                r = bus_verify_manage(m, msg, &uid, error);
        if (r == 0)
                return 1; /* answered once polkit has spoken */
        if (r < 0)
                return r;
        u.priority = priority;
        u.caller_uid = uid;
        r = manager_reserve_unit(m, &u, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

int bus_method_release_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *unit;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "s", &unit);
        if (r >= 0)
                r = bus_read_options(msg, NULL, 0, error);
        if (r >= 0)
                r = bus_verify_manage(m, msg, &uid, error);
        if (r == 0)
                return 1; /* answered once polkit has spoken */
        if (r < 0)
                return r;
        r = manager_release_unit(m, unit, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

int bus_method_list_units(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        (void) error;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssttsi)");
        for (HcbsNode *n = m->policy.pool ? m->policy.pool->first_child : NULL; r >= 0 && n; n = n->next) {
                GroupInfo *info = manager_group_info(n);
                if (!info || !info->unit)
                        continue;
                r = sd_bus_message_append(reply, "(ssttsi)", info->unit, n->path,
                                          (uint64_t) (n->runtime_us < 0 ? 0 : n->runtime_us), n->period_us,
                                          proc_policy_to_string(info->policy), (int32_t) info->priority);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}
