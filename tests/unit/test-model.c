/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Each kernel rule at its boundary: the value that passes, and one unit more that fails. */
#include "bandwidth.h"
#include "helpers.h"

static HcbsModel *m;

static void legacy(void) {
        m = fixture_model(HCBS_IFACE_LEGACY_V1, true);
}
static void rfc1(void) {
        m = fixture_model(HCBS_IFACE_RFC1, true);
        /* rfc1's root starts at 0: give it the global 95% as an admin would */
        hcbs_model_set(m, hcbs_model_root(m), 1000000, 950000);
}
static void teardown(void) {
        char err[256];
        cr_assert_eq(hcbs_model_verify(m, err, sizeof(err)), 0, "%s", err);
        m = hcbs_model_free(m);
}

TestSuite(legacy, .init = legacy, .fini = teardown);
TestSuite(rfc1, .init = rfc1, .fini = teardown);

Test(legacy, initial_values) {
        HcbsNode *root = hcbs_model_root(m), *n;
        cr_assert_eq(root->runtime_us, 950000);
        cr_assert_eq(root->period_us, 1000000);
        cr_assert_eq(hcbs_model_add(m, root, "a", &n), 0);
        cr_assert_eq(n->period_us, 1000000, "legacy groups start at the global period");
        cr_assert_eq(n->runtime_us, 0);
        cr_assert_eq(hcbs_model_add(m, root, "a", NULL), -EEXIST);
}

Test(rfc1, initial_values) {
        HcbsNode *n;
        cr_assert_eq(hcbs_model_add(m, hcbs_model_root(m), "a", &n), 0);
        cr_assert_eq(n->period_us, 0, "rfc1 groups start at period 0");
        /* so the runtime cannot be written first */
        HcbsCheck c = hcbs_model_check_write(m, n, HCBS_FILE_RUNTIME, 1000, 0);
        cr_assert_eq(c.kernel_errno, EINVAL);
        cr_assert_eq(c.reason, HCBS_REASON_PERIOD_ZERO);
        c = hcbs_model_check_write(m, n, HCBS_FILE_PERIOD, 0, 10000);
        cr_assert_eq(c.kernel_errno, 0);
}

Test(legacy, period_zero) {
        HcbsNode *a = fixture_add(m, "", "a", 1000, 0);
        assert_check(m, a, 0, 0, EINVAL, HCBS_REASON_PERIOD_ZERO);
        assert_check(m, a, 1, 0, 0, HCBS_REASON_NONE);
}

Test(legacy, runtime_above_period) {
        /* the topmost known group with no limit above it: only its own rule applies */
        hcbs_model_free(m);
        m = fixture_model(HCBS_IFACE_LEGACY_V1, false);
        hcbs_profile_set_global(hcbs_model_profile_mut(m), -1, 1000000);
        HcbsNode *top = hcbs_model_root(m);
        assert_check(m, top, 1000, 1000, 0, HCBS_REASON_NONE);
        assert_check(m, top, 1000, 1001, EINVAL, HCBS_REASON_RUNTIME_ABOVE_PERIOD);
        /* unlimited is not "above the period" */
        assert_check(m, top, 1000, -1, 0, HCBS_REASON_NONE);
        /* below a parent, the parent's sum is visited first */
        HcbsNode *a = fixture_add(m, "", "a", 1000, 0);
        hcbs_model_set(m, top, 1000, 1000);
        assert_check(m, a, 1000, 1001, EINVAL, HCBS_REASON_PARENT_FULL);
}

Test(legacy, siblings_fill_parent_exactly) {
        HcbsNode *p = fixture_add(m, "", "p", 100000, 40000);
        fixture_add(m, "p", "a", 100000, 25000);
        HcbsNode *b = fixture_add(m, "p", "b", 100000, 0);
        assert_check(m, b, 100000, 15000, 0, HCBS_REASON_NONE);
        assert_check(m, b, 100000, 15001, EINVAL, HCBS_REASON_PARENT_FULL);
        /* and the parent cannot shrink below its children */
        hcbs_model_set(m, b, 100000, 15000);
        assert_check(m, p, 100000, 40000, 0, HCBS_REASON_NONE);
        assert_check(m, p, 100000, 39999, EINVAL, HCBS_REASON_CHILDREN_EXCEED);
        assert_check(m, p, 100001, 40000, EINVAL, HCBS_REASON_CHILDREN_EXCEED);
}

Test(legacy, global_limit) {
        /* only the root can reach it: any other group meets its parent's sum first */
        HcbsNode *root = hcbs_model_root(m);
        assert_check(m, root, 1000000, 950000, 0, HCBS_REASON_NONE);
        assert_check(m, root, 1000000, 950001, EINVAL, HCBS_REASON_GLOBAL_LIMIT);
        HcbsNode *a = fixture_add(m, "", "a", 1000000, 0);
        assert_check(m, a, 1000000, 950000, 0, HCBS_REASON_NONE);
        assert_check(m, a, 1000000, 950001, EINVAL, HCBS_REASON_PARENT_FULL);
}

