/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Between the bus layer's files: its state, options, access control, object paths. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

#include "bus.h"
#include "bus-names.h"
#include "list.h"
#include "manager.h"
#include "systemd-client.h"

typedef struct PolkitQuery PolkitQuery;

typedef struct UidCacheEntry {
        char sender[32]; /* a unique bus name, ":1.42" */
        uid_t uid;
} UidCacheEntry;

/* The bus layer's state; every vtable's userdata. */
struct BusServer {
        Manager *manager;
        sd_bus *bus;
        SystemdClient *systemd;        /* with a pool: the client answering the core's questions */
        PolkitQuery *polkit_queries;   /* calls waiting for polkit's answer (list.h) */
        UidCacheEntry uid_cache[256];  /* callers' uids, by unique name */
        size_t uid_cache_next;
};

/* A handler's Manager, from its userdata (the BusServer). */
static inline Manager *bus_manager(void *userdata) {
        return ((BusServer *) userdata)->manager;
}

/* Calls that may wait for polkit's answer at once: from one user, and in all. */
#define HCBS_POLKIT_PENDING_PER_USER 8
#define HCBS_POLKIT_PENDING_MAX 64

/* An "au" option's value: a copy the caller frees (v). */
typedef struct BusU32Array {
        uint32_t *v;
        size_t n;
} BusU32Array;

/*
 * One accepted option of an a{sv} argument: its D-Bus type and where to
 * store it: "b" (a bool), "s" (a const char *, valid while the message
 * is), "i", "u", "t" (int32_t, uint32_t, uint64_t), "au" (a BusU32Array).
 */
typedef struct BusOption {
        const char *name;
        const char *type;
        void *ret;
        bool seen;
} BusOption;

/* Reads an a{sv} into the table; unknown keys, wrong types and a key given twice are InvalidArgument. */
int bus_read_options(sd_bus_message *msg, BusOption *table, size_t n, sd_bus_error *error);

/*
 * The caller's uid as the bus vouches for it (never augmented credentials),
 * kept per unique name. Returns 0, or -errno with error set when the bus
 * did not vouch for it.
 */
int bus_sender_uid(BusServer *b, sd_bus_message *msg, uid_t *ret, sd_bus_error *error);

/*
 * Allows a mutation for uid 0 or a caller polkit authorizes for
 * org.hcbsd1.manage. Uses the sender's credentials as the bus reports them,
 * never augmented ones. Returns 1 with *ret_uid; 0 while polkit is asked
 * (the handler returns 1 and runs again with the answer); or a negative
 * errno with error set to PermissionDenied.
 */
int bus_verify_manage(BusServer *b, sd_bus_message *msg, uid_t *ret_uid, sd_bus_error *error);

/*
 * What a call that changes something does before the manager is asked,
 * in this order, so that a bad argument is refused before polkit is asked:
 * its options read into opts (n may be 0), name checked as a group's (not
 * when NULL), then the caller verified (bus_verify_manage()): 1, go on
 * with *ret_uid; 0, polkit is asked and the handler returns
 * POLKIT_PENDING (it runs again with the answer); or -errno.
 */
int bus_admit_call(BusServer *b, sd_bus_message *msg, BusOption *opts, size_t n, const char *name, uid_t *ret_uid,
                   sd_bus_error *error);
/* A handler's return while polkit is asked: the call is answered when the handler runs again. */
#define POLKIT_PENDING 1

/* policy (fifo, rr, other, keep) and priority (1..99 for fifo and rr, else 0); InvalidArgument otherwise. */
int bus_parse_policy(const char *policy, int32_t priority, ProcPolicy *ret, sd_bus_error *error);
/* The "cpus" option: a CPU list ("0-3,6"; "" all of the parent's) into ret, or InvalidArgument. NULL: none given. */
int bus_parse_cpus(const char *list, HcbsCpuSet *ret, sd_bus_error *error);

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

/*
 * One entry of an a{sv} whose value is an array, "KEY": <a...> (sig is
 * the array's signature, "au"): open it, append the elements, close it.
 */
int bus_open_dict_array(sd_bus_message *reply, const char *key, const char *sig);
int bus_close_dict_array(sd_bus_message *reply);

/* A manager's dry run (CheckBandwidth, CheckCgroup): the rule of error.h, 0 when it would be admitted. */
typedef int (*BusCheckFn)(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us, HcbsVerdict *v);
/*
 * The whole handler of a dry run: (s name, t runtime, t period) in, fn's
 * answer out as (b ok, s error, s message): a refusal is the answer, not
 * an error.
 */
int bus_method_check(sd_bus_message *msg, void *userdata, BusCheckFn fn);

/* A group name, checked before anything else (polkit included) happens: InvalidName otherwise. */
int bus_check_name(const char *name, sd_bus_error *error);

/* The object path of a group; caller frees. */
int bus_group_path(const char *name, char **ret);

/*
 * bus-analysis.c: a call answered by an analysis off the event loop
 * (analysis.h), for any method whose cost the caller's input decides.
 * bus_analysis_start() counts the analysis against the caller's uid,
 * starts run(job) on its thread and returns 1 (the handler returns it: the
 * call is answered later); when run is done, answer(job, r, msg, error)
 * runs on the loop with run's result and answers msg as a handler would
 * (bus_reply_operation(): a negative return or error set becomes the error
 * reply), then free_job(job). A caller who leaves cancels the analysis; an
 * analysis cancelled (or stopped with hcbsd) is answered with an error. A
 * refusal (LimitsExceeded) or a failure to start returns < 0 with error set
 * as a handler returns it; job is then still the caller's.
 */
typedef int (*BusAnalysisAnswerFn)(void *job, int r, sd_bus_message *msg, sd_bus_error *error);
int bus_analysis_start(BusServer *b, sd_bus_message *msg, AnalysisRunFn run, BusAnalysisAnswerFn answer,
                       void (*free_job)(void *job), void *job, sd_bus_error *error);

/* bus-signals.c: the core's record of what changed (changes.h) as signals; a ManagerChangesFn, userdata b. */
void bus_emit_changes(Manager *m, const Changes *c, void *userdata);

/* Drops the pending polkit queries. */
void bus_polkit_queries_free(BusServer *b);

/* bus-manager.c: the object /org/hcbsd1 (org.hcbsd1.Manager). */
int bus_manager_setup(BusServer *b);
/* bus-group.c: the per-group objects below /org/hcbsd1/group. */
int bus_group_setup(BusServer *b);

/* bus-units.c: units' reservations, methods of org.hcbsd1.Manager. */
int bus_method_reserve_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_release_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_list_units(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/* bus-containers.c: containers' reservations, methods of org.hcbsd1.Manager. */
int bus_method_reserve_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_check_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_release_cgroup(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int bus_method_list_containers(sd_bus_message *msg, void *userdata, sd_bus_error *error);
