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
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "macro.h"
#include "model.h"
#include "strutil.h"

#define CHECK_OK ((HcbsCheck) { 0, HCBS_REASON_NONE, -1 })
#define REFUSE(e, r) ((HcbsCheck) { (e), (r), -1 })
#define REFUSE_ON(e, r, cpu) ((HcbsCheck) { (e), (r), (cpu) })

static bool is_kernel_root(const HcbsNode *n) {
        return n && n->is_kernel_root;
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
static HcbsCheck group_own_checks(const HcbsProfile *p, const HcbsNode *t, uint64_t period_ns, uint64_t runtime_ns,
                                  bool has_rt) {
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
        return CHECK_OK;
}

/* tg_rt_schedulable() for one group t: its own limits, then its children's sum of ratios. */
static HcbsCheck group_checks(const HcbsProfile *p, const HcbsNode *t, uint64_t period_ns, uint64_t runtime_ns,
                              uint64_t children_bw, bool has_rt) {
        HcbsCheck c = group_own_checks(p, t, period_ns, runtime_ns, has_rt);

        if (c.kernel_errno == 0 && children_bw > hcbs_to_ratio(period_ns, runtime_ns))
                return REFUSE(EINVAL, HCBS_REASON_CHILDREN_EXCEED);
        return c;
}

/* percpu_admission: the first CPU of cpus (below nr) where sum exceeds limit_ns, or -1. */
static int cpu_over(const uint64_t *sum, const HcbsCpuSet *cpus, uint64_t limit_ns, unsigned nr) {
        HCBS_CPUSET_FOREACH(cpu, cpus) {
                if ((unsigned) cpu >= nr)
                        break;
                if (sum[cpu] > limit_ns)
                        return cpu;
        }
        return -1;
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

static const uint64_t *percpu_context_after(const HcbsModel *m, const HcbsNode *n, const HcbsNode *ctx,
                                            uint64_t period_us, int64_t runtime_us, uint64_t *sum);

/*
 * percpu_admission at n's context ctx: on each CPU of ctx's cpuset, what counts against it with n's
 * share replaced (a reservation's on its CPUs, or what a "max" n passes up) must fit in its runtime.
 */
static HcbsCheck percpu_parent_check(const HcbsModel *m, const HcbsNode *n, const HcbsNode *ctx, uint64_t period_us,
                                     int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        unsigned nr = hcbs_model_nr_cpus(m);
        uint64_t sum[nr];
        int cpu;

        percpu_context_after(m, n, ctx, period_us, runtime_us, sum);
        cpu = cpu_over(sum, &ctx->effective, hcbs_node_is_max(p, ctx) ? 0 : hcbs_runtime_ns(ctx->runtime_us), nr);
        return cpu < 0 ? CHECK_OK : REFUSE_ON(EINVAL, HCBS_REASON_PARENT_FULL, cpu);
}

/* Fills sum with what counts against ctx per CPU once n is at (period_us, runtime_us); returns it. */
static const uint64_t *percpu_context_after(const HcbsModel *m, const HcbsNode *n, const HcbsNode *ctx,
                                            uint64_t period_us, int64_t runtime_us, uint64_t *sum) {
        const HcbsProfile *p = hcbs_model_profile(m);
        unsigned nr = hcbs_model_nr_cpus(m);
        uint64_t ref = ctx->period_us * HCBS_NSEC_PER_USEC, passed[nr];
        bool was_max = hcbs_node_is_max(p, n), max = runtime_us < 0;
        uint64_t old_one = was_max ? 0 : hcbs_cpu_share_ns(n->runtime_us, n->period_us, ref);
        uint64_t new_one = max ? 0 : hcbs_cpu_share_ns(runtime_us, period_us, ref);
        const uint64_t *new_max = n->cpu_sum;

        if (max && !was_max) {
                /* n stops being its children's context: they count against ctx, at its period */
                memset(passed, 0, sizeof(passed));
                hcbs_context_sum_add(m, n, ref, passed);
                new_max = passed;
        }
        for (unsigned cpu = 0; cpu < nr; cpu++) {
                bool mine = hcbs_cpuset_has(&n->effective, cpu);

                sum[cpu] = ctx->cpu_sum[cpu] - (was_max ? n->cpu_sum[cpu] : mine ? old_one : 0);
                sum[cpu] += max ? new_max[cpu] : mine ? new_one : 0;
        }
        return sum;
}

int hcbs_model_context_need_us(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us,
                               uint64_t *ret) {
        const HcbsProfile *p = hcbs_model_profile(m);
        const HcbsNode *ctx = hcbs_node_context(p, n->parent);
        uint64_t top = 0, us;

        if (!p->percpu_admission) {
                uint64_t old_share = hcbs_node_is_max(p, n) ? n->children_bw : n->bw;
                uint64_t new_share = p->max_delegation && runtime_us < 0 ? n->children_bw : hcbs_bw(period_us, runtime_us);
                return hcbs_runtime_for_bw(ctx->period_us, ctx->children_bw - old_share + new_share, ret);
        }
        if (ctx->period_us == 0)
                return -ERANGE;
        uint64_t sum[hcbs_model_nr_cpus(m)];
        percpu_context_after(m, n, ctx, period_us, runtime_us, sum);
        HCBS_CPUSET_FOREACH(cpu, &ctx->effective)
                if ((unsigned) cpu < hcbs_model_nr_cpus(m) && sum[cpu] > top)
                        top = sum[cpu];
        us = (top + HCBS_NSEC_PER_USEC - 1) / HCBS_NSEC_PER_USEC;
        if (us > ctx->period_us)
                return -ERANGE;
        *ret = us;
        return 0;
}

/* percpu_admission at n itself, with (period_us, runtime_us >= 0): its context children at the new period. */
static HcbsCheck percpu_own_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        unsigned nr = hcbs_model_nr_cpus(m);
        uint64_t fresh[nr];
        const uint64_t *sum = n->cpu_sum;
        int cpu;

        if (hcbs_node_is_max(p, n) || period_us != n->period_us) {
                memset(fresh, 0, sizeof(fresh));
                hcbs_context_sum_add(m, n, period_us * HCBS_NSEC_PER_USEC, fresh);
                sum = fresh;
        }
        cpu = cpu_over(sum, &n->effective, hcbs_runtime_ns(runtime_us), nr);
        return cpu < 0 ? CHECK_OK : REFUSE_ON(EINVAL, HCBS_REASON_CHILDREN_EXCEED, cpu);
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
                        c = group_own_checks(p, root, period_ns_of(root->period_us), hcbs_runtime_ns(root->runtime_us),
                                             rtmax_has_rt(p, root));
                        if (c.kernel_errno)
                                return c;
                }
                if (p->percpu_admission) {
                        c = percpu_parent_check(m, n, ctx, period_us, runtime_us);
                        if (c.kernel_errno)
                                return c;
                } else if (ctx->children_bw - old_share + new_share > ctx->bw)
                        return REFUSE(EINVAL, HCBS_REASON_PARENT_FULL);
        }

        if (max)
                return n == root ? max_root_checks(n->children_bw) : CHECK_OK;
        if (!p->percpu_admission)
                return group_checks(p, n, period_ns, runtime_ns, n->children_bw, rtmax_has_rt(p, n));
        c = group_own_checks(p, n, period_ns, runtime_ns, rtmax_has_rt(p, n));
        return c.kernel_errno ? c : percpu_own_check(m, n, period_us, runtime_us);
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

        HCBS_NODE_FOREACH_IN_SUBTREE(d, t) {
                int64_t rt = runtime_after(d, n, runtime_us);

                if (context_after(p, d, n, runtime_us) == t)
                        sum += d->foreign_bw;
                if (d != t && rt >= 0 && context_after(p, d->parent, n, runtime_us) == t)
                        sum += hcbs_bw(d == n ? period_us : d->period_us, rt);
        }
        return sum;
}

