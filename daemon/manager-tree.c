/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree: model nodes read from the kernel. A group's RT files and
 * processes into its node, a child found or added, the subdirectories of
 * a group walked, and a group the kernel no longer has forgotten; what
 * hcbsd knows of a group beyond the kernel (GroupInfo), with the two
 * indexes over it that keep look-ups O(1): units by name, and the names
 * of the persistent groups (what manager_save_persistent() writes); and
 * the collector's set of counted groups, which follows them. Start-up,
 * operations, units and containers build on these; they call nothing above.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hashmap.h"
#include "log.h"
#include "manager-internal.h"
#include "stats.h"

GroupInfo *manager_group_info(const HcbsNode *n) {
        return n->userdata;
}

int manager_group_info_ensure(HcbsNode *n) {
        if (!n->userdata)
                n->userdata = calloc(1, sizeof(GroupInfo));
        return n->userdata ? 0 : -ENOMEM;
}

/* Drops n's unit from the index, if the index has it for n (the key is n's own string). */
static void unindex_unit(Manager *m, const HcbsNode *n) {
        const GroupInfo *info = manager_group_info(n);

        if (m->units && info && info->unit && hashmap_get(m->units, info->unit) == n)
                (void) hashmap_remove(m->units, info->unit);
}

int manager_group_set_unit(Manager *m, HcbsNode *n, const char *unit) {
        GroupInfo *info = manager_group_info(n);
        char *copy = NULL;
        int r;

        if (unit && info->unit && strcmp(unit, info->unit) == 0)
                return 0;
        if (!m->units && (r = hashmap_new(&m->units)) < 0)
                return r;
        if (unit && !(copy = strdup(unit)))
                return -ENOMEM;
        unindex_unit(m, n);
        free(info->unit);
        info->unit = copy;
        if (!copy)
                return 0;
        (void) hashmap_remove(m->units, copy); /* another cgroup had it: the unit is where systemd says now */
        r = hashmap_put(m->units, copy, n);
        if (r < 0) {
                free(info->unit);
                info->unit = NULL;
        }
        return r;
}

HcbsNode *manager_unit_node(const Manager *m, const char *unit) {
        return m->units ? hashmap_get(m->units, unit) : NULL;
}

size_t manager_unit_count(const Manager *m) {
        return m->units ? hashmap_size(m->units) : 0;
}

int manager_group_set_persistent(Manager *m, HcbsNode *n, bool persistent) {
        const char *name = manager_group_name(m, n);
        GroupInfo *info = manager_group_info(n);
        char *copy;
        int r;

        if (!persistent) {
                if (m->persistent)
                        free(hashmap_remove(m->persistent, name));
                info->persistent = false;
                return 0;
        }
        if (!m->persistent && (r = hashmap_new(&m->persistent)) < 0)
                return r;
        if (hashmap_get(m->persistent, name)) {
                info->persistent = true;
                return 0;
        }
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        r = hashmap_put(m->persistent, copy, copy);
        if (r < 0) {
                free(copy);
                return r;
        }
        info->persistent = true;
        return 0;
}

size_t manager_persistent_count(const Manager *m) {
        return m->persistent ? hashmap_size(m->persistent) : 0;
}

void manager_group_info_free(Manager *m, HcbsNode *n) {
        GroupInfo *info = manager_group_info(n);

        if (!info)
                return;
        unindex_unit(m, n);
        if (info->persistent)
                (void) manager_group_set_persistent(m, n, false);
        free(info->unit);
        free(info);
        n->userdata = NULL;
}

static void free_infos(HcbsNode *n) {
        HCBS_NODE_FOREACH_CHILD(c, n)
                free_infos(c);
        if (n->userdata)
                free(((GroupInfo *) n->userdata)->unit);
        free(n->userdata);
}

void manager_tree_free(Manager *m) {
        char *name;

        if (m->model)
                free_infos(hcbs_model_root(m->model));
        m->model = hcbs_model_free(m->model);
        m->units = hashmap_free(m->units);
        for (size_t i = 0; m->persistent && hashmap_iterate(m->persistent, &i, NULL, (void **) &name);)
                free(name);
        m->persistent = hashmap_free(m->persistent);
}

/*
 * The collector's counted set follows the tree: a group is counted when it
 * is created (manager_changed_group_created()) or found (a unit's cgroup,
 * manager_child_node()), and forgotten when it is removed
 * (manager_changed_group_removed(), manager_forget_group()). Each costs
 * one cgroup id read and O(1) in the table (stats.c), whatever the size of
 * the tree; start-up counts what it adopts as it goes.
 * Counted: hcbsd's groups, and the units' and containers' cgroups in the
 * pools (not hcbsd's own, which holds its root).
 */
static bool counted(const Manager *m, const HcbsNode *n) {
        if (manager_is_group(m, n))
                return true;
        return manager_in_a_pool(m, n) && !hcbs_node_is_ancestor(n, m->admission.base);
}

