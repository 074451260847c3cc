/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Planner orderings, and a property: every plan is valid write by write, and its undo is too. */
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "helpers.h"
#include "plan.h"
#include "../random.h"

static HcbsModel *m;
static const HcbsPlanScope no_grow = {};

static void setup(void) {
        m = fixture_model(HCBS_IFACE_LEGACY_V1, true);
}
static void teardown(void) {
        m = hcbs_model_free(m);
}
TestSuite(plan, .init = setup, .fini = teardown);

#define assert_op(plan, i, k, p, f, val)                                                                   \
        do {                                                                                               \
                const HcbsOp *_o = &(plan)->ops[i];                                                         \
                cr_assert_eq(_o->kind, (k), "op %d kind", (int) (i));                                     \
                cr_assert_str_eq(_o->path, (p));                                                            \
                if ((k) == HCBS_OP_WRITE) {                                                                 \
                        cr_assert_eq(_o->file, (f), "op %d file", (int) (i));                             \
                        cr_assert_eq((f) == HCBS_FILE_PERIOD ? (int64_t) _o->period_us : _o->runtime_us,   \
                                     (int64_t) (val), "op %d value", (int) (i));                           \
                }                                                                                          \
        } while (0)

typedef struct Snapshot {
        char path[32][64];
        uint64_t period[32];
        int64_t runtime[32];
        HcbsCpuSet cpus[32];
        unsigned n;
} Snapshot;

static void snapshot(const HcbsModel *mm, Snapshot *s) {
        s->n = 0;
        for (const HcbsNode *t = hcbs_model_root(mm); t && s->n < 32;) {
                snprintf(s->path[s->n], 64, "%s", t->path);
                s->period[s->n] = t->period_us;
                s->cpus[s->n] = t->cpus;
                s->runtime[s->n++] = t->runtime_us;
                if (t->first_child)
                        t = t->first_child;
                else {
                        while (t && !t->next)
                                t = t->parent;
                        t = t ? t->next : NULL;
                }
        }
}

static void assert_same(const Snapshot *a, const Snapshot *b) {
        cr_assert_eq(a->n, b->n, "node count changed");
        for (unsigned i = 0; i < a->n; i++) {
                cr_assert_str_eq(a->path[i], b->path[i]);
                cr_assert_eq(a->period[i], b->period[i], "%s period", a->path[i]);
                cr_assert_eq(a->runtime[i], b->runtime[i], "%s runtime", a->path[i]);
                cr_assert(hcbs_cpuset_equal(&a->cpus[i], &b->cpus[i]), "%s cpus", a->path[i]);
        }
}

static HcbsCheck check_op(const HcbsOp *op) {
        HcbsNode *n = hcbs_model_find(m, op->path);
        cr_assert_not_null(n, "op on missing '%s'", op->path);
        if (op->file == HCBS_FILE_CPUS)
                return hcbs_model_check_cpus(m, n, &op->cpus);
        return hcbs_model_check_write(m, n, op->file, op->runtime_us, op->period_us);
}

/* Applies the plan step by step as the kernel would, then the undo of every prefix. */
static void assert_plan_valid(const HcbsPlan *plan) {
        Snapshot before, after;
        snapshot(m, &before);
        for (size_t k = 0; k <= plan->n_ops; k++) {
                for (size_t i = 0; i < k; i++) {
                        if (plan->ops[i].kind == HCBS_OP_WRITE) {
                                HcbsCheck c = check_op(&plan->ops[i]);
                                cr_assert_eq(c.kernel_errno, 0, "op %zu on %s refused (reason %d)", i,
                                             plan->ops[i].path, c.reason);
                        }
                        cr_assert_eq(hcbs_model_apply_op(m, &plan->ops[i]), 0);
                }
                /* roll back what was applied, in reverse */
                for (size_t i = k; i > 0; i--) {
                        const HcbsOp *u = &plan->undo[i - 1];
                        if (u->kind == HCBS_OP_WRITE) {
                                HcbsCheck c = check_op(u);
                                cr_assert_eq(c.kernel_errno, 0, "undo %zu on %s refused (reason %d)", i - 1, u->path,
                                             c.reason);
                        }
                        cr_assert_eq(hcbs_model_apply_op(m, u), 0);
                }
                snapshot(m, &after);
                assert_same(&before, &after);
        }
}

