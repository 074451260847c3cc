/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The manager: hcbsd's state and its operations.
 *
 * It owns the model (lib/model.h) of the kernel's RT group tree from the
 * kernel's root down to every group below hcbsd's root, the cgroupfs
 * backend that writes the kernel files, and the metadata the kernel does
 * not keep (which groups are persistent, where attached processes came
 * from). Every operation goes request -> admission (decide and plan) ->
 * backend (apply, roll back on refusal) -> model (commit) -> signals.
 * The kernel stays the truth: on start hcbsd adopts what it finds.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>
#include <sys/types.h>

#include "admission.h"
#include "analysis.h"
#include "cgroupfs.h"
#include "changes.h"
#include "conf.h"
#include "error.h"
#include "kernel-mode.h"
#include "model.h"
#include "origins.h"
#include "process.h"
#include "systemd-questions.h"

typedef struct ManagerOptions {
        char *bus_address;  /* NULL: the system bus (DBUS_SYSTEM_BUS_ADDRESS) */
        char *cgroup_root;  /* overrides CgroupRoot= */
        char *interface;    /* overrides Interface= ("auto" detects) */
        char *config_path;
        char *config_dir;
        char *state_dir;    /* what survives a reboot: persistent groups */
        char *runtime_dir;  /* what matters until the next reboot: the plan journal, origins */
        bool notify;        /* sd_notify READY=1 */
} ManagerOptions;

/* What hcbsd knows of a group beyond the kernel's files. */
typedef struct GroupInfo {
        bool persistent;

        /* A unit's cgroup in the pool (manager-units.c): */
        char *unit;          /* the unit holding the reservation; NULL: none known */
        ProcPolicy policy;   /* for the unit's main process, once it runs */
        int priority;
        bool policy_pending;
        uint64_t generation; /* bumped by every reservation and release */
        uint64_t tasks_read_usec; /* CLOCK_MONOTONIC of the last count of its RT tasks */
} GroupInfo;

/* An ancestor whose RT files hcbsd raised at start, to give back on exit. */
typedef struct Raised {
        char *path;
        uint64_t period_us;
        int64_t runtime_us;
} Raised;

typedef struct Stats Stats;
typedef struct Manager Manager;

/* Announces what changed (the bus layer's signals); c is emptied after it returns. */
typedef void (*ManagerChangesFn)(Manager *m, const Changes *c, void *userdata);

/* A container engine's pool, hcbsd.conf's [Pool NAME] (manager-pools.c). */
typedef struct EnginePool {
        char *name;    /* [Pool NAME] */
        char *cgroup;  /* relative to the mount */
        HcbsPool pool; /* .node NULL while the cgroup does not exist */
} EnginePool;

struct Manager {
        ManagerOptions opts;
        HcbsConf conf;

        sd_event *event;

        CgroupFs *fs;       /* on the hierarchy's mount point */
        char *mount;        /* e.g. /sys/fs/cgroup/cpu */
        char *root_path;    /* hcbsd's root, absolute */
        char *own_cgroup;   /* under systemd: our unit's delegated cgroup, relative to the mount */
        HcbsInterface iface;
        HcbsKernelFacts kernel_facts; /* read at start (kernel-facts.h), for the kernel's mode */
        unsigned revision;   /* rtmax: 6 (cpu.rt.internal) or 7 (cpu.rt.max.effective.local) */
        HcbsModel *model;   /* rooted at the kernel's root group */
        HcbsAdmission admission;  /* .base is hcbsd's root; .pool the slice shared with units, or NULL */
        EnginePool *pools;        /* the engines' pools, hcbsd.conf's [Pool NAME] */
        size_t n_pools;

        Origins origins;    /* where attached processes came from, for Detach */
        struct Journal *journal; /* the plan journal, open from the first plan on (journal.h) */
        Raised *raised;
        size_t n_raised;

        struct PersistGroup *persist_kept; /* persistent groups of STATEDIR/groups not restored (yet) */
        size_t n_persist_kept;
        bool persist_restoring;            /* restoring them: save once, at the end */

