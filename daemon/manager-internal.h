/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Between the manager's files; not for the bus layer. */

#include "manager.h"

/* manager-tree.c: model nodes read from the kernel and what hcbsd knows of them (below everything else in the core) */
int manager_group_info_ensure(HcbsNode *n);
/* Frees n's GroupInfo, out of the indexes (units, persistent groups) first. */
void manager_group_info_free(Manager *m, HcbsNode *n);
/* The unit holding n's reservation (a copy; NULL: none), indexed for manager_unit_node(). 0 or -ENOMEM. */
int manager_group_set_unit(Manager *m, HcbsNode *n, const char *unit);
/* Marks group n persistent or not, indexed for manager_save_persistent(). 0 or -ENOMEM. */
int manager_group_set_persistent(Manager *m, HcbsNode *n, bool persistent);
size_t manager_persistent_count(const Manager *m);
/* Frees the model, every GroupInfo and the indexes (manager_free()). */
void manager_tree_free(Manager *m);
/*
 * The collector counts n from now on if it is one of hcbsd's groups or a
 * unit's reservation (else nothing happens): its cgroup id (read from the
 * kernel when 0) and O(1). A cgroup recreated under the same path starts
 * again from zero.
 */
void manager_stats_count(Manager *m, const HcbsNode *n, uint64_t id);
/* The collector stops counting the cgroup at path (relative to the mount), in O(1). */
void manager_stats_forget(Manager *m, const char *path);
/* Forgets a group the kernel no longer has: its metadata, then its model node. */
void manager_forget_group(Manager *m, HcbsNode *n);
/* Reads a group's RT files and processes from the kernel into its node. */
int manager_load_node(Manager *m, HcbsNode *n);
/* The same without the processes: its RT files, and (rtmax v7) its cpuset.cpus. 0 or -errno. */
int manager_load_values(Manager *m, HcbsNode *n);
/*
 * The node of parent's child name, added to the model when new, with its
 * GroupInfo, read afresh from the kernel.
 */
int manager_child_node(Manager *m, HcbsNode *parent, const char *name, HcbsNode **ret);
/*
 * The same from facts already read (cgroupfs_read_facts(): start-up reads a
 * level's at once); a failure to read them is logged and returned.
 */
int manager_child_node_from(Manager *m, HcbsNode *parent, const char *name, const CgroupFsFacts *f, HcbsNode **ret);
typedef int (*SubdirFn)(Manager *m, HcbsNode *parent, const char *name, void *userdata);
int manager_for_each_subdir(Manager *m, HcbsNode *parent, SubdirFn fn, void *userdata);
/* SubdirFn counting a child's bandwidth as foreign in parent; userdata names a child to skip. */
int manager_add_foreign(Manager *m, HcbsNode *parent, const char *name, void *userdata);
/* parent's foreign bandwidth counted again: its subgroups the model does not hold. */
int manager_recount_foreign(Manager *m, HcbsNode *parent);

/* manager-persist.c: the persistent groups saved (the file itself is persist.c's) */
/* Forgets the stored entry of a group not restored, once a group of that name exists. */
void manager_persist_forget(Manager *m, const char *name);
/* Writes the persistent groups (the index's) and those not restored yet. */
int manager_save_persistent(Manager *m);

/* manager-pools.c: the container engines' pools (hcbsd.conf's [Pool NAME]) */
/* Reads the pools of the configuration and models those whose cgroup exists (after hcbs.slice's adoption). */
int manager_pools_setup(Manager *m);
/* Gives each modelled pool's chain periods and room for its Capacity=, then trims it to what it holds. */
int manager_pools_fund(Manager *m);
/* A reload: Capacity= of the pools as configured; other changes wait for a restart (logged). */
void manager_pools_reload(Manager *m);
void manager_pools_free(Manager *m);
/*
 * Gives each cgroup from n up to (not including) stop, and never the
 * kernel's root, a period, top down: on HCBS a new cgroup has none, and
 * one without a period cannot grow (rtmax: a "max" cgroup becomes a
 * reservation of 0). Messages name cgroups from base. 0 or -errno; a
 * refusal is logged.
 */
int manager_give_periods(Manager *m, HcbsNode *n, const HcbsNode *stop, const HcbsNode *base);
/* Each engine pool to what its scopes hold. */
void manager_pools_trim(Manager *m);
typedef struct ManagerPoolRef {
        HcbsPool pool;
        const char *name;    /* its cgroup, for messages */
        HcbsNode *temporary; /* a dry run's model chain, taken away by manager_pool_ref_done() */
} ManagerPoolRef;
/*
 * The pool holding cgroup path (relative to the mount, below the pool):
 * hcbs.slice, or the engine pool whose Cgroup= holds it, modelled and
 * funded first if its cgroup appeared since. With dry_run, a pool whose
 * cgroup does not exist yet is modelled as funding would leave it, until
 * manager_pool_ref_done(). 1 found, 0 in no pool, or -errno.
 */
