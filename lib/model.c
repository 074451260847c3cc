/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "hashmap.h"
#include "name.h"
#include "model.h"
#include "strutil.h"

struct HcbsModel {
        HcbsProfile profile;
        HcbsNode *root;
        Hashmap *by_path;
        unsigned nr_cpus; /* percpu_admission: the length of every node's cpu_sum */
};

static HcbsNode *node_free(HcbsNode *n) {
        if (n) {
                free(n->cpu_sum);
                free(n->path);
                free(n);
        }
        return NULL;
}

static int node_new(const HcbsModel *m, HcbsNode *parent, const char *name, HcbsNode **ret) {
        HcbsNode *n = calloc(1, sizeof(*n));
        int r;

        if (!n)
                return -ENOMEM;
        if (m->profile.percpu_admission && !(n->cpu_sum = calloc(m->nr_cpus, sizeof(uint64_t)))) {
                free(n);
                return -ENOMEM;
        }
        if (!parent || !parent->path[0])
                r = asprintf(&n->path, "%s", name);
        else
                r = asprintf(&n->path, "%s/%s", parent->path, name);
        if (r < 0) {
                free(n->cpu_sum);
                free(n);
                return -ENOMEM;
        }
        n->name = hcbs_name_last(n->path);
        n->parent = parent;
        n->depth = parent ? parent->depth + 1 : 0;
        n->effective = parent ? parent->effective : m->profile.online;
        *ret = n;
        return 0;
}

int hcbs_model_new(HcbsModel **ret, const HcbsProfile *profile, bool root_is_kernel_root) {
        HcbsModel *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return -ENOMEM;
        m->profile = *profile;
        m->nr_cpus = (unsigned) (hcbs_cpuset_last(&profile->online) + 1);
        r = hashmap_new(&m->by_path);
        if (r >= 0)
                r = node_new(m, NULL, "", &m->root);
        if (r >= 0)
                r = hashmap_put(m->by_path, m->root->path, m->root);
        if (r < 0)
                return hcbs_model_free(m), r;

        /* sched_init(): the root starts at the global values; rfc1 at runtime 0 (seed 009) */
        m->root->is_kernel_root = root_is_kernel_root;
        m->root->period_us = profile->global_period_us;
        m->root->runtime_us = profile->root_runtime_nonzero ? profile->global_runtime_us : 0;
        m->root->bw = hcbs_bw(m->root->period_us, m->root->runtime_us);
        m->root->n_reserved = 1;
        *ret = m;
        return 0;
}

HcbsModel *hcbs_model_free(HcbsModel *m) {
        HcbsNode *n, *next;

        if (!m)
                return NULL;
        /* post-order without recursion: descend to a leaf, free it, climb */
        for (n = m->root; n; n = next) {
                if (n->first_child) {
                        next = n->first_child;
                        continue;
                }
                next = n->next ? n->next : n->parent;
                if (n->parent)
                        n->parent->first_child = n->next;
                node_free(n);
        }
        hashmap_free(m->by_path);
        free(m);
        return NULL;
}

const HcbsProfile *hcbs_model_profile(const HcbsModel *m) {
        return &m->profile;
}

HcbsProfile *hcbs_model_profile_mut(HcbsModel *m) {
        return &m->profile;
}

HcbsNode *hcbs_model_root(const HcbsModel *m) {
        return m->root;
}

size_t hcbs_model_size(const HcbsModel *m) {
        return hashmap_size(m->by_path);
}

HcbsNode *hcbs_model_find(const HcbsModel *m, const char *path) {
        return hashmap_get(m->by_path, path);
}

const HcbsNode *hcbs_node_context(const HcbsProfile *p, const HcbsNode *n) {
        while (n->parent && hcbs_node_is_max(p, n))
                n = n->parent;
        return n;
}

uint64_t hcbs_node_internal_runtime_us(const HcbsProfile *p, const HcbsNode *n) {
        uint64_t ns;

        if (hcbs_node_is_max(p, n) || n->children_bw >= n->bw)
                return 0;
        ns = ((n->bw - n->children_bw) * (n->period_us * HCBS_NSEC_PER_USEC)) >> HCBS_BW_SHIFT;
        return ns < 1024 ? 0 : ns / HCBS_NSEC_PER_USEC;
}

unsigned hcbs_model_nr_cpus(const HcbsModel *m) {
        return m->nr_cpus;
}

uint64_t hcbs_cpu_share_ns(int64_t runtime_us, uint64_t period_us, uint64_t ref_period_ns) {
        if (period_us == 0 || runtime_us <= 0)
                return 0;
        /* mul_u64_u64_div_u64(runtime, reference_period, period), all in ns */
        return (uint64_t) ((unsigned __int128) runtime_us * HCBS_NSEC_PER_USEC * ref_period_ns /
                           ((unsigned __int128) period_us * HCBS_NSEC_PER_USEC));
}

