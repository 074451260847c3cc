/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "admission.h"
#include "bandwidth.h"
#include "duration.h"
#include "explain.h"
#include "macro.h"
#include "name.h"
#include "strutil.h"

HcbsNode *hcbs_admission_find(const HcbsAdmission *adm, const char *name) {
        char path[HCBS_NAME_MAX + strlen(adm->base->path) + 2];

        if (!hcbs_name_is_valid(name))
                return NULL;
        snprintf(path, sizeof(path), "%s%s%s", adm->base->path, adm->base->path[0] ? "/" : "", name);
        return hcbs_model_find(adm->model, path);
}

static HcbsPlanScope scope_of(const HcbsAdmission *adm, bool grow) {
        return (HcbsPlanScope) { .grow = grow, .ceiling = adm->base, .base = adm->base, .pool = adm->pool };
}

/* hcbsd's pool (hcbs.slice), as an HcbsPool; its node is NULL without systemd. */
static HcbsPool main_pool(const HcbsAdmission *adm) {
        return (HcbsPool) { .node = adm->pool, .cap_bw = adm->pool_cap_bw };
}

/* What the pool holds once the plan ran: its last values in the plan, or as it is. */
static uint64_t pool_bw_after(const HcbsPool *p, const HcbsPlan *plan) {
        uint64_t period = p->node->period_us;
        int64_t runtime = p->node->runtime_us;

        for (size_t i = 0; i < plan->n_ops; i++) {
                const HcbsOp *op = &plan->ops[i];
                if (op->kind != HCBS_OP_WRITE || op->file == HCBS_FILE_CPUS || strcmp(op->path, p->node->path) != 0)
                        continue;
                if (op->file != HCBS_FILE_PERIOD)
                        runtime = op->runtime_us;
                if (op->file != HCBS_FILE_RUNTIME)
                        period = op->period_us;
        }
        return hcbs_bw(period, runtime);
}

/* "hcbs.slice/motor.service 20.0%, hcbsd's groups 10.0%": who holds the pool; "" when nobody does. */
static void describe_pool(const HcbsAdmission *adm, const HcbsPool *p, char *out, size_t size) {
        char name[HCBS_NAME_MAX + 32], pct[HCBS_BW_STRLEN];
        unsigned n = 0;

        out[0] = '\0';
        HCBS_NODE_FOREACH_CHILD(c, p->node) {
                bool own = hcbs_node_is_ancestor(c, adm->base);
                if (c->bw == 0)
                        continue;
                hcbs_strbuf_append(out, size, "%s%s %s", n++ ? ", " : "",
                                   own ? "hcbsd's groups" : hcbs_display_name(p->node->parent, c, name, sizeof(name)),
                                   hcbs_bw_format(c->bw, pct));
        }
}

/* The refusal of a request for name that would take the pool to after, beyond its Capacity=. */
static void pool_cap_verdict(const HcbsAdmission *adm, const HcbsPool *p, const char *name, uint64_t after,
                             HcbsVerdict *v) {
        char pool[HCBS_NAME_MAX + 32], held[HCBS_MESSAGE_MAX / 2];
        char need[HCBS_BW_STRLEN], fr[HCBS_BW_STRLEN], cap[HCBS_BW_STRLEN];
        uint64_t now = p->node->children_bw;

        describe_pool(adm, p, held, sizeof(held));
        hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                         "%s needs %s more per CPU; %s has %s free of its Capacity= %s%s%s%s", name,
                         hcbs_bw_format(after - now, need), hcbs_display_name(p->node->parent, p->node, pool,
                         sizeof(pool)), hcbs_bw_format(p->cap_bw > now ? p->cap_bw - now : 0, fr),
                         hcbs_bw_format(p->cap_bw, cap), held[0] ? ": " : "", held,
                         held[0] ? " hold the rest" : "");
}

/* The pool grows with what it holds, up to Capacity=. Takes the plan r of a request for name. */
static int check_pool_cap(const HcbsAdmission *adm, const HcbsPool *p, const char *name, HcbsPlan *plan, int r,
                          HcbsVerdict *v) {
        uint64_t after;

        if (r <= 0 || !p->node)
                return r;
        after = pool_bw_after(p, plan);
        if (after <= p->cap_bw || after <= p->node->bw)
                return 1;
        hcbs_plan_done(plan);
        pool_cap_verdict(adm, p, name, after, v);
        return 0;
}

/*
 * The least the pool holds once a group below it (n, or a new child of parent) takes bw per CPU:
 * what the free bandwidth of the groups between them cannot absorb goes up to the pool.
 */
