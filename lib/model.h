/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The admission model: a copy of the kernel's RT group tree, and the
 * kernel's per-write verdict computed without touching the kernel.
 *
 * Every write to cpu.rt_runtime_us or cpu.rt_period_us goes through
 * tg_set_rt_bandwidth(), which checks the new (period, runtime) pair of one
 * group against the whole tree with walk_tg_tree(tg_rt_schedulable). The
 * tree was valid before the write and only one group changes, so only
 * three things can break: the group's own limits, its parent's sum of
 * children, and - for the root - the SCHED_DEADLINE reserve. The model
 * keeps each group's ratio and the sum of its children's ratios cached,
 * so a verdict costs O(1) and an explanation O(children). The kernel's
 * order of checks is kept, so the model answers the same errno:
 *
 *   tg_set_rt_bandwidth  leaf rule (rfc1) -> root runtime 0 (legacy) ->
 *                        period 0 -> runtime > MAX_BW
 *   __rt_schedulable     runtime < 1024ns, period MSB (rfc1)
 *   walk, pre-order      root first (rfc1: root holds RT tasks at runtime 0
 *                        -> EBUSY; root reserve -> EBUSY), then the parent's
 *                        sum, then the group: runtime > period, runtime 0
 *                        with RT tasks -> EBUSY, above the global ratio,
 *                        root reserve, children's sum.
 *
 * hcbs_model_walk_check() recomputes the same verdict by walking the whole
 * tree the way the kernel does; tests compare the two.
 *
 * Nodes are named by their path relative to the model's root ("" is the
 * root). The root may be the kernel's root group (is_kernel_root) or only
 * the topmost group the model knows; "foreign" bandwidth stands for
 * children the model does not track (other users' cgroups).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "error.h"
#include "profile.h"

typedef struct HcbsNode HcbsNode;
typedef struct HcbsModel HcbsModel;

struct HcbsNode {
        HcbsNode *parent;
        HcbsNode *first_child, *last_child;
        HcbsNode *prev, *next; /* siblings, in creation order */
        char *path;            /* relative to the model root; "" for the root */
        const char *name;      /* last segment of path */
        unsigned depth;

        uint64_t period_us;
        int64_t runtime_us; /* -1: unlimited (RUNTIME_INF); rtmax: "max" */
        uint64_t bw;        /* cached hcbs_bw(period_us, runtime_us); rtmax "max": 0 */

        /* Σ children's shares + foreign_bw.  A child's share is its bw; under rtmax a "max"
         * child's share is its own children_bw (it passes its children's sum up), so a
         * context's children_bw holds every reservation that counts against it. */
        uint64_t children_bw;
        uint64_t foreign_bw;
        unsigned n_children;
        unsigned n_active_children; /* children with runtime != 0 */
        unsigned n_descendants;     /* nodes below it, at any depth */

        unsigned nprocs; /* processes in the group itself */
        unsigned nrt;    /* of which RT (SCHED_FIFO/SCHED_RR) tasks */

        /* The cpuset (profile cpuset_coupling); without it every group covers the CPUs online. */
        HcbsCpuSet cpus;      /* cpuset.cpus as written; empty: all of the parent's */
        HcbsCpuSet effective; /* cpuset.cpus.effective, hcbs_cpuset_effective() of cpus and the parent's */
        /* percpu_admission, per CPU in ns: a group with a reservation (or the root), what its context
         * children hold (hcbs_cpu_share_ns() of each at its period: its servers get its runtime minus
         * that); a "max" group, the same sum of its own context children at its context's period,
         * which it passes up. NULL under the other profiles. */
        uint64_t *cpu_sum;
        unsigned n_reserved; /* groups of this subtree, itself included, that are not "max" */

        bool is_kernel_root;
        void *userdata;
};

typedef enum HcbsFile {
        HCBS_FILE_RUNTIME, /* cpu.rt_runtime_us */
        HCBS_FILE_PERIOD,  /* cpu.rt_period_us */
        HCBS_FILE_MAX,     /* cpu.rt.max: both in one write */
        HCBS_FILE_CPUS,    /* cpuset.cpus (rtmax v7: written before a reservation, and only without one) */
        _HCBS_FILE_COUNT,
} HcbsFile;

/* Why the kernel refuses a write; each maps to one public HcbsError. */
typedef enum HcbsReason {
        HCBS_REASON_NONE,
        HCBS_REASON_PARENT_HAS_RT,     /* leaf rule: parent holds RT tasks */
        HCBS_REASON_ROOT_ZERO,         /* legacy: root runtime cannot be 0 */
        HCBS_REASON_PERIOD_ZERO,
        HCBS_REASON_RUNTIME_RANGE,     /* runtime above MAX_BW or above the file's range */
        HCBS_REASON_PERIOD_RANGE,      /* period above the file's range or MSB set */
        HCBS_REASON_RUNTIME_SMALL,     /* 0 < runtime < 1024 ns */
        HCBS_REASON_ROOT_STALLED,      /* rfc1: root at runtime 0 holds RT tasks */
        HCBS_REASON_PARENT_FULL,       /* sum of siblings would exceed the parent */
        HCBS_REASON_RUNTIME_ABOVE_PERIOD,
        HCBS_REASON_RT_TASKS,          /* runtime 0 while RT tasks run */
        HCBS_REASON_GLOBAL_LIMIT,
        HCBS_REASON_ROOT_RESERVE,      /* rfc1: does not fit beside SCHED_DEADLINE */
        HCBS_REASON_CHILDREN_EXCEED,   /* own children hold more than the new value */
        HCBS_REASON_ROOT_MAX,          /* rtmax: the root cannot be "max" */
        HCBS_REASON_SWITCH_RT_TASKS,   /* rtmax: max <-> reservation while RT tasks run there */
        HCBS_REASON_CPUSET_RESERVED,   /* rtmax v7: cpuset.cpus while the subtree holds a reservation */
        HCBS_REASON_CPUSET_POPULATED,  /* cpuset: a populated cpuset's CPUs emptied (ENOSPC) */
        _HCBS_REASON_MAX,
} HcbsReason;

typedef struct HcbsCheck {
        int kernel_errno; /* 0, EINVAL or EBUSY */
        HcbsReason reason;
        int cpu; /* percpu_admission: the CPU that is short (PARENT_FULL, CHILDREN_EXCEED); else -1 */
} HcbsCheck;

int hcbs_model_new(HcbsModel **ret, const HcbsProfile *profile, bool root_is_kernel_root);
HcbsModel *hcbs_model_free(HcbsModel *m);

const HcbsProfile *hcbs_model_profile(const HcbsModel *m);
HcbsProfile *hcbs_model_profile_mut(HcbsModel *m);
HcbsNode *hcbs_model_root(const HcbsModel *m);
size_t hcbs_model_size(const HcbsModel *m);

/* Looks up a node by path ("" is the root). NULL if absent. */
HcbsNode *hcbs_model_find(const HcbsModel *m, const char *path);

/*
 * Adds a child named `name` (one segment) under parent with the profile's
 * initial values, as mkdir does. -EEXIST if present, -ENOMEM.
 */
int hcbs_model_add(HcbsModel *m, HcbsNode *parent, const char *name, HcbsNode **ret);

/* Removes a node without children, as rmdir does, returning its bandwidth to the parent. -EBUSY if it has children. */
int hcbs_model_remove(HcbsModel *m, HcbsNode *n);

/* Records an accepted write. Keeps every cache exact. */
void hcbs_model_set(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us);

/* Records the processes and RT tasks in n itself. */
void hcbs_model_set_tasks(HcbsModel *m, HcbsNode *n, unsigned nprocs, unsigned nrt);

/* Records bandwidth held by untracked children of n (percpu_admission: from_ratio() of it on every CPU). */
void hcbs_model_set_foreign(HcbsModel *m, HcbsNode *n, uint64_t foreign_bw);

/* Records an accepted cpuset.cpus write (empty: all of the parent's); the subtree's effective CPUs follow. */
void hcbs_model_set_cpus(HcbsModel *m, HcbsNode *n, const HcbsCpuSet *cpus);

/*
 * The kernel's verdict on writing cpuset.cpus of n (not the root): under cpuset_coupling EINVAL
 * (CPUSET_RESERVED) while n or a group below it is not "max"; then cpuset's own rule (validate_change()):
 * a list emptied while processes run in n or below it, ENOSPC (CPUSET_POPULATED). Which CPUs exist is
 * the caller's business (cpuset refuses CPUs that are not possible with EINVAL too).
 */
HcbsCheck hcbs_model_check_cpus(const HcbsModel *m, const HcbsNode *n, const HcbsCpuSet *cpus);

/*
 * The kernel's verdict on tg_set_rt_bandwidth(n, period, runtime) in the
 * current tree, in O(1). runtime_us < 0 means unlimited.
 */
HcbsCheck hcbs_model_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us);