int manager_pool_of(Manager *m, const char *path, bool dry_run, ManagerPoolRef *ret);
void manager_pool_ref_done(Manager *m, ManagerPoolRef *ref);

/* manager-startup.c: adoption, capacity, the declared and the persistent groups (at start and on reload) */
int manager_ensure_root(Manager *m);
int manager_build_model(Manager *m);
int manager_apply_capacity(Manager *m);
/* Records the ancestors of n that plan raises, to give them back at exit. -ENOMEM. */
int manager_remember_raised(Manager *m, const HcbsPlan *plan, const HcbsNode *n);
void manager_apply_declared(Manager *m);
/* Loads the state file and restores its groups (a corrupt file is set aside, never fatal). */
int manager_apply_persistent(Manager *m);
/* Tries again to create the persistent groups that could not be restored, then saves. */
int manager_restore_persistent(Manager *m);

/* manager.c */
const char *manager_state_dir(const Manager *m);
const char *manager_runtime_dir(const Manager *m);
/* hcbsd's root relative to the mount: "hcbs" for /sys/fs/cgroup/cpu/hcbs. */
const char *manager_root_rel(const Manager *m);

/* manager-pool.c: the pool's children hcbsd does not reserve get runtime 0 on rtmax, now and when made */
int manager_pool_watch(Manager *m);
void manager_pool_unwatch(Manager *m);

/* manager-units.c */
/* Models the pool's other children (units' cgroups) as nodes, not foreign bandwidth. */
int manager_units_adopt(Manager *m);
/* Shrinks hcbsd's root and its ancestors below the pool, and every pool, to what their children hold. */
void manager_trim_pool(Manager *m);
/* Shrinks n to what its children hold (a pool or a cgroup between it and hcbsd's root). */
void manager_trim_node(Manager *m, HcbsNode *n);
/* Gives a unit's reservation back (runtime 0) and forgets the node if systemd removed its cgroup. The rule of error.h. */
int manager_unit_drop(Manager *m, HcbsNode *n, HcbsVerdict *v);

/* manager-changes.c: records a change for the listener (a group by its node: hcbsd's root and above
 * change only the Manager's figures, a unit's cgroup too); created and removed also for the collector */
void manager_changed_group_created(Manager *m, const HcbsNode *n);
/* path: the group's, relative to the mount (a plan's rmdir) */
void manager_changed_group_removed(Manager *m, const char *path);
void manager_changed_bandwidth(Manager *m, const HcbsNode *n);
void manager_changed_tasks(Manager *m, const HcbsNode *n);

/* manager-ops.c */
/*
 * A persistent group is recreated at start, so its parent must be too:
 * hcbsd's root, a persistent group, one declared in the configuration, or
 * one the same call makes persistent (parent_made_persistent, for Apply).
 * The rule of error.h: 0, or InvalidArgument naming the parent.
 */
int manager_check_persistent_parent(Manager *m, const char *name, bool parent_made_persistent, HcbsVerdict *v);
/*
 * Applies a plan to the kernel, commits it to the model and emits signals.
 * The rule of error.h: 0, HCBS_E_KERNEL_REJECTED with v saying which write, or -errno.
 */
int manager_execute(Manager *m, HcbsPlan *plan, HcbsVerdict *v);

/* manager-notify.c: sd_notify READY=1 (and the watchdog, and STATUS= from then on), a reload's frame, STOPPING=1 */
int manager_notify_ready(Manager *m);
void manager_notify_reloading(Manager *m);
void manager_notify_reloaded(Manager *m);
void manager_notify_stopping(Manager *m);

/* manager-procs.c */
/*
 * Pins each pid (fds[i], -1 where pidfd_open is missing) and checks that
 * caller_uid may move it: uid 0 anyone's, others only their own. Returns
 * 0, or the refusal (error.h) with every fd closed.
 */
int manager_pin_owned(const pid_t *pids, size_t n, uid_t caller_uid, int *fds, HcbsVerdict *v);
void manager_unpin(int *fds, size_t n);
/* Moves the pinned processes to the cgroup `to`, each checked alive right before its write; exited ones are skipped. */
int manager_move_pinned(Manager *m, const char *to, const pid_t *pids, const int *fds, size_t n, CgroupFsError *e);
/* Loads the origins hcbsd saved before a restart. */
void manager_origins_load(Manager *m);
