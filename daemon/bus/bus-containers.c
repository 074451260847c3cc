/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ReserveCgroup, CheckCgroup, ReleaseCgroup, ListContainers of org.hcbsd1.Manager: translation only. */
#include <errno.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "manager-containers.h"

int bus_method_reserve_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *policy = "keep";
        int32_t priority = 0;
        uint32_t pid = 0;
        BusOption opts[] = { { "policy", "s", &policy }, { "priority", "i", &priority }, { "pid", "u", &pid } };
        CgroupReservation c = {};
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "stt", &c.cgroup, &c.runtime_us, &c.period_us);
        if (r >= 0)
                r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r >= 0)
                r = bus_parse_policy(policy, priority, &c.policy, error);
        if (r >= 0 && pid > INT32_MAX)
                r = sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument", "pid %u is out of range", pid);
        if (r >= 0)
                r = bus_verify_manage(b, msg, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        c.priority = priority;
        c.pid = (pid_t) pid;
        c.caller_uid = uid;
        r = manager_reserve_cgroup(m, &c, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

/* Read-only, as CheckBandwidth: anyone may ask whether a container would fit. */
int bus_method_check_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_method_check(msg, userdata, manager_check_cgroup);
}

int bus_method_release_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *cgroup;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "s", &cgroup);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, NULL, 0, NULL, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = manager_release_cgroup(m, cgroup, uid, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

/* The reservations held by scopes: unit, the scope's cgroup, runtime, period, policy, priority. */
int bus_method_list_containers(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_reply_reservations(msg, bus_manager(userdata), true);
}
