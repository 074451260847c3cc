/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Containers' reservations (manager-containers.c): a cgroup in an engine's
 * scope in the pool (lib/container.h). The reservation is held by the
 * scope's unit name, as a unit's (manager-units.c), and given back when
 * systemd removes the scope.
 */

#include "manager.h"

typedef struct CgroupReservation {
        const char *cgroup; /* relative to the v2 mount: "hcbs.slice/libpod-ID.scope/container" */
        uint64_t runtime_us, period_us;
        ProcPolicy policy;  /* for pid */
        int priority;
        pid_t pid;          /* 0: none; else a process of cgroup, which gets the policy */
        uid_t caller_uid;   /* not 0: must own the scope's cgroup and the process */
} CgroupReservation;

/* The scope and each cgroup below it down to c->cgroup get (runtime, period); idempotent. */
int manager_reserve_cgroup(Manager *m, const CgroupReservation *c, HcbsVerdict *v);
/*
 * Whether the scope of cgroup would be admitted with (runtime, period), by
 * the same rules as manager_reserve_cgroup(), before the engine made it:
 * the scope need not exist (a container about to be created). Writes
 * nothing. The rule of error.h: 0 admitted, > 0 the refusal in v.
 */
int manager_check_cgroup(Manager *m, const char *cgroup, uint64_t runtime_us, uint64_t period_us, HcbsVerdict *v);
/* Gives the reservation of cgroup's scope back; succeeds when it holds none. */
int manager_release_cgroup(Manager *m, const char *cgroup, uid_t caller_uid, HcbsVerdict *v);
/*
 * Whether caller_uid may reserve or release for the scope's cgroup (a path
 * from the mount): root and the cgroup's owner may; one that is gone
 * holds nothing to protect. The rule of error.h (PermissionDenied).
 */
int manager_check_scope_owner(Manager *m, const char *scope, uid_t caller_uid, HcbsVerdict *v);
/* Whether a reservation's unit is a container's (a scope's). */
bool manager_unit_is_container(const char *unit);
/* Runtime 0 for every modelled cgroup below n, deepest first (before n's own can drop). */
int manager_container_zero_below(Manager *m, HcbsNode *n, HcbsVerdict *v);
