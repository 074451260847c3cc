/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Units' reservations. Under systemd the slice holding hcbsd's unit is the
 * pool (docs/systemd.md): its children are hcbsd's own cgroup (whose groups/ hold
 * hcbsd's groups) and the cgroups of services that declare a reservation.
 * The pool and hcbsd's cgroups hold exactly what their children hold,
 * growing on demand up to Capacity= (admission.h) and trimmed back after.
 * systemd creates and removes the units' cgroups; hcbsd writes only their
 * RT files. systemd names a unit's cgroup (systemd-watch.c); the name of
 * the directory is never parsed.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "log.h"
#include "message-ids.h"
#include "manager-internal.h"
#include "systemd-watch.h"

static int adopt_unit_cgroup(Manager *m, HcbsNode *pool, const char *name, void *userdata) {
        const char *own = userdata;
        HcbsNode *n;
        int r;

        if (strcmp(name, own) == 0)
                return 0;
        r = hcbs_model_add(m->model, pool, name, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot add the unit's cgroup %s to the model: %m", name);
        r = manager_group_info_ensure(n);
        if (r < 0)
                return r;
        r = manager_load_node(m, n);
        if (r < 0)
                return log_error_errno(r, "Cannot read the unit's cgroup %s/%s: %m", m->mount, n->path);
        /* a unit with Delegate=yes may have cgroups of its own */
        r = manager_for_each_subdir(m, n, manager_add_foreign, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot read the cgroups below %s/%s: %m", m->mount, n->path);
        return 0;
}

int manager_units_adopt(Manager *m) {
        HcbsNode *pool = m->policy.pool;
        const char *own = strrchr(m->own_cgroup, '/') + 1;
        int r;

        hcbs_model_set_foreign(m->model, pool, 0);
        r = manager_for_each_subdir(m, pool, adopt_unit_cgroup, (void *) own);
        if (r < 0)
                return log_error_errno(r, "Cannot read the units' cgroups in %s/%s: %m", m->mount, pool->path);
        return 0;
}

HcbsNode *manager_unit_node(const Manager *m, const char *unit) {
        if (!m->policy.pool)
                return NULL;
        HCBS_NODE_FOREACH_CHILD(n, m->policy.pool) {
                GroupInfo *info = manager_group_info(n);
                if (info && info->unit && strcmp(info->unit, unit) == 0)
                        return n;
        }
        return NULL;
}

void manager_trim_pool(Manager *m) {
        HcbsNode *stop = m->policy.pool ? m->policy.pool->parent : NULL;

        for (HcbsNode *n = m->policy.base; m->policy.pool && n != stop; n = n->parent) {
                HcbsPlanScope scope = { .base = m->policy.base };
                uint64_t runtime;
                HcbsPlan plan;
                HcbsVerdict v;
                int r;

                if (n->runtime_us <= 0 || n->period_us == 0 ||
                    hcbs_runtime_for_bw(n->period_us, n->children_bw, &runtime) < 0 ||
                    (int64_t) runtime >= n->runtime_us)
                        continue;
                r = hcbs_admitted(hcbs_plan_set(m->model, n, n->period_us, (int64_t) runtime, scope, &plan, &v), &v);
                if (r == 0)
                        r = manager_execute(m, &plan, &v);
                hcbs_plan_done(&plan);
                if (r > 0)
                        log_warning("Cannot give back the unused bandwidth of %s/%s: %s", m->mount, n->path, v.message);
                else if (r < 0)
                        log_warning_errno(r, "Cannot give back the unused bandwidth of %s/%s: %m", m->mount, n->path);
        }
}

/*
 * The node of a unit's cgroup, read afresh: systemd makes a new cgroup each
 * time the unit starts. 0 with *ret; a refusal if the cgroup is outside the
 * pool or gone; -errno if it cannot be read.
 */
static int unit_cgroup_node(Manager *m, const char *unit, const char *cgroup, HcbsNode **ret, HcbsVerdict *v) {
        HcbsNode *pool = m->policy.pool, *n;
        const char *name = strrchr(cgroup, '/');
        size_t plen = strlen(pool->path);
        int r;

        if (!name || (size_t) (name - cgroup) != plen || strncmp(cgroup, pool->path, plen) != 0 || !name[1] ||
            strcmp(name + 1, ".") == 0 || strcmp(name + 1, "..") == 0)
                return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                        "%s runs in /%s, outside %s/%s: give it Slice=%s (hcbs-generator does)", unit,
                                        cgroup, m->mount, pool->path, pool->name);
        name++;
        n = hcbs_model_find(m->model, cgroup);
        if (!cgroupfs_exists(m->fs, cgroup)) {
                if (n)
                        manager_forget_group(m, n);
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT,
                                        "%s has no cgroup %s/%s: reserve from its ExecStartPre=, while it starts",
                                        unit, m->mount, cgroup);
        }
        if (!n) {
                r = hcbs_model_add(m->model, pool, name, &n);
                if (r < 0)
                        return log_error_errno(r, "%s: cannot add %s/%s to the model: %m", unit, m->mount, cgroup);
        }
        r = manager_group_info_ensure(n);
        if (r < 0)
                return r;
        r = manager_load_node(m, n);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read %s/%s: %m", unit, m->mount, cgroup);
        *ret = n;
        return 0;
}

static int refuse_no_pool(HcbsVerdict *v) {
        return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                "units' reservations need hcbsd to run as hcbsd.service in a slice of its own under "
                                "systemd");
}

