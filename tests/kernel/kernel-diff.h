/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A differential test: random operations applied to the model and to a
 * real kernel's cgroup tree side by side. For each, the model's verdict
 * must be the kernel's errno. Used on the host (legacy-v1) and inside the
 * qemu guests (rfc1), with the scratch subtree given by the caller.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cgroupfs.h"
#include "model.h"

typedef struct KernelDiffOptions {
        const char *mount;    /* the hierarchy's mount point, e.g. /sys/fs/cgroup/cpu */
        HcbsInterface iface;
        unsigned ops;
        unsigned max_depth;   /* below the scratch root */
        uint64_t seed;
        int64_t scratch_runtime_us; /* the scratch root's own reservation */
        bool write_root;      /* also write the kernel root's files: only in a guest, never on a host */
        uint64_t scratch_period_us;
} KernelDiffOptions;

typedef struct KernelDiffResult {
        unsigned ops, writes, accepted, refused, attaches, setschedulers, creates, deletes;
        unsigned disagreements;
        unsigned refused_by[_HCBS_REASON_MAX]; /* refused writes by the model's reason */
        /* rtmax: accepted max <-> reservation switches, attaches into groups with children (internal tasks),
         * cgroup v2's own EBUSY for those, and cpu.rt.internal comparisons */
        unsigned switches, internal_attaches, core_refusals, internal_checks;
        /* rtmax v7: the revision, cpuset.cpus writes (accepted, refused above a reservation), per-CPU
         * comparisons of cpu.rt.max.effective.local and of cpuset.cpus.effective, refusals short on a
         * CPU of several */
        unsigned revision, cpus_writes, cpus_accepted, cpus_refused, cpu_checks, effective_checks, short_on_cpu;
} KernelDiffResult;

/* Runs the test; returns 0 or -errno for a setup failure (the scratch tree is always removed). */
int kernel_diff_run(const KernelDiffOptions *o, KernelDiffResult *ret);
