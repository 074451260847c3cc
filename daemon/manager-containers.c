/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Containers' reservations (ReserveCgroup, ReleaseCgroup): a container
 * engine's scope in the pool (lib/container.h) is a unit to systemd, so a
 * container's reservation is a unit's reservation held by the scope's
 * name, and systemd-client.c reports it as it follows a service's: when
 * systemd removes the scope (the container exited, its engine or conmon
 * was killed), hcbsd gives the bandwidth back by itself, and a restarted
 * hcbsd finds the scope running and keeps it (learn_unit).
 *
 * What differs from a service: the caller names the cgroup (the one its
 * process runs in, read by hcbs-oci-hook from /proc/PID/cgroup), the
 * processes may run one level or more below the scope (crun's
 * "container" subgroup), and those cgroups get the same runtime and
 * period as the scope, as nodes below it.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "strutil.h"
#include "log.h"
#include "name.h"
#include "message-ids.h"
#include "manager-containers.h"
#include "manager-internal.h"

static HcbsPlanScope pool_scope(const HcbsNode *pool) {
        return (HcbsPlanScope) { .base = pool->parent, .pool = pool };
}

/* The pool n lies in (n a scope's cgroup or below one), or NULL. */
static HcbsNode *pool_above(const Manager *m, HcbsNode *n) {
        for (; n && n->parent; n = n->parent)
                if (manager_in_a_pool(m, n))
                        return n->parent;
        return NULL;
}

static int refuse_no_pool(HcbsVerdict *v) {
        return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                "containers' reservations need hcbsd to run as hcbsd.service in a slice of its own "
                                "under systemd");
}

/* The node of parent/name, added to the model and read from the kernel when new. */
static int child_node(Manager *m, HcbsNode *parent, const char *name, size_t len, HcbsNode **ret) {
        char seg[HCBS_CGROUP_SEGMENT_MAX + 1];

        snprintf(seg, sizeof(seg), "%.*s", (int) len, name);
        return manager_child_node(m, parent, seg, ret);
}

/*
 * The nodes of path from the pool's child (the scope) down: nodes[0] is
 * the scope. An adopted scope's subgroups were foreign bandwidth; they are
 * counted again around the nodes now on the path.
 */
static int path_nodes(Manager *m, HcbsNode *pool, const char *path, HcbsNode **nodes, size_t *ret_n) {
        const char *seg = path + strlen(pool->path) + 1;
        size_t n = 0;
        int r;

        for (;;) {
                size_t len = strcspn(seg, "/");
                HcbsNode *parent = n ? nodes[n - 1] : pool;

                r = child_node(m, parent, seg, len, &nodes[n]);
                if (r >= 0 && n > 0) /* below the scope: recount what is not on the path */
                        r = manager_recount_foreign(m, parent);
                if (r < 0)
                        return log_error_errno(r, "Cannot read %s/%s: %m", m->mount, path);
                n++;
                if (!seg[len] || n > HCBS_CONTAINER_DEPTH_MAX)
                        break;
                seg += len + 1;
        }
        *ret_n = n;
        return 0;
}

