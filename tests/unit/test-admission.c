/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "admission.h"
#include "bandwidth.h"
#include "helpers.h"

static HcbsModel *m;
static HcbsAdmission adm;

static void setup(void) {
        m = fixture_model(HCBS_IFACE_LEGACY_V1, true);
        adm = (HcbsAdmission) {
                .model = m,
                .base = fixture_add(m, "", "hcbs", 100000, 90000),
                .min_period_us = HCBS_DEFAULT_MIN_PERIOD_US,
                .max_period_us = HCBS_DEFAULT_MAX_PERIOD_US,
        };
}
static void teardown(void) {
        m = hcbs_model_free(m);
}
TestSuite(admission, .init = setup, .fini = teardown);

static void refused(int r, const HcbsVerdict *v, HcbsError e, const char *needle) {
        cr_assert_eq(r, 0, "admitted");
        cr_assert_eq(v->error, e, "error %s, expected %s (%s)", hcbs_error_to_string(v->error),
                     hcbs_error_to_string(e), v->message);
        cr_assert_not_null(strstr(v->message, needle), "message '%s' lacks '%s'", v->message, needle);
}

static void create(const char *name, uint64_t rt, uint64_t p) {
        HcbsPlan plan;
        HcbsVerdict v;
        cr_assert_eq(hcbs_admit_create(&adm, name, rt, p, NULL, false, &plan, &v), 1, "%s: %s", name, v.message);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
}

