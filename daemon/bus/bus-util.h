/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers of the bus layer: options, access control, object paths. */

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "bus-names.h"
#include "manager.h"

/* Calls that may wait for polkit's answer at once: from one user, and in all. */
#define HCBS_POLKIT_PENDING_PER_USER 8
#define HCBS_POLKIT_PENDING_MAX 64

/* One accepted option of an a{sv} argument: its D-Bus type ('b', 's', 'i') and where to store it. */
typedef struct BusOption {
        const char *name;
        char type;
        void *ret;
        bool seen;
} BusOption;

/* Reads an a{sv} into the table; unknown keys and wrong types are InvalidArgument. */
int bus_read_options(sd_bus_message *msg, BusOption *table, size_t n, sd_bus_error *error);

/*
 * Allows a mutation for uid 0 or a caller polkit authorizes for
 * org.hcbsd1.manage. Uses the sender's credentials as the bus reports them,
 * never augmented ones. Returns 1 with *ret_uid; 0 while polkit is asked
 * (the handler returns 1 and runs again with the answer); or a negative
 * errno with error set to PermissionDenied.
 */
int bus_verify_manage(Manager *m, sd_bus_message *msg, uid_t *ret_uid, sd_bus_error *error);

/* policy (fifo, rr, other, keep) and priority (1..99 for fifo and rr, else 0); InvalidArgument otherwise. */
int bus_parse_policy(const char *policy, int32_t priority, ProcPolicy *ret, sd_bus_error *error);

/* Appends an operation's answer to its reply (bus_reply_operation()). */
typedef int (*BusAppendFn)(sd_bus_message *reply, void *userdata);

/*
 * The tail of every method handler that runs an operation: its result r
 * (the rule of error.h) and verdict v become the answer to msg. r < 0 is
 * returned for sd-bus to send a generic error; r > 0 sets error to
 * org.hcbsd1.Error.<Name> with v's message; 0 sends the method return,
 * with what append (if not NULL) adds to it.
 */
int bus_reply_operation(sd_bus_message *msg, int r, const HcbsVerdict *v, BusAppendFn append, void *userdata,
                        sd_bus_error *error);

/* A group name, checked before anything else (polkit included) happens: InvalidName otherwise. */
int bus_check_name(const char *name, sd_bus_error *error);

/* The object path of a group; caller frees. */
int bus_group_path(const char *name, char **ret);

/* bus-signals.c: the changes of a call, emitted once when it is done. */
typedef enum BusChangeKind {
        BUS_CHANGE_CREATED,   /* a group */
        BUS_CHANGE_REMOVED,   /* a group */
        BUS_CHANGE_BANDWIDTH, /* a group's, or with name NULL hcbsd's root or above (the Manager's properties) */
        BUS_CHANGE_TASKS,     /* a group's processes */
} BusChangeKind;
void bus_signals_record(Manager *m, BusChangeKind kind, const char *name);
void bus_signals_free(Manager *m);

/* Drops the pending polkit queries. */
void bus_polkit_queries_free(Manager *m);

/* bus-group.c: the per-group objects below /org/hcbsd1/group. */
int bus_group_setup(Manager *m);

/* bus-units.c: units' reservations, methods of org.hcbsd1.Manager. */
int bus_method_reserve_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_release_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_list_units(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/* bus-containers.c: containers' reservations, methods of org.hcbsd1.Manager. */
int bus_method_reserve_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_release_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_list_containers(sd_bus_message *msg, void *userdata, sd_bus_error *error);
