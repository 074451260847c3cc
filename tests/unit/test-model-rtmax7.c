/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rtmax profile's revision 7 (the author's devel-v7 tree: cpu.rt.max.effective.local), rule by
 * rule: per-CPU admission in ns (children's runtime scaled to the context's period, truncated, summed
 * per CPU), reservations bound to the effective cpuset, cpuset.cpus refused above a reservation,
 * the per-CPU runtime of the servers, and refusals that name the CPU that is short. Each boundary is
 * checked on both sides, by the O(1) check and by the whole-tree walk (assert_check).
 */
#include <inttypes.h>
#include <stdio.h>

#include "bandwidth.h"
#include "explain.h"
#include "helpers.h"

static HcbsModel *m;

static HcbsModel *model_v7(unsigned cpus) {
        HcbsProfile p;
        HcbsModel *ret = NULL;

        hcbs_profile_init(&p, HCBS_IFACE_RTMAX);
        cr_assert_eq(hcbs_profile_set_revision(&p, 7), 0);
        hcbs_profile_set_global(&p, 1000000, 1000000);
        hcbs_profile_set_cpus(&p, cpus);
        p.dl_total_bw = 0;
        cr_assert_eq(hcbs_model_new(&ret, &p, true), 0);
        hcbs_model_set(ret, hcbs_model_root(ret), 1000000, 1000000);
        return ret;
}

static void setup(void) {
        m = model_v7(4);
}
static void teardown(void) {
        char err[256];
        cr_assert_eq(hcbs_model_verify(m, err, sizeof(err)), 0, "%s", err);
        m = hcbs_model_free(m);
}
TestSuite(rtmax7, .init = setup, .fini = teardown);

static HcbsNode *add(const char *parent, const char *name) {
        HcbsNode *n = NULL;
        cr_assert_eq(hcbs_model_add(m, hcbs_model_find(m, parent), name, &n), 0, "add %s/%s", parent, name);
        return n;
}

static HcbsNode *add_set(const char *parent, const char *name, uint64_t period_us, int64_t runtime_us) {
        HcbsNode *n = add(parent, name);
        HcbsCheck c = hcbs_model_check(m, n, period_us, runtime_us);
        cr_assert_eq(c.kernel_errno, 0, "%s/%s %" PRId64 "/%" PRIu64 ": reason %d", parent, name, runtime_us, period_us,
                     c.reason);
        hcbs_model_set(m, n, period_us, runtime_us);
        return n;
}

static void set_cpus(HcbsNode *n, const char *list) {
        HcbsCpuSet cpus;
        cr_assert_eq(hcbs_cpuset_parse(list, &cpus), 0);
        cr_assert_eq(hcbs_model_check_cpus(m, n, &cpus).kernel_errno, 0, "cpuset.cpus %s of %s", list, n->path);
        hcbs_model_set_cpus(m, n, &cpus);
}

static const char *effective(const HcbsNode *n, char *buf, size_t size) {
        return hcbs_cpuset_format(&n->effective, buf, size);
}

#define assert_short_on(n, period, runtime, why, want_cpu)                                                   \
        do {                                                                                               \
                HcbsCheck _s = hcbs_model_check(m, (n), (period), (runtime));                              \
                assert_check(m, (n), (period), (runtime), EINVAL, (why));                                  \
                cr_assert_eq(_s.cpu, (want_cpu), "short on CPU %d, expected %d", _s.cpu, (want_cpu));      \
        } while (0)

Test(rtmax7, revision_sets_the_rules) {
        HcbsProfile p;
        hcbs_profile_init(&p, HCBS_IFACE_RTMAX);
        cr_assert_eq(p.revision, 6);
        cr_assert(!p.percpu_admission && !p.cpuset_coupling);
        cr_assert_eq(hcbs_profile_set_revision(&p, 7), 0);
        cr_assert(p.percpu_admission && p.cpuset_coupling);
        cr_assert_eq(hcbs_profile_set_revision(&p, 8), -EINVAL);
        hcbs_profile_init(&p, HCBS_IFACE_RFC1);
        cr_assert_eq(hcbs_profile_set_revision(&p, 7), -EINVAL);
}

