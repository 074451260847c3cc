/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's mode: daemon/kernel-facts.c reads each fixture of
 * tests/fixtures/kernel/ (a machine's /proc and /sys files), and
 * lib/kernel-mode.c decides. Each case checks the mode, whether hcbsd can run,
 * and the words of the reason and the fix a person acts on. The facts alone
 * (no files) cover what no fixture needs to show.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel-facts.h"
#include "kernel-mode.h"

#define FIXTURES HCBS_TEST_SRCDIR "/tests/fixtures/kernel/"

static HcbsKernelFacts facts;
static HcbsKernelVerdict verdict;

/* Reads fixture NAME for hcbsd's ROOT (NULL: the kernel alone). */
static void read_facts(const char *name, const char *root) {
        char prefix[512];

        snprintf(prefix, sizeof(prefix), "%s%s", FIXTURES, name);
        cr_assert_eq(kernel_facts_read(prefix, root, &facts), 0);
}

/* ... and decides. */
static void decide(const char *name, const char *root) {
        read_facts(name, root);
        hcbs_kernel_mode_decide(&facts, &verdict);
}

#define assert_mode(m, use)                                                                                    \
        do {                                                                                                   \
                cr_assert_str_eq(hcbs_kernel_mode_to_string(verdict.mode), hcbs_kernel_mode_to_string(m),      \
                                 "reason: %s", verdict.reason);                                                \
                cr_assert_eq(verdict.usable, (use));                                                           \
        } while (0)

#define assert_has(field, text) \
        cr_assert_not_null(strstr(verdict.field, (text)), #field " '%s' lacks '%s'", verdict.field, (text))

Test(kernel_mode, hcbs_rfc1) {
        decide("hcbs-rfc1", NULL);
        assert_mode(HCBS_MODE_HCBS_RFC1, true);
        cr_assert(verdict.guaranteed);
        cr_assert_eq(verdict.iface, HCBS_IFACE_RFC1);
        cr_assert_str_eq(facts.v2_mount, "/sys/fs/cgroup");
        cr_assert_str_eq(verdict.fix, "");
        /* the build facts are read only when no RT files exist */
        cr_assert_eq(facts.config_rt_group_sched, HCBS_TRI_UNKNOWN);
}

Test(kernel_mode, hcbs_rfc1_root_below_the_mount) {
        decide("hcbs-rfc1", "/sys/fs/cgroup/withcpu/hcbs");
        assert_mode(HCBS_MODE_HCBS_RFC1, true);
        cr_assert_str_eq(facts.root_anchor, "/sys/fs/cgroup/withcpu");
        cr_assert(facts.anchor_has_cpu);
}

Test(kernel_mode, rfc1_files_with_mainline_rules_are_mainline_v2) {
        read_facts("hcbs-rfc1", "/sys/fs/cgroup/hcbs");
        facts.probed = HCBS_IFACE_LEGACY_V2; /* start-up's probe: new groups start at the global period */
        hcbs_kernel_mode_decide(&facts, &verdict);
        assert_mode(HCBS_MODE_MAINLINE_V2, true);
        cr_assert_not(verdict.guaranteed);
        cr_assert_eq(verdict.iface, HCBS_IFACE_LEGACY_V2);
        assert_has(reason, "not HCBS's reservations");
}

Test(kernel_mode, hcbs_rtmax) {
        decide("hcbs-rtmax", "/sys/fs/cgroup/hcbs");
        assert_mode(HCBS_MODE_HCBS_RTMAX, true);
        cr_assert_eq(verdict.iface, HCBS_IFACE_RTMAX);
        cr_assert(verdict.guaranteed);
}

Test(kernel_mode, unlimited_runtime) {
        decide("unlimited", "/sys/fs/cgroup/hcbs");
        assert_mode(HCBS_MODE_UNLIMITED, true);
        cr_assert_not(verdict.guaranteed);
        cr_assert_eq(verdict.iface, HCBS_IFACE_RFC1);
        assert_has(reason, "kernel.sched_rt_runtime_us is -1");
        assert_has(reason, "(interface rfc1)");
        assert_has(fix, "sysctl kernel.sched_rt_runtime_us=950000");
}

Test(kernel_mode, mainline_v1_hybrid) {
        decide("mainline-v1", NULL);
        assert_mode(HCBS_MODE_MAINLINE_V1, true);
        cr_assert_not(verdict.guaranteed);
        cr_assert_str_eq(facts.v1_cpu_mount, "/sys/fs/cgroup/cpu,cpuacct");
        cr_assert_str_eq(facts.v2_mount, "/sys/fs/cgroup/unified");
        assert_has(reason, "cgroup-v1 cpu hierarchy /sys/fs/cgroup/cpu,cpuacct");
}

Test(kernel_mode, mainline_v1_root_through_the_symlink) {
        decide("mainline-v1", "/sys/fs/cgroup/cpu/hcbs");
        assert_mode(HCBS_MODE_MAINLINE_V1, true);
        cr_assert_str_eq(facts.root_mount, "/sys/fs/cgroup/cpu,cpuacct");
        cr_assert_eq(verdict.iface, HCBS_IFACE_LEGACY_V1);
}

Test(kernel_mode, root_on_a_v1_hierarchy_without_cpu) {
        decide("mainline-v1", "/sys/fs/cgroup/pids/hcbs");
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        assert_has(reason, "/sys/fs/cgroup/pids, which has no cpu controller");
        assert_has(fix, "CgroupRoot=auto");
        assert_has(fix, "/sys/fs/cgroup/cpu,cpuacct");
}

Test(kernel_mode, root_on_v2_when_the_files_are_on_v1) {
        decide("mainline-v1", "/sys/fs/cgroup/unified/hcbs");
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        assert_has(reason, "on cgroup v2, but this kernel's RT files are on the cgroup-v1 cpu hierarchy");
}

Test(kernel_mode, root_outside_any_cgroup_fs) {
        decide("hcbs-rfc1", "/proc/hcbs");
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        assert_has(reason, "is not in a cgroup file system");
}

Test(kernel_mode, root_below_a_cgroup_without_cpu) {
        decide("hcbs-rfc1", "/sys/fs/cgroup/nocpu/hcbs");
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        cr_assert_str_eq(facts.root_anchor, "/sys/fs/cgroup/nocpu");
        assert_has(reason, "the cpu controller is not enabled for /sys/fs/cgroup/nocpu");
        assert_has(fix, "+cpu");
}

Test(kernel_mode, none_from_the_boot_config) {
        decide("none-config", NULL);
        assert_mode(HCBS_MODE_NONE, false);
        cr_assert_eq(facts.config_rt_group_sched, HCBS_TRI_NO);
        assert_has(reason, "6.1.0-27-amd64 was built without CONFIG_RT_GROUP_SCHED (/boot/config-6.1.0-27-amd64)");
        assert_has(fix, "make demo KERNEL=hcbs");
        assert_has(fix, "CONFIG_RT_GROUP_SCHED=y");
}

Test(kernel_mode, none_from_kallsyms) {
        decide("none-kallsyms", NULL);
        assert_mode(HCBS_MODE_NONE, false);
        assert_has(reason, "without CONFIG_RT_GROUP_SCHED (/proc/kallsyms)");
}

Test(kernel_mode, none_when_nothing_says) {
        decide("none-unknown", NULL);
        assert_mode(HCBS_MODE_NONE, false);
        cr_assert_eq(facts.config_rt_group_sched, HCBS_TRI_UNKNOWN);
        assert_has(reason, "does not say why (no /boot/config-6.6.0-custom, no /proc/kallsyms)");
}

Test(kernel_mode, switch_off_on_the_command_line) {
        decide("switch-off-cmdline", NULL);
        assert_mode(HCBS_MODE_SWITCH_OFF, false);
        cr_assert_eq(facts.cmdline_switch, 0);
        cr_assert_eq(facts.has_switch, HCBS_TRI_YES);
        assert_has(reason, "rt_group_sched=0 on the kernel command line");
        assert_has(fix, "boot with rt_group_sched=1");
}

Test(kernel_mode, switch_off_by_default) {
        decide("switch-off-default", NULL);
        assert_mode(HCBS_MODE_SWITCH_OFF, false);
        cr_assert(facts.default_disabled);
        assert_has(reason, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED");
        assert_has(fix, "rt_group_sched=1");
}

Test(kernel_mode, default_off_switched_on_but_no_files_is_v1_only) {
        read_facts("switch-off-default", NULL);
        facts.cmdline_switch = 1; /* rt_group_sched=1: on, and still no files on v2 */
        hcbs_kernel_mode_decide(&facts, &verdict);
        assert_mode(HCBS_MODE_MAINLINE_V1_ONLY, false);
}

Test(kernel_mode, mainline_on_the_unified_hierarchy) {
        decide("mainline-v1-only", NULL);
        assert_mode(HCBS_MODE_MAINLINE_V1_ONLY, false);
        cr_assert_eq(facts.has_switch, HCBS_TRI_NO); /* 6.12: no rt_group_sched= */
        assert_has(reason, "exists on cgroup v1 only");
        assert_has(reason, "EPERM");
        assert_has(fix, "systemd.unified_cgroup_hierarchy=0");
        assert_has(fix, "make demo KERNEL=hcbs");
}

Test(kernel_mode, a_switch_the_kernel_does_not_have_is_ignored) {
        read_facts("mainline-v1-only", NULL);
        facts.cmdline_switch = 0; /* 6.12 passes rt_group_sched=0 on to init */
        hcbs_kernel_mode_decide(&facts, &verdict);
        assert_mode(HCBS_MODE_MAINLINE_V1_ONLY, false);
}

Test(kernel_mode, cpu_controller_disabled) {
        decide("cpu-disabled", NULL);
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        cr_assert_eq(facts.cpu_enabled, HCBS_TRI_NO);
        cr_assert(facts.cmdline_cpu_disabled);
        assert_has(reason, "cgroup_disable=cpu");
        assert_has(fix, "remove cgroup_disable=cpu");
}

Test(kernel_mode, rt_group_sched_but_no_cpu_mount) {
        HcbsKernelFacts f;

        hcbs_kernel_facts_init(&f);
        f.config_rt_group_sched = HCBS_TRI_YES;
        hcbs_kernel_mode_decide(&f, &verdict);
        assert_mode(HCBS_MODE_NO_CPU_CONTROLLER, false);
        assert_has(fix, "mount -t cgroup -o cpu");
}

Test(kernel_mode, the_files_win_over_the_command_line) {
        read_facts("hcbs-rfc1", NULL);
        facts.cmdline_switch = 0; /* a kernel without the switch ignores it, and its files are there */
        hcbs_kernel_mode_decide(&facts, &verdict);
        assert_mode(HCBS_MODE_HCBS_RFC1, true);
}

Test(kernel_mode, names_round_trip) {
        for (int i = 0; i < _HCBS_MODE_MAX; i++) {
                const char *s = hcbs_kernel_mode_to_string((HcbsKernelMode) i);
                cr_assert_not_null(s);
                cr_assert_eq(hcbs_kernel_mode_from_string(s), i);
        }
        cr_assert_null(hcbs_kernel_mode_to_string(_HCBS_MODE_MAX));
        cr_assert_eq(hcbs_kernel_mode_from_string("hcbs"), -EINVAL);
}

Test(kernel_mode, missing_files_are_unknown_not_errors) {
        cr_assert_eq(kernel_facts_read("/nonexistent-prefix", "/sys/fs/cgroup/hcbs", &facts), 0);
        cr_assert_str_eq(facts.v2_mount, "");
        cr_assert_eq(facts.cpu_enabled, HCBS_TRI_UNKNOWN);
        cr_assert_not(facts.have_sysctls);
        hcbs_kernel_mode_decide(&facts, &verdict);
        assert_mode(HCBS_MODE_NONE, false);
}
