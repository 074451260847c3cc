/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/why.c's rules, one set-up each, from facts written by hand: the cause
 * named, its kind, and the words of its fix a person acts on.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "why.h"

static HcbsWhyFacts F;
static HcbsWhyCause C[HCBS_WHY_CAUSES_MAX];
static size_t N;

/* A SCHED_OTHER thread of root with CAP_SYS_NICE on a mainline-v1 kernel, in the cpu hierarchy's root. */
static void setup(void) {
        hcbs_why_facts_init(&F);
        F.pid = F.tid = 4242;
        snprintf(F.comm, sizeof(F.comm), "motor");
        F.cap_sys_nice = true;
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_MAINLINE_V1, .usable = true, .iface = HCBS_IFACE_LEGACY_V1 };
        snprintf(F.mount, sizeof(F.mount), "/sys/fs/cgroup/cpu");
        F.have_sysctls = true;
        F.rt_runtime_us = 950000;
        F.rt_period_us = 1000000;
        F.hcbsd_running = true;
        snprintf(F.hcbsd_root, sizeof(F.hcbsd_root), "hcbs");
        F.rtkit = HCBS_TRI_YES;
        N = 0;
}

TestSuite(why, .init = setup);

/* Appends a cgroup to the chain. */
static void node(const char *path, int64_t runtime_us, uint64_t period_us) {
        HcbsWhyNode *n = &F.chain[F.n_chain++];

        *n = (HcbsWhyNode) { .has_files = true, .runtime_us = runtime_us, .period_us = period_us };
        snprintf(n->path, sizeof(n->path), "%s", path);
}

static void in_group(const char *name) {
        F.managed = HCBS_WHY_MANAGED_GROUP;
        snprintf(F.managed_name, sizeof(F.managed_name), "%s", name);
}

static void diagnose(void) {
        N = hcbs_why_diagnose(&F, C, HCBS_WHY_CAUSES_MAX);
}

static const HcbsWhyCause *find(const char *id) {
        for (size_t i = 0; i < N; i++)
                if (strcmp(C[i].id, id) == 0)
                        return &C[i];
        return NULL;
}

static void dump(void) {
        for (size_t i = 0; i < N; i++)
                cr_log_info("%s [%s] %s | %s", C[i].id, hcbs_why_kind_to_string(C[i].kind), C[i].message, C[i].fix);
}

static const HcbsWhyCause *assert_cause(const char *id, HcbsWhyKind k) {
        const HcbsWhyCause *c = find(id);

        if (!c)
                dump();
        cr_assert_not_null(c, "no cause %s", id);
        cr_assert_eq(c->kind, k, "%s is %s", id, hcbs_why_kind_to_string(c->kind));
        return c;
}

#define assert_has(s, text) cr_assert_not_null(strstr((s), (text)), "'%s' lacks '%s'", (s), (text))

static void assert_healthy(void) {
        if (hcbs_why_any_wrong(C, N))
                dump();
        cr_assert_not(hcbs_why_any_wrong(C, N));
}

Test(why, healthy_thread_in_a_group) {
        node("", 950000, 1000000);
        node("hcbs", 500000, 1000000);
        node("hcbs/media", 20000, 100000);
        in_group("media");
        diagnose();
        assert_healthy();
        cr_assert_null(find("not-managed"));
}

Test(why, healthy_rt_thread_with_latency_note) {
        node("", 950000, 1000000);
        node("hcbs", 500000, 1000000);
        node("hcbs/media", 20000, 100000);
        in_group("media");
        F.policy = SCHED_FIFO;
        F.cap_sys_nice = false; /* already RT: its own limits no longer matter */
        F.have_stats = true;
        F.latency_count = 100;
        F.latency_p99_ns = 52000;
        F.latency_max_ns = 80000;
        F.reservation_share = 0.4;
        diagnose();
        assert_healthy();
        assert_has(assert_cause("latency", HCBS_WHY_NOTE)->message, "p99 52us, max 80us");
        cr_assert_null(find("rlimit-rtprio"));
}

Test(why, zero_runtime_group_of_hcbsd) {
        node("", 950000, 1000000);
        node("hcbs", 500000, 1000000);
        node("hcbs/idle", 0, 100000);
        in_group("idle");
        diagnose();
        const HcbsWhyCause *c = assert_cause("budget-zero", HCBS_WHY_BLOCKS);
        assert_has(c->message, "its cgroup /hcbs/idle has RT runtime 0");
        assert_has(c->fix, "hcbsctl set idle RUNTIME PERIOD");
        cr_assert(c->hcbsd_can_fix);
}

