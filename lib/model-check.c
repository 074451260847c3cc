/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's verdicts, computed two ways: hcbs_model_check() from the
 * caches in O(1), hcbs_model_walk_check() by the kernel's whole-tree walk.
 * See model.h for the order of checks and docs/kernel-rules.md for the
 * source of each rule.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>

#include "bandwidth.h"
#include "model.h"
#include "strutil.h"

#define CHECK_OK ((HcbsCheck) { 0, HCBS_REASON_NONE })
#define REFUSE(e, r) ((HcbsCheck) { (e), (r) })

static bool is_kernel_root(const HcbsNode *n) {
        return n && n->is_kernel_root;
}

/* Pre-order successor within the tree, as walk_tg_tree() visits groups. */
static const HcbsNode *preorder_next(const HcbsNode *t) {
        if (t->first_child)
                return t->first_child;
        for (; t; t = t->parent)
                if (t->next)
                        return t->next;
        return NULL;
}

/* dl_check_tg(): the root's ratio must fit beside SCHED_DEADLINE bandwidth. */
static bool dl_fits(const HcbsProfile *p, uint64_t total) {
        if (p->dl_bw == UINT64_MAX)
                return true;
        return !((unsigned __int128) p->dl_bw * p->dl_cpus <
                 (unsigned __int128) p->dl_total_bw + (unsigned __int128) total * p->dl_cpus);
}

static bool bandwidth_enabled(const HcbsProfile *p) {
        return p->global_runtime_us >= 0;
}

static uint64_t period_ns_of(uint64_t period_us) {
        return period_us * HCBS_NSEC_PER_USEC;
}

/* sched_group_set_rt_period()'s range, tg_set_rt_bandwidth() and __rt_schedulable() before the walk. */
static HcbsCheck pre_checks(const HcbsProfile *p, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        uint64_t period_ns = period_ns_of(period_us), runtime_ns = hcbs_runtime_ns(runtime_us);

        if (period_us > HCBS_MAX_FILE_USEC)
                return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);
        if (p->leaf_only && runtime_ns != 0 && !is_kernel_root(n) && n->parent && !is_kernel_root(n->parent) &&
            n->parent->nrt > 0)
                return REFUSE(EINVAL, HCBS_REASON_PARENT_HAS_RT);
        if (p->root_runtime_nonzero && is_kernel_root(n) && runtime_ns == 0)
                return REFUSE(EINVAL, HCBS_REASON_ROOT_ZERO);
        if (period_ns == 0)
                return REFUSE(EINVAL, HCBS_REASON_PERIOD_ZERO);
        if (runtime_ns != HCBS_RUNTIME_INF && runtime_ns > HCBS_MAX_RT_RUNTIME_NS)
                return REFUSE(EINVAL, HCBS_REASON_RUNTIME_RANGE);
        if (p->dl_limits && runtime_ns != 0 && runtime_ns < 1024)
                return REFUSE(EINVAL, HCBS_REASON_RUNTIME_SMALL);
        if (p->dl_limits && (period_ns & (UINT64_C(1) << 63)))
                return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);
        return CHECK_OK;
}

/*
 * tg_rt_schedulable() for one group t, given the values it would have
 * (period, runtime) and the sum of its children's ratios.
 */
static HcbsCheck group_checks(const HcbsProfile *p, const HcbsNode *t, uint64_t period_ns, uint64_t runtime_ns,
                              uint64_t children_bw, bool has_rt) {
        uint64_t total = hcbs_to_ratio(period_ns, runtime_ns);

        if (runtime_ns > period_ns && runtime_ns != HCBS_RUNTIME_INF)
                return REFUSE(EINVAL, HCBS_REASON_RUNTIME_ABOVE_PERIOD);
        if (bandwidth_enabled(p) && runtime_ns == 0 && has_rt &&
            (!p->ebusy_needs_old_runtime || t->runtime_us != 0))
                return REFUSE(EBUSY, is_kernel_root(t) ? HCBS_REASON_ROOT_STALLED : HCBS_REASON_RT_TASKS);
        if (total > hcbs_profile_global_bw(p))
                return REFUSE(EINVAL, HCBS_REASON_GLOBAL_LIMIT);
        if (p->root_reserve && is_kernel_root(t) && !dl_fits(p, total))
                return REFUSE(EBUSY, HCBS_REASON_ROOT_RESERVE);
        if (children_bw > total)
                return REFUSE(EINVAL, HCBS_REASON_CHILDREN_EXCEED);
        return CHECK_OK;
}