static bool tracking(const Manager *m) {
        return m->stats && stats_capacity(m->stats) > 0;
}

void manager_stats_count(Manager *m, const HcbsNode *n, uint64_t id) {
        int r = 0;

        if (!tracking(m) || !counted(m, n))
                return;
        if (id == 0)
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

/* Sets n's processes, and how many of their threads are RT (a read per thread), from its cgroup.procs. */
static void set_tasks(Manager *m, HcbsNode *n, const pid_t *pids, size_t count, uint64_t now) {
        GroupInfo *info = manager_group_info(n);

        hcbs_model_set_tasks(m->model, n, (unsigned) count, proc_count_rt(pids, count));
        if (info)
                info->tasks_read_usec = now;
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
        set_tasks(m, n, pids, count, now);
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
        manager_group_info_free(m, n);
        (void) hcbs_model_remove(m->model, n);
}

/* rtmax v7: a reservation covers the group's cpuset, which the model then follows */
static bool with_cpus(const Manager *m, const HcbsNode *parent) {
        return hcbs_model_profile(m->model)->cpuset_coupling && parent;
}

static void set_values(Manager *m, HcbsNode *n, uint64_t period, int64_t runtime, const HcbsCpuSet *cpus) {
        hcbs_model_set(m->model, n, period, runtime);
        if (with_cpus(m, n->parent) && !hcbs_cpuset_equal(cpus, &n->cpus))
                hcbs_model_set_cpus(m->model, n, cpus);
}

int manager_load_values(Manager *m, HcbsNode *n) {
        HcbsCpuSet cpus = {};
        uint64_t period;
        int64_t runtime;
        int r = cgroupfs_read_rt(m->fs, n->path, &period, &runtime);

        if (r >= 0 && with_cpus(m, n->parent))
                r = cgroupfs_read_cpus(m->fs, n->path, &cpus);
        if (r < 0)
                return r;
        set_values(m, n, period, runtime, &cpus);
        return 0;
}

/* Reads a group's RT files, CPUs and processes into its model node. */
int manager_load_node(Manager *m, HcbsNode *n) {
        int r = manager_load_values(m, n);

        if (r < 0)
                return log_error_errno(r, "Cannot read the RT files of %s/%s: %m", m->mount, n->path);
        return manager_refresh_tasks(m, n);
}

static void child_path(const HcbsNode *parent, const char *name, char *buf, size_t size) {
        snprintf(buf, size, "%s%s%s", parent->path, parent->path[0] ? "/" : "", name);
}

int manager_child_node_from(Manager *m, HcbsNode *parent, const char *name, const CgroupFsFacts *f, HcbsNode **ret) {
        char path[PATH_MAX];
        HcbsNode *n = NULL;
        int r;

        if (f->error < 0) {
                child_path(parent, name, path, sizeof(path));
                return log_error_errno(f->error, "Cannot read the files of %s/%s: %m", m->mount, path);
        }
        r = hcbs_model_add(m->model, parent, name, &n);
        if (r == -EEXIST) {
                child_path(parent, name, path, sizeof(path));
                n = hcbs_model_find(m->model, path);
        }
        if (!n)
                return r < 0 ? r : -ENOENT;
        r = manager_group_info_ensure(n);
        if (r < 0)
                return r;
        set_values(m, n, f->period_us, f->runtime_us, &f->cpus);
        set_tasks(m, n, f->pids, f->n_pids, now_usec());
        manager_stats_count(m, n, f->id); /* the id read afresh: systemd makes a unit's cgroup anew */
        *ret = n;
        return 0;
}

int manager_child_node(Manager *m, HcbsNode *parent, const char *name, HcbsNode **ret) {
        const char *paths[1];
        char path[PATH_MAX];
        CgroupFsFacts f;
        int r;

        child_path(parent, name, path, sizeof(path));
        paths[0] = path;
        cgroupfs_read_facts(m->fs, paths, 1, with_cpus(m, parent), &f);
        r = manager_child_node_from(m, parent, name, &f, ret);
        cgroupfs_facts_done(&f, 1);
        return r;
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
        child_path(parent, name, path, sizeof(path));
        /* rtmax: a "max" cgroup (systemd's slices) counts what its subgroups reserve, not 100% */
        if (cgroupfs_read_share(m->fs, path, &bw) >= 0)
                hcbs_model_set_foreign(m->model, parent, parent->foreign_bw + bw);
        return 0;
}

/* SubdirFn: a subgroup the model does not hold counts as foreign in its parent. */
static int add_foreign_unmodelled(Manager *m, HcbsNode *parent, const char *name, void *userdata) {
        HCBS_NODE_FOREACH_CHILD(c, parent)
                if (strcmp(c->name, name) == 0)
                        return 0;
        return manager_add_foreign(m, parent, name, userdata);
}

int manager_recount_foreign(Manager *m, HcbsNode *parent) {
        hcbs_model_set_foreign(m->model, parent, 0);
        return manager_for_each_subdir(m, parent, add_foreign_unmodelled, NULL);
}