int64_t hcbs_node_cpu_runtime_us(const HcbsModel *m, const HcbsNode *n, unsigned cpu) {
        const HcbsProfile *p = &m->profile;
        uint64_t runtime, sum, ns;

        if (hcbs_node_is_max(p, n))
                return -1;
        if (!hcbs_cpuset_has(&n->effective, cpu))
                return 0;
        if (!p->percpu_admission)
                return (int64_t) hcbs_node_internal_runtime_us(p, n);
        runtime = hcbs_runtime_ns(n->runtime_us);
        sum = cpu < m->nr_cpus ? n->cpu_sum[cpu] : 0;
        ns = runtime > sum ? runtime - sum : 0;
        /* a server cannot run less than 1 << DL_SCALE ns; the file shows whole µs */
        return ns < 1024 ? 0 : (int64_t) (ns / HCBS_NSEC_PER_USEC);
}

int hcbs_node_children_runtime_us(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, uint64_t *ret) {
        const HcbsProfile *p = &m->profile;
        uint64_t top = 0, us;

        if (!p->percpu_admission)
                return hcbs_runtime_for_bw(period_us, n->children_bw, ret);
        if (period_us == 0)
                return -ERANGE;
        uint64_t fresh[m->nr_cpus];
        const uint64_t *sum = n->cpu_sum;
        if (hcbs_node_is_max(p, n) || period_us != n->period_us) {
                memset(fresh, 0, sizeof(fresh));
                hcbs_context_sum_add(m, n, period_us * HCBS_NSEC_PER_USEC, fresh);
                sum = fresh;
        }
        HCBS_CPUSET_FOREACH(cpu, &n->effective)
                if ((unsigned) cpu < m->nr_cpus && sum[cpu] > top)
                        top = sum[cpu];
        us = (top + HCBS_NSEC_PER_USEC - 1) / HCBS_NSEC_PER_USEC;
        if (us > period_us)
                return -ERANGE;
        *ret = us;
        return 0;
}

static uint64_t node_bw(const HcbsProfile *p, const HcbsNode *n) {
        return hcbs_node_is_max(p, n) ? 0 : hcbs_bw(n->period_us, n->runtime_us);
}

/* What n counts in its parent's children_bw. */
static uint64_t node_share(const HcbsProfile *p, const HcbsNode *n) {
        return hcbs_node_is_max(p, n) ? n->children_bw : n->bw;
}

/* Adds delta (mod 2^64) to n's children_bw and on through "max" ancestors, whose share it is. */
static void children_add(const HcbsProfile *p, HcbsNode *n, uint64_t delta) {
        for (;;) {
                n->children_bw += delta;
                if (!n->parent || !hcbs_node_is_max(p, n))
                        return;
                n = n->parent;
        }
}

/* Adds (sign = +1) or removes (sign = -1) a child's share from its parent's caches. */
static void parent_account(const HcbsProfile *pr, HcbsNode *c, int sign) {
        HcbsNode *p = c->parent;

        if (!p)
                return;
        if (sign > 0) {
                children_add(pr, p, node_share(pr, c));
                p->n_active_children += c->runtime_us != 0;
        } else {
                children_add(pr, p, -node_share(pr, c));
                p->n_active_children -= c->runtime_us != 0;
        }
}

/* Counts n (not "max") in n_reserved of n and its ancestors: sign +1 or -1. */
static void reserved_account(HcbsNode *n, int sign) {
        for (HcbsNode *t = n; t; t = t->parent)
                t->n_reserved += (unsigned) sign;
}

/* ---- percpu_admission: per-CPU sums in ns ---- */

/* The kernel's from_ratio(): foreign bandwidth as runtime at a period, on every CPU. */
static uint64_t foreign_share_ns(uint64_t foreign_bw, uint64_t ref_period_ns) {
        return (uint64_t) (((unsigned __int128) foreign_bw * ref_period_ns) >> HCBS_BW_SHIFT);
}

static void add_on(uint64_t *sum, const HcbsCpuSet *cpus, uint64_t ns, unsigned nr) {
        if (ns == 0)
                return;
        HCBS_CPUSET_FOREACH(cpu, cpus) {
                if ((unsigned) cpu >= nr)
                        break;
                sum[cpu] += ns;
        }
}

void hcbs_context_sum_add(const HcbsModel *m, const HcbsNode *t, uint64_t ref_period_ns, uint64_t *sum) {
        const HcbsProfile *p = &m->profile;

        add_on(sum, &p->online, foreign_share_ns(t->foreign_bw, ref_period_ns), m->nr_cpus);
        HCBS_NODE_FOREACH_CHILD(c, t) {
                if (hcbs_node_is_max(p, c))
                        hcbs_context_sum_add(m, c, ref_period_ns, sum);
                else
                        add_on(sum, &c->effective, hcbs_cpu_share_ns(c->runtime_us, c->period_us, ref_period_ns),
                               m->nr_cpus);
        }
}