static void log_unit_refusal(const UnitReservation *u, const HcbsVerdict *v) {
        if (v->error == HCBS_E_KERNEL_REJECTED) /* kernel_rejected() logged the write */
                log_warning("%s: no reservation of %" PRIu64 "us/%" PRIu64 "us: %s", u->unit, u->runtime_us,
                            u->period_us, v->message);
        else
                log_struct(LOG_WARNING, HCBS_MESSAGE_REFUSED,
                           &(LogFields) { .unit = u->unit, .error = hcbs_error_to_string(v->error), .bandwidth = true,
                                          .runtime_us = u->runtime_us, .period_us = u->period_us },
                           "%s: no reservation of %" PRIu64 "us/%" PRIu64 "us: %s", u->unit, u->runtime_us,
                           u->period_us, v->message);
}

static int unit_info_set(GroupInfo *info, const UnitReservation *u, uint64_t generation) {
        if (!info->unit || strcmp(info->unit, u->unit) != 0) {
                char *unit = strdup(u->unit);
                if (!unit)
                        return -ENOMEM;
                free(info->unit);
                info->unit = unit;
        }
        info->policy = u->policy;
        info->priority = u->priority;
        info->policy_pending = proc_policy_is_rt(u->policy);
        info->generation = generation;
        return 0;
}

int manager_reserve_unit(Manager *m, const UnitReservation *u, HcbsVerdict *v) {
        _cleanup_free_ char *cgroup = NULL;
        HcbsNode *n = NULL;
        HcbsPlan plan;
        int r;

        assert(m);
        assert(u);
        assert(u->unit);
        assert(v);
        hcbs_verdict_ok(v);
        if (u->caller_uid != 0 && u->policy != PROC_POLICY_KEEP)
                /* the policy lands on the unit's processes, which are not the caller's to re-prioritise */
                return hcbs_verdict_set(v, HCBS_E_PERMISSION_DENIED, EPERM,
                                        "only root may choose the scheduling policy of %s's processes", u->unit);
        if (!m->policy.pool)
                return refuse_no_pool(v);
        r = systemd_unit_cgroup(m, u->unit, &cgroup, v); /* 1 found, 0 refused with v, -errno */
        if (r <= 0)
                return r < 0 ? r : (int) v->error;
        r = unit_cgroup_node(m, u->unit, cgroup, &n, v);
        if (r != 0)
                return r;
        r = hcbs_admitted(hcbs_admit_unit(&m->policy, n, u->unit, u->runtime_us, u->period_us, &plan, v), v);
        if (r == 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r > 0)
                log_unit_refusal(u, v);
        if (r != 0)
                return r;
        r = unit_info_set(manager_group_info(n), u, ++m->generation);
        manager_trim_pool(m); /* a smaller reservation than before */
        if (r < 0)
                return r;
        log_struct(LOG_INFO, HCBS_MESSAGE_GRANTED,
                   &(LogFields) { .unit = u->unit, .bandwidth = true, .runtime_us = u->runtime_us,
                                  .period_us = u->period_us },
                   "%s: reserved %" PRIu64 "us every %" PRIu64 "us in %s/%s", u->unit, u->runtime_us, u->period_us,
                   m->mount, n->path);
        return 0;
}

/* Runtime 0 for the unit's cgroup n, read afresh. */
static int give_back(Manager *m, HcbsNode *n, const char *unit, HcbsVerdict *v) {
        HcbsPlan plan;
        int r;

        r = manager_load_node(m, n); /* its processes have usually just exited */
        if (r < 0)
                return log_error_errno(r, "%s: cannot read %s/%s: %m", unit, m->mount, n->path);
        r = hcbs_admitted(hcbs_admit_unit(&m->policy, n, unit, 0, n->period_us, &plan, v), v);
        if (r == 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        return r;
}

int manager_unit_drop(Manager *m, HcbsNode *n, HcbsVerdict *v) {
        GroupInfo *info;
        _cleanup_free_ char *unit = NULL;
        int r;

        assert(m);
        assert(n);
        assert(v);
        info = manager_group_info(n);
        assert(info);
        unit = TAKE_PTR(info->unit);
        hcbs_verdict_ok(v);
        info->policy_pending = false;
        info->generation = ++m->generation;
        if (!cgroupfs_exists(m->fs, n->path)) {
                manager_forget_group(m, n);
                manager_trim_pool(m);
                return 0;
        }
        r = give_back(m, n, unit ? unit : n->name, v);
        if (r > 0) {
                log_warning("%s: cannot give the reservation back: %s", unit ? unit : n->path, v->message);
                info->unit = TAKE_PTR(unit); /* still held: try again on the next event */
        } else if (r == 0)
                log_struct(LOG_INFO, HCBS_MESSAGE_RELEASED, &(LogFields) { .unit = unit ? unit : n->path },
                           "%s: reservation given back", unit ? unit : n->path);
        manager_trim_pool(m);
        return r;
}

/* A reservation hcbsd did not record, found through systemd: the unit's cgroup holding runtime. */
static HcbsNode *unrecorded_unit_node(Manager *m, const char *unit) {
        _cleanup_free_ char *cgroup = NULL;
        HcbsNode *n = NULL;
        HcbsVerdict ignored;

        if (systemd_unit_cgroup(m, unit, &cgroup, &ignored) <= 0 || unit_cgroup_node(m, unit, cgroup, &n, &ignored) != 0)
                return NULL;
        return n->runtime_us != 0 ? n : NULL;
}

int manager_release_unit(Manager *m, const char *unit, HcbsVerdict *v) {
        HcbsNode *n;

        assert(m);
        assert(unit);
        assert(v);
        hcbs_verdict_ok(v);
        if (!m->policy.pool)
                return refuse_no_pool(v);
        n = manager_unit_node(m, unit);
        if (!n)
                n = unrecorded_unit_node(m, unit);
        return n ? manager_unit_drop(m, n, v) : 0;
}
