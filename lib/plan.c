/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "explain.h"
#include "macro.h"
#include "name.h"
#include "plan.h"

void hcbs_plan_init(HcbsPlan *plan) {
        *plan = (HcbsPlan) {};
}

void hcbs_plan_done(HcbsPlan *plan) {
        for (size_t i = 0; i < plan->n_ops; i++) {
                free(plan->ops[i].path);
                free(plan->undo[i].path);
        }
        free(plan->ops);
        free(plan->undo);
        hcbs_plan_init(plan);
}

static HcbsNode *parent_of_path(HcbsModel *m, const char *path) {
        size_t len = hcbs_name_parent_len(path);
        char buf[len + 1];

        memcpy(buf, path, len);
        buf[len] = '\0';
        return hcbs_model_find(m, buf);
}

int hcbs_model_apply_op(HcbsModel *m, const HcbsOp *op) {
        HcbsNode *n;

        if (op->kind == HCBS_OP_NONE)
                return 0;
        if (op->kind == HCBS_OP_MKDIR) {
                HcbsNode *parent = parent_of_path(m, op->path);
                return parent ? hcbs_model_add(m, parent, hcbs_name_last(op->path), NULL) : -ENOENT;
        }
        n = hcbs_model_find(m, op->path);
        if (!n)
                return -ENOENT;
        if (op->kind == HCBS_OP_RMDIR)
                return hcbs_model_remove(m, n);
        switch (op->file) {
        case HCBS_FILE_CPUS:
                hcbs_model_set_cpus(m, n, &op->cpus);
                break;
        case HCBS_FILE_RUNTIME:
                hcbs_model_set(m, n, n->period_us, op->runtime_us);
                break;
        case HCBS_FILE_PERIOD:
                hcbs_model_set(m, n, op->period_us, n->runtime_us);
                break;
        default:
                hcbs_model_set(m, n, op->period_us, op->runtime_us);
        }
        return 0;
}