static uint64_t pool_bw_least(const HcbsPool *p, const HcbsNode *parent, const HcbsNode *n, uint64_t runtime_us,
                              uint64_t period_us) {
        uint64_t bw = runtime_us == HCBS_RUNTIME_MAX_US || period_us == 0 ? 0 : hcbs_bw(period_us, runtime_us);
        uint64_t grow = n ? (bw > n->bw ? bw - n->bw : 0) : bw;

        if (parent != p->node && !hcbs_node_is_ancestor(p->node, parent))
                return p->node->children_bw;
        for (const HcbsNode *a = parent; a != p->node && grow > 0; a = a->parent) {
                uint64_t slack = hcbs_node_free_bw(a);
                grow = grow > slack ? grow - slack : 0;
        }
        return p->node->children_bw + grow;
}

/*
 * A request refused for bandwidth: had it grown whatever it needed, would it have taken the pool
 * beyond Capacity=? Then that is the reason to give (it names who holds the pool), not the ancestor
 * that happened to be full first (on rtmax the kernel root holds exactly the capacity). what_if is
 * the request's plan with every ancestor free to grow; the model is left as it was. When even that
 * plan is refused (it would take the kernel's root beyond what it allows), least is what the pool
 * would have to hold at the least (pool_bw_least()): beyond Capacity=, that is still the reason.
 */
static int explain_by_pool(const HcbsAdmission *adm, const HcbsPool *p, const char *name, int r, HcbsPlan *what_if,
                           int what_if_r, uint64_t least, HcbsVerdict *v) {
        uint64_t after = least;

        if (what_if_r > 0) {
                after = pool_bw_after(p, what_if);
                hcbs_plan_done(what_if);
        }
        if (after > p->cap_bw && after > p->node->bw)
                pool_cap_verdict(adm, p, name, after, v);
        return r;
}

static bool pool_may_explain(const HcbsPool *p, int r, const HcbsVerdict *v) {
        return r == 0 && p->node && v->error == HCBS_E_INSUFFICIENT_BANDWIDTH;
}

static HcbsPlanScope what_if_scope(const HcbsAdmission *adm) {
        return (HcbsPlanScope) { .grow = true, .base = adm->base, .pool = adm->pool };
}

/* Name syntax and existence. Returns the node (NULL if absent) through ret; 0 with v set when refused. */
static int lookup(const HcbsAdmission *adm, const char *name, bool must_exist, HcbsNode **ret, HcbsVerdict *v) {
        char err[HCBS_MESSAGE_MAX];

        if (hcbs_name_validate(name, err, sizeof(err)) < 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_NAME, 0, "%s", err);
                return 0;
        }
        *ret = hcbs_admission_find(adm, name);
        if (must_exist && !*ret) {
                hcbs_verdict_set(v, HCBS_E_NO_SUCH_GROUP, 0, "no group '%s'", name);
                return 0;
        }
        if (!must_exist && *ret) {
                hcbs_verdict_set(v, HCBS_E_GROUP_EXISTS, 0, "group '%s' already exists", name);
                return 0;
        }
        return 1;
}

static int check_values(const HcbsAdmission *adm, const char *name, uint64_t runtime_us, uint64_t period_us,
                        HcbsVerdict *v) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN], c[HCBS_DURATION_STRLEN];

        if (runtime_us == HCBS_RUNTIME_MAX_US) {
                /* "max": no reservation; only a v6 kernel (rtmax) has it. Period 0 keeps the kernel's. */
                if (!hcbs_model_profile(adm->model)->max_delegation) {
                        hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                         "%s: a group without a reservation (max) needs the rtmax kernel interface "
                                         "(this kernel is %s)",
                                         name, hcbs_interface_to_string(hcbs_model_profile(adm->model)->interface));
                        return 0;
                }
                if (period_us == 0)
                        return 1;
        }
        if (period_us < adm->min_period_us || period_us > adm->max_period_us) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%s: period %s is outside MinPeriod=%s..MaxPeriod=%s",
                                 name, hcbs_duration_format(period_us, a), hcbs_duration_format(adm->min_period_us, b),
                                 hcbs_duration_format(adm->max_period_us, c));
                return 0;
        }
        if (runtime_us > period_us && runtime_us != HCBS_RUNTIME_MAX_US) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "%s: runtime %s is longer than the period %s",
                                 name, hcbs_duration_format(runtime_us, a), hcbs_duration_format(period_us, b));
                return 0;
        }
        return 1;
}