/*
 * rtmax (HCBS v6, "sched/rt: Update rt-cgroup schedulability checks"): runtime -1 is "max".
 * The RT tasks of n's context-subtree (n and its descendants reached through "max" groups)
 * run on n's context's servers.
 */
static bool context_has_rt(const HcbsProfile *p, const HcbsNode *n) {
        if (n->nrt > 0)
                return true;
        HCBS_NODE_FOREACH_CHILD(c, n)
                if (hcbs_node_is_max(p, c) && context_has_rt(p, c))
                        return true;
        return false;
}

/* The EBUSY rule's test: RT tasks run on t's servers (the root's runqueue is exempt). */
static bool rtmax_has_rt(const HcbsProfile *p, const HcbsNode *t) {
        return !is_kernel_root(t) && context_has_rt(p, t);
}

/*
 * tg_set_rt_max() before the walk: the range of the values, "max" on the root, MAX_BW,
 * __checkparam_dl(attr, allow_zero_runtime), then the switch rule.
 */
static HcbsCheck rtmax_pre_checks(const HcbsProfile *p, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        uint64_t period_ns = period_ns_of(period_us), runtime_ns;
        bool max = runtime_us < 0;

        if (!max && (uint64_t) runtime_us > HCBS_MAX_FILE_USEC)
                return REFUSE(EINVAL, HCBS_REASON_RUNTIME_RANGE);
        if (period_us > HCBS_MAX_FILE_USEC)
                return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);
        if (max && is_kernel_root(n))
                return REFUSE(EINVAL, HCBS_REASON_ROOT_MAX);
        if (!max) {
                runtime_ns = (uint64_t) runtime_us * HCBS_NSEC_PER_USEC;
                if (runtime_ns > HCBS_MAX_RT_RUNTIME_NS)
                        return REFUSE(EINVAL, HCBS_REASON_RUNTIME_RANGE);
                if (runtime_ns != 0 && period_ns == 0)
                        return REFUSE(EINVAL, HCBS_REASON_PERIOD_ZERO);
                if (runtime_ns != 0 && runtime_ns < 1024)
                        return REFUSE(EINVAL, HCBS_REASON_RUNTIME_SMALL);
                if (period_ns & (UINT64_C(1) << 63))
                        return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);
                if (runtime_ns > period_ns)
                        return REFUSE(EINVAL, HCBS_REASON_RUNTIME_ABOVE_PERIOD);
                if (p->dl_period_range && (runtime_ns != 0 || period_ns != 0) &&
                    (period_us < p->dl_period_min_us || period_us > p->dl_period_max_us))
                        return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);
        }
        if (max != hcbs_node_is_max(p, n) && context_has_rt(p, n))
                return REFUSE(EINVAL, HCBS_REASON_SWITCH_RT_TASKS);
        return CHECK_OK;
}

/* The walk's checks on a "max" model root (not the kernel's root): it has nothing to give. */
static HcbsCheck max_root_checks(uint64_t children_bw) {
        return children_bw > 0 ? REFUSE(EINVAL, HCBS_REASON_CHILDREN_EXCEED) : CHECK_OK;
}

/*
 * The walk can only fail at the root (its stored values), at n's context P (its children's
 * sum, which holds n's new share: its bw, or when it becomes "max" its children's sum) and
 * at n itself. Contexts other than P and n keep their sums.
 */
static HcbsCheck rtmax_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        const HcbsNode *root = hcbs_model_root(m);
        bool max = runtime_us < 0;
        uint64_t period_ns = period_ns_of(period_us), runtime_ns = max ? 0 : hcbs_runtime_ns(runtime_us);
        HcbsCheck c = rtmax_pre_checks(p, n, period_us, runtime_us);

        if (c.kernel_errno)
                return c;

        if (n != root) {
                const HcbsNode *ctx = hcbs_node_context(p, n->parent);
                uint64_t old_share = hcbs_node_is_max(p, n) ? n->children_bw : n->bw;
                uint64_t new_share = max ? n->children_bw : hcbs_to_ratio(period_ns, runtime_ns);

                if (!hcbs_node_is_max(p, root)) {
                        c = group_checks(p, root, period_ns_of(root->period_us), hcbs_runtime_ns(root->runtime_us),
                                         0, rtmax_has_rt(p, root));
                        if (c.kernel_errno)
                                return c;
                }
                if (ctx->children_bw - old_share + new_share > ctx->bw)
                        return REFUSE(EINVAL, HCBS_REASON_PARENT_FULL);
        }

        if (max)
                return n == root ? max_root_checks(n->children_bw) : CHECK_OK;
        return group_checks(p, n, period_ns, runtime_ns, n->children_bw, rtmax_has_rt(p, n));
}