Test(why, zero_runtime_cgroup_not_hcbsd_s) {
        node("", 950000, 1000000);
        node("raw", 0, 1000000);
        diagnose();
        const HcbsWhyCause *c = assert_cause("budget-zero", HCBS_WHY_BLOCKS);
        assert_has(c->message, "and is not hcbsd's");
        assert_has(c->fix, "hcbsctl create GROUP RUNTIME PERIOD, then hcbsctl attach GROUP 4242 --fifo PRIO");
        assert_cause("not-managed", HCBS_WHY_NOTE);
}

Test(why, the_first_ancestor_at_zero_is_named) {
        node("", 950000, 1000000);
        node("raw", 0, 1000000);
        node("raw/child", 0, 1000000);
        diagnose();
        assert_has(assert_cause("budget-zero", HCBS_WHY_BLOCKS)->message, "/raw, above its cgroup /raw/child,");
        cr_assert_str_eq(hcbs_why_first_zero(&F)->path, "raw");
}

Test(why, hcbsd_not_running_adds_starting_it) {
        node("", 950000, 1000000);
        node("raw", 0, 1000000);
        F.hcbsd_running = false;
        diagnose();
        assert_has(assert_cause("budget-zero", HCBS_WHY_BLOCKS)->fix, "systemctl start hcbsd.service; hcbsctl create");
        assert_cause("hcbsd-absent", HCBS_WHY_NOTE);
}

Test(why, cgroups_without_rt_files_run_in_the_group_above) {
        F.mode.iface = HCBS_IFACE_RFC1;
        F.mode.mode = HCBS_MODE_HCBS_RFC1;
        node("", 0, 1000000); /* HCBS's root reserve: 0 blocks nothing in the root */
        node("user.slice", 0, 0);
        F.chain[1].has_files = false;
        diagnose();
        cr_assert_null(find("budget-zero"));
        assert_healthy();
}

Test(why, rtmax_max_groups_run_on_their_context) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_HCBS_RTMAX, .usable = true, .iface = HCBS_IFACE_RTMAX };
        node("", 0, 1000000);
        node("hcbs", 300000, 1000000);
        node("hcbs/t", -1, 1000000);
        F.chain[2].max = true;
        in_group("t");
        diagnose();
        cr_assert_null(find("budget-zero"));
        cr_assert_str_eq(hcbs_why_context(&F)->path, "hcbs");
        F.chain[1].runtime_us = 0; /* the context has nothing */
        diagnose();
        assert_has(assert_cause("budget-zero", HCBS_WHY_BLOCKS)->message, "/hcbs, above its cgroup /hcbs/t,");
        F.chain[1].max = true; /* max up to the root: the root's servers */
        diagnose();
        cr_assert_null(find("budget-zero"));
}

Test(why, leaf_rule_on_rfc1) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_HCBS_RFC1, .usable = true, .iface = HCBS_IFACE_RFC1 };
        node("", 900000, 1000000);
        node("hcbs", 500000, 1000000);
        node("hcbs/inner", 20000, 100000);
        in_group("inner");
        snprintf(F.busy_child, sizeof(F.busy_child), "hcbs/inner/t");
        diagnose();
        const HcbsWhyCause *c = assert_cause("leaf-rule", HCBS_WHY_BLOCKS);
        assert_has(c->message, "/hcbs/inner has a child with a reservation, /hcbs/inner/t");
        assert_has(c->fix, "cgroup.threads");
        cr_assert_not(c->hcbsd_can_fix); /* a threaded child made behind hcbsd's back */
        F.busy_child_managed = true;
        diagnose();
        c = assert_cause("leaf-rule", HCBS_WHY_BLOCKS);
        assert_has(c->fix, "hcbsctl attach inner/t 4242 --fifo PRIO");
        cr_assert(c->hcbsd_can_fix);
        /* mainline has no leaf rule */
        F.mode.iface = HCBS_IFACE_LEGACY_V2;
        diagnose();
        cr_assert_null(find("leaf-rule"));
}

Test(why, restrict_realtime) {
        node("", 950000, 1000000);
        snprintf(F.unit, sizeof(F.unit), "motor.service");
        F.restrict_realtime = true;
        F.seccomp_filter = true;
        diagnose();
        const HcbsWhyCause *c = assert_cause("restrict-realtime", HCBS_WHY_BLOCKS);
        assert_has(c->fix, "RestrictRealtime=no in motor.service");
        assert_has(c->fix, "hcbsctl attach GROUP 4242 --fifo PRIO");
        cr_assert_null(find("seccomp"));
}

Test(why, seccomp_without_a_unit_is_a_note) {
        node("", 950000, 1000000);
        F.seccomp_filter = true;
        diagnose();
        assert_cause("seccomp", HCBS_WHY_NOTE);
}