int hcbs_admit_cpus(const HcbsAdmission *adm, const char *name, const HcbsCpuSet *cpus, HcbsVerdict *v) {
        const HcbsProfile *p = hcbs_model_profile(adm->model);
        char online[HCBS_CPUSET_STRLEN];

        if (!cpus)
                return 1;
        if (!p->cpuset_coupling) {
                hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                 "%s: a CPU list needs a kernel whose reservations follow cpusets (HCBS devel-v7, "
                                 "cpu.rt.max.effective.local); on this one (%s%s) every reservation holds on every CPU",
                                 name, hcbs_interface_to_string(p->interface), p->revision == 6 ? " v6" : "");
                return 0;
        }
        if (!hcbs_cpuset_is_subset(cpus, &p->online)) {
                HcbsCpuSet off = *cpus;
                for (size_t i = 0; i < ELEMENTSOF(off.w); i++)
                        off.w[i] &= ~p->online.w[i];
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%s: CPU %d is not online (online: %s)", name,
                                 hcbs_cpuset_next(&off, -1), hcbs_cpuset_format(&p->online, online, sizeof(online)));
                return 0;
        }
        return 1;
}

/* RT tasks and processes belong in leaves: a group holding processes gets no children. */
static int check_parent_leaf(const HcbsAdmission *adm, const HcbsNode *parent, const char *name, HcbsVerdict *v) {
        char pname[HCBS_NAME_MAX + 32];

        if (parent->nprocs == 0 || parent == adm->base)
                return 1;
        hcbs_verdict_set(v, HCBS_E_NOT_LEAF, 0,
                         "%s holds %u process(es); move them into the new group first (move_processes_to, "
                         "hcbsctl create --move-processes) or elsewhere before creating %s",
                         hcbs_display_name(adm->base, parent, pname, sizeof(pname)), parent->nprocs, name);
        return 0;
}

int hcbs_admit_create(const HcbsAdmission *adm, const char *name, uint64_t runtime_us, uint64_t period_us,
                      const HcbsCpuSet *cpus, bool grow_parents, HcbsPlan *plan, HcbsVerdict *v) {
        HcbsPool pool = main_pool(adm);
        HcbsNode *n, *parent;
        int r;

        hcbs_plan_init(plan);
        if (!lookup(adm, name, false, &n, v) || !check_values(adm, name, runtime_us, period_us, v) ||
            !hcbs_admit_cpus(adm, name, cpus, v))
                return 0;

        size_t plen = hcbs_name_parent_len(name);
        if (plen == 0)
                parent = adm->base;
        else {
                char pn[plen + 1];
                memcpy(pn, name, plen);
                pn[plen] = '\0';
                parent = hcbs_admission_find(adm, pn);
                if (!parent) {
                        hcbs_verdict_set(v, HCBS_E_NO_SUCH_GROUP, 0, "parent group '%s' does not exist", pn);
                        return 0;
                }
        }
        if (!check_parent_leaf(adm, parent, name, v))
                return 0;
        r = hcbs_plan_create_cpus(adm->model, parent, hcbs_name_last(name), period_us, (int64_t) runtime_us, cpus,
                                  scope_of(adm, grow_parents), plan, v);
        if (r == -EEXIST) {
                hcbs_verdict_set(v, HCBS_E_GROUP_EXISTS, 0, "group '%s' already exists", name);
                return 0;
        }
        if (pool_may_explain(&pool, r, v)) {
                HcbsPlan w;
                HcbsVerdict wv;
                return explain_by_pool(adm, &pool, name, r, &w,
                                       hcbs_plan_create_cpus(adm->model, parent, hcbs_name_last(name), period_us,
                                                             (int64_t) runtime_us, cpus, what_if_scope(adm), &w, &wv),
                                       pool_bw_least(&pool, parent, NULL, runtime_us, period_us), v);
        }
        return check_pool_cap(adm, &pool, name, plan, r, v);
}

int hcbs_admit_set(const HcbsAdmission *adm, const char *name, uint64_t runtime_us, uint64_t period_us,
                   const HcbsCpuSet *cpus, bool grow_parents, HcbsPlan *plan, HcbsVerdict *v) {
        HcbsPool pool = main_pool(adm);
        HcbsNode *n;

        hcbs_plan_init(plan);
        if (!lookup(adm, name, true, &n, v))
                return 0;
        if (runtime_us == HCBS_RUNTIME_MAX_US && period_us == 0)
                period_us = n->period_us; /* "max" alone keeps the period */
        if (!check_values(adm, name, runtime_us, period_us, v) || !hcbs_admit_cpus(adm, name, cpus, v))
                return 0;
        int r = hcbs_plan_set_cpus(adm->model, n, period_us, (int64_t) runtime_us, cpus, scope_of(adm, grow_parents),
                                   plan, v);
        if (pool_may_explain(&pool, r, v)) {
                HcbsPlan w;
                HcbsVerdict wv;
                return explain_by_pool(adm, &pool, name, r, &w,
                                       hcbs_plan_set_cpus(adm->model, n, period_us, (int64_t) runtime_us, cpus,
                                                          what_if_scope(adm), &w, &wv),
                                       pool_bw_least(&pool, n->parent, n, runtime_us, period_us), v);
        }
        return check_pool_cap(adm, &pool, name, plan, r, v);
}

