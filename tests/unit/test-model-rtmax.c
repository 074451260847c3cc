/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rtmax profile, rule by rule (patches/hcbs-v6-6.12, after HCBS v6 17/25): "max" groups,
 * sums through them, the switch rule, internal tasks, the root rules, attach by context.
 */
#include "admission.h"
#include "bandwidth.h"
#include "helpers.h"

static HcbsModel *m;

static void setup(void) {
        m = fixture_model(HCBS_IFACE_RTMAX, true);
        /* the root reserves 90% (it starts at 0 of the global period) */
        hcbs_model_set(m, hcbs_model_root(m), 1000000, 900000);
}
static void teardown(void) {
        m = hcbs_model_free(m);
}
TestSuite(rtmax, .init = setup, .fini = teardown);

static HcbsNode *add(const char *parent, const char *name) {
        HcbsNode *n = NULL;
        cr_assert_eq(hcbs_model_add(m, hcbs_model_find(m, parent), name, &n), 0, "add %s/%s", parent, name);
        return n;
}

Test(rtmax, new_groups_start_at_max_and_hold_nothing) {
        HcbsNode *g = add("", "g");
        cr_assert_eq(g->runtime_us, -1);
        cr_assert_eq(g->period_us, 0);
        cr_assert_eq(g->bw, 0);
        cr_assert_eq(hcbs_model_root(m)->children_bw, 0);
        cr_assert(hcbs_node_is_max(hcbs_model_profile(m), g));
        cr_assert_eq(hcbs_node_context(hcbs_model_profile(m), g), hcbs_model_root(m));
}

Test(rtmax, root_rules) {
        HcbsNode *root = hcbs_model_root(m);
        assert_check(m, root, 1000000, -1, EINVAL, HCBS_REASON_ROOT_MAX);
        /* v6: the root's RT tasks (kernel threads) do not block runtime 0 */
        hcbs_model_set_tasks(m, root, 1, 1);
        assert_check(m, root, 1000000, 0, 0, HCBS_REASON_NONE);
}

Test(rtmax, checkparam_dl) {
        HcbsNode *g = add("", "g");
        assert_check(m, g, 0, 0, 0, HCBS_REASON_NONE);
        assert_check(m, g, 0, 1000, EINVAL, HCBS_REASON_PERIOD_ZERO);
        assert_check(m, g, 100000, 1, EINVAL, HCBS_REASON_RUNTIME_SMALL);
        assert_check(m, g, 100000, 100001, EINVAL, HCBS_REASON_RUNTIME_ABOVE_PERIOD);
        assert_check(m, g, 50, 50, EINVAL, HCBS_REASON_PERIOD_RANGE);
        assert_check(m, g, 50, 0, EINVAL, HCBS_REASON_PERIOD_RANGE);
        assert_check(m, g, 4194305, 0, EINVAL, HCBS_REASON_PERIOD_RANGE);
        assert_check(m, g, 4194304, 0, 0, HCBS_REASON_NONE);
        /* "max" takes any period */
        assert_check(m, g, 7, -1, 0, HCBS_REASON_NONE);
        /* the range comes from the kernel */
        hcbs_model_profile_mut(m)->dl_period_min_us = 10;
        assert_check(m, g, 50, 5, 0, HCBS_REASON_NONE);
}

Test(rtmax, sums_go_through_max_groups) {
        HcbsNode *p = add("", "p"), *a, *mx, *c;
        hcbs_model_set(m, p, 100000, 50000);
        a = add("p", "a");
        mx = add("p", "m");
        c = add("p/m", "c");
        hcbs_model_set(m, a, 100000, 30000);
        /* c counts against p, its grandparent, through the max m */
        assert_check(m, c, 100000, 30000, EINVAL, HCBS_REASON_PARENT_FULL);
        assert_check(m, c, 100000, 20000, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, c, 100000, 20000);
        cr_assert_eq(p->children_bw, hcbs_bw(100000, 30000) + hcbs_bw(100000, 20000));
        cr_assert_eq(mx->children_bw, hcbs_bw(100000, 20000));
        assert_check(m, p, 100000, 40000, EINVAL, HCBS_REASON_CHILDREN_EXCEED);
        /* m takes a reservation: c moves into m's sum, m's own bw into p's */
        assert_check(m, mx, 100000, 10000, EINVAL, HCBS_REASON_CHILDREN_EXCEED);
        assert_check(m, mx, 100000, 20000, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, mx, 100000, 20000);
        cr_assert_eq(p->children_bw, hcbs_bw(100000, 30000) + hcbs_bw(100000, 20000));
        /* internal bandwidth: own minus children's */
        cr_assert_eq(hcbs_node_internal_runtime_us(hcbs_model_profile(m), mx), 0);
        hcbs_model_set(m, c, 100000, 10000);
        /* from_ratio(100ms, bw(20ms) - bw(10ms)) = 10000002 ns */
        cr_assert_eq(hcbs_node_internal_runtime_us(hcbs_model_profile(m), mx), 10000);
        /* back to max: c counts against p again */
        assert_check(m, mx, 100000, -1, 0, HCBS_REASON_NONE);
        hcbs_model_set(m, mx, 100000, -1);
        cr_assert_eq(p->children_bw, hcbs_bw(100000, 30000) + hcbs_bw(100000, 10000));
        cr_assert_eq(hcbs_model_verify(m, NULL, 0), 0);
}

