/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.hcbsd1.Manager: translates calls into manager operations and verdicts into errors. Nothing else. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "bus-errors.h"
#include "bus-observe.h"
#include "bus-sizing.h"
#include "bus-stats.h"
#include "bus-util.h"
#include "config.h"
#include "log.h"
#include "manager.h"
#include "manager-stats.h"
#include "name.h"
#include "strutil.h"

static int append_group_path(sd_bus_message *reply, void *userdata) {
        _cleanup_free_ char *path = NULL;
        int r = bus_group_path(userdata, &path);

        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "o", path);
}

static int method_create_group(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *name, *move_to = NULL, *cpu_list = NULL;
        uint64_t runtime, period;
        CreateOptions o = {};
        HcbsCpuSet cpus;
        BusOption opts[] = {
                { "persistent", "b", &o.persistent },
                { "grow_parents", "b", &o.grow_parents },
                { "move_processes_to", "s", &move_to },
                { "cpus", "s", &cpu_list },
        };
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "stt", &name, &runtime, &period);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, opts, ELEMENTSOF(opts), name, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = bus_parse_cpus(cpu_list, &cpus, error);
        if (r < 0)
                return r;
        o.cpus = r > 0 ? &cpus : NULL;
        o.move_processes_to = move_to;
        o.caller_uid = uid;
        r = manager_create_group(m, name, runtime, period, &o, &v);
        return bus_reply_operation(msg, r, &v, append_group_path, (void *) name, error);
}