static int set_node(Manager *m, HcbsNode *pool, HcbsNode *n, uint64_t period_us, int64_t runtime_us,
                    HcbsVerdict *v) {
        HcbsPlan plan;
        int r = hcbs_plan_set(m->model, n, period_us, runtime_us, pool_scope(pool), &plan, v);

        if (r > 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        return r;
}

int manager_container_zero_below(Manager *m, HcbsNode *n, HcbsVerdict *v) {
        int r = 0;

        hcbs_verdict_ok(v);
        HCBS_NODE_FOREACH_CHILD(c, n) {
                r = manager_container_zero_below(m, c, v);
                if (r < 0 || v->error != HCBS_OK)
                        return r;
                if (c->runtime_us == 0 || !cgroupfs_exists(m->fs, c->path))
                        continue;
                r = manager_load_node(m, c);
                if (r >= 0)
                        r = set_node(m, pool_above(m, c), c, c->period_us, 0, v);
                if (r < 0 || v->error != HCBS_OK)
                        return r;
        }
        return r;
}

int manager_check_scope_owner(Manager *m, const char *scope, uid_t caller_uid, HcbsVerdict *v) {
        uid_t owner;
        int r;

        if (caller_uid == 0 || !cgroupfs_exists(m->fs, scope))
                return 0;
        r = cgroupfs_owner(m->fs, scope, &owner);
        if (r < 0)
                return log_error_errno(r, "Cannot read the owner of %s/%s: %m", m->mount, scope);
        if (owner == caller_uid)
                return 0;
        return hcbs_verdict_set(v, HCBS_E_PERMISSION_DENIED, EPERM,
                                "/%s belongs to uid %u; only root and its owner may reserve or release it", scope,
                                (unsigned) owner);
}

/* Gives back what the nodes hold, deepest first, after a reservation that could not be completed. */
static void undo(Manager *m, HcbsNode *scope) {
        HcbsVerdict ignored;

        (void) manager_unit_drop(m, scope, &ignored);
}

/*
 * The checks of a request before anything is written: the process (pinned
 * in *pidfd, if the request names one) runs in the cgroup, which exists and
 * is the caller's. The rule of error.h.
 */
static int check_request(Manager *m, const CgroupReservation *c, const char *path, const char *scope_path,
                         int *pidfd, HcbsVerdict *v) {
        _cleanup_free_ char *cg = NULL;
        int r;

        if (proc_policy_is_rt(c->policy) && c->pid <= 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "policy %s needs the container's pid",
                                        proc_policy_to_string(c->policy));
        if (!cgroupfs_exists(m->fs, path))
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT, "there is no cgroup %s/%s", m->mount,
                                        path);
        r = manager_check_scope_owner(m, scope_path, c->caller_uid, v);
        if (r != 0)
                return r;
        if (c->pid <= 0)
                return 0;
        r = manager_pin_owned(&c->pid, 1, c->caller_uid, pidfd, v);
        if (r != 0)
                return r;
        r = proc_get_cgroup(c->pid, "", &cg);
        if (r < 0)
                return hcbs_verdict_set(v, HCBS_E_NO_SUCH_PROCESS, ESRCH, "no process %d", (int) c->pid);
        if (strcmp(cg, path) != 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EXDEV, "process %d runs in /%s, not in /%s",
                                        (int) c->pid, cg, path);
        return 0;
}

/*
 * Admits and writes the scope's reservation (nodes[0]), then gives the
 * cgroups below it (nodes[1..n-1]) the same runtime and period. On a
 * failure after the scope's write, the scope's bandwidth is given back.
 * The rule of error.h.
 */
static int reserve_nodes(Manager *m, const CgroupReservation *c, const HcbsPool *pool, const char *unit,
                         HcbsNode **nodes, size_t n, HcbsVerdict *v) {
        GroupInfo *info = manager_group_info(nodes[0]);
        HcbsPlan plan;
        int r;

        if (info->unit && strcmp(info->unit, unit) != 0)
                return hcbs_verdict_set(v, HCBS_E_GROUP_BUSY, EBUSY, "/%s holds the reservation of %s",
                                        nodes[0]->path, info->unit);
        r = hcbs_admitted(hcbs_admit_pool_unit(&m->admission, pool, nodes[0], unit, c->runtime_us, c->period_us, NULL,
                                               &plan, v), v);
        if (r == 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r > 0)
                log_struct(LOG_WARNING, HCBS_MESSAGE_REFUSED,
                           &(LogFields) { .unit = unit, .error = hcbs_error_to_string(v->error), .bandwidth = true,
                                          .runtime_us = c->runtime_us, .period_us = c->period_us },
                           "%s: no reservation of %" PRIu64 "us/%" PRIu64 "us: %s", unit, c->runtime_us,
                           c->period_us, v->message);
        if (r != 0)
                return r;
        if (!info->unit && manager_group_set_unit(m, nodes[0], unit) < 0) {
                undo(m, nodes[0]);
                return -ENOMEM;
        }
        info->policy = c->policy;
        info->priority = c->priority;
        info->policy_pending = false;
        info->generation = ++m->generation;
        for (size_t i = 1; i < n; i++) {
                r = set_node(m, pool->node, nodes[i], c->period_us, (int64_t) c->runtime_us, v);
                if (r >= 0)
                        r = (int) v->error;
                if (r != 0) {
                        log_warning("%s: cannot give %s/%s the reservation: %s", unit, m->mount, nodes[i]->path,
                                    r < 0 ? strerror(-r) : v->message);
                        undo(m, nodes[0]);
                        return r;
                }
        }
        return 0;
}