Test(rtmax, switch_rule_and_attach_by_context) {
        HcbsNode *p = add("", "p"), *mx, *z, *zm;
        hcbs_model_set(m, p, 100000, 50000);
        mx = add("p", "m");
        z = add("", "z");
        hcbs_model_set(m, z, 100000, 0);
        zm = add("z", "zm");
        /* a max group runs on its context: p (50%) takes RT tasks, z (0) does not */
        cr_assert(hcbs_model_can_attach(m, mx, true));
        cr_assert_not(hcbs_model_can_attach(m, zm, true));
        cr_assert_not(hcbs_model_can_setscheduler(m, zm));
        cr_assert(hcbs_model_can_attach(m, zm, false));
        /* a max group under the root runs on the root: always */
        cr_assert(hcbs_model_can_attach(m, add("", "top"), true));
        /* no leaf-only rule: p's own RT tasks beside a reserved child */
        hcbs_model_set_tasks(m, p, 1, 1);
        HcbsNode *kid = add("p", "kid");
        assert_check(m, kid, 100000, 10000, 0, HCBS_REASON_NONE);
        /* RT tasks in m run on p: m cannot switch, p cannot drop to 0 */
        hcbs_model_set_tasks(m, p, 0, 0);
        hcbs_model_set_tasks(m, mx, 1, 1);
        assert_check(m, mx, 100000, 10000, EINVAL, HCBS_REASON_SWITCH_RT_TASKS);
        assert_check(m, mx, 100000, 0, EINVAL, HCBS_REASON_SWITCH_RT_TASKS);
        assert_check(m, mx, 200000, -1, 0, HCBS_REASON_NONE);
        assert_check(m, p, 100000, 0, EBUSY, HCBS_REASON_RT_TASKS);
        assert_check(m, p, 100000, -1, EINVAL, HCBS_REASON_SWITCH_RT_TASKS);
        assert_check(m, p, 100000, 20000, 0, HCBS_REASON_NONE);
}

Test(rtmax, admission_of_max_groups) {
        HcbsAdmission adm = {
                .model = m,
                .base = fixture_add(m, "", "hcbs", 100000, 50000),
                .min_period_us = HCBS_DEFAULT_MIN_PERIOD_US,
                .max_period_us = HCBS_DEFAULT_MAX_PERIOD_US,
        };
        HcbsPlan plan;
        HcbsVerdict v;

        cr_assert_eq(hcbs_admit_create(&adm, "tenants", HCBS_RUNTIME_MAX_US, 0, NULL, false, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(plan.n_ops, 2); /* mkdir, "max 0" */
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert(hcbs_node_is_max(hcbs_model_profile(m), hcbs_admission_find(&adm, "tenants")));
        /* a reservation below it draws on hcbs itself */
        cr_assert_eq(hcbs_admit_create(&adm, "tenants/a", 60000, 100000, NULL, false, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH, "%s", v.message);
        cr_assert_eq(hcbs_admit_create(&adm, "tenants/a", 40000, 100000, NULL, false, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(adm.base->children_bw, hcbs_bw(100000, 40000));
        /* deleting the max group writes nothing: it holds no bandwidth */
        cr_assert_eq(hcbs_admit_delete(&adm, "tenants/a", &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(hcbs_admit_delete(&adm, "tenants", &plan, &v), 1, "%s", v.message);
        cr_assert_eq(plan.n_ops, 1);
        hcbs_plan_done(&plan);
}

Test(rtmax, max_needs_rtmax) {
        HcbsModel *r = fixture_model(HCBS_IFACE_RFC1, true);
        HcbsAdmission adm = {
                .model = r,
                .base = fixture_add(r, "", "hcbs", 100000, 50000),
                .min_period_us = HCBS_DEFAULT_MIN_PERIOD_US,
                .max_period_us = HCBS_DEFAULT_MAX_PERIOD_US,
        };
        HcbsPlan plan;
        HcbsVerdict v;
        cr_assert_eq(hcbs_admit_create(&adm, "tenants", HCBS_RUNTIME_MAX_US, 0, NULL, false, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INVALID_ARGUMENT);
        cr_assert_not_null(strstr(v.message, "rtmax"), "%s", v.message);
        hcbs_model_free(r);
}