/* percpu_admission: what counts against context t after the write, per CPU at ref_ns (the kernel's walk). */
static void rtmax_walk_cpu_sum(const HcbsModel *m, const HcbsNode *t, const HcbsNode *n, uint64_t period_us,
                               int64_t runtime_us, uint64_t ref_ns, uint64_t *sum) {
        const HcbsProfile *p = hcbs_model_profile(m);
        unsigned nr = hcbs_model_nr_cpus(m);

        HCBS_NODE_FOREACH_IN_SUBTREE(d, t) {
                int64_t rt = runtime_after(d, n, runtime_us);
                uint64_t share = 0;

                if (context_after(p, d, n, runtime_us) == t)
                        share = (uint64_t) (((unsigned __int128) d->foreign_bw * ref_ns) >> HCBS_BW_SHIFT);
                HCBS_CPUSET_FOREACH(cpu, &p->online)
                        if ((unsigned) cpu < nr)
                                sum[cpu] += share;
                if (d != t && rt >= 0 && context_after(p, d->parent, n, runtime_us) == t) {
                        share = hcbs_cpu_share_ns(rt, d == n ? period_us : d->period_us, ref_ns);
                        HCBS_CPUSET_FOREACH(cpu, &d->effective)
                                if ((unsigned) cpu < nr)
                                        sum[cpu] += share;
                }
        }
}

