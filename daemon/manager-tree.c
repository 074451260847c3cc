/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree: model nodes read from the kernel. A group's RT files and
 * processes into its node, a child found or added, the subdirectories of
 * a group walked, and a group the kernel no longer has forgotten; and the
 * collector's set of counted groups, which follows them. Start-up,
 * operations, units and containers build on these; they call nothing above.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "manager-internal.h"
#include "stats.h"

/*
 * The collector's counted set follows the tree: a group is counted when it
 * is created (manager_changed_group_created()) or found (a unit's cgroup,
 * manager_child_node()), and forgotten when it is removed
 * (manager_changed_group_removed(), manager_forget_group()). Each costs
 * one cgroup id read and O(1) in the table (stats.c), whatever the size of
 * the tree; only start-up walks the tree, once (manager_stats_start()).
 * Counted: hcbsd's groups, and the units' cgroups in the pool (not hcbsd's
 * own, which holds its root).
 */
static bool counted(const Manager *m, const HcbsNode *n) {
        const HcbsNode *pool = m->admission.pool;

        if (manager_is_group(m, n))
                return true;
        return pool && n->parent == pool && !hcbs_node_is_ancestor(n, m->admission.base);
}

static bool tracking(const Manager *m) {
        return m->stats && stats_capacity(m->stats) > 0;
}

void manager_stats_count(Manager *m, const HcbsNode *n) {
        uint64_t id;
        int r;

        if (!tracking(m) || !counted(m, n))
                return;
        r = cgroupfs_cgroup_id(m->fs, n->path, &id);
        if (r >= 0)
                r = stats_track(m->stats, n->path, id);
        if (r == -ENOSPC && !m->stats_full_said) {
                log_warning("The BPF collector counts at most %u groups; %s and later ones are not counted",
                            stats_capacity(m->stats), n->path);
                m->stats_full_said = true;
        } else if (r < 0 && r != -ENOSPC)
                log_debug_errno(r, "Cannot count %s in the BPF collector: %m", n->path);
}

void manager_stats_forget(Manager *m, const char *path) {
        if (tracking(m))
                (void) stats_untrack(m->stats, path); /* -ENOENT: it was not counted */
}

static uint64_t now_usec(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

int manager_group_pids(Manager *m, const HcbsNode *n, pid_t **ret, size_t *ret_n) {
        return cgroupfs_read_procs(m->fs, n->path, ret, ret_n);
}

static int refresh_tasks(Manager *m, HcbsNode *n, bool for_read) {
        _cleanup_free_ pid_t *pids = NULL;
        GroupInfo *info = manager_group_info(n);
        size_t count = 0;
        uint64_t now;
        int r;

        if (n->is_kernel_root)
                return 0; /* every process of the system: nothing to learn */
        r = manager_group_pids(m, n, &pids, &count);
        if (r == -ENOENT)
                return 0; /* the group went away */
        if (r < 0)
                return log_debug_errno(r, "Cannot read the processes of %s: %m", n->path);
        now = now_usec();
        /*
         * Reads anyone may make: the processes afresh (one file), their threads'
         * policies (a read per thread) at most once in the cache's time,
         * whatever the processes: a group that forks must not make every read
         * scan all its threads again.
         */
        if (for_read && info && info->tasks_read_usec && now - info->tasks_read_usec < HCBS_TASKS_CACHE_USEC) {
                hcbs_model_set_tasks(m->model, n, (unsigned) count, count ? n->nrt : 0);
                return 0;
        }
        hcbs_model_set_tasks(m->model, n, (unsigned) count, proc_count_rt(pids, count));
        if (info)
                info->tasks_read_usec = now;
        return 0;
}

int manager_refresh_tasks(Manager *m, HcbsNode *n) {
        return refresh_tasks(m, n, false);
}

void manager_refresh_tasks_for_read(Manager *m, HcbsNode *n) {
        (void) refresh_tasks(m, n, true);
}

/* Forgets a group the kernel no longer has: its metadata, then its model node. */
void manager_forget_group(Manager *m, HcbsNode *n) {
        while (n->first_child) /* gone with it (a container's subgroups) */
                manager_forget_group(m, n->first_child);
        manager_stats_forget(m, n->path);
        manager_group_info_free(n);
        (void) hcbs_model_remove(m->model, n);
}

/* Reads a group's RT files and processes into its model node. */
int manager_load_node(Manager *m, HcbsNode *n) {
        uint64_t period;
        int64_t runtime;
        int r = cgroupfs_read_rt(m->fs, n->path, &period, &runtime);

        if (r < 0)
                return log_error_errno(r, "Cannot read the RT files of %s/%s: %m", m->mount, n->path);
        hcbs_model_set(m->model, n, period, runtime);
        return manager_refresh_tasks(m, n);
}

int manager_child_node(Manager *m, HcbsNode *parent, const char *name, HcbsNode **ret) {
        char path[PATH_MAX];
        HcbsNode *n = NULL;
        int r;

        r = hcbs_model_add(m->model, parent, name, &n);
        if (r == -EEXIST) {
                snprintf(path, sizeof(path), "%s%s%s", parent->path, parent->path[0] ? "/" : "", name);
                n = hcbs_model_find(m->model, path);
        }
        if (!n)
                return r < 0 ? r : -ENOENT;
        r = manager_group_info_ensure(n);
        if (r < 0)
                return r;
        r = manager_load_node(m, n);
        if (r < 0)
                return r;
        manager_stats_count(m, n); /* a unit's cgroup, which systemd may have made anew */
        *ret = n;
        return 0;
}

int manager_for_each_subdir(Manager *m, HcbsNode *parent, SubdirFn fn, void *userdata) {
        CgroupFsChildren c = {};
        int r = cgroupfs_list_children(m->fs, parent->path, &c);

        for (size_t i = 0; r >= 0 && i < c.n; i++)
                r = fn(m, parent, c.names[i], userdata);
        cgroupfs_children_done(&c);
        return r;
}

int manager_add_foreign(Manager *m, HcbsNode *parent, const char *name, void *userdata) {
        const char *skip = userdata;
        char path[PATH_MAX];
        uint64_t bw;

        if (skip && strcmp(name, skip) == 0)
                return 0;
        snprintf(path, sizeof(path), "%s%s%s", parent->path, parent->path[0] ? "/" : "", name);
        /* rtmax: a "max" cgroup (systemd's slices) counts what its subgroups reserve, not 100% */
        if (cgroupfs_read_share(m->fs, path, &bw) >= 0)
                hcbs_model_set_foreign(m->model, parent, parent->foreign_bw + bw);
        return 0;
}