static void plan_ok(HcbsNode *n, uint64_t p, int64_t r, HcbsPlanScope scope, HcbsPlan *plan) {
        HcbsVerdict v;
        Snapshot before, after;
        snapshot(m, &before);
        cr_assert_eq(hcbs_plan_set(m, n, p, r, scope, plan, &v), 1, "refused: %s", v.message);
        snapshot(m, &after);
        assert_same(&before, &after);
        assert_plan_valid(plan);
}

Test(plan, grow_writes_period_first) {
        fixture_add(m, "", "p", 100000, 35000);
        HcbsNode *a = fixture_add(m, "p", "a", 100000, 10000);
        HcbsPlan plan;
        /* 10% -> 20%: runtime first would pass through 40ms/100ms, more than p's 35% */
        plan_ok(a, 200000, 40000, no_grow, &plan);
        cr_assert_eq(plan.n_ops, 2);
        assert_op(&plan, 0, HCBS_OP_WRITE, "p/a", HCBS_FILE_PERIOD, 200000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "p/a", HCBS_FILE_RUNTIME, 40000);
        hcbs_plan_done(&plan);
}

Test(plan, shrink_writes_runtime_first) {
        HcbsNode *a = fixture_add(m, "", "a", 200000, 40000);
        HcbsPlan plan;
        /* period first would pass through 40ms/50ms = 80% */
        fixture_add(m, "", "other", 100000, 10000);
        plan_ok(a, 50000, 5000, no_grow, &plan);
        cr_assert_eq(plan.n_ops, 2);
        assert_op(&plan, 0, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 5000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "a", HCBS_FILE_PERIOD, 50000);
        hcbs_plan_done(&plan);
}

Test(plan, new_runtime_above_old_period) {
        HcbsNode *a = fixture_add(m, "", "a", 20000, 10000);
        HcbsPlan plan;
        /* 50% -> 30%, a shrink, yet runtime first would be 30ms in a 20ms period */
        plan_ok(a, 100000, 30000, no_grow, &plan);
        cr_assert_eq(plan.n_ops, 2);
        assert_op(&plan, 0, HCBS_OP_WRITE, "a", HCBS_FILE_PERIOD, 100000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 30000);
        hcbs_plan_done(&plan);
}

Test(plan, both_orders_invalid_goes_through_a_bridge) {
        /* a holds children of 40%; 50ms/100ms -> 25ms/50ms */
        HcbsNode *a = fixture_add(m, "", "a", 100000, 50000);
        fixture_add(m, "a", "c", 100000, 40000);
        HcbsPlan plan;
        cr_assert_eq(hcbs_model_check(m, a, 50000, 50000).kernel_errno, EINVAL, "period first: 100%% > 95%%");
        cr_assert_eq(hcbs_model_check(m, a, 100000, 25000).kernel_errno, EINVAL, "runtime first: 25%% < 40%%");
        plan_ok(a, 50000, 25000, no_grow, &plan);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 40000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "a", HCBS_FILE_PERIOD, 50000);
        assert_op(&plan, 2, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 25000);
        hcbs_plan_done(&plan);
}

Test(plan, unchanged_is_empty) {
        HcbsNode *a = fixture_add(m, "", "a", 20000, 10000);
        HcbsPlan plan;
        plan_ok(a, 20000, 10000, no_grow, &plan);
        cr_assert_eq(plan.n_ops, 0);
        hcbs_plan_done(&plan);
}