Test(admission, design_example_message) {
        HcbsPlan plan;
        HcbsVerdict v;
        create("media", 20000, 100000);
        create("media/video", 16000, 100000);
        int r = hcbs_admit_create(&adm, "media/audio", 10000, 100000, NULL, false, &plan, &v);
        refused(r, &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "media/audio needs 10.0% per CPU; parent media has 4.0% free: 20.0% minus siblings media/video 16.0%");
        cr_assert_eq(v.kernel_errno, EINVAL);
        /* with grow_parents the parent grows first */
        cr_assert_eq(hcbs_admit_create(&adm, "media/audio", 10000, 100000, NULL, true, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(plan.ops[0].kind, HCBS_OP_MKDIR);
        cr_assert_str_eq(plan.ops[1].path, "hcbs/media");
        hcbs_plan_done(&plan);
}

Test(admission, names_and_existence) {
        HcbsPlan plan;
        HcbsVerdict v;
        refused(hcbs_admit_create(&adm, "../etc", 1000, 10000, NULL, false, &plan, &v), &v, HCBS_E_INVALID_NAME, "'..'");
        refused(hcbs_admit_create(&adm, "a/b", 1000, 10000, NULL, false, &plan, &v), &v, HCBS_E_NO_SUCH_GROUP,
                "parent group 'a' does not exist");
        create("a", 1000, 10000);
        refused(hcbs_admit_create(&adm, "a", 1000, 10000, NULL, false, &plan, &v), &v, HCBS_E_GROUP_EXISTS, "exists");
        refused(hcbs_admit_set(&adm, "zz", 1000, 10000, NULL, false, &plan, &v), &v, HCBS_E_NO_SUCH_GROUP, "no group 'zz'");
        refused(hcbs_admit_delete(&adm, "zz", &plan, &v), &v, HCBS_E_NO_SUCH_GROUP, "zz");
        cr_assert_null(hcbs_admission_find(&adm, "../hcbs"));
}

Test(admission, policy_periods) {
        HcbsPlan plan;
        HcbsVerdict v;
        refused(hcbs_admit_create(&adm, "a", 10, 99, NULL, false, &plan, &v), &v, HCBS_E_INVALID_ARGUMENT,
                "period 99us is outside MinPeriod=100us..MaxPeriod=4s");
        refused(hcbs_admit_create(&adm, "a", 10, 4000001, NULL, false, &plan, &v), &v, HCBS_E_INVALID_ARGUMENT,
                "outside");
        refused(hcbs_admit_create(&adm, "a", 2000, 1000, NULL, false, &plan, &v), &v, HCBS_E_INVALID_ARGUMENT,
                "runtime 2ms is longer than the period 1ms");
        refused(hcbs_admit_create(&adm, "a", 100, 100, NULL, false, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "a needs 100.0% per CPU; hcbsd's root has 90.0% free: 90.0%");
}

Test(admission, leaf_rules) {
        HcbsPlan plan;
        HcbsVerdict v;
        create("a", 10000, 100000);
        HcbsNode *a = hcbs_admission_find(&adm, "a");
        hcbs_model_set_tasks(m, a, 2, 1);
        refused(hcbs_admit_create(&adm, "a/b", 1000, 100000, NULL, false, &plan, &v), &v, HCBS_E_NOT_LEAF,
                "a holds 2 process(es)");
        refused(hcbs_admit_delete(&adm, "a", &plan, &v), &v, HCBS_E_GROUP_BUSY, "migrate_to");
        hcbs_model_set_tasks(m, a, 0, 0);
        create("a/b", 1000, 100000);
        refused(hcbs_admit_attach(&adm, "a", false, &v), &v, HCBS_E_NOT_LEAF, "leaf");
        refused(hcbs_admit_delete(&adm, "a", &plan, &v), &v, HCBS_E_GROUP_BUSY, "child group");
        create("a/zero", 0, 100000);
        refused(hcbs_admit_attach(&adm, "a/zero", true, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH, "no runtime");
        cr_assert_eq(hcbs_admit_attach(&adm, "a/zero", false, &v), 1);
        cr_assert_eq(hcbs_admit_attach(&adm, "a/b", true, &v), 1);
}

Test(admission, capacity_is_the_limit) {
        HcbsPlan plan;
        HcbsVerdict v;
        create("a", 50000, 100000);
        refused(hcbs_admit_create(&adm, "b", 40001, 100000, NULL, true, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "b needs 40.0% per CPU; hcbsd's root has 40.0% free: 90.0% minus siblings a 50.0%");
        create("b", 40000, 100000);
}

/* Under systemd: units and hcbsd's groups share hcbs.slice, which grows up to Capacity= and no further. */
/* systemd's layout in h: hcbs.slice (Capacity= 50%) holding a.service, c.service and hcbsd.service/groups. */
static HcbsAdmission pool_policy(HcbsModel *h, HcbsNode **unit, HcbsNode **c) {
        HcbsNode *pool = fixture_add(h, "", "hcbs.slice", 1000000, 0);

        *unit = fixture_add(h, "hcbs.slice", "a.service", 1000000, 0);
        *c = fixture_add(h, "hcbs.slice", "c.service", 1000000, 0);
        fixture_add(h, "hcbs.slice", "hcbsd.service", 1000000, 0);
        return (HcbsAdmission) {
                .model = h,
                .base = fixture_add(h, "hcbs.slice/hcbsd.service", "groups", 1000000, 0),
                .pool = pool,
                .pool_cap_bw = hcbs_bw(1000000, 500000),
                .min_period_us = HCBS_DEFAULT_MIN_PERIOD_US,
                .max_period_us = HCBS_DEFAULT_MAX_PERIOD_US,
        };
}

Test(admission, pool_capacity_caps_units_and_groups) {
        HcbsModel *h = fixture_model(HCBS_IFACE_LEGACY_V1, true);
        HcbsNode *unit, *c;
        HcbsAdmission p = pool_policy(h, &unit, &c);
        HcbsNode *pool = p.pool;
        HcbsPlan plan;
        HcbsVerdict v;

        cr_assert_eq(hcbs_admit_unit(&p, unit, "a.service", 2000, 10000, NULL, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(pool->runtime_us, 200000, "the pool grew to hold the unit");

        cr_assert_eq(hcbs_admit_create(&p, "media", 200000, 1000000, NULL, false, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(pool->runtime_us, 400000);

        refused(hcbs_admit_unit(&p, c, "c.service", 3000, 10000, NULL, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "c.service needs 30.0% more per CPU; hcbs.slice has 10.0% free of its Capacity= 50.0%: "
                "hcbs.slice/a.service 20.0%, hcbsd's groups 20.0% hold the rest");
        refused(hcbs_admit_create(&p, "big", 300000, 1000000, NULL, false, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "big needs 30.0% more per CPU");
        /* beyond what even the kernel's root could hold: still the pool's reason, not "hcbsd's root has 0.0% free" */
        refused(hcbs_admit_create(&p, "huge", 900000, 1000000, NULL, false, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "huge needs 90.0% more per CPU; hcbs.slice has 10.0% free of its Capacity= 50.0%: "
                "hcbs.slice/a.service 20.0%, hcbsd's groups 20.0% hold the rest");
        refused(hcbs_admit_create(&p, "media/huge", 900000, 1000000, NULL, false, &plan, &v), &v,
                HCBS_E_INSUFFICIENT_BANDWIDTH, "media/huge needs 70.0% more per CPU; hcbs.slice has 10.0% free"); /* media holds 20% */
        refused(hcbs_admit_unit(&p, c, "c.service", 9000, 10000, NULL, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "c.service needs 90.0% more per CPU; hcbs.slice has 10.0% free");
        cr_assert_eq(hcbs_admit_unit(&p, c, "c.service", 1000, 10000, NULL, &plan, &v), 1, "10%% fits exactly: %s",
                     v.message);
        hcbs_plan_done(&plan);
        refused(hcbs_admit_unit(&p, c, "c.service", 2000, 1000, NULL, &plan, &v), &v, HCBS_E_INVALID_ARGUMENT,
                "longer than the period");
        hcbs_model_free(h);
}

/*
 * The same on rtmax, where hcbsd raised the kernel root to exactly the capacity: a request beyond
 * Capacity= is refused first at the root, but the reason given is the pool's, naming who holds it.
 */
Test(admission, pool_capacity_reason_when_the_root_is_full_first) {
        HcbsModel *h = fixture_model(HCBS_IFACE_RTMAX, true);
        HcbsNode *root = hcbs_model_root(h);
        hcbs_model_set(h, root, 1000000, 500000);
        HcbsNode *unit, *c;
        HcbsAdmission p = pool_policy(h, &unit, &c);
        HcbsPlan plan;
        HcbsVerdict v;

        cr_assert_eq(hcbs_admit_unit(&p, unit, "a.service", 2000, 10000, NULL, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(hcbs_admit_create(&p, "media", 200000, 1000000, NULL, false, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        hcbs_plan_done(&plan);
        refused(hcbs_admit_unit(&p, c, "c.service", 3000, 10000, NULL, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "c.service needs 30.0% more per CPU; hcbs.slice has 10.0% free of its Capacity= 50.0%: "
                "hcbs.slice/a.service 20.0%, hcbsd's groups 20.0% hold the rest");
        refused(hcbs_admit_create(&p, "big", 300000, 1000000, NULL, false, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "hcbs.slice/a.service 20.0%");
        /* within Capacity= but beyond what the root holds: the root's reason stays */
        hcbs_model_set(h, root, 1000000, 450000);
        refused(hcbs_admit_unit(&p, c, "c.service", 1000, 10000, NULL, &plan, &v), &v, HCBS_E_INSUFFICIENT_BANDWIDTH,
                "root cgroup");
        hcbs_model_free(h);
}

/*
 * A second pool beside hcbs.slice (hcbsd.conf's [Pool NAME]): machine.slice with Capacity= 30%, where
 * podman puts its scopes. It grows with its scopes up to its own Capacity=, its refusals name it and
 * who holds it, and hcbs.slice's Capacity= neither helps nor limits it.
 */
Test(admission, a_second_pool_has_its_own_capacity) {
        HcbsModel *h = fixture_model(HCBS_IFACE_LEGACY_V1, true);
        HcbsNode *unit, *c;
        HcbsAdmission p = pool_policy(h, &unit, &c);
        HcbsPool machine = { .node = fixture_add(h, "", "machine.slice", 1000000, 0), .cap_bw = hcbs_bw(1000000, 300000) };
        HcbsNode *a = fixture_add(h, "machine.slice", "libpod-a.scope", 1000000, 0);
        HcbsNode *b = fixture_add(h, "machine.slice", "libpod-b.scope", 1000000, 0);
        HcbsPlan plan;
        HcbsVerdict v;

        cr_assert_eq(hcbs_admit_pool_unit(&p, &machine, a, "libpod-a.scope", 2000, 10000, NULL, &plan, &v), 1, "%s",
                     v.message);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(machine.node->runtime_us, 200000, "machine.slice grew to hold the scope");
        cr_assert_eq(p.pool->runtime_us, 0, "hcbs.slice did not");
        refused(hcbs_admit_pool_unit(&p, &machine, b, "libpod-b.scope", 2000, 10000, NULL, &plan, &v), &v,
                HCBS_E_INSUFFICIENT_BANDWIDTH,
                "libpod-b.scope needs 20.0% more per CPU; machine.slice has 10.0% free of its Capacity= 30.0%: "
                "machine.slice/libpod-a.scope 20.0% hold the rest");
        /* within machine.slice's 30%, though hcbs.slice's 50% would not care either way */
        cr_assert_eq(hcbs_admit_pool_unit(&p, &machine, b, "libpod-b.scope", 1000, 10000, NULL, &plan, &v), 1, "%s",
                     v.message);
        hcbs_plan_done(&plan);
        /* a scope of one pool is not a child of the other */
        refused(hcbs_admit_pool_unit(&p, &machine, unit, "a.service", 1000, 10000, NULL, &plan, &v), &v,
                HCBS_E_NOT_SUPPORTED, "a.service is not in the slice hcbsd reserves from");
        refused(hcbs_admit_unit(&p, a, "libpod-a.scope", 1000, 10000, NULL, &plan, &v), &v, HCBS_E_NOT_SUPPORTED,
                "not in the slice");
        hcbs_model_free(h);
}