        SystemdQuestions systemd;      /* with a pool, once served: who answers about units (.ask NULL: none) */
        uint64_t generation;           /* source of GroupInfo.generation */
        Hashmap *units;                /* a unit's name -> its reservation's node in the pool (manager-tree.c) */
        Hashmap *persistent;           /* the names of the persistent groups, owned (manager-tree.c) */
        Stats *stats;                  /* the statistics backend (manager-stats.c) */
        bool stats_full_said;          /* logged once that the collector's table is full */
        sd_event_source *notify_source; /* sends STATUS= when it changes (manager-notify.c) */
        char notify_status[128];        /* the last STATUS= sent */

        Changes changes;                /* what the current calls changed, until announced (manager-changes.c) */
        ManagerChangesFn changes_fn;    /* who announces it; NULL: nobody listens, nothing is recorded */
        void *changes_userdata;
        sd_event_source *changes_source; /* announces once the current call is done */

        Analyses *analyses;             /* work a caller's input decides, off the loop (analysis.h) */
        struct ManagerObservation *observations; /* running (manager-observe.c) */
        sd_event_source *jobs_source;             /* the collector's job records, while one runs */
        unsigned observation_ids;
        sd_event_source *pool_watch;     /* rtmax: new cgroups in the pool (manager-pool.c) */
        unsigned servers_differ;         /* rtmax v7: groups whose servers the kernel set otherwise than the model */
};