/* The values t would have after writing (period_us, runtime_us) to n. */
static int64_t runtime_after(const HcbsNode *t, const HcbsNode *n, int64_t runtime_us) {
        return t == n ? (runtime_us < 0 ? -1 : runtime_us) : t->runtime_us;
}

static const HcbsNode *context_after(const HcbsProfile *p, const HcbsNode *t, const HcbsNode *n, int64_t runtime_us) {
        while (t->parent && p->max_delegation && runtime_after(t, n, runtime_us) < 0)
                t = t->parent;
        return t;
}

/* Σ over t's subtree of what counts against context t after the write (the kernel's walk). */
static uint64_t rtmax_walk_sum(const HcbsProfile *p, const HcbsNode *t, const HcbsNode *n, uint64_t period_us,
                               int64_t runtime_us) {
        uint64_t sum = 0;

        /* pre-order over t's subtree */
        for (const HcbsNode *d = t; d;) {
                int64_t rt = runtime_after(d, n, runtime_us);

                if (context_after(p, d, n, runtime_us) == t)
                        sum += d->foreign_bw;
                if (d != t && rt >= 0 && context_after(p, d->parent, n, runtime_us) == t)
                        sum += hcbs_bw(d == n ? period_us : d->period_us, rt);
                if (d->first_child) {
                        d = d->first_child;
                        continue;
                }
                while (d != t && !d->next)
                        d = d->parent;
                d = d == t ? NULL : d->next;
        }
        return sum;
}

static HcbsCheck rtmax_walk_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        HcbsCheck c = rtmax_pre_checks(p, n, period_us, runtime_us);

        if (c.kernel_errno)
                return c;

        for (const HcbsNode *t = hcbs_model_root(m); t; t = preorder_next(t)) {
                int64_t rt = runtime_after(t, n, runtime_us);
                uint64_t per = t == n ? period_us : t->period_us;
                uint64_t sum;

                if (rt < 0 && t->parent)
                        continue; /* "max" groups are checked as part of their context */
                sum = rtmax_walk_sum(p, t, n, period_us, runtime_us);
                if (rt < 0)
                        c = max_root_checks(sum);
                else
                        c = group_checks(p, t, period_ns_of(per), hcbs_runtime_ns(rt), sum, rtmax_has_rt(p, t));
                if (c.kernel_errno)
                        return c;
        }
        return CHECK_OK;
}

HcbsCheck hcbs_model_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        const HcbsNode *root = hcbs_model_root(m);
        uint64_t period_ns = period_ns_of(period_us), runtime_ns = hcbs_runtime_ns(runtime_us);
        HcbsCheck c;

        if (p->max_delegation)
                return rtmax_check(m, n, period_us, runtime_us);
        c = pre_checks(p, n, period_us, runtime_us);

        if (c.kernel_errno)
                return c;

        /* The walk visits the root first: its stored values must still pass. */
        if (n != root) {
                c = group_checks(p, root, period_ns_of(root->period_us), hcbs_runtime_ns(root->runtime_us), 0,
                                 root->nrt > 0);
                if (c.kernel_errno)
                        return c;
        }

        /* Then the parent, whose children's sum now holds the new ratio. */
        if (n->parent) {
                uint64_t bw = hcbs_to_ratio(period_ns, runtime_ns);
                if (n->parent->children_bw - n->bw + bw > n->parent->bw)
                        return REFUSE(EINVAL, HCBS_REASON_PARENT_FULL);
        }

        return group_checks(p, n, period_ns, runtime_ns, n->children_bw, n->nrt > 0);
}

