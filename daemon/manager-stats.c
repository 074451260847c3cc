/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager's side of the statistics: the backend, started before the
 * tree is adopted (adoption counts each group it finds; from then on the
 * counted set follows the changes, manager-tree.c), and one group's
 * figures for GetStats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"
#include "manager-stats.h"
#include "stats.h"

/* Units' reservations counted beyond MaxGroups= (the pool's children are not hcbsd's groups). */
#define STATS_UNIT_SLOTS 256u

int manager_stats_start(Manager *m) {
        uint32_t capacity = m->conf.max_groups + STATS_UNIT_SLOTS;
        int r;

        if (m->stats)
                return 0;
        if (capacity < m->conf.max_groups)
                capacity = UINT32_MAX;
        r = stats_new(&m->stats, capacity);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the statistics: %m");
        if (stats_have_bpf(m->stats))
                log_info("Statistics from the BPF collector (%s)", stats_bpf_how(m->stats));
        else
                log_warning("Statistics from cgroupfs only: %s", stats_backend_reason(m->stats));
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
                /* O(1): a unit's cgroup that systemd made anew since (the same path, a new id) starts again */
                manager_stats_count(m, n, 0);
                r = stats_read(m->stats, n->path, &s.bpf);
                if (r < 0 && r != -ENOENT)
                        log_debug_errno(r, "Cannot read the BPF counters of %s: %m", n->path);
                s.have_bpf = r >= 0;
                s.n_servers = stats_features(m->stats) & HCBS_FEATURE_SERVERS ? stats_ncpus(m->stats) : 0;
                if (s.have_bpf && s.n_servers > 0) {
                        s.servers = calloc(s.n_servers, sizeof(struct hcbs_server_cpu));
                        if (!s.servers)
                                return -ENOMEM;
                        r = stats_read_servers(m->stats, n->path, s.servers);
                        if (r < 0) {
                                free(s.servers);
                                s.servers = NULL;
                                log_debug_errno(r, "Cannot read the BPF server figures of %s: %m", n->path);
                        }
                }
                if (!s.servers)
                        s.n_servers = 0;
        }
        /* share of the reservation: RT time over what runtime/period allows in the window */
        s.share = -1.0;
        if (s.have_bpf && n->runtime_us > 0 && n->period_us > 0 && s.bpf.window_ns > 0)
                s.share = (double) s.bpf.c.rt_time_ns /
                          ((double) s.bpf.window_ns * (double) n->runtime_us / (double) n->period_us);
        *ret = s;
        return 0;
}

void manager_stats_done(ManagerStats *s) {
        free(s->servers);
        s->servers = NULL;
        s->n_servers = 0;
}

const char *manager_stats_servers_unavailable(const Manager *m) {
        if (!m->stats || !stats_have_bpf(m->stats) || stats_features(m->stats) & HCBS_FEATURE_SERVERS)
                return NULL;
        return HCBS_STATS_NO_SERVERS;
}