int manager_new(const ManagerOptions *opts, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_FREE_FUNC(Manager, manager_free)

/*
 * Blocks SIGTERM, SIGINT and SIGHUP, before anything else runs: a signal
 * during start-up must not kill hcbsd in the middle of a plan. It stays
 * pending until manager_run() serves it. Returns 0 or -errno.
 */
int manager_block_signals(void);
/* Loads the configuration, opens the kernel interface, adopts the tree, applies capacity and declared groups. */
int manager_startup(Manager *m);
/* Tells the service manager it is ready and runs the event loop until SIGTERM/SIGINT (0), or the loss of the bus (-ENOTCONN). */
int manager_run(Manager *m);
/* Gives back the ancestors' bandwidth unless KeepOnExit=yes. */
void manager_shutdown(Manager *m);

/*
 * The kernel's mode (kernel-mode.h) as it holds now: the facts read at start,
 * with kernel.sched_rt_runtime_us read again (someone may set it to -1 later).
 */
void manager_kernel_mode(const Manager *m, HcbsKernelVerdict *ret);

/*
 * hcbsd --check-kernel: loads the configuration, resolves the cgroup root,
 * reads the kernel's facts and, as root on cgroup-v2 RT files, probes the
 * rules as start-up does (a group made and removed below the mount). Fills
 * ret; 0, or -errno (the configuration could not be loaded).
 */
int manager_check_kernel(Manager *m, HcbsKernelVerdict *ret);

/* Group name of a model node below the base ("" for the base). */
const char *manager_group_name(const Manager *m, const HcbsNode *n);
GroupInfo *manager_group_info(const HcbsNode *n);
/* What Capacity= sizes: the pool under systemd, else hcbsd's root. */
HcbsNode *manager_capacity_node(const Manager *m);
/* Capacity= as served: the pool's limit, or what hcbsd's root could reserve of it. */
void manager_capacity(const Manager *m, int64_t *ret_runtime_us, uint64_t *ret_period_us);
/* How many groups hcbsd serves (the nodes below its root). */
size_t manager_group_count(const Manager *m);
/* How many units hold a reservation in the pool (0 without a pool); O(1). */
size_t manager_unit_count(const Manager *m);
/* Whether n is one of hcbsd's groups (strictly below the base). */
bool manager_is_group(const Manager *m, const HcbsNode *n);
/* hcbs.slice (index 0) and the engines' pools: their number (0 without systemd), and each one's node or NULL. */
size_t manager_pool_count(const Manager *m);
HcbsNode *manager_pool_node(const Manager *m, size_t i);
/* Whether n is a pool's child: a unit's or a container scope's cgroup (or hcbsd's own, in hcbs.slice). */
bool manager_in_a_pool(const Manager *m, const HcbsNode *n);
/* The pool whose child n is (.node NULL: none). */
HcbsPool manager_pool_of_node(const Manager *m, const HcbsNode *n);

/*
 * Operations: create, set, delete, check, apply, attach, detach, reload,
 * reserve and release a unit. Each follows the one rule of error.h:
 *
 *   < 0   a failure of hcbsd itself (-ENOMEM, a file of its own it cannot
 *         read...), a negative errno, logged where it happened;
 *   0     done (for CheckBandwidth: it would be admitted); v is HCBS_OK;
 *   > 0   refused: the HcbsError, v holds it and says why.
 *
 * The bus layer turns the result into the reply in one place
 * (bus_reply_operation(), bus-util.h). m, names and v must not be NULL
 * (asserted); what a caller sent (values, names' syntax) is checked and
 * refused, never asserted.
 */
typedef struct CreateOptions {
        bool persistent;
        bool grow_parents;
        const HcbsCpuSet *cpus; /* the group's CPUs (rtmax v7), or NULL: all of its parent's */
        const char *move_processes_to;
        uid_t caller_uid; /* with move_processes_to: 0 may move anyone's processes, others only their own */
} CreateOptions;

int manager_create_group(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us,
                         const CreateOptions *o, HcbsVerdict *v);
/* cpus: the group's CPUs from now on (rtmax v7; empty: all of its parent's), or NULL: as they are. */
int manager_set_bandwidth(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us,
                          const HcbsCpuSet *cpus, bool grow_parents, HcbsVerdict *v);
/* migrate_to moves the group's processes first; a caller_uid other than 0 may move only its own. */
int manager_delete_group(Manager *m, const char *name, const char *migrate_to, uid_t caller_uid, HcbsVerdict *v);
int manager_check_bandwidth(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us, HcbsVerdict *v);

/*
 * Apply (manager-apply.c): many groups created, re-budgeted (an existing
 * name) or deleted in one admitted, planned, journalled step, rolled back
 * as a whole. With dry_run nothing is written. On success ret_plan (if
 * given) holds the writes, in order; free it with hcbs_plan_done().
 */
typedef struct ApplyEntry {
        const char *name;
        uint64_t runtime_us, period_us; /* ignored for a delete */
        bool delete;
        bool persistent;
        bool has_cpus; /* cpus: the group's CPUs (rtmax v7) */
        HcbsCpuSet cpus;
} ApplyEntry;

#define HCBS_APPLY_MAX 65536 /* groups in one Apply */

typedef struct ApplyOptions {
        bool grow_parents;
        bool dry_run;
} ApplyOptions;

int manager_apply(Manager *m, const ApplyEntry *e, size_t n, const ApplyOptions *o, HcbsPlan *ret_plan,
                  HcbsVerdict *v);

/* Processes one Attach or Detach may name: each is pinned by a descriptor while the call runs. */
#define HCBS_PIDS_MAX 512

typedef struct AttachOptions {
        ProcPolicy policy;
        int priority;
        uid_t caller_uid; /* 0: may move anyone's processes */
} AttachOptions;

int manager_attach(Manager *m, const char *name, const pid_t *pids, size_t n, const AttachOptions *o,
                   HcbsVerdict *v);
int manager_detach(Manager *m, const pid_t *pids, size_t n, uid_t caller_uid, HcbsVerdict *v);
int manager_reload(Manager *m, HcbsVerdict *v);

/*
 * Units' reservations (manager-units.c): the unit's own cgroup in the pool
 * gets (runtime, period); systemd names the cgroup. policy/priority are
 * applied to the unit's main process once systemd reports it started.
 * Reserving again is idempotent; releasing what is not held succeeds.
 */
typedef struct UnitReservation {
        const char *unit;
        uint64_t runtime_us, period_us;
        bool has_cpus; /* cpus: the unit's CPUs (rtmax v7; systemd's AllowedCPUs= writes the same) */
        HcbsCpuSet cpus;
        ProcPolicy policy;
        int priority;
        uid_t caller_uid; /* only 0 may choose a policy: the unit's processes are not the caller's */
} UnitReservation;

/*
 * The outcome of an operation on a unit, by the rule of error.h: r < 0
 * when hcbsd failed (with v->message saying what, when systemd did not
 * answer), 0 when done, or the refusal's HcbsError with v saying why.
 */
typedef void (*UnitDoneFn)(Manager *m, int r, const HcbsVerdict *v, void *userdata);

/*
 * Both ask systemd for the unit's cgroup, without waiting: each returns 0
 * and calls done exactly once, before it returns (a refusal, a reservation
 * hcbsd knows already) or from the event loop with systemd's answer (or
 * its silence, after SYSTEMD_TIMEOUT_USEC, or hcbsd's stop); or returns
 * -errno and never calls done. A container's reservation (its scope's
 * name) is released only for root or the scope's owner, as ReleaseCgroup.
 */
int manager_reserve_unit(Manager *m, const UnitReservation *u, UnitDoneFn done, void *userdata);
int manager_release_unit(Manager *m, const char *unit, uid_t caller_uid, UnitDoneFn done, void *userdata);
/* The pool's node of a unit's reservation, or NULL; O(1). */
HcbsNode *manager_unit_node(const Manager *m, const char *unit);

/*
 * An analysis off the event loop for a caller (analysis.h): at most one per
 * CPU hcbsd found run at once, HCBS_ANALYSES_PER_USER per uid, the others
 * wait their turn. The rule of error.h; on 0, done is called exactly once,
 * from the loop (with -ECANCELED when hcbsd stops first).
 */
int manager_analysis_start(Manager *m, uid_t uid, AnalysisRunFn run, AnalysisDoneFn done, void *job, Analysis **ret,
                           HcbsVerdict *v);
/* Cancels the analyses still running and answers them (done with -ECANCELED): at stop, while calls can be answered. */
void manager_analyses_stop(Manager *m);

/* Re-reads the processes of a group from the kernel into the model. */
int manager_refresh_tasks(Manager *m, HcbsNode *n);
/*
 * The same for what a read serves (ListGroups, the Group's properties,
 * CheckBandwidth's dry run), which anyone may ask for: the processes are
 * read afresh, but their threads' policies (one read per thread) at most
 * once every HCBS_TASKS_CACHE_USEC, whatever processes come and go
 * meanwhile (an RT count up to that old). Decisions always read
 * everything afresh.
 */
#define HCBS_TASKS_CACHE_USEC (1000 * 1000ULL)
void manager_refresh_tasks_for_read(Manager *m, HcbsNode *n);
/* The processes of a group, from the kernel. */
int manager_group_pids(Manager *m, const HcbsNode *n, pid_t **ret, size_t *ret_n);

/*
 * What changed, for whoever announces it (manager-changes.c): from now on
 * every change is recorded in m->changes and fn gets the record once the
 * current call is done (a deferred event source), or at
 * manager_flush_changes(). fn NULL stops recording.
 */
void manager_set_changes_listener(Manager *m, ManagerChangesFn fn, void *userdata);
void manager_flush_changes(Manager *m);

/*
 * Units' reservations follow systemd (manager-units.c): the signals the
 * core wants, and from manager_units_watch() on, who answers its
 * questions. Watching learns, synchronously, which unit holds each
 * reservation found at start, and gives back what none holds. Without a
 * pool both do nothing. Returns 0 or -errno (logged).
 */
const SystemdSignals *manager_units_signals(void);
int manager_units_watch(Manager *m, const SystemdQuestions *q);
/* Stops asking: from now on no question is sent (the answers still due are the asker's to give). */
void manager_units_unwatch(Manager *m);