Test(rtmax7, children_scale_to_the_context_period) {
        HcbsNode *ctx = add_set("", "ctx", 100000, 50000), *a = add("ctx", "a");
        /* 10ms every 20ms counts 10 * 100 / 20 = 50ms of ctx's 100ms period: exactly ctx's runtime */
        assert_check(m, a, 20000, 10000, 0, HCBS_REASON_NONE);
        assert_short_on(a, 20000, 10001, HCBS_REASON_PARENT_FULL, 0);
        hcbs_model_set(m, a, 20000, 10000);
        cr_assert_eq(ctx->cpu_sum[0], 50000000);
        cr_assert_eq(ctx->cpu_sum[3], 50000000);
        /* ctx shrinks to the same ratio at half the period: a counts 10 * 50 / 20 = 25ms there */
        assert_check(m, ctx, 50000, 25000, 0, HCBS_REASON_NONE);
        /* 49999/99999: a counts 25000 * 99999 / 50000 = 49999.5ms -> 49999500ns > 49999000ns */
        assert_short_on(ctx, 99999, 49999, HCBS_REASON_CHILDREN_EXCEED, 0);
        hcbs_model_set(m, ctx, 50000, 25000);
        cr_assert_eq(ctx->cpu_sum[0], 25000000);
}

Test(rtmax7, scaled_shares_truncate_each_child) {
        HcbsNode *ctx = add_set("", "ctx", 100000, 100000), *c[3];
        char name[8];

        /* 1ms every 3ms counts 33333333.3ns of 100ms, truncated: three of them fit in 99999999ns */
        for (int i = 0; i < 3; i++) {
                snprintf(name, sizeof(name), "c%d", i);
                c[i] = add_set("ctx", name, 3000, 1000);
        }
        cr_assert_eq(ctx->cpu_sum[1], 3 * UINT64_C(33333333));
        /* the server keeps 1ns, shown as 0us (rounded to the nearest) */
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 1), 0);
        /* one microsecond less does not hold the 99999999ns */
        assert_short_on(ctx, 100000, 99999, HCBS_REASON_CHILDREN_EXCEED, 0);
        /* at 99999us a period, each counts 33333000ns: 99999000ns fit in 99999us exactly */
        assert_check(m, ctx, 99999, 99999, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, ctx, 99999, 99999);
        cr_assert_eq(ctx->cpu_sum[0], 3 * UINT64_C(33333000));
        cr_assert_eq(c[0]->runtime_us, 1000);
}

Test(rtmax7, effective_cpus_follow_cpuset_v2) {
        HcbsNode *a = add("", "a"), *b = add("a", "b"), *c = add("a", "c");
        char buf[64];

        cr_assert_str_eq(effective(a, buf, sizeof(buf)), "0-3");
        set_cpus(a, "0-1");
        cr_assert_str_eq(effective(b, buf, sizeof(buf)), "0-1");
        /* outside the parent's: all of the parent's */
        set_cpus(b, "2-3");
        cr_assert_str_eq(effective(b, buf, sizeof(buf)), "0-1");
        set_cpus(c, "1-2");
        cr_assert_str_eq(effective(c, buf, sizeof(buf)), "1");
        /* the parent widens: the children's follow */
        set_cpus(a, "");
        cr_assert_str_eq(effective(b, buf, sizeof(buf)), "2-3");
        cr_assert_str_eq(effective(c, buf, sizeof(buf)), "1-2");
}

