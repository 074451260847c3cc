/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The bus side of hcbsctl: connecting, calling, mapping D-Bus errors to
 * exit codes, and reading properties and ListGroups() into plain structs.
 * Functions returning int return a CtlExit unless they say "sd-bus style"
 * (>= 0 or -errno, with details in an sd_bus_error).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "ctl.h"
#include "macro.h"

static inline void ctl_message_unrefp(sd_bus_message **m) {
        sd_bus_message_unref(*m);
}
#define _cleanup_msg_ _cleanup_(ctl_message_unrefp)

/* Opens ctl->bus once (system bus or ctl->bus_address). CtlExit; prints on failure. */
int ctl_connect(Ctl *ctl);
/* The same without a word on failure; sd-bus style. */
int ctl_connect_quietly(Ctl *ctl);

/* The exit code for a failed call: error as filled by sd-bus, r its negative errno. */
CtlExit ctl_exit_for_error(const sd_bus_error *error, int r);

/* The exit code for an org.hcbsd1.Error name, short ("NotLeaf") or full; 1 if unknown. */
CtlExit ctl_exit_for_error_name(const char *name);

/* Prints the one-line reason for a failed call and returns its exit code. */
int ctl_bus_fail(const sd_bus_error *error, int r);

/* ctl_bus_fail() with "<about>: " before the reason (about may be NULL). */
int ctl_bus_fail_about(const char *about, const sd_bus_error *error, int r);

/* Prints "hcbsctl: <what>: <strerror(-r)>" for a local failure (ENOMEM...); returns 1. */
int ctl_fail_errno(int r, const char *what);

/* New method call on org.hcbsd1.Manager; sd-bus style. */
int ctl_new_manager_call(Ctl *ctl, const char *method, sd_bus_message **ret);

/*
 * The signature a reply to interface.member must have, or NULL for a method
 * hcbsctl does not know (then nothing is checked).
 */
const char *ctl_reply_signature(const char *interface, const char *member);

/*
 * CtlExit: OK when reply has the signature its call's method answers with;
 * else prints "<about>: unexpected reply to METHOD ..." and returns REFUSED.
 */
int ctl_check_reply(sd_bus_message *call, sd_bus_message *reply, const char *about);

/*
 * Sends m and waits; on failure, or a reply whose signature is not the
 * method's (ctl_check_reply()), prints and returns its exit code. ret_reply
 * may be NULL.
 */
int ctl_call(Ctl *ctl, sd_bus_message *m, sd_bus_message **ret_reply);

/* ctl_call() whose failure line reads "hcbsctl: <about>: <reason>" (about may be NULL). */
int ctl_call_about(Ctl *ctl, sd_bus_message *m, const char *about, sd_bus_message **ret_reply);

/* The object path of group name (caller frees); sd-bus style. */
int ctl_group_path(const char *name, char **ret);

/* Property map: name, D-Bus signature, offset of the field in the target struct. */
typedef struct CtlProp {
        const char *name;
        const char *signature; /* "s" (char *, owned), "t", "u", "i", "b" (bool), "d", "au" (CtlU32Array) */
        size_t offset;
} CtlProp;

typedef struct CtlU32Array {
        uint32_t *v;
        size_t n;
} CtlU32Array;

/* Properties.GetAll(iface) on path into data by map; unknown or mistyped ones are skipped. sd-bus style. */
int ctl_get_all(Ctl *ctl, const char *path, const char *iface, const CtlProp map[], void *data,
                sd_bus_error *error);

/* ctl_get_all() from another peer (systemd). */
int ctl_get_all_from(Ctl *ctl, const char *destination, const char *path, const char *iface, const CtlProp map[],
                     void *data, sd_bus_error *error);

/* Frees the strings and arrays ctl_get_all() stored into data by map. */
void ctl_props_free(const CtlProp map[], void *data);

/* One row of ListGroups(); name points into the reply message. */
typedef struct CtlGroup {
        const char *name;
        uint64_t runtime;
        uint64_t period;
        bool leaf;
        uint32_t processes;
        uint32_t rt_tasks;
        const char *cpus;           /* ListGroupCPUs: the CPUs it was given ("": none), or NULL (an older hcbsd) */
        const char *effective_cpus; /* ... and those it covers */
} CtlGroup;

typedef struct CtlGroupList {
        sd_bus_message *reply;
        sd_bus_message *cpus_reply;
        CtlGroup *v;
        size_t n;
} CtlGroupList;

/* Calls ListGroups(); CtlExit, prints on failure. */
int ctl_list_groups(Ctl *ctl, CtlGroupList *ret);
void ctl_group_list_done(CtlGroupList *l);

/* Manager properties, as hcbsctl status shows them. */
typedef struct CtlManagerProps {
        char *version;
        char *kernel_interface;
        char *cgroup_root;
        uint64_t capacity_runtime;
        uint64_t capacity_period;
        double allocated;
        uint32_t group_count;
        char *stats_backend;
        char *stats_backend_reason; /* why not bpf; NULL from an older hcbsd */
        char *kernel_mode;          /* KernelMode, ...Reason, ...Fix; NULL from an older hcbsd */
        char *kernel_mode_reason;
        char *kernel_mode_fix;
} CtlManagerProps;

extern const CtlProp ctl_manager_props[];

/* Reads the manager's properties; CtlExit, prints on failure. */
int ctl_get_manager_props(Ctl *ctl, CtlManagerProps *ret);