/* The policy of the request for its pinned process, in the reservation just made. The rule of error.h. */
static int set_policy(Manager *m, const CgroupReservation *c, int pidfd, HcbsNode *scope, HcbsNode *leaf,
                      HcbsVerdict *v) {
        int r;

        if (c->pid <= 0 || c->policy == PROC_POLICY_KEEP)
                return 0;
        r = proc_set_policy_pinned(c->pid, pidfd, c->policy, c->priority);
        if (r < 0) {
                undo(m, scope);
                return hcbs_verdict_set(v, r == -ESRCH ? HCBS_E_NO_SUCH_PROCESS : HCBS_E_KERNEL_REJECTED, -r,
                                        "cannot make process %d %s %d: %s", (int) c->pid,
                                        proc_policy_to_string(c->policy), c->priority, strerror(-r));
        }
        (void) manager_refresh_tasks(m, leaf);
        return 0;
}

/* Refuses a cgroup in none of the pools, naming them. */
static int refuse_outside(Manager *m, const char *cgroup, HcbsVerdict *v) {
        char pools[HCBS_MESSAGE_MAX / 2] = "";

        for (size_t i = 0; i < manager_pool_count(m); i++)
                hcbs_strbuf_append(pools, sizeof(pools), "%s%s", i ? ", " : "",
                                   i ? m->pools[i - 1].cgroup : m->admission.pool->path);
        return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                "/%s is in none of hcbsd's pools (%s): start the container with --cgroup-parent= one "
                                "of them",
                                cgroup + strspn(cgroup, "/"), pools);
}

/*
 * cgroup (lib/container.h) normalized into *ret_path, and its scope's path
 * into *ret_scope, both relative to the mount (caller frees), in the pool
 * that holds it (*pool, released by the caller with
 * manager_pool_ref_done(); dry_run as for manager_pool_of()). The rule of
 * error.h: not without hcbs.slice, nor outside every pool.
 */
static int split_cgroup(Manager *m, const char *cgroup, bool dry_run, ManagerPoolRef *pool, char **ret_path,
                        char **ret_scope, HcbsVerdict *v) {
        char why[HCBS_MESSAGE_MAX];
        size_t scope_len;
        int r;

        if (!m->admission.pool)
                return refuse_no_pool(v);
        r = manager_pool_of(m, cgroup + strspn(cgroup, "/"), dry_run, pool);
        if (r <= 0)
                return r < 0 ? r : refuse_outside(m, cgroup, v);
        if (!pool->pool.node)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT, "there is no cgroup %s/%s", m->mount,
                                        pool->name);
        r = hcbs_container_cgroup_split(cgroup, pool->pool.node->path, ret_path, &scope_len, why, sizeof(why));
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%s", why);
        *ret_scope = strndup(*ret_path, scope_len);
        return *ret_scope ? 0 : -ENOMEM;
}