HcbsCheck hcbs_model_check_write(const HcbsModel *m, const HcbsNode *n, HcbsFile file, int64_t runtime_us,
                                 uint64_t period_us) {
        /* cpu_rt_runtime_write() -> sched_group_set_rt_runtime(): negative means unlimited */
        if (file != HCBS_FILE_PERIOD && runtime_us > 0 && (uint64_t) runtime_us > HCBS_MAX_FILE_USEC)
                return REFUSE(EINVAL, HCBS_REASON_RUNTIME_RANGE);
        /* cpu_rt_period_write_uint() -> sched_group_set_rt_period() */
        if (file != HCBS_FILE_RUNTIME && period_us > HCBS_MAX_FILE_USEC)
                return REFUSE(EINVAL, HCBS_REASON_PERIOD_RANGE);

        switch (file) {
        case HCBS_FILE_RUNTIME:
                return hcbs_model_check(m, n, n->period_us, runtime_us);
        case HCBS_FILE_PERIOD:
                return hcbs_model_check(m, n, period_us, n->runtime_us);
        default:
                return hcbs_model_check(m, n, period_us, runtime_us);
        }
}


HcbsCheck hcbs_model_walk_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        uint64_t period_ns = period_ns_of(period_us), runtime_ns = hcbs_runtime_ns(runtime_us);
        HcbsCheck c;

        if (p->max_delegation)
                return rtmax_walk_check(m, n, period_us, runtime_us);
        c = pre_checks(p, n, period_us, runtime_us);

        if (c.kernel_errno)
                return c;

        for (const HcbsNode *t = hcbs_model_root(m); t; t = preorder_next(t)) {
                uint64_t sum = t->foreign_bw;

                for (const HcbsNode *ch = t->first_child; ch; ch = ch->next)
                        sum += ch == n ? hcbs_to_ratio(period_ns, runtime_ns)
                                       : hcbs_bw(ch->period_us, ch->runtime_us);
                if (t == n)
                        c = group_checks(p, t, period_ns, runtime_ns, sum, t->nrt > 0);
                else
                        c = group_checks(p, t, period_ns_of(t->period_us), hcbs_runtime_ns(t->runtime_us), sum,
                                         t->nrt > 0);
                if (c.kernel_errno)
                        return c;
        }
        return CHECK_OK;
}

/* sched_rt_can_attach() */
static bool rt_can_attach(const HcbsProfile *p, const HcbsNode *n) {
        if (p->max_delegation) {
                /* v6: the context decides; the root's runs everything. A "max" model root's
                 * context lies outside the model: the kernel decides. */
                const HcbsNode *ctx = hcbs_node_context(p, n);
                return is_kernel_root(ctx) || hcbs_node_is_max(p, ctx) || ctx->runtime_us != 0;
        }
        if (p->leaf_only && is_kernel_root(n))
                return true;
        if (n->runtime_us == 0)
                return false;
        return !(p->leaf_only && n->n_active_children > 0);
}

bool hcbs_model_can_attach(const HcbsModel *m, const HcbsNode *n, bool rt) {
        assert(m);
        assert(n);
        /* cpu_cgroup_can_attach() checks only RT tasks */
        return !rt || rt_can_attach(hcbs_model_profile(m), n);
}

bool hcbs_model_can_setscheduler(const HcbsModel *m, const HcbsNode *n) {
        const HcbsProfile *p = hcbs_model_profile(m);

        assert(n);
        /* __sched_setscheduler(): RT policy into a group that cannot run it */
        return !bandwidth_enabled(p) || rt_can_attach(p, n);
}

int hcbs_model_verify(const HcbsModel *m, char *err, size_t errlen) {
        const HcbsProfile *p = hcbs_model_profile(m);

        for (const HcbsNode *t = hcbs_model_root(m); t; t = preorder_next(t)) {
                uint64_t sum = t->foreign_bw;
                unsigned count = 0, active = 0, below = 0;

                for (const HcbsNode *ch = t->first_child; ch; ch = ch->next) {
                        sum += hcbs_node_is_max(p, ch) ? ch->children_bw : ch->bw;
                        count++;
                        active += ch->runtime_us != 0;
                        below += 1 + ch->n_descendants;
                        if (ch->parent != t)
                                return hcbs_err(err, errlen, -EUCLEAN, "'%s': bad parent link", ch->path);
                }
                if (t->bw != (hcbs_node_is_max(p, t) ? 0 : hcbs_bw(t->period_us, t->runtime_us)))
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': cached ratio is stale", t->path);
                if (sum != t->children_bw || count != t->n_children || active != t->n_active_children ||
                    below != t->n_descendants)
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': children's caches are stale", t->path);
                if (hcbs_model_find(m, t->path) != t)
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': not found by path", t->path);
        }
        return 0;
}