Test(plan, refusal_explains_and_leaves_model) {
        fixture_add(m, "", "media", 100000, 20000);
        fixture_add(m, "media", "video", 100000, 16000);
        HcbsNode *audio = fixture_add(m, "media", "audio", 100000, 0);
        HcbsPlan plan;
        HcbsVerdict v;
        Snapshot before, after;
        snapshot(m, &before);
        cr_assert_eq(hcbs_plan_set(m, audio, 100000, 10000, no_grow, &plan, &v), 0);
        snapshot(m, &after);
        assert_same(&before, &after);
        cr_assert_eq(plan.n_ops, 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert_str_eq(v.message, "cgroup /media/audio needs 10.0% per CPU; parent cgroup /media has 4.0% free: "
                                    "20.0% minus siblings cgroup /media/video 16.0%");
}

Test(plan, grow_parents_top_down) {
        HcbsNode *base = fixture_add(m, "", "hcbs", 100000, 90000);
        fixture_add(m, "hcbs", "media", 100000, 20000);
        fixture_add(m, "hcbs/media", "sub", 100000, 20000);
        fixture_add(m, "hcbs/media/sub", "video", 100000, 16000);
        HcbsNode *audio = fixture_add(m, "hcbs/media/sub", "audio", 100000, 0);
        HcbsPlan plan;
        HcbsPlanScope grow = { .grow = true, .ceiling = base, .base = base };
        plan_ok(audio, 100000, 10000, grow, &plan);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_WRITE, "hcbs/media", HCBS_FILE_RUNTIME, 26000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "hcbs/media/sub", HCBS_FILE_RUNTIME, 26000);
        assert_op(&plan, 2, HCBS_OP_WRITE, "hcbs/media/sub/audio", HCBS_FILE_RUNTIME, 10000);
        hcbs_plan_done(&plan);

        /* the capacity (base) never grows: 80% more does not fit in 90% */
        HcbsVerdict v;
        cr_assert_eq(hcbs_plan_set(m, audio, 100000, 80000, grow, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert_str_eq(v.message, "media needs 96.0% per CPU; hcbsd's root has 90.0% free: 90.0%");
}

/* Under systemd: hcbs.slice is the pool; it, hcbsd.service and its groups root grow on demand. */
Test(plan, pool_chain_grows_without_grow_parents) {
        HcbsNode *pool = fixture_add(m, "", "hcbs.slice", 100000, 90000);
        fixture_add(m, "hcbs.slice", "motor.service", 100000, 30000);
        fixture_add(m, "hcbs.slice", "hcbsd.service", 100000, 0);
        HcbsNode *base = fixture_add(m, "hcbs.slice/hcbsd.service", "groups", 100000, 0);
        HcbsNode *media = fixture_add(m, "hcbs.slice/hcbsd.service/groups", "media", 100000, 0);
        HcbsNode *audio = fixture_add(m, "hcbs.slice/hcbsd.service/groups/media", "audio", 100000, 0);
        HcbsPlanScope scope = { .ceiling = base, .base = base, .pool = pool };
        HcbsPlan plan;
        HcbsVerdict v;

        plan_ok(media, 100000, 20000, scope, &plan);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_WRITE, "hcbs.slice/hcbsd.service", HCBS_FILE_RUNTIME, 20000);
        assert_op(&plan, 1, HCBS_OP_WRITE, "hcbs.slice/hcbsd.service/groups", HCBS_FILE_RUNTIME, 20000);
        assert_op(&plan, 2, HCBS_OP_WRITE, "hcbs.slice/hcbsd.service/groups/media", HCBS_FILE_RUNTIME, 20000);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);

        /* groups below base still need grow_parents */
        cr_assert_eq(hcbs_plan_set(m, audio, 100000, 30000, scope, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH);

        /* the pool grows too, up to what its parent has (Capacity= is admission's business) */
        plan_ok(media, 100000, 65000, scope, &plan);
        cr_assert_eq(plan.n_ops, 4);
        assert_op(&plan, 0, HCBS_OP_WRITE, "hcbs.slice", HCBS_FILE_RUNTIME, 95000);
        hcbs_plan_done(&plan);
        cr_assert_eq(hcbs_plan_set(m, media, 100000, 70000, scope, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH);
        cr_assert_str_eq(v.message, "cgroup /hcbs.slice needs 100.0% per CPU; the root cgroup has 95.0% free: 95.0%");

        /* a unit's reservation, named from the pool's parent, grows the pool but never the root */
        HcbsNode *motor = hcbs_model_find(m, "hcbs.slice/motor.service");
        HcbsPlanScope units = { .base = hcbs_model_root(m), .pool = pool };
        cr_assert_eq(hcbs_plan_set(m, motor, 100000, 80000, units, &plan, &v), 0);
        cr_assert_str_eq(v.message, "hcbs.slice needs 100.0% per CPU; the root cgroup has 95.0% free: 95.0%");

        /* without a pool nothing above a group grows unasked */
        scope.pool = NULL;
        cr_assert_eq(hcbs_plan_set(m, media, 100000, 30000, scope, &plan, &v), 0);
}

/* An HCBS root at runtime 0 with RT kernel threads refuses everything until raised; capacity may raise it. */
Test(plan, capacity_unstalls_an_hcbs_root) {
        HcbsModel *h = fixture_model(HCBS_IFACE_RFC1, true);
        HcbsNode *root = hcbs_model_root(h);
        hcbs_model_set(h, root, 1000000, 0);
        hcbs_model_set_tasks(h, root, 1, 1);
        HcbsNode *slice = fixture_add(h, "", "hcbs.slice", 0, 0);
        HcbsPlanScope capacity = { .grow = true };
        HcbsPlan plan;
        HcbsVerdict v;

        cr_assert_eq(hcbs_plan_set(h, slice, 1000000, 500000, (HcbsPlanScope) {}, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH, "without growth the stalled root is the reason");

        cr_assert_eq(hcbs_plan_set(h, slice, 1000000, 500000, capacity, &plan, &v), 1, "%s", v.message);
        assert_op(&plan, 0, HCBS_OP_WRITE, "", HCBS_FILE_RUNTIME, 2);
        cr_assert_eq(plan.ops[plan.n_ops - 1].runtime_us, 500000);
        cr_assert_eq(hcbs_plan_commit(h, &plan), 0);
        cr_assert_eq(root->runtime_us, 500000, "the root ends holding exactly its children");
        hcbs_plan_done(&plan);
        hcbs_model_free(h);
}

Test(plan, create_and_delete) {
        HcbsPlan plan;
        HcbsVerdict v;
        HcbsNode *root = hcbs_model_root(m);
        cr_assert_eq(hcbs_plan_create(m, root, "a", 100000, 10000, no_grow, &plan, &v), 1, "%s", v.message);
        cr_assert_null(hcbs_model_find(m, "a"), "planning must not create the group");
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_MKDIR, "a", 0, 0);
        assert_op(&plan, 1, HCBS_OP_WRITE, "a", HCBS_FILE_PERIOD, 100000);
        assert_op(&plan, 2, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 10000);
        cr_assert_eq(plan.undo[0].kind, HCBS_OP_RMDIR);
        cr_assert_eq(plan.undo[1].kind, HCBS_OP_NONE, "a new group's first period needs no undo");
        assert_op(&(HcbsPlan) { .ops = &plan.undo[2] }, 0, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 0);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        HcbsNode *a = hcbs_model_find(m, "a");
        cr_assert_eq(a->runtime_us, 10000);

        cr_assert_eq(hcbs_plan_create(m, root, "a", 100000, 10000, no_grow, &plan, &v), -EEXIST);

        cr_assert_eq(hcbs_plan_delete(m, a, no_grow, &plan, &v), 1);
        cr_assert_eq(plan.n_ops, 2);
        assert_op(&plan, 0, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 0);
        assert_op(&plan, 1, HCBS_OP_RMDIR, "a", 0, 0);
        cr_assert_eq(plan.undo[0].runtime_us, 10000);
        cr_assert_eq(hcbs_model_find(m, "a"), a, "planning must not delete the group");
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        cr_assert_null(hcbs_model_find(m, "a"));
        hcbs_plan_done(&plan);
}

Test(plan, rfc1_create_writes_period_first_and_rtmax_one_write) {
        HcbsPlan plan;
        HcbsVerdict v;
        hcbs_model_free(m);
        m = fixture_model(HCBS_IFACE_RFC1, true);
        hcbs_model_set(m, hcbs_model_root(m), 1000000, 900000);
        cr_assert_eq(hcbs_plan_create(m, hcbs_model_root(m), "a", 10000, 1000, no_grow, &plan, &v), 1, "%s",
                     v.message);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 1, HCBS_OP_WRITE, "a", HCBS_FILE_PERIOD, 10000);
        assert_op(&plan, 2, HCBS_OP_WRITE, "a", HCBS_FILE_RUNTIME, 1000);
        hcbs_plan_done(&plan);

        hcbs_model_free(m);
        m = fixture_model(HCBS_IFACE_RTMAX, true);
        hcbs_model_set(m, hcbs_model_root(m), 1000000, 900000);
        cr_assert_eq(hcbs_plan_create(m, hcbs_model_root(m), "a", 10000, 1000, no_grow, &plan, &v), 1);
        cr_assert_eq(plan.n_ops, 2);
        cr_assert_eq(plan.ops[1].file, HCBS_FILE_MAX);
        cr_assert_eq(plan.ops[1].runtime_us, 1000);
        cr_assert_eq(plan.ops[1].period_us, 10000);
        hcbs_plan_done(&plan);
}

/* rtmax v7 on four CPUs, the root at 90% */
static HcbsModel *model_v7(void) {
        HcbsProfile p;
        HcbsModel *ret;

        hcbs_profile_init(&p, HCBS_IFACE_RTMAX);
        cr_assert_eq(hcbs_profile_set_revision(&p, 7), 0);
        hcbs_profile_set_cpus(&p, 4);
        p.dl_total_bw = 0;
        cr_assert_eq(hcbs_model_new(&ret, &p, true), 0);
        hcbs_model_set(ret, hcbs_model_root(ret), 1000000, 900000);
        return ret;
}

static HcbsCpuSet cpus_of(const char *list) {
        HcbsCpuSet s;
        cr_assert_eq(hcbs_cpuset_parse(list, &s), 0);
        return s;
}

Test(plan, rtmax7_cpus_before_the_reservation) {
        HcbsCpuSet cpus = cpus_of("1");
        HcbsPlan plan;
        HcbsVerdict v;

        hcbs_model_free(m);
        m = model_v7();
        cr_assert_eq(hcbs_plan_create_cpus(m, hcbs_model_root(m), "a", 10000, 1000, &cpus, no_grow, &plan, &v), 1,
                     "%s", v.message);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_MKDIR, "a", 0, 0);
        cr_assert_eq(plan.ops[1].file, HCBS_FILE_CPUS);
        cr_assert(hcbs_cpuset_equal(&plan.ops[1].cpus, &cpus));
        assert_op(&plan, 2, HCBS_OP_WRITE, "a", HCBS_FILE_MAX, 1000);
        assert_plan_valid(&plan);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);

        /* other CPUs for a reservation: max, the CPUs, the reservation again; undone in reverse */
        HcbsNode *a = hcbs_model_find(m, "a");
        cpus = cpus_of("2-3");
        cr_assert_eq(hcbs_plan_set_cpus(m, a, 10000, 2000, &cpus, no_grow, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(plan.n_ops, 3);
        assert_op(&plan, 0, HCBS_OP_WRITE, "a", HCBS_FILE_MAX, -1);
        cr_assert_eq(plan.ops[1].file, HCBS_FILE_CPUS);
        assert_op(&plan, 2, HCBS_OP_WRITE, "a", HCBS_FILE_MAX, 2000);
        assert_plan_valid(&plan);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert(hcbs_cpuset_equal(&a->cpus, &cpus));

        /* the same CPUs: no cpuset write */
        cr_assert_eq(hcbs_plan_set_cpus(m, a, 10000, 3000, &cpus, no_grow, &plan, &v), 1, "%s", v.message);
        cr_assert_eq(plan.n_ops, 1);
        hcbs_plan_done(&plan);
}

Test(plan, rtmax7_cpus_refused_under_rt_tasks_or_reservations_below) {
        HcbsCpuSet cpus = cpus_of("0");
        HcbsPlan plan;
        HcbsVerdict v;
        HcbsNode *a, *b;

        hcbs_model_free(m);
        m = model_v7();
        a = fixture_add(m, "", "a", 100000, 20000);
        b = fixture_add(m, "a", "b", 100000, 10000);
        cr_assert_eq(hcbs_plan_set_cpus(m, a, 100000, 20000, &cpus, no_grow, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INVALID_ARGUMENT);
        cr_assert_str_eq(v.message, "the CPUs of cgroup /a cannot change while it or a group below it holds a "
                                    "reservation; set them to max first");
        hcbs_model_set(m, b, 0, -1);
        hcbs_model_set_tasks(m, a, 1, 1);
        cr_assert_eq(hcbs_plan_set_cpus(m, a, 100000, 20000, &cpus, no_grow, &plan, &v), 0);
        cr_assert_eq(v.error, HCBS_E_GROUP_BUSY, "%s", v.message);
        hcbs_model_set_tasks(m, a, 0, 0);
        cr_assert_eq(hcbs_plan_set_cpus(m, a, 100000, 20000, &cpus, no_grow, &plan, &v), 1, "%s", v.message);
        hcbs_plan_done(&plan);
}

Test(plan, rtmax7_parent_grows_to_its_busiest_cpu) {
        HcbsCpuSet cpu1 = cpus_of("1");
        HcbsPlanScope grow = { .grow = true };
        HcbsPlan plan;
        HcbsVerdict v;
        HcbsNode *pool;

        hcbs_model_free(m);
        m = model_v7();
        pool = fixture_add(m, "", "pool", 100000, 30000);
        hcbs_model_set_cpus(m, fixture_add(m, "pool", "a", 20000, 5000), &cpu1);
        /* b on CPU 1 beside a's 25ms of 100ms: the pool needs 25 + 10 * 100 / 30 = 58.333ms there, rounded up */
        cr_assert_eq(hcbs_plan_create_cpus(m, pool, "b", 30000, 10000, &cpu1, grow, &plan, &v), 1, "%s", v.message);
        assert_plan_valid(&plan);
        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
        hcbs_plan_done(&plan);
        cr_assert_eq(pool->runtime_us, 58334);
        /* 667ns are left on CPU 1: below a server's 1024ns, nothing */
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, pool, 1), 0);
        cr_assert_eq(hcbs_node_cpu_runtime_us(m, pool, 0), 58334);
}