static int method_set_bandwidth(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *name, *cpu_list = NULL;
        uint64_t runtime, period;
        bool grow = false;
        HcbsCpuSet cpus;
        BusOption opts[] = { { "grow_parents", "b", &grow }, { "cpus", "s", &cpu_list } };
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "stt", &name, &runtime, &period);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, opts, ELEMENTSOF(opts), name, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = bus_parse_cpus(cpu_list, &cpus, error);
        if (r < 0)
                return r;
        r = manager_set_bandwidth(m, name, runtime, period, r > 0 ? &cpus : NULL, grow, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

static int method_delete_group(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        const char *name, *migrate_to = NULL;
        BusOption opts[] = { { "migrate_to", "s", &migrate_to } };
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, opts, ELEMENTSOF(opts), name, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = manager_delete_group(m, name, migrate_to, uid, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

/* Reads "au" into pids, refusing values that cannot be process ids. */
static int read_pids(sd_bus_message *msg, pid_t **ret, size_t *ret_n, sd_bus_error *error) {
        const uint32_t *raw;
        size_t size;
        pid_t *pids;
        int r;

        r = sd_bus_message_read_array(msg, 'u', (const void **) &raw, &size);
        if (r < 0)
                return r;
        size /= sizeof(uint32_t);
        if (size > HCBS_PIDS_MAX)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument", "%zu pids in one call; at most %d",
                                         size, HCBS_PIDS_MAX);
        pids = calloc(size ? size : 1, sizeof(pid_t));
        if (!pids)
                return -ENOMEM;
        for (size_t i = 0; i < size; i++) {
                if (raw[i] == 0 || raw[i] > INT32_MAX) {
                        free(pids);
                        return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "NoSuchProcess", "no process %u", raw[i]);
                }
                pids[i] = (pid_t) raw[i];
        }
        *ret = pids;
        *ret_n = size;
        return 0;
}

static int method_attach(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        _cleanup_free_ pid_t *pids = NULL;
        const char *name, *policy = "keep";
        int32_t priority = 0;
        size_t n;
        BusOption opts[] = { { "policy", "s", &policy }, { "priority", "i", &priority } };
        AttachOptions o = {};
        HcbsVerdict v;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        r = read_pids(msg, &pids, &n, error);
        if (r < 0)
                return r;
        r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r < 0)
                return r;
        r = bus_check_name(name, error);
        if (r < 0)
                return r;
        r = bus_parse_policy(policy, priority, &o.policy, error);
        if (r < 0)
                return r;
        r = bus_verify_manage(b, msg, &o.caller_uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        o.priority = priority;
        r = manager_attach(m, name, pids, n, &o, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

static int method_detach(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = read_pids(msg, &pids, &n, error);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, NULL, 0, NULL, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = manager_detach(m, pids, n, uid, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

/* One (stta{sv}) of Apply, inside its struct. */
static int read_apply_entry(sd_bus_message *msg, ApplyEntry *x, sd_bus_error *error) {
        const char *cpu_list = NULL;
        BusOption opts[] = {
                { "delete", "b", &x->delete },
                { "persistent", "b", &x->persistent },
                { "cpus", "s", &cpu_list },
        };
        int r;

        r = sd_bus_message_read(msg, "stt", &x->name, &x->runtime_us, &x->period_us);
        if (r < 0)
                return r;
        r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r < 0)
                return r;
        r = bus_parse_cpus(cpu_list, &x->cpus, error);
        if (r < 0)
                return r;
        x->has_cpus = r > 0;
        r = bus_check_name(x->name, error);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(msg);
}

/* Reads Apply's a(stta{sv}); names and options checked here, before polkit is asked. */
static int read_apply_entries(sd_bus_message *msg, ApplyEntry **ret, size_t *ret_n, sd_bus_error *error) {
        _cleanup_free_ ApplyEntry *e = NULL;
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "(stta{sv})");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(msg, 'r', "stta{sv}")) > 0) {
                ApplyEntry x = {};
                ApplyEntry *grown;

                if (n >= HCBS_APPLY_MAX)
                        return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                                 "more than %d groups in one Apply", HCBS_APPLY_MAX);
                r = read_apply_entry(msg, &x, error);
                if (r < 0)
                        return r;
                grown = reallocarray(e, n + 1, sizeof(ApplyEntry));
                if (!grown)
                        return -ENOMEM;
                e = grown;
                e[n++] = x;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(msg);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(e);
        *ret_n = n;
        return 0;
}

typedef struct ApplyReply {
        Manager *m;
        const HcbsPlan *plan;
} ApplyReply;

/* The plan as (op, group or cgroup, value): what a person or a script reads back. */
static int append_plan(sd_bus_message *reply, void *userdata) {
        const ApplyReply *a = userdata;
        Manager *m = a->m;
        const HcbsPlan *plan = a->plan;
        int r = sd_bus_message_open_container(reply, 'a', "(sss)");

        for (size_t i = 0; r >= 0 && i < plan->n_ops; i++) {
                const HcbsOp *op = &plan->ops[i];
                const char *base = m->admission.base->path, *path = op->path;
                char value[HCBS_CPUSET_STRLEN + 16] = "", cpus[HCBS_CPUSET_STRLEN];

                if (hcbs_path_is_under(path, base) && strcmp(path, base) != 0)
                        path += strlen(base) + (base[0] ? 1 : 0);
                if (op->kind == HCBS_OP_WRITE && op->file == HCBS_FILE_CPUS)
                        snprintf(value, sizeof(value), "%s=%s", hcbs_file_name(NULL, op->file),
                                 hcbs_cpuset_format(&op->cpus, cpus, sizeof(cpus)));
                else if (op->kind == HCBS_OP_WRITE && op->file == HCBS_FILE_PERIOD)
                        snprintf(value, sizeof(value), "%s=%" PRIu64, hcbs_file_name(NULL, op->file), op->period_us);
                else if (op->kind == HCBS_OP_WRITE && op->file == HCBS_FILE_RUNTIME)
                        snprintf(value, sizeof(value), "%s=%" PRId64, hcbs_file_name(NULL, op->file), op->runtime_us);
                else if (op->kind == HCBS_OP_WRITE)
                        snprintf(value, sizeof(value), "%s=%" PRId64 " %" PRIu64, hcbs_file_name(NULL, op->file),
                                 op->runtime_us, op->period_us);
                r = sd_bus_message_append(reply, "(sss)",
                                          op->kind == HCBS_OP_MKDIR ? "mkdir" : op->kind == HCBS_OP_RMDIR ? "rmdir"
                                                                                                         : "write",
                                          path, value);
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        _cleanup_free_ ApplyEntry *e = NULL;
        ApplyOptions o = {};
        BusOption opts[] = { { "grow_parents", "b", &o.grow_parents }, { "dry_run", "b", &o.dry_run } };
        HcbsPlan plan;
        HcbsVerdict v;
        size_t n = 0;
        uid_t uid;
        int r;

        r = read_apply_entries(msg, &e, &n, error);
        if (r < 0)
                return r;
        r = bus_admit_call(b, msg, opts, ELEMENTSOF(opts), NULL, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        hcbs_plan_init(&plan);
        r = manager_apply(m, e, n, &o, &plan, &v);
        r = bus_reply_operation(msg, r, &v, append_plan, &(ApplyReply) { m, &plan }, error);
        hcbs_plan_done(&plan);
        return r;
}

static int method_check_bandwidth(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return bus_method_check(msg, userdata, manager_check_bandwidth);
}

static int append_groups(sd_bus_message *reply, Manager *m, const HcbsNode *n) {
        for (HcbsNode *c = n->first_child; c; c = c->next) {
                manager_refresh_tasks_for_read(m, c); /* processes come and go without telling us */
                int r = sd_bus_message_append(reply, "(sttbuu)", manager_group_name(m, c), (uint64_t) c->runtime_us,
                                              c->period_us, hcbs_node_is_leaf(c), c->nprocs, c->nrt);
                if (r < 0)
                        return r;
                r = append_groups(reply, m, c);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int append_group_list(sd_bus_message *reply, void *userdata) {
        Manager *m = bus_manager(userdata);
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sttbuu)");
        if (r < 0)
                return r;
        r = append_groups(reply, m, m->admission.base);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

static int method_list_groups(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        HcbsVerdict ok;

        return bus_reply_operation(msg, hcbs_verdict_ok(&ok), &ok, append_group_list, userdata, error);
}

/* (name, CPUs asked for, effective CPUs) of every group: what ListGroups lacks (rtmax v7). */
static int append_cpus(sd_bus_message *reply, Manager *m, const HcbsNode *n) {
        for (HcbsNode *c = n->first_child; c; c = c->next) {
                char cpus[HCBS_CPUSET_STRLEN], eff[HCBS_CPUSET_STRLEN];
                int r = sd_bus_message_append(reply, "(sss)", manager_group_name(m, c),
                                              hcbs_cpuset_format(&c->cpus, cpus, sizeof(cpus)),
                                              hcbs_cpuset_format(&c->effective, eff, sizeof(eff)));
                if (r < 0)
                        return r;
                r = append_cpus(reply, m, c);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int append_cpu_list(sd_bus_message *reply, void *userdata) {
        Manager *m = bus_manager(userdata);
        int r = sd_bus_message_open_container(reply, 'a', "(sss)");

        if (r >= 0)
                r = append_cpus(reply, m, m->admission.base);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int method_list_group_cpus(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        HcbsVerdict ok;

        return bus_reply_operation(msg, hcbs_verdict_ok(&ok), &ok, append_cpu_list, userdata, error);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = b->manager;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = bus_verify_manage(b, msg, &uid, error);
        if (r <= 0)
                return r < 0 ? r : POLKIT_PENDING;
        r = manager_reload(m, &v);
        return bus_reply_operation(msg, r, &v, NULL, NULL, error);
}

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = bus_manager(userdata);
        const HcbsNode *cap = manager_capacity_node(m);
        int64_t cap_runtime;
        uint64_t cap_period;

        if (strcmp(property, "Version") == 0)
                return sd_bus_message_append(reply, "s", HCBS_VERSION);
        if (strcmp(property, "KernelInterface") == 0)
                return sd_bus_message_append(reply, "s", hcbs_interface_to_string(m->iface));
        if (strcmp(property, "CgroupRoot") == 0)
                return sd_bus_message_append(reply, "s", m->root_path);
        manager_capacity(m, &cap_runtime, &cap_period);
        if (strcmp(property, "CapacityRuntime") == 0)
                return sd_bus_message_append(reply, "t", (uint64_t) cap_runtime);
        if (strcmp(property, "CapacityPeriod") == 0)
                return sd_bus_message_append(reply, "t", cap_period);
        if (strcmp(property, "AllocatedBandwidth") == 0)
                return sd_bus_message_append(reply, "d", (double) (cap->children_bw - cap->foreign_bw) /
                                                                 (double) HCBS_BW_UNIT);
        if (strcmp(property, "GroupCount") == 0)
                return sd_bus_message_append(reply, "u", (uint32_t) manager_group_count(m));
        if (strcmp(property, "StatsBackendReason") == 0)
                return sd_bus_message_append(reply, "s", manager_stats_backend_reason(m));
        if (hcbs_startswith(property, "KernelMode")) {
                HcbsKernelVerdict v;

                manager_kernel_mode(m, &v);
                return sd_bus_message_append(reply, "s",
                                             strcmp(property, "KernelMode") == 0 ? hcbs_kernel_mode_to_string(v.mode)
                                             : strcmp(property, "KernelModeReason") == 0 ? v.reason
                                                                                         : v.fix);
        }
        return sd_bus_message_append(reply, "s", manager_stats_backend(m)); /* StatsBackend */
}

#define PROP(name, sig, flags) SD_BUS_PROPERTY(name, sig, property_get, 0, flags)

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("CreateGroup", SD_BUS_ARGS("s", name, "t", runtime, "t", period, "a{sv}", options),
                                SD_BUS_RESULT("o", group), method_create_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetBandwidth", SD_BUS_ARGS("s", name, "t", runtime, "t", period, "a{sv}", options),
                                SD_BUS_NO_RESULT, method_set_bandwidth, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteGroup", SD_BUS_ARGS("s", name, "a{sv}", options), SD_BUS_NO_RESULT,
                                method_delete_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Attach", SD_BUS_ARGS("s", name, "au", pids, "a{sv}", options), SD_BUS_NO_RESULT,
                                method_attach, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Detach", SD_BUS_ARGS("au", pids, "a{sv}", options), SD_BUS_NO_RESULT, method_detach,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Apply", SD_BUS_ARGS("a(stta{sv})", groups, "a{sv}", options),
                                SD_BUS_RESULT("a(sss)", plan), method_apply, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CheckBandwidth", SD_BUS_ARGS("s", name, "t", runtime, "t", period),
                                SD_BUS_RESULT("b", ok, "s", error, "s", message), method_check_bandwidth,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SizeReservation", SD_BUS_ARGS("a(ttt)", tasks, "a{sv}", options),
                                SD_BUS_RESULT("t", runtime, "t", period, "u", cpus, "a{sv}", details),
                                bus_method_size_reservation, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGroups", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sttbuu)", groups), method_list_groups,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListGroupCPUs", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sss)", groups),
                                method_list_group_cpus, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetStats", SD_BUS_ARGS("s", name), SD_BUS_RESULT("a{sv}", stats), bus_method_get_stats,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ObserveTasks", SD_BUS_ARGS("s", target, "t", duration, "a{sv}", options),
                                SD_BUS_RESULT("a(uussttttttttttt)", threads, "a{sv}", info), bus_method_observe_tasks,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", NULL, NULL, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReserveUnit", SD_BUS_ARGS("s", unit, "t", runtime, "t", period, "a{sv}", options),
                                SD_BUS_NO_RESULT, bus_method_reserve_unit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReleaseUnit", SD_BUS_ARGS("s", unit, "a{sv}", options), SD_BUS_NO_RESULT,
                                bus_method_release_unit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListUnits", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssttsi)", units), bus_method_list_units,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReserveCgroup",
                                SD_BUS_ARGS("s", cgroup, "t", runtime, "t", period, "a{sv}", options),
                                SD_BUS_NO_RESULT, bus_method_reserve_cgroup, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CheckCgroup", SD_BUS_ARGS("s", cgroup, "t", runtime, "t", period),
                                SD_BUS_RESULT("b", ok, "s", error, "s", message), bus_method_check_cgroup,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReleaseCgroup", SD_BUS_ARGS("s", cgroup, "a{sv}", options), SD_BUS_NO_RESULT,
                                bus_method_release_cgroup, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListContainers", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(ssttsi)", containers),
                                bus_method_list_containers, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("GroupCreated", SD_BUS_ARGS("s", name, "o", group), 0),
        SD_BUS_SIGNAL_WITH_ARGS("GroupRemoved", SD_BUS_ARGS("s", name), 0),
        SD_BUS_SIGNAL_WITH_ARGS("BandwidthChanged", SD_BUS_ARGS("s", name, "t", runtime, "t", period), 0),
        PROP("Version", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("KernelInterface", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("CgroupRoot", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("CapacityRuntime", "t", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("CapacityPeriod", "t", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("AllocatedBandwidth", "d", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("GroupCount", "u", SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        PROP("StatsBackend", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("StatsBackendReason", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        PROP("KernelMode", "s", 0), /* kernel.sched_rt_runtime_us is read again on each get: no signal */
        PROP("KernelModeReason", "s", 0),
        PROP("KernelModeFix", "s", 0),
        SD_BUS_VTABLE_END,
};

int bus_manager_setup(BusServer *b) {
        return sd_bus_add_object_vtable(b->bus, NULL, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, manager_vtable, b);
}