int manager_reserve_cgroup(Manager *m, const CgroupReservation *c, HcbsVerdict *v) {
        _cleanup_free_ char *path = NULL, *scope_path = NULL;
        HcbsNode *nodes[HCBS_CONTAINER_DEPTH_MAX + 1];
        char why[HCBS_MESSAGE_MAX];
        ManagerPoolRef pool = {};
        const char *unit;
        size_t n = 0;
        int pidfd = -1, r;

        assert(m);
        assert(c);
        assert(v);
        hcbs_verdict_ok(v);
        r = split_cgroup(m, c->cgroup, false, &pool, &path, &scope_path, v);
        if (r != 0)
                return r;
        unit = strrchr(scope_path, '/') + 1;
        r = check_request(m, c, path, scope_path, &pidfd, v);
        if (r == 0)
                r = path_nodes(m, pool.pool.node, path, nodes, &n);
        if (r == 0)
                r = reserve_nodes(m, c, &pool.pool, unit, nodes, n, v);
        if (r == 0)
                r = set_policy(m, c, pidfd, nodes[0], nodes[n - 1], v);
        manager_unpin(&pidfd, 1);
        if (r != 0)
                return r;
        manager_trim_pool(m);
        if (c->pid > 0 && c->policy != PROC_POLICY_KEEP)
                snprintf(why, sizeof(why), ", process %d runs %s %d", (int) c->pid, proc_policy_to_string(c->policy),
                         c->priority);
        else
                why[0] = '\0';
        log_struct(LOG_INFO, HCBS_MESSAGE_GRANTED,
                   &(LogFields) { .unit = unit, .bandwidth = true, .runtime_us = c->runtime_us,
                                  .period_us = c->period_us },
                   "%s: reserved %" PRIu64 "us every %" PRIu64 "us in %s/%s%s", unit, c->runtime_us, c->period_us,
                   m->mount, path, why);
        return 0;
}

int manager_check_cgroup(Manager *m, const char *cgroup, uint64_t runtime_us, uint64_t period_us, HcbsVerdict *v) {
        _cleanup_free_ char *path = NULL, *scope_path = NULL;
        ManagerPoolRef pool = {};
        HcbsNode *n = NULL;
        bool added = false;
        HcbsPlan plan;
        int r;

        assert(m);
        assert(cgroup);
        assert(v);
        hcbs_verdict_ok(v);
        r = split_cgroup(m, cgroup, true, &pool, &path, &scope_path, v);
        if (r == 0) {
                n = hcbs_model_find(m->model, scope_path);
                if (!n) { /* not made yet: admitted as the new child of the pool it will be */
                        r = hcbs_model_add(m->model, pool.pool.node, strrchr(scope_path, '/') + 1, &n);
                        added = r >= 0;
                }
        }
        if (r == 0) {
                r = hcbs_admitted(hcbs_admit_pool_unit(&m->admission, &pool.pool, n, n->name, runtime_us, period_us,
                                                       NULL, &plan, v), v);
                hcbs_plan_done(&plan);
        }
        if (added)
                (void) hcbs_model_remove(m->model, n);
        manager_pool_ref_done(m, &pool);
        return r;
}

int manager_release_cgroup(Manager *m, const char *cgroup, uid_t caller_uid, HcbsVerdict *v) {
        _cleanup_free_ char *path = NULL, *scope_path = NULL;
        ManagerPoolRef pool = {};
        GroupInfo *info;
        HcbsNode *n;
        int r;

        assert(m);
        assert(cgroup);
        assert(v);
        hcbs_verdict_ok(v);
        r = split_cgroup(m, cgroup, false, &pool, &path, &scope_path, v);
        if (r != 0)
                return r;
        n = hcbs_model_find(m->model, scope_path);
        info = n ? manager_group_info(n) : NULL;
        if (!info || !info->unit)
                return 0; /* nothing held: the poststop of a container hcbsd already let go */
        r = manager_check_scope_owner(m, scope_path, caller_uid, v);
        if (r != 0)
                return r;
        return manager_unit_drop(m, n, v);
}

bool manager_unit_is_container(const char *unit) {
        size_t len = unit ? strlen(unit) : 0, slen = strlen(HCBS_SCOPE_SUFFIX);

        return len > slen && strcmp(unit + len - slen, HCBS_SCOPE_SUFFIX) == 0;
}