Test(rtmax7, admission_is_per_cpu_of_the_cpuset) {
        HcbsNode *ctx = add("", "ctx"), *a = add("ctx", "a"), *b = add("ctx", "b"), *c = add("ctx", "c");

        set_cpus(ctx, "0-1");
        set_cpus(a, "0");
        set_cpus(b, "1");
        set_cpus(c, "1");
        hcbs_model_set(m, ctx, 100000, 50000);
        /* 50% on CPU 0 and 50% on CPU 1 both fit a 50% context on CPUs 0-1 */
        hcbs_model_set(m, a, 100000, 50000);
        assert_check(m, b, 100000, 50000, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, b, 100000, 50000);
        /* CPU 1 is full, CPU 0 too */
        assert_short_on(c, 100000, 1000, HCBS_REASON_PARENT_FULL, 1);
        hcbs_model_set(m, a, 100000, 40000);
        assert_short_on(c, 100000, 1000, HCBS_REASON_PARENT_FULL, 1);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 0), 10000);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 1), 0);
        /* no server off the cpuset */
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 2), 0);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, a, 1), 0);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, a, 0), 40000);
        /* the root counts ctx on its two CPUs only */
        cr_assert_eq(hcbs_model_root(m)->cpu_sum[0], 500000000);
        cr_assert_eq(hcbs_model_root(m)->cpu_sum[2], 0);
}

Test(rtmax7, max_groups_pass_up_at_the_context_period) {
        HcbsNode *ctx = add_set("", "ctx", 100000, 50000), *mx = add("ctx", "m"), *c = add("ctx/m", "c");

        cr_assert_eq(hcbs_node_cpu_runtime_us(m, mx, 2), -1);
        assert_check(m, c, 20000, 10000, 0, HCBS_REASON_NONE);
        assert_short_on(c, 20000, 10001, HCBS_REASON_PARENT_FULL, 0);
        hcbs_model_set(m, c, 20000, 10000);
        cr_assert_eq(mx->cpu_sum[0], 50000000);
        cr_assert_eq(ctx->cpu_sum[0], 50000000);
        /* m takes c's context at its own period: c counts 10 * 40 / 20 = 20ms of m's 40ms */
        assert_short_on(mx, 40000, 19999, HCBS_REASON_CHILDREN_EXCEED, 0);
        assert_check(m, mx, 40000, 20000, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, mx, 40000, 20000);
        cr_assert_eq(mx->cpu_sum[0], 20000000);
        cr_assert_eq(ctx->cpu_sum[0], 50000000);
        /* and back to max: c counts against ctx again */
        assert_check(m, mx, 0, -1, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, mx, 0, -1);
        cr_assert_eq(mx->cpu_sum[0], 50000000);
        /* what m passes up leaves no room beside it */
        HcbsNode *d = add("ctx", "d");
        assert_short_on(d, 100000, 1000, HCBS_REASON_PARENT_FULL, 0);
}

Test(rtmax7, cpuset_cannot_change_above_a_reservation) {
        HcbsNode *a = add("", "a"), *b = add("a", "b"), *c = add("a/b", "c");
        HcbsCpuSet cpus;

        cr_assert_eq(hcbs_cpuset_parse("1", &cpus), 0);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &cpus).kernel_errno, 0);
        hcbs_model_set(m, c, 100000, 10000);
        cr_assert_eq(a->n_reserved, 1);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &cpus).reason, HCBS_REASON_CPUSET_RESERVED);
        cr_assert_eq(hcbs_model_check_cpus(m, c, &cpus).kernel_errno, EINVAL);
        /* runtime 0 is still a reservation: only max lets the cpuset change */
        hcbs_model_set(m, c, 100000, 0);
        cr_assert_eq(hcbs_model_check_cpus(m, b, &cpus).kernel_errno, EINVAL);
        hcbs_model_set(m, c, 0, -1);
        cr_assert_eq(a->n_reserved, 0);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &cpus).kernel_errno, 0);
        /* v6 has no such rule */
        hcbs_model_profile_mut(m)->cpuset_coupling = false;
        hcbs_model_set(m, c, 100000, 10000);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &cpus).kernel_errno, 0);
        hcbs_model_profile_mut(m)->cpuset_coupling = true;
}

