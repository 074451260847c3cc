/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ReserveUnit, ReleaseUnit, ListUnits of org.hcbsd1.Manager: translation
 * only. ReserveUnit and ReleaseUnit are answered later, once systemd has
 * named the unit's cgroup: the handler keeps a reference to the call and
 * returns 1 without replying; unit_call_done() replies. A caller gone
 * meanwhile gets a reply sent to nobody.
 */
#include <errno.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "log.h"
#include "manager.h"

static void unit_call_done(Manager *m, int r, const HcbsVerdict *v, void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        if (r < 0)
                r = sd_bus_reply_method_errnof(msg, -r, "%s", v->message[0] ? v->message : strerror(-r));
        else if (v->error != HCBS_OK) {
                (void) hcbs_bus_error_set_verdict(&error, v);
                r = sd_bus_reply_method_error(msg, &error);
        } else
                r = sd_bus_reply_method_return(msg, NULL);
        if (r < 0)
                log_debug_errno(r, "Cannot answer %s: %m", sd_bus_message_get_member(msg));
}

/* The operation replies through unit_call_done(), now or later. */
static int unit_call_start(sd_bus_message *msg, int r) {
        if (r < 0)
                sd_bus_message_unref(msg);
        return r < 0 ? r : 1;
}

int bus_method_reserve_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *policy = "keep", *cpu_list = NULL;
        int32_t priority = 0;
        BusOption opts[] = { { "policy", "s", &policy }, { "priority", "i", &priority }, { "cpus", "s", &cpu_list } };
        UnitReservation u = {};
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "stt", &u.unit, &u.runtime_us, &u.period_us);
        if (r >= 0)
                r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r >= 0)
                r = bus_parse_policy(policy, priority, &u.policy, error);
        if (r >= 0 && (r = bus_parse_cpus(cpu_list, &u.cpus, error)) >= 0) {
                u.has_cpus = r > 0;
                r = 0;
        }
        if (r >= 0)
                r = bus_verify_manage(b, msg, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        u.priority = priority;
        u.caller_uid = uid;
        return unit_call_start(msg, manager_reserve_unit(m, &u, unit_call_done, sd_bus_message_ref(msg)));
}

int bus_method_release_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *unit;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "s", &unit);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, NULL, 0, NULL, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        return unit_call_start(msg, manager_release_unit(m, unit, uid, unit_call_done, sd_bus_message_ref(msg)));
}

int bus_method_list_units(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = bus_manager(userdata);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssttsi)");
        for (HcbsNode *n = m->admission.pool ? m->admission.pool->first_child : NULL; r >= 0 && n; n = n->next) {
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