/*
 * The kernel's verdict on writing `value` to `file` of n: the file's own
 * range checks (cpu_rt_*_write), then hcbs_model_check(). For HCBS_FILE_MAX
 * pass both values; otherwise the other one is ignored.
 */
HcbsCheck hcbs_model_check_write(const HcbsModel *m, const HcbsNode *n, HcbsFile file, int64_t runtime_us,
                                 uint64_t period_us);

/* The same verdict as hcbs_model_check(), by walking the whole tree like the kernel. */
HcbsCheck hcbs_model_walk_check(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us);

/*
 * Whether a task (rt: an RT one) may enter n; the kernel refuses with
 * EINVAL (cpu_cgroup_can_attach). And whether a task inside n may become
 * RT; the kernel refuses with EPERM (__sched_setscheduler).
 */
bool hcbs_model_can_attach(const HcbsModel *m, const HcbsNode *n, bool rt);
bool hcbs_model_can_setscheduler(const HcbsModel *m, const HcbsNode *n);

/* Recomputes every cache and compares. Returns 0, or -EUCLEAN naming the first bad node in err. */
int hcbs_model_verify(const HcbsModel *m, char *err, size_t errlen);

/* Maps a reason to the public error it is reported as. */
HcbsError hcbs_reason_to_error(HcbsReason r);