/* percpu_admission: one context t of the kernel's walk, with the values it has after the write. */
static HcbsCheck rtmax_walk_percpu(const HcbsModel *m, const HcbsNode *t, const HcbsNode *n, uint64_t period_us,
                                  int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        unsigned nr = hcbs_model_nr_cpus(m);
        int64_t rt = runtime_after(t, n, runtime_us);
        uint64_t per = t == n ? period_us : t->period_us, sum[nr];
        HcbsCheck c = CHECK_OK;
        int cpu;

        memset(sum, 0, sizeof(sum));
        rtmax_walk_cpu_sum(m, t, n, period_us, runtime_us, period_ns_of(per), sum);
        if (rt >= 0)
                c = group_own_checks(p, t, period_ns_of(per), hcbs_runtime_ns(rt), rtmax_has_rt(p, t));
        if (c.kernel_errno)
                return c;
        cpu = cpu_over(sum, &t->effective, rt < 0 ? 0 : hcbs_runtime_ns(rt), nr);
        return cpu < 0 ? CHECK_OK : REFUSE_ON(EINVAL, HCBS_REASON_CHILDREN_EXCEED, cpu);
}

static HcbsCheck rtmax_walk_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = hcbs_model_profile(m);
        HcbsCheck c = rtmax_pre_checks(p, n, period_us, runtime_us);

        if (c.kernel_errno)
                return c;

        for (const HcbsNode *t = hcbs_model_root(m); t; t = hcbs_node_preorder_next(t, NULL)) {
                int64_t rt = runtime_after(t, n, runtime_us);
                uint64_t per = t == n ? period_us : t->period_us;
                uint64_t sum;

                if (rt < 0 && t->parent)
                        continue; /* "max" groups are checked as part of their context */
                if (p->percpu_admission)
                        c = rtmax_walk_percpu(m, t, n, period_us, runtime_us);
                else {
                        sum = rtmax_walk_sum(p, t, n, period_us, runtime_us);
                        if (rt < 0)
                                c = max_root_checks(sum);
                        else
                                c = group_checks(p, t, period_ns_of(per), hcbs_runtime_ns(rt), sum,
                                                 rtmax_has_rt(p, t));
                }
                if (c.kernel_errno)
                        return c;
        }
        return CHECK_OK;
}

