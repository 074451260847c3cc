/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbs-kernel-diff: the model against whatever kernel this runs on, for the
 * qemu guests (cgroup v2) and by hand. Detects the interface like hcbsd,
 * runs random operations in a scratch subtree it removes, prints every
 * disagreement and a summary line, and exits 0 only with none.
 *
 *   hcbs-kernel-diff [--mount PATH] [--ops N] [--seed S] [--interface NAME] [--write-root]
 *
 * --write-root also writes the root cgroup's RT files: for a throwaway guest only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-diff.h"

static int pick_interface(const char *mount, const char *want, HcbsInterface *ret) {
        CgroupFs *fs;
        char why[256];
        int r;

        if (want) {
                r = hcbs_interface_from_string(want);
                if (r < 0)
                        return fprintf(stderr, "unknown interface '%s'\n", want), r;
                *ret = (HcbsInterface) r;
                return 0;
        }
        r = cgroupfs_detect(mount, ret, why, sizeof(why));
        if (r < 0)
                return fprintf(stderr, "%s\n", why), r;
        if (*ret != HCBS_IFACE_RFC1)
                return 0;
        /* v2 files: HCBS, or mainline rules behind them? A new group's period tells. */
        r = cgroupfs_open(mount, *ret, &fs);
        if (r >= 0) {
                CgroupFsError e;
                (void) cgroupfs_enable_cpu(fs, "", &e);
                r = cgroupfs_probe_v2_rules(fs, "", ret);
                cgroupfs_free(fs);
        }
        return r;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "mount", required_argument, NULL, 'm' },
                { "ops", required_argument, NULL, 'n' },
                { "seed", required_argument, NULL, 's' },
                { "interface", required_argument, NULL, 'i' },
                { "write-root", no_argument, NULL, 'r' },
                {}
        };
        KernelDiffOptions o = {
                .mount = "/sys/fs/cgroup",
                .ops = 2500,
                .max_depth = 4,
                .seed = 0x6ec2,
                .scratch_runtime_us = 500000,
                .scratch_period_us = 1000000,
        };
        const char *want = NULL;
        KernelDiffResult res = {};
        int c, r;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'm': o.mount = optarg; break;
                case 'n': o.ops = (unsigned) strtoul(optarg, NULL, 10); break;
                case 's': o.seed = strtoull(optarg, NULL, 0); break;
                case 'i': want = optarg; break;
                case 'r': o.write_root = true; break;
                default: return 2;
                }
        r = pick_interface(o.mount, want, &o.iface);
        if (r < 0)
                return 1;
        printf("interface: %s on %s\n", hcbs_interface_to_string(o.iface), o.mount);
        r = kernel_diff_run(&o, &res);
        if (r < 0) {
                fprintf(stderr, "setup failed: %s\n", strerror(-r));
                return 1;
        }
        printf("%s: %u ops: %u writes (%u accepted, %u refused), %u creates, %u deletes, %u attaches, "
               "%u setscheduler\n",
               hcbs_interface_to_string(o.iface), res.ops, res.writes, res.accepted, res.refused, res.creates,
               res.deletes, res.attaches, res.setschedulers);
        static const char *const reasons[_HCBS_REASON_MAX] = {
                [HCBS_REASON_PARENT_HAS_RT] = "leaf-rule",   [HCBS_REASON_ROOT_ZERO] = "root-zero",
                [HCBS_REASON_PERIOD_ZERO] = "period-0",      [HCBS_REASON_RUNTIME_RANGE] = "runtime-range",
                [HCBS_REASON_PERIOD_RANGE] = "period-range", [HCBS_REASON_RUNTIME_SMALL] = "runtime<1024ns",
                [HCBS_REASON_ROOT_STALLED] = "root-stalled", [HCBS_REASON_PARENT_FULL] = "parent-full",
                [HCBS_REASON_RUNTIME_ABOVE_PERIOD] = "runtime>period", [HCBS_REASON_RT_TASKS] = "rt-tasks-busy",
                [HCBS_REASON_GLOBAL_LIMIT] = "global", [HCBS_REASON_ROOT_RESERVE] = "root-reserve",
                [HCBS_REASON_CHILDREN_EXCEED] = "children-exceed", [HCBS_REASON_ROOT_MAX] = "root-max",
                [HCBS_REASON_SWITCH_RT_TASKS] = "switch-with-rt", [HCBS_REASON_CPUSET_RESERVED] = "cpuset-reserved",
                [HCBS_REASON_CPUSET_POPULATED] = "cpuset-populated",
        };
        if (o.iface == HCBS_IFACE_RTMAX && res.revision < 7)
                printf("rtmax: %u max <-> reservation switches, %u attaches into inner groups (%u refused by cgroup "
                       "v2 itself), %u cpu.rt.internal comparisons\n",
                       res.switches, res.internal_attaches, res.core_refusals, res.internal_checks);
        if (o.iface == HCBS_IFACE_RTMAX && res.revision >= 7)
                printf("rtmax v7: %u max <-> reservation switches, %u attaches into inner groups (%u refused by "
                       "cgroup v2 itself), %u cpuset.cpus writes (%u accepted, %u refused above a reservation), "
                       "%u per-CPU comparisons of cpu.rt.max.effective.local, %u of cpuset.cpus.effective, "
                       "%u writes refused short on a CPU other than 0\n",
                       res.switches, res.internal_attaches, res.core_refusals, res.cpus_writes, res.cpus_accepted,
                       res.cpus_refused, res.cpu_checks, res.effective_checks, res.short_on_cpu);
        printf("refused by rule:");
        for (int i = 1; i < _HCBS_REASON_MAX; i++)
                if (res.refused_by[i])
                        printf(" %s=%u", reasons[i], res.refused_by[i]);
        printf("\n");
        printf("disagreements: %u\n", res.disagreements);
        return res.disagreements == 0 ? 0 : 1;
}