Test(rtmax7, a_populated_cpuset_keeps_a_list) {
        HcbsNode *a = add("", "a"), *b = add("a", "b");
        HcbsCpuSet none = {}, one;

        cr_assert_eq(hcbs_cpuset_parse("1", &one), 0);
        set_cpus(a, "0-1");
        hcbs_model_set_tasks(m, b, 1, 0);
        /* cpuset's validate_change(): processes below, a list may change but not empty */
        cr_assert_eq(hcbs_model_check_cpus(m, a, &none).kernel_errno, ENOSPC);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &none).reason, HCBS_REASON_CPUSET_POPULATED);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &one).kernel_errno, 0);
        /* b has none: nothing to empty */
        cr_assert_eq(hcbs_model_check_cpus(m, b, &none).kernel_errno, 0);
        hcbs_model_set_tasks(m, b, 0, 0);
        cr_assert_eq(hcbs_model_check_cpus(m, a, &none).kernel_errno, 0);
}

Test(rtmax7, server_runtime_in_whole_microseconds) {
        HcbsNode *ctx = add_set("", "ctx", 100000, 50000), *mx = add("ctx", "m");

        /* 1ms every 3ms counts 33333333ns: 16666667ns are left, shown as 16666us */
        add_set("ctx", "a", 3000, 1000);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 0), 16666);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, hcbs_model_find(m, "ctx/a"), 0), 1000);
        /* a "max" group shows max on every CPU, off its cpuset too */
        set_cpus(mx, "1");
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, mx, 0), -1);
        /* below 1024ns a server gets nothing */
        hcbs_model_set(m, ctx, 100000, 33334);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 0), 0, "667ns left: none");
        hcbs_model_set(m, ctx, 100000, 33335);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, ctx, 0), 1, "1667ns left: 1us");
}

Test(rtmax7, refusal_names_the_cpu_that_is_short) {
        HcbsNode *rt = add("", "rt"), *web;
        HcbsVerdict v;
        HcbsCheck c;

        set_cpus(rt, "2-3");
        hcbs_model_set(m, rt, 100000, 50000);
        set_cpus(add("rt", "db"), "3");
        hcbs_model_set(m, hcbs_model_find(m, "rt/db"), 100000, 35000);
        add_set("rt", "log", 100000, 10000);
        web = add("rt", "web");
        set_cpus(web, "3");
        c = hcbs_model_check(m, web, 100000, 20000);
        cr_assert_eq(c.reason, HCBS_REASON_PARENT_FULL);
        cr_assert_eq(c.cpu, 3);
        hcbs_explain(m, NULL, web, 100000, 20000, c, &v);
        cr_assert_str_eq(v.message, "cgroup /rt/web needs 20.0% on CPU 3; parent cgroup /rt has 5.0% free there");
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH);
        /* on CPU 2 it fits */
        set_cpus(web, "2");
        assert_check(m, web, 100000, 20000, 0, HCBS_REASON_NONE);
        /* rt cannot shrink below what CPU 3 holds */
        c = hcbs_model_check(m, rt, 100000, 40000);
        cr_assert_eq(c.reason, HCBS_REASON_CHILDREN_EXCEED);
        cr_assert_eq(c.cpu, 3);
        hcbs_explain(m, NULL, rt, 100000, 40000, c, &v);
        cr_assert_str_eq(v.message, "cgroup /rt would get 40.0% on CPU 3, but its children already hold 45.0% there");
}

Test(rtmax7, foreign_bandwidth_counts_on_every_cpu) {
        HcbsNode *ctx = add_set("", "ctx", 100000, 50000), *a = add("ctx", "a");

        /* 25% held by cgroups the model does not track: 25ms of 100ms on each CPU */
        hcbs_model_set_foreign(m, ctx, hcbs_bw(100000, 25000));
        cr_assert_eq(ctx->cpu_sum[2], 25000000);
        assert_short_on(a, 100000, 25001, HCBS_REASON_PARENT_FULL, 0);
        assert_check(m, a, 100000, 25000, 0, HCBS_REASON_NONE);
}