/* Random requests on random trees: whatever the planner returns must be valid step by step. */
/* Random requests on a random tree of iface; rtmax asks for "max" one time in five; revision 7 asks for
 * other CPUs one time in four. */
static void plan_property(HcbsInterface iface, unsigned revision, uint64_t seed) {
        Rng r = rng_from_env(seed);
        HcbsNode *nodes[24];
        unsigned n = 0, planned = 0, refused = 0, max_planned = 0, cpus_planned = 0;

        hcbs_model_free(m);
        m = revision ? model_v7() : fixture_model(iface, true);

        nodes[n++] = hcbs_model_root(m);
        for (unsigned i = 0; i < 23; i++) {
                HcbsNode *p = nodes[rng_below(&r, n)];
                char name[8];
                snprintf(name, sizeof(name), "g%u", i);
                cr_assert_eq(hcbs_model_add(m, p, name, &nodes[n]), 0);
                /* rfc1: period 0 cannot be written back (EINVAL), so no undo could restore a new group's
                 * first state; hcbsd gives such groups a period first (prepare_pool_chain) */
                if (nodes[n]->period_us == 0 && !hcbs_model_profile(m)->max_delegation)
                        hcbs_model_set(m, nodes[n], 100000, 0);
                n++;
        }
        for (unsigned step = 0; step < 20000; step++) {
                HcbsNode *t = nodes[1 + rng_below(&r, n - 1)];
                uint64_t p = 1000 * (1 + rng_below(&r, 200));
                int64_t rt = (int64_t) (p * rng_below(&r, 101) / 100);
                if (hcbs_model_profile(m)->max_delegation && rng_below(&r, 5) == 0)
                        rt = -1;
                HcbsPlanScope scope = { .grow = rng_below(&r, 2), .ceiling = NULL };
                HcbsCpuSet cpus = {};
                bool want_cpus = revision >= 7 && rng_below(&r, 4) == 0;
                HcbsPlan plan;
                HcbsVerdict v;
                for (unsigned c = 0; c < 4; c++)
                        if (rng_below(&r, 2))
                                hcbs_cpuset_add(&cpus, c);
                if (hcbs_plan_set_cpus(m, t, p, rt, want_cpus ? &cpus : NULL, scope, &plan, &v) == 1) {
                        planned++;
                        assert_plan_valid(&plan);
                        cr_assert_eq(hcbs_plan_commit(m, &plan), 0);
                        cr_assert_eq(t->period_us, p);
                        cr_assert_eq(t->runtime_us, rt);
                        max_planned += rt < 0;
                        if (want_cpus) {
                                cr_assert(hcbs_cpuset_equal(&t->cpus, &cpus));
                                cpus_planned++;
                        }
                        hcbs_plan_done(&plan);
                } else {
                        refused++;
                        cr_assert_neq(v.error, HCBS_OK);
                        cr_assert_gt(strlen(v.message), 10);
                }
        }
        fprintf(stderr, "planner %s%s: %u planned (%u max, %u with other CPUs), %u refused\n",
                hcbs_interface_to_string(iface), revision ? " v7" : "", planned, max_planned, cpus_planned, refused);
        cr_assert_gt(planned, 1000);
        cr_assert_gt(refused, 1000);
        if (hcbs_model_profile(m)->max_delegation)
                cr_assert_gt(max_planned, 200);
        if (revision >= 7)
                cr_assert_gt(cpus_planned, 200);
}

Test(plan, property_random_requests) {
        plan_property(HCBS_IFACE_LEGACY_V1, 0, 0xb1a5);
}

Test(plan, property_random_requests_rfc1) {
        plan_property(HCBS_IFACE_RFC1, 0, 0xb1a6);
}

Test(plan, property_random_requests_rtmax) {
        plan_property(HCBS_IFACE_RTMAX, 0, 0xb1a7);
}

Test(plan, property_random_requests_rtmax7) {
        plan_property(HCBS_IFACE_RTMAX, 7, 0xb1a8);
}
