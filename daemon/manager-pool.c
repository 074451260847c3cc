/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pool's other children: cgroups in the pool that hcbsd does not
 * reserve, such as a container started without hcbsd's annotations, or a
 * service with Slice=hcbs.slice and no [X-HCBS] section (docs/systemd.md).
 *
 * rfc1 and mainline start a new cgroup at runtime 0: its RT tasks are
 * refused (EPERM from sched_setscheduler(), EINVAL when one is moved in).
 * rtmax starts it at "max", where its RT tasks would run on the pool's own
 * servers: the pool's bandwidth beyond what its children reserve, which
 * hcbsd keeps at what those reservations need, so they would starve there,
 * or take what is meant for the next reservation. So on rtmax hcbsd gives
 * each such child runtime 0 (period 0) as soon as it appears (an inotify
 * watch on the pool) and at start: the same answer on every kernel, no RT
 * bandwidth without a reservation. A child that already runs RT tasks
 * cannot switch (the kernel refuses, EINVAL): hcbsd logs it and leaves it.
 * A reservation later made for the child (ReserveUnit, ReserveCgroup) goes
 * from 0 to its runtime, an ordinary write.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"

/* Whether the pool's children need hcbsd to close them: a new cgroup starts at "max" (rtmax). */
static bool plain_children_run_rt(const Manager *m) {
        return m->admission.pool && hcbs_model_profile(m->model)->max_delegation;
}

static const char *own_name(const Manager *m) {
        const char *slash = m->own_cgroup ? strrchr(m->own_cgroup, '/') : NULL;
        return slash ? slash + 1 : m->own_cgroup;
}

/* SubdirFn: the cgroups below a plain child as nodes, with their tasks (its RT tasks are theirs too). */
static int load_below(Manager *m, HcbsNode *parent, const char *name, void *userdata) {
        HcbsNode *n;
        int r = manager_child_node(m, parent, name, &n);

        if (r < 0)
                return r == -ENOENT ? 0 : r;
        return manager_for_each_subdir(m, n, load_below, NULL);
}

/* Runtime 0 for a child of the pool that is "max" and no reservation of hcbsd's. 0 or -errno. */
static int close_plain(Manager *m, HcbsNode *n) {
        HcbsPlanScope scope = { .base = m->admission.pool->parent, .pool = m->admission.pool };
        HcbsPlan plan;
        HcbsVerdict v;
        int r;

        if (!hcbs_node_is_max(hcbs_model_profile(m->model), n) || (own_name(m) && strcmp(n->name, own_name(m)) == 0))
                return 0;
        /* the kernel refuses the switch while RT tasks run in it or its "max" subgroups (crun's "container") */
        (void) manager_refresh_tasks(m, n);
        r = manager_for_each_subdir(m, n, load_below, NULL);
        if (r < 0 && r != -ENOENT)
                return log_warning_errno(r, "Cannot read the cgroups below %s/%s: %m", m->mount, n->path);
        r = hcbs_plan_set(m->model, n, 0, 0, scope, &plan, &v);
        if (r > 0)
                r = manager_execute(m, &plan, &v);
        hcbs_plan_done(&plan);
        if (r < 0)
                return log_warning_errno(r, "Cannot give %s/%s runtime 0: %m", m->mount, n->path);
        if (v.error != HCBS_OK) {
                log_warning("%s/%s holds no reservation but its RT tasks run on %s/%s's bandwidth; hcbsd cannot "
                            "give it runtime 0: %s",
                            m->mount, n->path, m->mount, m->admission.pool->path, v.message);
                return 0;
        }
        log_debug("%s/%s holds no reservation: runtime 0, RT tasks refused there", m->mount, n->path);
        return 0;
}

static void on_pool_child(const char *name, bool created, void *userdata) {
        Manager *m = userdata;
        HcbsNode *pool = m->admission.pool, *n = NULL;
        char path[PATH_MAX];
        GroupInfo *info;

        snprintf(path, sizeof(path), "%s/%s", pool->path, name);
        n = hcbs_model_find(m->model, path);
        if (!created) {
                /* gone: forget it unless it is a unit's, which systemd's signals settle */
                info = n ? manager_group_info(n) : NULL;
                if (n && (!info || !info->unit) && n->runtime_us <= 0)
                        manager_forget_group(m, n);
                return;
        }
        if (!n && manager_child_node(m, pool, name, &n) < 0)
                return; /* gone already, or not a cgroup hcbsd can read */
        (void) close_plain(m, n);
}

static int close_existing(Manager *m, HcbsNode *pool, const char *name, void *userdata) {
        char path[PATH_MAX];
        HcbsNode *n;

        snprintf(path, sizeof(path), "%s/%s", pool->path, name);
        n = hcbs_model_find(m->model, path);
        return n ? close_plain(m, n) : 0;
}

int manager_pool_watch(Manager *m) {
        int r;

        if (!plain_children_run_rt(m) || m->pool_watch)
                return 0;
        r = cgroupfs_watch_children(m->fs, m->event, m->admission.pool->path, on_pool_child, m, &m->pool_watch);
        if (r < 0)
                return log_error_errno(r, "Cannot watch %s/%s for new cgroups: %m", m->mount, m->admission.pool->path);
        return manager_for_each_subdir(m, m->admission.pool, close_existing, NULL);
}

void manager_pool_unwatch(Manager *m) {
        m->pool_watch = sd_event_source_disable_unref(m->pool_watch);
}