int hcbs_plan_commit(HcbsModel *m, const HcbsPlan *plan) {
        for (size_t i = 0; i < plan->n_ops; i++) {
                int r = hcbs_model_apply_op(m, &plan->ops[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Appends op and its inverse, and applies op to the model unless it is the final rmdir. */
static int plan_push(HcbsModel *m, HcbsPlan *plan, HcbsOp op, HcbsOp undo) {
        int r;

        HcbsOp *ops = realloc(plan->ops, (plan->n_ops + 1) * sizeof(HcbsOp));
        if (!ops)
                return -ENOMEM;
        plan->ops = ops;
        HcbsOp *undos = realloc(plan->undo, (plan->n_ops + 1) * sizeof(HcbsOp));
        if (!undos)
                return -ENOMEM;
        plan->undo = undos;

        op.path = strdup(op.path);
        undo.path = undo.kind == HCBS_OP_NONE ? NULL : strdup(undo.path);
        if (!op.path || (undo.kind != HCBS_OP_NONE && !undo.path)) {
                free(op.path);
                free(undo.path);
                return -ENOMEM;
        }
        plan->ops[plan->n_ops] = op;
        plan->undo[plan->n_ops] = undo;
        plan->n_ops++;
        /* An rmdir ends a plan; simulating it would lose the node for the unwind. */
        r = op.kind == HCBS_OP_RMDIR ? 0 : hcbs_model_apply_op(m, &op);
        if (r < 0) {
                plan->n_ops--;
                free(plan->ops[plan->n_ops].path);
                free(plan->undo[plan->n_ops].path);
        }
        return r;
}

/* Reverts the model and drops ops until the plan has `keep` ops again. */
static void plan_unwind(HcbsModel *m, HcbsPlan *plan, size_t keep) {
        while (plan->n_ops > keep) {
                size_t i = --plan->n_ops;
                (void) hcbs_model_apply_op(m, &plan->undo[i]);
                free(plan->ops[i].path);
                free(plan->undo[i].path);
        }
}

/* Whether a mkdir of this group's path is in the plan: its writes need no inverse then. */
static bool created_in_plan(const HcbsPlan *plan, const char *path) {
        for (size_t i = 0; i < plan->n_ops; i++)
                if (plan->ops[i].kind == HCBS_OP_MKDIR && strcmp(plan->ops[i].path, path) == 0)
                        return true;
        return false;
}

/* One write, checked by the kernel's rules before it is recorded. 1 ok, 0 refused, <0 error. */
static int plan_write(HcbsModel *m, HcbsPlan *plan, HcbsNode *n, HcbsFile file, int64_t runtime_us,
                      uint64_t period_us, HcbsCheck *ret_check) {
        HcbsCheck c = hcbs_model_check_write(m, n, file, runtime_us, period_us);
        HcbsOp op = { HCBS_OP_WRITE, n->path, file, runtime_us, period_us };
        HcbsOp undo = { HCBS_OP_WRITE, n->path, file, n->runtime_us, n->period_us };
        int r;

        *ret_check = c;
        if (c.kernel_errno)
                return 0;
        /* a new group's first period (0 on rfc1) cannot be written back, and needs not be: its rmdir
         * undoes it. Its runtime is written back, so that its bandwidth returns before an ancestor grown
         * for it shrinks again. */
        if (file == HCBS_FILE_PERIOD && created_in_plan(plan, n->path))
                undo = (HcbsOp) { HCBS_OP_NONE };
        r = plan_push(m, plan, op, undo);
        return r < 0 ? r : 1;
}

/* A cpuset.cpus write, checked by the kernel's rule before it is recorded. 1 ok, 0 refused, <0 error. */
static int plan_cpus(HcbsModel *m, HcbsPlan *plan, HcbsNode *n, const HcbsCpuSet *cpus, HcbsCheck *ret_check) {
        HcbsCheck c = hcbs_model_check_cpus(m, n, cpus);
        HcbsOp op = { HCBS_OP_WRITE, n->path, HCBS_FILE_CPUS, .cpus = *cpus };
        HcbsOp undo = { HCBS_OP_WRITE, n->path, HCBS_FILE_CPUS, .cpus = n->cpus };
        int r;

        *ret_check = c;
        if (c.kernel_errno)
                return 0;
        if (created_in_plan(plan, n->path))
                undo = (HcbsOp) { HCBS_OP_NONE };
        r = plan_push(m, plan, op, undo);
        return r < 0 ? r : 1;
}

typedef struct Step {
        HcbsFile file;
        int64_t runtime_us;
        uint64_t period_us;
} Step;

/* Tries a sequence of writes; on refusal unwinds it. 1 ok, 0 refused, <0 error. */
static int try_steps(HcbsModel *m, HcbsPlan *plan, HcbsNode *n, const Step *steps, size_t n_steps,
                     HcbsCheck *ret_check) {
        size_t keep = plan->n_ops;

        for (size_t i = 0; i < n_steps; i++) {
                int r = plan_write(m, plan, n, steps[i].file, steps[i].runtime_us, steps[i].period_us, ret_check);
                if (r <= 0) {
                        plan_unwind(m, plan, keep);
                        return r;
                }
        }
        return 1;
}

/*
 * A runtime valid under both periods: large enough for n's children (and
 * non-zero if RT tasks run there), no larger than either period.
 */
static int64_t bridge_runtime(const HcbsModel *m, const HcbsNode *n, uint64_t p0, uint64_t p1) {
        uint64_t rt;

        if (hcbs_node_children_runtime_us(m, n, MAX(p0, p1), &rt) < 0)
                return -1;
        if (rt == 0 && n->nrt > 0)
                rt = 1;
        if (rt != 0 && hcbs_model_profile(m)->dl_limits && rt * HCBS_NSEC_PER_USEC < 1024)
                rt = 2;
        return rt <= MIN(p0, p1) ? (int64_t) rt : -1;
}

/* Writes n's own files in a valid order. 1 ok, 0 refused, <0 error. */
static int plan_own_writes(HcbsModel *m, HcbsPlan *plan, HcbsNode *n, uint64_t p1, int64_t r1, HcbsCheck *ret_check) {
        uint64_t p0 = n->period_us;
        int64_t r0 = n->runtime_us, bridge;
        int r;

        if (hcbs_model_profile(m)->atomic_write) {
                Step s = { HCBS_FILE_MAX, r1, p1 };
                return try_steps(m, plan, n, &s, 1, ret_check);
        }
        if (p0 == p1 && r0 == r1)
                return 1;
        if (p0 == p1)
                return try_steps(m, plan, n, &(Step) { HCBS_FILE_RUNTIME, r1, 0 }, 1, ret_check);
        if (r0 == r1)
                return try_steps(m, plan, n, &(Step) { HCBS_FILE_PERIOD, 0, p1 }, 1, ret_check);

        const Step period_first[] = { { HCBS_FILE_PERIOD, 0, p1 }, { HCBS_FILE_RUNTIME, r1, 0 } };
        const Step runtime_first[] = { { HCBS_FILE_RUNTIME, r1, 0 }, { HCBS_FILE_PERIOD, 0, p1 } };
        /* Growing (r1/p1 >= r0/p0) usually passes period first, shrinking runtime first. */
        bool grow = hcbs_bw(p1, r1) >= n->bw;
        HcbsCheck other;
        r = try_steps(m, plan, n, grow ? period_first : runtime_first, 2, ret_check);
        if (r != 0)
                return r;
        r = try_steps(m, plan, n, grow ? runtime_first : period_first, 2, &other);
        if (r != 0)
                return r;

        bridge = bridge_runtime(m, n, p0, p1);
        if (bridge < 0 || bridge == r0 || bridge == r1)
                return 0;
        const Step via_bridge[] = {
                { HCBS_FILE_RUNTIME, bridge, 0 }, { HCBS_FILE_PERIOD, 0, p1 }, { HCBS_FILE_RUNTIME, r1, 0 } };
        return try_steps(m, plan, n, via_bridge, 3, &other);
}

/* Whether a is the pool, or base or one of its ancestors below the pool. */
static bool in_pool_chain(HcbsPlanScope scope, const HcbsNode *a) {
        bool seen = false;

        if (!scope.pool || !a)
                return false;
        if (a == scope.pool)
                return true;
        for (const HcbsNode *b = scope.base; b; b = b->parent) {
                if (b == scope.pool)
                        return seen;
                seen |= b == a;
        }
        return false;
}

static bool may_grow(HcbsPlanScope scope, const HcbsNode *a) {
        if (in_pool_chain(scope, a))
                return true;
        if (!scope.grow || !a)
                return false;
        if (!scope.ceiling)
                return true;
        for (const HcbsNode *up = a->parent; up; up = up->parent)
                if (up == scope.ceiling)
                        return true;
        return false;
}

typedef struct Planner {
        HcbsModel *m;
        HcbsPlan *plan;
        HcbsPlanScope scope;
        HcbsVerdict *verdict;
        bool refused; /* verdict holds the reason */
} Planner;

/* Records why n cannot reach (p1, r1), while the simulated state still exists. */
static int refuse(Planner *pl, const HcbsNode *n, uint64_t p1, int64_t r1, HcbsCheck c) {
        if (!pl->refused)
                hcbs_explain(pl->m, pl->scope.base, n, p1, r1, c, pl->verdict);
        pl->refused = true;
        return 0;
}

static int plan_set_rec(Planner *pl, HcbsNode *n, uint64_t p1, int64_t r1);

/* The group whose bandwidth n draws on: its parent, or under rtmax the parent's context. */
static HcbsNode *bandwidth_parent(const HcbsModel *m, const HcbsNode *n) {
        return (HcbsNode *) hcbs_node_context(hcbs_model_profile(m), n->parent);
}

/* Grows n's parent (rtmax: its context), keeping its period, so that n at (p1, r1) fits beside its siblings. */
static int grow_parent(Planner *pl, HcbsNode *n, uint64_t p1, int64_t r1) {
        HcbsNode *parent = bandwidth_parent(pl->m, n);
        uint64_t runtime;

        if (parent->runtime_us < 0 || parent->period_us == 0 ||
            hcbs_model_context_need_us(pl->m, n, p1, r1, &runtime) < 0)
                return 0;
        return plan_set_rec(pl, parent, parent->period_us, (int64_t) runtime);
}

/*
 * An HCBS root at runtime 0 holding RT kernel threads refuses every write
 * (ROOT_STALLED). When the scope reaches the root, it first gets the least
 * runtime that holds its children (at least 2us: below 1024ns is refused);
 * growing it further is then a parent's ordinary growth.
 */
static int unstall_root(Planner *pl) {
        HcbsNode *root = hcbs_model_root(pl->m);
        uint64_t period = root->period_us ? root->period_us : hcbs_model_profile(pl->m)->global_period_us;
        uint64_t runtime;

        if (hcbs_node_children_runtime_us(pl->m, root, period, &runtime) < 0)
                return 0;
        return plan_set_rec(pl, root, period, (int64_t) (runtime < 2 ? 2 : runtime));
}

static int plan_set_rec(Planner *pl, HcbsNode *n, uint64_t p1, int64_t r1) {
        HcbsCheck c = hcbs_model_check(pl->m, n, p1, r1);
        size_t keep = pl->plan->n_ops;
        int r;

        if (c.reason == HCBS_REASON_ROOT_STALLED && n != hcbs_model_root(pl->m) &&
            may_grow(pl->scope, hcbs_model_root(pl->m))) {
                r = unstall_root(pl);
                if (r < 0)
                        return r;
                if (pl->refused)
                        return 0;
                if (r > 0)
                        c = hcbs_model_check(pl->m, n, p1, r1);
        }

        if (c.reason == HCBS_REASON_PARENT_FULL && may_grow(pl->scope, bandwidth_parent(pl->m, n))) {
                r = grow_parent(pl, n, p1, r1);
                if (r < 0)
                        return r;
                if (pl->refused)
                        return 0; /* an ancestor cannot grow: that is the reason to report */
                if (r > 0)
                        c = hcbs_model_check(pl->m, n, p1, r1);
        }
        if (c.kernel_errno == 0) {
                r = plan_own_writes(pl->m, pl->plan, n, p1, r1, &c);
                if (r != 0)
                        return r;
        }
        refuse(pl, n, p1, r1, c);
        plan_unwind(pl->m, pl->plan, keep);
        return 0;
}

/* Leaves the model as it found it; drops the plan unless it succeeded. */
static int plan_finish(Planner *pl, int r) {
        if (r <= 0) {
                plan_unwind(pl->m, pl->plan, 0);
                hcbs_plan_done(pl->plan);
                return r;
        }
        for (size_t i = pl->plan->n_ops; i > 0; i--)
                (void) hcbs_model_apply_op(pl->m, &pl->plan->undo[i - 1]);
        hcbs_verdict_ok(pl->verdict);
        return 1;
}

static Planner planner_start(HcbsModel *m, HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v) {
        hcbs_plan_init(plan);
        hcbs_verdict_ok(v);
        return (Planner) { m, plan, scope, v, false };
}

/*
 * cpus (if they change) before the reservation. Under cpuset_coupling the kernel takes them only
 * while n and every group below it are "max": n's own reservation steps aside first, and comes back
 * (as it asks) once they are written.
 */
static int plan_cpus_then_set(Planner *pl, HcbsNode *n, uint64_t p1, int64_t r1, const HcbsCpuSet *cpus) {
        const HcbsProfile *p = hcbs_model_profile(pl->m);
        size_t keep = pl->plan->n_ops;
        HcbsCheck c;
        int r;

        if (!cpus || hcbs_cpuset_equal(cpus, &n->cpus))
                return plan_set_rec(pl, n, p1, r1);
        if (p->cpuset_coupling && !hcbs_node_is_max(p, n) && n->n_reserved == 1) {
                r = plan_set_rec(pl, n, n->period_us, -1);
                if (r <= 0)
                        return r;
        }
        r = plan_cpus(pl->m, pl->plan, n, cpus, &c);
        if (r == 0)
                refuse(pl, n, n->period_us, n->runtime_us, c);
        if (r > 0)
                r = plan_set_rec(pl, n, p1, r1);
        if (r <= 0)
                plan_unwind(pl->m, pl->plan, keep);
        return r;
}

int hcbs_plan_set(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us, HcbsPlanScope scope,
                  HcbsPlan *plan, HcbsVerdict *v) {
        return hcbs_plan_set_cpus(m, n, period_us, runtime_us, NULL, scope, plan, v);
}

int hcbs_plan_set_cpus(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us, const HcbsCpuSet *cpus,
                       HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v) {
        Planner pl = planner_start(m, scope, plan, v);
        return plan_finish(&pl, plan_cpus_then_set(&pl, n, period_us, runtime_us < 0 ? -1 : runtime_us, cpus));
}

int hcbs_plan_create(HcbsModel *m, HcbsNode *parent, const char *name, uint64_t period_us, int64_t runtime_us,
                     HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v) {
        return hcbs_plan_create_cpus(m, parent, name, period_us, runtime_us, NULL, scope, plan, v);
}

int hcbs_plan_create_cpus(HcbsModel *m, HcbsNode *parent, const char *name, uint64_t period_us, int64_t runtime_us,
                          const HcbsCpuSet *cpus, HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v) {
        Planner pl = planner_start(m, scope, plan, v);
        _cleanup_free_ char *path = NULL;
        int r;

        if (parent->path[0] ? asprintf(&path, "%s/%s", parent->path, name) < 0 : !(path = strdup(name)))
                return -ENOMEM;
        if (hcbs_model_find(m, path))
                return -EEXIST;
        r = plan_push(m, plan, (HcbsOp) { HCBS_OP_MKDIR, path }, (HcbsOp) { HCBS_OP_RMDIR, path });
        if (r >= 0)
                r = plan_cpus_then_set(&pl, hcbs_model_find(m, path), period_us, runtime_us < 0 ? -1 : runtime_us, cpus);
        return plan_finish(&pl, r);
}

int hcbs_plan_delete(HcbsModel *m, HcbsNode *n, HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v) {
        Planner pl = planner_start(m, scope, plan, v);
        HcbsFile file = hcbs_model_profile(m)->atomic_write ? HCBS_FILE_MAX : HCBS_FILE_RUNTIME;
        HcbsCheck c;
        int r = 1;

        /* a "max" group (rtmax) holds no bandwidth of its own: nothing to give back */
        if (n->runtime_us != 0 && !hcbs_node_is_max(hcbs_model_profile(m), n)) {
                r = plan_write(m, plan, n, file, 0, n->period_us, &c);
                if (r == 0)
                        refuse(&pl, n, n->period_us, 0, c);
        }
        if (r > 0)
                r = plan_push(m, plan, (HcbsOp) { HCBS_OP_RMDIR, n->path }, (HcbsOp) { HCBS_OP_NONE }) ?: 1;
        return plan_finish(&pl, r);
}