int hcbs_admit_delete(const HcbsAdmission *adm, const char *name, HcbsPlan *plan, HcbsVerdict *v) {
        HcbsNode *n;

        hcbs_plan_init(plan);
        if (!lookup(adm, name, true, &n, v))
                return 0;
        if (n->n_children > 0) {
                hcbs_verdict_set(v, HCBS_E_GROUP_BUSY, EBUSY, "%s has %u child group(s) (first: %s); delete them first",
                                 name, n->n_children, n->first_child->name);
                return 0;
        }
        if (n->nprocs > 0) {
                hcbs_verdict_set(v, HCBS_E_GROUP_BUSY, EBUSY,
                                 "%s holds %u process(es); detach them, or delete with migrate_to (hcbsctl delete "
                                 "--migrate-to) to move them",
                                 name, n->nprocs);
                return 0;
        }
        return hcbs_plan_delete(adm->model, n, scope_of(adm, false), plan, v);
}

int hcbs_admit_pool_unit(const HcbsAdmission *adm, const HcbsPool *pool, HcbsNode *n, const char *unit,
                         uint64_t runtime_us, uint64_t period_us, const HcbsCpuSet *cpus, HcbsPlan *plan,
                         HcbsVerdict *v) {
        /* named from the pool's parent: "hcbs.slice/motor.service", "hcbs.slice" */
        HcbsPlanScope scope = { .base = pool->node ? pool->node->parent : NULL, .pool = pool->node };

        hcbs_plan_init(plan);
        if (!pool->node || n->parent != pool->node) {
                hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0, "%s is not in the slice hcbsd reserves from", unit);
                return 0;
        }
        if ((runtime_us > 0 && !check_values(adm, unit, runtime_us, period_us, v)) || !hcbs_admit_cpus(adm, unit, cpus, v))
                return 0;
        int r = hcbs_plan_set_cpus(adm->model, n, period_us, (int64_t) runtime_us, cpus, scope, plan, v);
        if (pool_may_explain(pool, r, v)) {
                HcbsPlan w;
                HcbsVerdict wv;
                HcbsPlanScope ws = { .grow = true, .base = scope.base, .pool = pool->node };
                return explain_by_pool(adm, pool, unit, r, &w,
                                       hcbs_plan_set_cpus(adm->model, n, period_us, (int64_t) runtime_us, cpus, ws, &w,
                                                          &wv),
                                       pool_bw_least(pool, n->parent, n, runtime_us, period_us), v);
        }
        return check_pool_cap(adm, pool, unit, plan, r, v);
}

int hcbs_admit_unit(const HcbsAdmission *adm, HcbsNode *n, const char *unit, uint64_t runtime_us, uint64_t period_us,
                    const HcbsCpuSet *cpus, HcbsPlan *plan, HcbsVerdict *v) {
        HcbsPool pool = main_pool(adm);

        return hcbs_admit_pool_unit(adm, &pool, n, unit, runtime_us, period_us, cpus, plan, v);
}

int hcbs_admit_attach(const HcbsAdmission *adm, const char *name, bool rt, HcbsVerdict *v) {
        HcbsNode *n;

        if (!lookup(adm, name, true, &n, v))
                return 0;
        if (n->n_children > 0) {
                hcbs_verdict_set(v, HCBS_E_NOT_LEAF, EBUSY,
                                 "%s has child groups; processes may only be placed in leaf groups", name);
                return 0;
        }
        if (!hcbs_model_can_attach(adm->model, n, rt)) {
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, EINVAL,
                                 "%s has no runtime, so RT tasks cannot run there; give it a reservation first", name);
                return 0;
        }
        hcbs_verdict_ok(v);
        return 1;
}

int hcbs_admitted(int answer, HcbsVerdict *v) {
        assert(v);
        if (answer < 0)
                return answer;
        if (answer > 0)
                return 0;
        if (v->error == HCBS_OK) /* a refusal always says why; should one not, it is still a refusal */
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "refused");
        return (int) v->error;
}