Test(legacy, runtime_zero_with_rt_tasks) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 10000);
        hcbs_model_set_tasks(m, a, 1, 1);
        assert_check(m, a, 100000, 0, EBUSY, HCBS_REASON_RT_TASKS);
        assert_check(m, a, 100000, 1, 0, HCBS_REASON_NONE);
        /* legacy only refuses if the old runtime was non-zero */
        hcbs_model_set(m, a, 100000, 0);
        assert_check(m, a, 100000, 0, 0, HCBS_REASON_NONE);
        /* no RT tasks, no objection */
        hcbs_model_set_tasks(m, a, 1, 0);
        hcbs_model_set(m, a, 100000, 10);
        assert_check(m, a, 100000, 0, 0, HCBS_REASON_NONE);
}

Test(rfc1, runtime_zero_with_rt_tasks) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        hcbs_model_set_tasks(m, a, 1, 1);
        assert_check(m, a, 100000, 0, EBUSY, HCBS_REASON_RT_TASKS);
}

Test(legacy, root_runtime_zero) {
        HcbsNode *root = hcbs_model_root(m);
        assert_check(m, root, 1000000, 0, EINVAL, HCBS_REASON_ROOT_ZERO);
        assert_check(m, root, 1000000, 1, 0, HCBS_REASON_NONE);
}

Test(rfc1, root_runtime_zero_allowed_unless_rt_tasks) {
        HcbsNode *root = hcbs_model_root(m), *a;
        assert_check(m, root, 1000000, 0, 0, HCBS_REASON_NONE);
        hcbs_model_set_tasks(m, root, 40, 12);
        assert_check(m, root, 1000000, 0, EBUSY, HCBS_REASON_ROOT_STALLED);
        /* a root stalled at 0 with RT tasks blocks every write, before any other rule */
        hcbs_model_set(m, root, 1000000, 0);
        a = fixture_add(m, "", "a", 0, 0);
        assert_check(m, a, 100000, 200000, EBUSY, HCBS_REASON_ROOT_STALLED);
        assert_check(m, a, 0, 0, EINVAL, HCBS_REASON_PERIOD_ZERO);
}

Test(rfc1, runtime_minimum_1024ns) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        assert_check(m, a, 100000, 1, EINVAL, HCBS_REASON_RUNTIME_SMALL);
        assert_check(m, a, 100000, 2, 0, HCBS_REASON_NONE);
        assert_check(m, a, 100000, 0, 0, HCBS_REASON_NONE);
        hcbs_model_free(m);
        legacy();
        a = fixture_add(m, "", "a", 100000, 0);
        assert_check(m, a, 100000, 1, 0, HCBS_REASON_NONE);
}

Test(rfc1, period_msb) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        uint64_t msb_us = (UINT64_C(1) << 63) / 1000 + 1;
        assert_check(m, a, msb_us - 1, 0, 0, HCBS_REASON_NONE);
        assert_check(m, a, msb_us, 0, EINVAL, HCBS_REASON_PERIOD_RANGE);
        hcbs_model_free(m);
        legacy();
        a = fixture_add(m, "", "a", 100000, 0);
        assert_check(m, a, msb_us, 0, 0, HCBS_REASON_NONE);
}

Test(legacy, file_ranges) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        uint64_t max_rt_us = HCBS_MAX_RT_RUNTIME_NS / 1000;
        HcbsCheck c;
        hcbs_model_set(m, a, HCBS_MAX_FILE_USEC, 0);
        assert_check(m, a, HCBS_MAX_FILE_USEC, (int64_t) max_rt_us, 0, HCBS_REASON_NONE);
        assert_check(m, a, HCBS_MAX_FILE_USEC, (int64_t) max_rt_us + 1, EINVAL, HCBS_REASON_RUNTIME_RANGE);
        c = hcbs_model_check_write(m, a, HCBS_FILE_PERIOD, 0, HCBS_MAX_FILE_USEC + 1);
        cr_assert_eq(c.reason, HCBS_REASON_PERIOD_RANGE);
        c = hcbs_model_check_write(m, a, HCBS_FILE_RUNTIME, (int64_t) HCBS_MAX_FILE_USEC + 1, 0);
        cr_assert_eq(c.reason, HCBS_REASON_RUNTIME_RANGE);
        /* any negative runtime is RUNTIME_INF: 100% does not fit in the 95% root */
        c = hcbs_model_check_write(m, a, HCBS_FILE_RUNTIME, -7, 0);
        cr_assert_eq(c.kernel_errno, EINVAL);
        cr_assert_eq(c.reason, HCBS_REASON_PARENT_FULL);
}