Test(why, root_without_cap_sys_nice) {
        node("", 950000, 1000000);
        F.cap_sys_nice = false;
        diagnose();
        const HcbsWhyCause *c = assert_cause("cap-sys-nice", HCBS_WHY_BLOCKS);
        assert_has(c->fix, "prlimit --rtprio=PRIO --pid 4242");
        cr_assert_null(find("rlimit-rtprio"));
        /* with a priority limit it may use those */
        F.rtprio_soft = 10;
        diagnose();
        cr_assert_null(find("cap-sys-nice"));
}

Test(why, user_without_rtprio) {
        node("", 950000, 1000000);
        F.cap_sys_nice = false;
        F.uid = 1000;
        F.rtkit = HCBS_TRI_NO;
        diagnose();
        const HcbsWhyCause *c = assert_cause("rlimit-rtprio", HCBS_WHY_BLOCKS);
        assert_has(c->message, "uid 1000 has no CAP_SYS_NICE and RLIMIT_RTPRIO is 0 (hard 0)");
        assert_has(c->fix, "/etc/security/limits.d/");
        assert_has(assert_cause("rtkit-absent", HCBS_WHY_NOTE)->fix, "apt install rtkit");
        F.rtprio_hard = 50;
        F.rtkit = HCBS_TRI_YES;
        diagnose();
        assert_has(assert_cause("rlimit-rtprio", HCBS_WHY_BLOCKS)->message, "which it may raise itself: 50");
        cr_assert_null(find("rtkit-absent"));
}

Test(why, unit_limit_rtprio) {
        node("", 950000, 1000000);
        F.cap_sys_nice = false;
        F.uid = 65534;
        snprintf(F.unit, sizeof(F.unit), "motor.service");
        diagnose();
        assert_has(assert_cause("rlimit-rtprio", HCBS_WHY_BLOCKS)->fix, "LimitRTPRIO=PRIO in motor.service");
}

Test(why, unit_outside_hcbs_slice) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_HCBS_RFC1, .usable = true, .iface = HCBS_IFACE_RFC1 };
        F.hcbsd_under_systemd = true;
        snprintf(F.hcbsd_root, sizeof(F.hcbsd_root), "hcbs.slice/hcbsd.service/groups");
        node("", 900000, 1000000);
        node("system.slice", 0, 0);
        node("system.slice/motor.service", 0, 0);
        snprintf(F.unit, sizeof(F.unit), "motor.service");
        snprintf(F.unit_slice, sizeof(F.unit_slice), "system.slice");
        diagnose();
        const HcbsWhyCause *c = assert_cause("unit-outside-slice", HCBS_WHY_BLOCKS);
        assert_has(c->message, "/system.slice, above its cgroup /system.slice/motor.service,");
        assert_has(c->fix, "Slice=hcbs.slice and [X-HCBS] Runtime=RUNTIME Period=PERIOD in motor.service");
        cr_assert_null(find("budget-zero"));
        /* RT already (no cpu controller below the root): no reservation backs it */
        F.chain[1].has_files = F.chain[2].has_files = false;
        F.policy = SCHED_FIFO;
        diagnose();
        assert_cause("unit-outside-slice", HCBS_WHY_SHARE);
}

Test(why, unit_in_hcbs_slice_without_reservation) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_HCBS_RFC1, .usable = true, .iface = HCBS_IFACE_RFC1 };
        F.hcbsd_under_systemd = true;
        node("", 900000, 1000000);
        node("hcbs.slice", 500000, 1000000);
        node("hcbs.slice/motor.service", 0, 0);
        snprintf(F.unit, sizeof(F.unit), "motor.service");
        snprintf(F.unit_slice, sizeof(F.unit_slice), "hcbs.slice");
        diagnose();
        assert_has(assert_cause("unit-no-reservation", HCBS_WHY_BLOCKS)->fix, "[X-HCBS] Runtime=RUNTIME");
}

Test(why, refused_reservation) {
        F.pid = F.tid = 0; /* the unit failed: no process */
        F.hcbsd_under_systemd = true;
        snprintf(F.unit, sizeof(F.unit), "greedy.service");
        snprintf(F.unit_state, sizeof(F.unit_state), "failed");
        F.unit_reserves = true;
        F.unit_runtime_us = 800000;
        F.unit_period_us = 1000000;
        F.free_bw = hcbs_bw(1000000, 500000);
        diagnose();
        const HcbsWhyCause *c = assert_cause("reservation-refused", HCBS_WHY_BLOCKS);
        assert_has(c->message, "asks hcbsd for 800000us every 1000000us (80.0% of each CPU)");
        assert_has(c->message, "hcbsd has 50.0% of its capacity free");
        assert_has(c->fix, "a smaller [X-HCBS] Runtime= in greedy.service");
        cr_assert_null(find("hcbsd-absent"));
        /* held: nothing to say */
        F.unit_reservation_held = true;
        diagnose();
        cr_assert_null(find("reservation-refused"));
}

