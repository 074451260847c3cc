/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's side of the statistics: which cgroups the collector
 * counts (hcbsd's groups and the units' reservations in the pool, kept in
 * step by manager_stats_sync() whenever groups come and go), and one
 * group's figures for GetStats.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"
#include "manager-stats.h"
#include "stats.h"

static bool warned_full; /* said once that every slot is taken */

/* hcbsd's groups, and the units' cgroups beside hcbsd's root in the pool. */
static bool counted(const Manager *m, const HcbsNode *n) {
        if (manager_is_group(m, n))
                return true;
        return m->admission.pool && n->parent == m->admission.pool && n != m->admission.base;
}

static void sync_children(Manager *m, const HcbsNode *parent) {
        for (HcbsNode *c = parent->first_child; c; c = c->next) {
                uint64_t id;
                int r;

                if (counted(m, c)) {
                        r = cgroupfs_cgroup_id(m->fs, c->path, &id);
                        if (r >= 0)
                                r = stats_track(m->stats, c->path, id);
                        if (r == -ENOSPC && !warned_full) {
                                log_warning("The BPF collector counts at most %u groups; %s and later ones are not counted",
                                            HCBS_STATS_MAX_GROUPS, c->path);
                                warned_full = true;
                        } else if (r < 0)
                                log_debug_errno(r, "Cannot count %s in the BPF collector: %m", c->path);
                }
                sync_children(m, c);
        }
}

void manager_stats_sync(Manager *m) {
        if (!m->stats || !stats_have_bpf(m->stats) || !m->model)
                return;
        stats_sync_begin(m->stats);
        sync_children(m, hcbs_model_root(m->model));
        stats_sync_end(m->stats);
}

int manager_stats_start(Manager *m) {
        int r;

        if (m->stats)
                return 0;
        r = stats_new(&m->stats);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the statistics: %m");
        if (stats_have_bpf(m->stats))
                log_info("Statistics from the BPF collector (%s)", stats_bpf_how(m->stats));
        else
                log_warning("Statistics from cgroupfs only: %s", stats_backend_reason(m->stats));
        manager_stats_sync(m);
        return 0;
}

void manager_stats_stop(Manager *m) {
        m->stats = stats_free(m->stats);
}

const char *manager_stats_backend(const Manager *m) {
        return m->stats ? stats_backend(m->stats) : "cgroupfs";
}

const char *manager_stats_backend_reason(const Manager *m) {
        return m->stats ? stats_backend_reason(m->stats) : "statistics not started";
}

int manager_get_stats(Manager *m, const char *name, ManagerStats *ret) {
        ManagerStats s = {};
        HcbsNode *n;
        int r;

        n = name[0] ? hcbs_admission_find(&m->admission, name) : m->admission.base;
        if (!n && name[0])
                n = manager_unit_node(m, name);
        if (!n)
                return -ENOENT;
        s.node = n;
        if (cgroupfs_read_cpu_stat(m->fs, n->path, s.cpu_stat, ELEMENTSOF(s.cpu_stat), &s.n_cpu_stat) < 0)
                s.n_cpu_stat = 0; /* the kernel has none here: nothing to serve */
        if (m->stats && stats_have_bpf(m->stats)) {
                manager_stats_sync(m); /* in case a group came or went without telling us */
                r = stats_read(m->stats, n->path, &s.bpf);
                if (r < 0 && r != -ENOENT)
                        log_debug_errno(r, "Cannot read the BPF counters of %s: %m", n->path);
                s.have_bpf = r >= 0;
        }
        /* share of the reservation: RT time over what runtime/period allows in the window */
        s.share = -1.0;
        if (s.have_bpf && n->runtime_us > 0 && n->period_us > 0 && s.bpf.window_ns > 0)
                s.share = (double) s.bpf.c.rt_time_ns /
                          ((double) s.bpf.window_ns * (double) n->runtime_us / (double) n->period_us);
        *ret = s;
        return 0;
}
