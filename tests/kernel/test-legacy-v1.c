/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The model against a real kernel: mainline RT_GROUP_SCHED on the cgroup-v1
 * cpu controller, in a scratch subtree of /sys/fs/cgroup/cpu that the test
 * creates and always removes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kernel-diff.h"

#define MOUNT "/sys/fs/cgroup/cpu"

/* Exit status 77 tells meson the test was skipped; the reason goes to the log. */
int main(int argc, char **argv) {
        struct criterion_test_set *tests;
        HcbsInterface iface;
        char why[256] = "";
        int r = 0;

        if (geteuid() != 0) {
                printf("SKIP: test-legacy-v1: needs root to create cgroups under " MOUNT "\n");
                return 77;
        }
        if (cgroupfs_detect(MOUNT, &iface, why, sizeof(why)) < 0 || iface != HCBS_IFACE_LEGACY_V1) {
                printf("SKIP: test-legacy-v1: no legacy-v1 RT group scheduling here: %s\n", why);
                return 77;
        }
        tests = criterion_initialize();
        if (criterion_handle_args(argc, argv, true))
                r = !criterion_run_all_tests(tests);
        criterion_finalize(tests);
        return r;
}

Test(kernel, legacy_v1_differential, .timeout = 600) {
        KernelDiffOptions o = {
                .mount = MOUNT,
                .iface = HCBS_IFACE_LEGACY_V1,
                .ops = 3000,
                .max_depth = 4,
                .seed = getenv("HCBS_SEED") ? strtoull(getenv("HCBS_SEED"), NULL, 0) : 0x1e6ac1,
                .scratch_runtime_us = 500000,
                .scratch_period_us = 1000000,
        };
        KernelDiffResult res = {};
        int r = kernel_diff_run(&o, &res);
        cr_assert_geq(r, 0, "setup failed: %s", strerror(-r));
        fprintf(stderr,
                "legacy-v1: %u ops: %u writes (%u accepted, %u refused), %u creates, %u deletes, %u attaches, "
                "%u setscheduler; %u disagreements\n",
                res.ops, res.writes, res.accepted, res.refused, res.creates, res.deletes, res.attaches,
                res.setschedulers, res.disagreements);
        cr_assert_eq(res.disagreements, 0, "%u disagreements between the model and the kernel", res.disagreements);
        cr_assert_geq(res.ops, 2000);
        cr_assert_gt(res.accepted, 200);
        cr_assert_gt(res.refused, 200);
}