Test(why, reserving_unit_not_started_yet) {
        F.pid = F.tid = 0;
        snprintf(F.unit, sizeof(F.unit), "later.service");
        snprintf(F.unit_state, sizeof(F.unit_state), "inactive");
        F.unit_reserves = true;
        diagnose();
        assert_cause("unit-inactive", HCBS_WHY_NOTE);
        F.hcbsd_running = false;
        diagnose();
        assert_has(assert_cause("hcbsd-absent", HCBS_WHY_BLOCKS)->fix, "systemctl start hcbsd.service");
}

Test(why, mainline_on_the_unified_hierarchy) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_MAINLINE_V1_ONLY, .usable = false };
        snprintf(F.mode.fix, sizeof(F.mode.fix), "boot the project's HCBS kernel");
        node("", 0, 0);
        node("system.slice", 0, 0);
        F.chain[0].has_files = F.chain[1].has_files = false;
        diagnose();
        const HcbsWhyCause *c = assert_cause("kernel-mode", HCBS_WHY_BLOCKS);
        cr_assert_not(c->hcbsd_can_fix);
        assert_has(c->fix, "HCBS kernel");
        /* in the root cgroup it may be RT: only a note that nothing can be reserved */
        F.n_chain = 1;
        diagnose();
        cr_assert_null(find("kernel-mode"));
}

Test(why, kernel_without_rt_groups_is_a_note) {
        F.mode = (HcbsKernelVerdict) { .mode = HCBS_MODE_NONE, .usable = false };
        node("", 0, 0);
        F.chain[0].has_files = false;
        diagnose();
        assert_cause("kernel-mode", HCBS_WHY_NOTE);
        assert_healthy();
}

Test(why, unlimited_costs_the_guarantee) {
        F.mode.mode = HCBS_MODE_UNLIMITED;
        snprintf(F.mode.fix, sizeof(F.mode.fix), "sysctl kernel.sched_rt_runtime_us=950000");
        node("", 950000, 1000000);
        diagnose();
        assert_has(assert_cause("rt-unlimited", HCBS_WHY_SHARE)->fix, "sysctl");
}

Test(why, budget_exhausted_and_used_up) {
        node("", 950000, 1000000);
        node("hcbs", 500000, 1000000);
        node("hcbs/spin", 10000, 100000);
        in_group("spin");
        F.policy = SCHED_FIFO;
        F.have_stats = true;
        F.window_ns = 2000000000;
        F.reservation_share = 0.98;
        diagnose();
        const HcbsWhyCause *c = assert_cause("budget-used-up", HCBS_WHY_SHARE);
        assert_has(c->message, "used 98% of its reservation over the last 2s");
        assert_has(c->fix, "hcbsctl size --observe spin");
        F.have_exhaustions = true;
        F.exhaustions = 12;
        F.throttled_ns = 30000000;
        diagnose();
        assert_has(assert_cause("budget-exhausted", HCBS_WHY_SHARE)->message,
                   "ran out of its budget 12 time(s) in the last 2s: its RT threads then waited 30ms in all");
        cr_assert_null(find("budget-used-up"));
}

Test(why, rlimit_rttime) {
        node("", 950000, 1000000);
        F.rttime_soft_us = 50000;
        diagnose();
        assert_cause("rlimit-rttime", HCBS_WHY_NOTE);
        F.policy = SCHED_RR;
        diagnose();
        const HcbsWhyCause *c = assert_cause("rlimit-rttime", HCBS_WHY_SHARE);
        assert_has(c->message, "RLIMIT_RTTIME is 50ms");
        assert_has(c->fix, "prlimit --rttime=unlimited --pid 4242");
        cr_assert_not(c->hcbsd_can_fix);
}

Test(why, global_rt_limit_note) {
        node("", 500000, 1000000);
        F.rt_runtime_us = 500000;
        diagnose();
        assert_has(assert_cause("rt-limit", HCBS_WHY_NOTE)->message, "at most 50% of each CPU");
}

Test(why, blocking_causes_come_first) {
        node("", 950000, 1000000);
        node("raw", 0, 1000000);
        F.hcbsd_running = false;
        F.cap_sys_nice = false;
        F.uid = 1000;
        F.rttime_soft_us = 1000;
        diagnose();
        cr_assert_geq(N, 4);
        for (size_t i = 1; i < N; i++)
                cr_assert_leq(C[i - 1].kind, C[i].kind);
        cr_assert_str_eq(C[0].id, "budget-zero");
}

Test(why, at_most_max_causes) {
        node("", 950000, 1000000);
        node("raw", 0, 1000000);
        F.cap_sys_nice = false;
        F.uid = 1000;
        F.rtkit = HCBS_TRI_NO;
        N = hcbs_why_diagnose(&F, C, 2);
        cr_assert_eq(N, 2);
}
