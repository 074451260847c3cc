/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cgroupfs.h"
#include "manager.h"
#include "stats.h"

/*
 * Picks the statistics backend (logs once why it is not BPF), sized by
 * MaxGroups= and room for units' reservations. Called before adoption,
 * which counts each group it finds (manager_child_node()).
 */
int manager_stats_start(Manager *m);
/* Unloads the collector. */
void manager_stats_stop(Manager *m);
const char *manager_stats_backend(const Manager *m);
const char *manager_stats_backend_reason(const Manager *m);

typedef struct ManagerStats {
        const HcbsNode *node;
        CpuStatField cpu_stat[16]; /* the kernel's cpu.stat, v1's nanoseconds in v2's *_usec (cgroupfs.h) */
        size_t n_cpu_stat;
        bool have_bpf;
        StatsFigures bpf;
        double share; /* RT time / (runtime/period of the window); < 0 when unknown */
        /* with BPF on a kernel with HCBS's per-CPU servers: the group's server on each CPU, else NULL */
        struct hcbs_server_cpu *servers;
        unsigned n_servers;
} ManagerStats;

/* The figures of group NAME ("" for hcbsd's root) or of unit NAME's reservation; -ENOENT if none. */
int manager_get_stats(Manager *m, const char *name, ManagerStats *ret);
/* Frees what manager_get_stats() allocated in s. */
void manager_stats_done(ManagerStats *s);
/* Why the collector cannot count budget exhaustion here; NULL when it can (or there is no collector). */
const char *manager_stats_servers_unavailable(const Manager *m);