/* The period (ns) of the context n's share counts in: its parent's context's. */
static uint64_t share_period_ns(const HcbsProfile *p, const HcbsNode *n) {
        return hcbs_node_context(p, n->parent ? n->parent : n)->period_us * HCBS_NSEC_PER_USEC;
}

/*
 * Recomputes t's cpu_sum: t's context children at ref_period_ns (a group with a reservation: its own
 * period; a "max" group: its context's), through "max" groups, whose sums are recomputed on the way.
 * deep: groups with a reservation below are recomputed too.
 */
static void sum_rebuild(const HcbsModel *m, HcbsNode *t, uint64_t ref_period_ns, bool deep) {
        const HcbsProfile *p = &m->profile;

        memset(t->cpu_sum, 0, m->nr_cpus * sizeof(uint64_t));
        add_on(t->cpu_sum, &p->online, foreign_share_ns(t->foreign_bw, ref_period_ns), m->nr_cpus);
        HCBS_NODE_FOREACH_CHILD(c, t) {
                if (hcbs_node_is_max(p, c)) {
                        sum_rebuild(m, c, ref_period_ns, deep);
                        for (unsigned cpu = 0; cpu < m->nr_cpus; cpu++)
                                t->cpu_sum[cpu] += c->cpu_sum[cpu];
                        continue;
                }
                if (deep)
                        sum_rebuild(m, c, c->period_us * HCBS_NSEC_PER_USEC, deep);
                add_on(t->cpu_sum, &c->effective, hcbs_cpu_share_ns(c->runtime_us, c->period_us, ref_period_ns),
                       m->nr_cpus);
        }
}

/* Adds (sign +1) or removes (-1) n's per-CPU share from its parent and on through "max" ancestors to its context. */
static void cpu_share_account(const HcbsModel *m, HcbsNode *n, int sign) {
        const HcbsProfile *p = &m->profile;
        const HcbsNode *ctx;
        uint64_t one;
        bool max;

        if (!p->percpu_admission || !n->parent)
                return;
        ctx = hcbs_node_context(p, n->parent);
        max = hcbs_node_is_max(p, n);
        one = max ? 0 : hcbs_cpu_share_ns(n->runtime_us, n->period_us, ctx->period_us * HCBS_NSEC_PER_USEC);
        for (HcbsNode *t = n->parent;; t = t->parent) {
                for (unsigned cpu = 0; cpu < m->nr_cpus; cpu++) {
                        uint64_t d = max ? n->cpu_sum[cpu] : hcbs_cpuset_has(&n->effective, cpu) ? one : 0;
                        t->cpu_sum[cpu] += sign > 0 ? d : -d;
                }
                if (t == ctx)
                        return;
        }
}

int hcbs_model_add(HcbsModel *m, HcbsNode *parent, const char *name, HcbsNode **ret) {
        HcbsNode *n;
        int r;

        r = node_new(m, parent, name, &n);
        if (r < 0)
                return r;
        r = hashmap_put(m->by_path, n->path, n);
        if (r < 0)
                return node_free(n), r;

        /* alloc_rt_sched_group(); rtmax (v6 12/25): "max" with period 0 */
        n->period_us = m->profile.new_group_global_period ? m->profile.global_period_us : 0;
        n->runtime_us = m->profile.max_delegation ? -1 : 0;
        n->bw = 0;

        n->prev = parent->last_child;
        if (parent->last_child)
                parent->last_child->next = n;
        else
                parent->first_child = n;
        parent->last_child = n;
        parent->n_children++;
        for (HcbsNode *a = parent; a; a = a->parent)
                a->n_descendants++;
        parent_account(&m->profile, n, +1);
        if (!hcbs_node_is_max(&m->profile, n))
                reserved_account(n, +1);
        /* a new group holds nothing: no per-CPU share yet */
        if (ret)
                *ret = n;
        return 0;
}

int hcbs_model_remove(HcbsModel *m, HcbsNode *n) {
        HcbsNode *p = n->parent;

        if (n->first_child || !p)
                return -EBUSY;
        cpu_share_account(m, n, -1);
        if (n->foreign_bw)
                children_add(&m->profile, n, -n->foreign_bw);
        parent_account(&m->profile, n, -1);
        for (HcbsNode *a = p; a; a = a->parent)
                a->n_descendants--;
        if (!hcbs_node_is_max(&m->profile, n))
                reserved_account(n, -1);
        if (n->prev)
                n->prev->next = n->next;
        else
                p->first_child = n->next;
        if (n->next)
                n->next->prev = n->prev;
        else
                p->last_child = n->prev;
        p->n_children--;
        hashmap_remove(m->by_path, n->path);
        node_free(n);
        return 0;
}