/* Whether processes run in n or below it (cgroup_is_populated()). O(n's subtree). */
static bool subtree_populated(const HcbsNode *n) {
        HCBS_NODE_FOREACH_IN_SUBTREE(d, n)
                if (d->nprocs > 0)
                        return true;
        return false;
}

HcbsCheck hcbs_model_check_cpus(const HcbsModel *m, const HcbsNode *n, const HcbsCpuSet *cpus) {
        /* rt_cpuset_may_change() (devel-v7 cpuset_can_change()): the group and every group below it "max" */
        if (hcbs_model_profile(m)->cpuset_coupling && n->n_reserved > 0)
                return REFUSE(EINVAL, HCBS_REASON_CPUSET_RESERVED);
        /* cpuset's validate_change(): a populated cpuset keeps a list of CPUs */
        if (hcbs_cpuset_is_empty(cpus) && !hcbs_cpuset_is_empty(&n->cpus) && subtree_populated(n))
                return REFUSE(ENOSPC, HCBS_REASON_CPUSET_POPULATED);
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

        for (const HcbsNode *t = hcbs_model_root(m); t; t = hcbs_node_preorder_next(t, NULL)) {
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
        unsigned nr = hcbs_model_nr_cpus(m);
        _cleanup_free_ uint64_t *sum = p->percpu_admission ? calloc(nr, sizeof(uint64_t)) : NULL;

        if (p->percpu_admission && !sum)
                return -ENOMEM;
        for (const HcbsNode *t = hcbs_model_root(m); t; t = hcbs_node_preorder_next(t, NULL)) {
                uint64_t sum_bw = t->foreign_bw;
                unsigned count = 0, active = 0, below = 0, reserved = !hcbs_node_is_max(p, t);
                HcbsCpuSet eff;

                for (const HcbsNode *ch = t->first_child; ch; ch = ch->next) {
                        sum_bw += hcbs_node_is_max(p, ch) ? ch->children_bw : ch->bw;
                        count++;
                        active += ch->runtime_us != 0;
                        below += 1 + ch->n_descendants;
                        reserved += ch->n_reserved;
                        if (ch->parent != t)
                                return hcbs_err(err, errlen, -EUCLEAN, "'%s': bad parent link", ch->path);
                }
                if (t->bw != (hcbs_node_is_max(p, t) ? 0 : hcbs_bw(t->period_us, t->runtime_us)))
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': cached ratio is stale", t->path);
                if (sum_bw != t->children_bw || count != t->n_children || active != t->n_active_children ||
                    below != t->n_descendants)
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': children's caches are stale", t->path);
                if (reserved != t->n_reserved)
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': the count of reservations is stale", t->path);
                hcbs_cpuset_effective(&eff, &t->cpus, t->parent ? &t->parent->effective : &p->online);
                if (!hcbs_cpuset_equal(&eff, &t->effective))
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': effective CPUs are stale", t->path);
                if (p->percpu_admission) {
                        const HcbsNode *ctx = hcbs_node_context(p, t->parent ? t->parent : t);
                        uint64_t ref = hcbs_node_is_max(p, t) ? ctx->period_us : t->period_us;

                        memset(sum, 0, nr * sizeof(uint64_t));
                        hcbs_context_sum_add(m, t, ref * HCBS_NSEC_PER_USEC, sum);
                        for (unsigned cpu = 0; cpu < nr; cpu++)
                                if (sum[cpu] != t->cpu_sum[cpu])
                                        return hcbs_err(err, errlen, -EUCLEAN,
                                                        "'%s': the sum on CPU %u is stale: %llu, %llu recomputed",
                                                        t->path, cpu, (unsigned long long) t->cpu_sum[cpu],
                                                        (unsigned long long) sum[cpu]);
                }
                if (hcbs_model_find(m, t->path) != t)
                        return hcbs_err(err, errlen, -EUCLEAN, "'%s': not found by path", t->path);
        }
        return 0;
}