Test(rfc1, leaf_only_parent_with_rt_tasks) {
        HcbsNode *p = fixture_add(m, "", "p", 100000, 50000);
        HcbsNode *c = fixture_add(m, "p", "c", 100000, 0);
        hcbs_model_set_tasks(m, p, 1, 1);
        assert_check(m, c, 100000, 10000, EINVAL, HCBS_REASON_PARENT_HAS_RT);
        assert_check(m, c, 100000, 0, 0, HCBS_REASON_NONE);
        /* non-RT processes in the parent do not count */
        hcbs_model_set_tasks(m, p, 3, 0);
        assert_check(m, c, 100000, 10000, 0, HCBS_REASON_NONE);
        /* RT tasks in the root do not count either */
        hcbs_model_set_tasks(m, hcbs_model_root(m), 10, 10);
        assert_check(m, p, 100000, 40000, 0, HCBS_REASON_NONE);
        /* legacy has no leaf rule */
        hcbs_model_free(m);
        legacy();
        p = fixture_add(m, "", "p", 100000, 50000);
        c = fixture_add(m, "p", "c", 100000, 0);
        hcbs_model_set_tasks(m, p, 1, 1);
        assert_check(m, c, 100000, 10000, 0, HCBS_REASON_NONE);
}

Test(rfc1, root_reserve_beside_deadline) {
        HcbsProfile *p = hcbs_model_profile_mut(m);
        HcbsNode *root = hcbs_model_root(m);
        /* two fair_servers of 50ms/1s */
        hcbs_profile_set_cpus(p, 2);
        cr_assert_eq(p->dl_total_bw, 2 * hcbs_bw(1000000, 50000));
        /* dl_bw*cpus >= total_bw + root*cpus  <=>  root <= 996147 - 52428 */
        uint64_t room = p->dl_bw - hcbs_bw(1000000, 50000);
        uint64_t rt;
        cr_assert_eq(hcbs_runtime_for_bw(1000000, room + 1, &rt), 0);
        assert_check(m, root, 1000000, (int64_t) rt - 1, 0, HCBS_REASON_NONE);
        assert_check(m, root, 1000000, (int64_t) rt, EBUSY, HCBS_REASON_ROOT_RESERVE);
        /* a stored root that no longer fits blocks every write */
        hcbs_model_set(m, root, 1000000, (int64_t) rt);
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        assert_check(m, a, 100000, 10, EBUSY, HCBS_REASON_ROOT_RESERVE);
}

Test(legacy, attach_and_setscheduler) {
        HcbsNode *a = fixture_add(m, "", "a", 100000, 0);
        cr_assert_not(hcbs_model_can_attach(m, a, true));
        cr_assert(hcbs_model_can_attach(m, a, false));
        cr_assert_not(hcbs_model_can_setscheduler(m, a));
        hcbs_model_set(m, a, 100000, 10);
        cr_assert(hcbs_model_can_attach(m, a, true));
        cr_assert(hcbs_model_can_setscheduler(m, a));
        fixture_add(m, "a", "child", 100000, 5);
        cr_assert(hcbs_model_can_attach(m, a, true), "legacy has no leaf rule");
}

Test(rfc1, attach_and_setscheduler) {
        HcbsNode *root = hcbs_model_root(m);
        HcbsNode *a = fixture_add(m, "", "a", 100000, 10000);
        hcbs_model_set(m, root, 1000000, 0);
        cr_assert(hcbs_model_can_attach(m, root, true), "the root always takes RT tasks");
        cr_assert(hcbs_model_can_attach(m, a, true));
        HcbsNode *c = fixture_add(m, "a", "c", 100000, 0);
        cr_assert(hcbs_model_can_attach(m, a, true), "a child at runtime 0 is not active");
        hcbs_model_set(m, c, 100000, 5000);
        cr_assert_not(hcbs_model_can_attach(m, a, true));
        cr_assert_not(hcbs_model_can_setscheduler(m, a));
        cr_assert(hcbs_model_can_attach(m, c, true));
}

Test(legacy, caches_follow_mutations) {
        HcbsNode *root = hcbs_model_root(m);
        HcbsNode *a = fixture_add(m, "", "a", 100000, 30000);
        HcbsNode *b = fixture_add(m, "a", "b", 100000, 10000);
        char err[256];
        cr_assert_eq(root->children_bw, hcbs_bw(100000, 30000));
        cr_assert_eq(a->children_bw, hcbs_bw(100000, 10000));
        cr_assert_eq(a->n_active_children, 1);
        cr_assert_eq(root->n_descendants, 2);
        cr_assert_eq(a->n_descendants, 1);
        cr_assert_eq(hcbs_model_remove(m, a), -EBUSY);
        hcbs_model_set_foreign(m, a, 1000);
        cr_assert_eq(a->children_bw, hcbs_bw(100000, 10000) + 1000);
        cr_assert_eq(hcbs_model_remove(m, b), 0);
        cr_assert_eq(a->children_bw, 1000);
        cr_assert_eq(a->n_active_children, 0);
        cr_assert_eq(root->n_descendants, 1);
        cr_assert_eq(a->n_descendants, 0);
        cr_assert_null(hcbs_model_find(m, "a/b"));
        cr_assert_eq(hcbs_model_find(m, "a"), a);
        cr_assert_eq(hcbs_model_size(m), 2);
        cr_assert_eq(hcbs_model_verify(m, err, sizeof(err)), 0, "%s", err);
        /* corrupt a cache: verify must notice */
        a->children_bw++;
        cr_assert_eq(hcbs_model_verify(m, err, sizeof(err)), -EUCLEAN);
        a->children_bw--;
}