void hcbs_model_set(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        const HcbsProfile *p = &m->profile;
        bool was_max = hcbs_node_is_max(p, n), max;
        uint64_t old_period = n->period_us;

        cpu_share_account(m, n, -1);
        parent_account(p, n, -1);
        n->period_us = period_us;
        n->runtime_us = runtime_us < 0 ? -1 : runtime_us;
        n->bw = node_bw(p, n);
        parent_account(p, n, +1);
        max = hcbs_node_is_max(p, n);
        if (max != was_max)
                reserved_account(n, max ? -1 : +1);
        if (p->percpu_admission) {
                /* the scale of n's context children changes when n becomes (or stops being) their context,
                 * or its period does */
                if (max && !was_max)
                        sum_rebuild(m, n, share_period_ns(p, n), false);
                else if (!max && (was_max || old_period != period_us))
                        sum_rebuild(m, n, period_us * HCBS_NSEC_PER_USEC, false);
                cpu_share_account(m, n, +1);
        }
}

void hcbs_model_set_tasks(HcbsModel *m, HcbsNode *n, unsigned nprocs, unsigned nrt) {
        n->nprocs = nprocs;
        n->nrt = nrt;
}

void hcbs_model_set_foreign(HcbsModel *m, HcbsNode *n, uint64_t foreign_bw) {
        const HcbsProfile *p = &m->profile;

        children_add(p, n, foreign_bw - n->foreign_bw);
        if (p->percpu_admission) {
                uint64_t ref = hcbs_node_is_max(p, n) ? share_period_ns(p, n) : n->period_us * HCBS_NSEC_PER_USEC;

                cpu_share_account(m, n, -1);
                add_on(n->cpu_sum, &p->online, -foreign_share_ns(n->foreign_bw, ref), m->nr_cpus);
                add_on(n->cpu_sum, &p->online, foreign_share_ns(foreign_bw, ref), m->nr_cpus);
                n->foreign_bw = foreign_bw;
                cpu_share_account(m, n, +1);
                return;
        }
        n->foreign_bw = foreign_bw;
}

void hcbs_model_set_cpus(HcbsModel *m, HcbsNode *n, const HcbsCpuSet *cpus) {
        const HcbsProfile *p = &m->profile;
        /* the kernel changes no cpuset above a reservation (cpuset_coupling); when the model is told of
         * one anyway (a group read from the kernel), the sums below and around n are recomputed */
        bool resum = p->percpu_admission && n->n_reserved > 0;

        if (resum)
                cpu_share_account(m, n, -1);
        n->cpus = *cpus;
        HCBS_NODE_FOREACH_IN_SUBTREE(d, n)
                hcbs_cpuset_effective(&d->effective, &d->cpus, d->parent ? &d->parent->effective : &p->online);
        if (resum) {
                sum_rebuild(m, n, hcbs_node_is_max(p, n) ? share_period_ns(p, n) : n->period_us * HCBS_NSEC_PER_USEC,
                            true);
                cpu_share_account(m, n, +1);
        }
}

HcbsError hcbs_reason_to_error(HcbsReason r) {
        switch (r) {
        case HCBS_REASON_NONE:
                return HCBS_OK;
        case HCBS_REASON_PARENT_HAS_RT:
                return HCBS_E_NOT_LEAF;
        case HCBS_REASON_RT_TASKS:
        case HCBS_REASON_SWITCH_RT_TASKS:
                return HCBS_E_GROUP_BUSY;
        case HCBS_REASON_ROOT_STALLED:
        case HCBS_REASON_PARENT_FULL:
        case HCBS_REASON_GLOBAL_LIMIT:
        case HCBS_REASON_ROOT_RESERVE:
        case HCBS_REASON_CHILDREN_EXCEED:
                return HCBS_E_INSUFFICIENT_BANDWIDTH;
        default:
                return HCBS_E_INVALID_ARGUMENT;
        }
}

const char *hcbs_file_name(const HcbsProfile *p, HcbsFile f) {
        switch (f) {
        case HCBS_FILE_RUNTIME:
                return "cpu.rt_runtime_us";
        case HCBS_FILE_PERIOD:
                return "cpu.rt_period_us";
        case HCBS_FILE_CPUS:
                return "cpuset.cpus";
        default:
                return "cpu.rt.max";
        }
}

bool hcbs_node_is_ancestor(const HcbsNode *a, const HcbsNode *n) {
        for (const HcbsNode *up = n ? n->parent : NULL; up; up = up->parent)
                if (up == a)
                        return true;
        return false;
}