/* Free bandwidth under n: its ratio minus its children's (0 if over-committed). */
static inline uint64_t hcbs_node_free_bw(const HcbsNode *n) {
        return n->bw > n->children_bw ? n->bw - n->children_bw : 0;
}

/* rtmax: whether n is "max" (no reservation of its own). */
static inline bool hcbs_node_is_max(const HcbsProfile *p, const HcbsNode *n) {
        return p->max_delegation && n->runtime_us < 0;
}

/* rtmax: the group whose servers run n's RT tasks (n, or its nearest non-"max" ancestor; the model
 * root if every group up to it is "max"). Without max_delegation: n. */
const HcbsNode *hcbs_node_context(const HcbsProfile *p, const HcbsNode *n);

/*
 * rtmax: the runtime (µs) of n's own servers, as cpu.rt.internal shows it: from_ratio(period, bw - children's),
 * 0 below 1024 ns and for "max" groups (patches/hcbs-v6-6.12, rt_internal_runtime()).
 */
uint64_t hcbs_node_internal_runtime_us(const HcbsProfile *p, const HcbsNode *n);

/*
 * rtmax v7: what n's server on cpu runs per period, as cpu.rt.max.effective.local shows it (our port,
 * KERNEL=hcbs7): -1 ("max") for a "max" group, on every CPU; with a reservation, its runtime minus its
 * context children's on that CPU, 0 below 1024 ns, in whole µs (truncated); 0 off its cpuset.
 */
int64_t hcbs_node_cpu_runtime_us(const HcbsModel *m, const HcbsNode *n, unsigned cpu);

/* percpu_admission: what a reservation of runtime_us every period_us counts in a context whose period
 * is ref_period_ns, on each CPU it covers: runtime * ref / period in ns, truncated; 0 for period 0. */
uint64_t hcbs_cpu_share_ns(int64_t runtime_us, uint64_t period_us, uint64_t ref_period_ns);

/*
 * The least runtime (µs) that holds what counts against n as a context, were its period period_us:
 * the sum of its children's ratios (hcbs_runtime_for_bw()), or under percpu_admission the largest
 * per-CPU sum on its cpuset, rounded up. -ERANGE when that is more than the period (or it is 0).
 */
int hcbs_node_children_runtime_us(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, uint64_t *ret);

/*
 * The least runtime (µs) n's context would need, at its period, to hold n at (period_us, runtime_us)
 * beside what else counts against it (percpu_admission: on its most loaded CPU). -ERANGE when that
 * is more than the context's period; n must not be the root.
 */
int hcbs_model_context_need_us(const HcbsModel *m, const HcbsNode *n, uint64_t period_us, int64_t runtime_us,
                               uint64_t *ret);

/* The length of the per-CPU arrays: the highest CPU online when the model was made, plus one. */
unsigned hcbs_model_nr_cpus(const HcbsModel *m);

/*
 * percpu_admission: adds to sum (hcbs_model_nr_cpus() entries) what counts against t as a context
 * when its period is ref_period_ns: its children with a reservation, and those below its "max"
 * children, each on the CPUs of its cpuset; foreign bandwidth on every CPU online. O(t's context).
 */
void hcbs_context_sum_add(const HcbsModel *m, const HcbsNode *t, uint64_t ref_period_ns, uint64_t *sum);

static inline bool hcbs_node_is_leaf(const HcbsNode *n) {
        return n->n_children == 0;
}

const char *hcbs_file_name(const HcbsProfile *p, HcbsFile f);

/* Whether a is a strict ancestor of n. O(depth). */
bool hcbs_node_is_ancestor(const HcbsNode *a, const HcbsNode *n);

#define HCBS_NODE_FOREACH_CHILD(c, n) for (HcbsNode *c = (n)->first_child; c; c = c->next)

/* The node after d in a pre-order walk of top's subtree (walk_tg_tree()'s order), NULL past its end;
 * top NULL walks the whole tree. O(depth). */
static inline HcbsNode *hcbs_node_preorder_next(const HcbsNode *d, const HcbsNode *top) {
        if (d->first_child)
                return d->first_child;
        for (; d && d != top; d = d->parent)
                if (d->next)
                        return d->next;
        return NULL;
}

/* Every node of top's subtree, top first. */
#define HCBS_NODE_FOREACH_IN_SUBTREE(d, top) \
        for (HcbsNode *d = (HcbsNode *) (top); d; d = hcbs_node_preorder_next(d, (top)))
