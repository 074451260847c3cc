/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 100,000 random operations per profile: every write is judged by the
 * incremental model and by the whole-tree walk the kernel performs; they
 * must agree, and the caches must stay exact.
 */
#include <stdio.h>

#include "bandwidth.h"
#include "helpers.h"
#include "../random.h"

#define OPS 100000
#define MAX_NODES 64

typedef struct World {
        HcbsModel *m;
        HcbsNode *nodes[MAX_NODES];
        unsigned n;
        unsigned disagreements, accepted, refused;
        unsigned max_accepted, switches, max_with_children; /* rtmax coverage */
        unsigned cpus_accepted, cpus_refused, short_on_other_cpu; /* rtmax v7 coverage */
} World;

static HcbsNode *pick(World *w, Rng *r) {
        return w->nodes[rng_below(r, w->n)];
}

static void forget(World *w, HcbsNode *n) {
        for (unsigned i = 0; i < w->n; i++)
                if (w->nodes[i] == n) {
                        w->nodes[i] = w->nodes[--w->n];
                        return;
                }
}

static void op_write(World *w, Rng *r, unsigned step) {
        HcbsNode *n = pick(w, r);
        bool period = rng_below(r, 2);
        uint64_t p = period ? rng_period(r) : n->period_us;
        int64_t rt = period ? n->runtime_us : rng_runtime(r, n->period_us ? n->period_us : 1000);
        HcbsFile file = period ? HCBS_FILE_PERIOD : HCBS_FILE_RUNTIME;
        HcbsCheck c, k;

        /* rtmax: one cpu.rt.max write of both values; a quarter of them "max" (-1) */
        if (hcbs_model_profile(w->m)->atomic_write) {
                file = HCBS_FILE_MAX;
                p = rng_below(r, 8) ? rng_period(r) : n->period_us;
                rt = rng_below(r, 4) == 0 ? -1 : rng_runtime(r, p ? p : 1000);
        }
        c = hcbs_model_check_write(w->m, n, file, rt, p);
        k = hcbs_model_walk_check(w->m, n, p, rt);

        if (c.kernel_errno != k.kernel_errno) {
                if (w->disagreements++ < 10)
                        fprintf(stderr, "op %u: '%s' (%llu, %lld): model %d (reason %d), walk %d (reason %d)\n", step,
                                n->path, (unsigned long long) p, (long long) rt, c.kernel_errno, c.reason,
                                k.kernel_errno, k.reason);
                return;
        }
        if (c.kernel_errno) {
                w->refused++;
                w->short_on_other_cpu += c.cpu > 0;
                return;
        }
        w->accepted++;
        if (hcbs_model_profile(w->m)->max_delegation) {
                bool was_max = n->runtime_us < 0;
                w->max_accepted += rt < 0;
                w->switches += was_max != (rt < 0);
                w->max_with_children += rt < 0 && n->children_bw > 0;
        }
        hcbs_model_set(w->m, n, p, rt);
}

static void op_tasks(World *w, Rng *r) {
        HcbsNode *n = pick(w, r);
        bool rt = rng_below(r, 2);

        if (rng_below(r, 3) == 0) {
                hcbs_model_set_tasks(w->m, n, 0, 0);
                return;
        }
        if (hcbs_model_can_attach(w->m, n, rt))
                hcbs_model_set_tasks(w->m, n, n->nprocs + 1, n->nrt + rt);
}

/* rtmax v7: a cpuset.cpus write of a random subset of the 4 CPUs (empty: the parent's). */
static void op_cpus(World *w, Rng *r) {
        HcbsNode *n = pick(w, r);
        HcbsCpuSet cpus = {};
        HcbsCheck c;

        if (!n->parent)
                return; /* the root has no cpuset.cpus */
        for (unsigned cpu = 0; cpu < 4; cpu++)
                if (rng_below(r, 2))
                        hcbs_cpuset_add(&cpus, cpu);
        c = hcbs_model_check_cpus(w->m, n, &cpus);
        if (c.kernel_errno) {
                w->cpus_refused++;
                return;
        }
        w->cpus_accepted++;
        hcbs_model_set_cpus(w->m, n, &cpus);
}

static HcbsModel *model_of(HcbsInterface iface, unsigned revision) {
        HcbsModel *m = fixture_model(iface, true);

        if (revision) {
                HcbsProfile p = *hcbs_model_profile(m);
                hcbs_model_free(m);
                cr_assert_eq(hcbs_profile_set_revision(&p, revision), 0);
                hcbs_profile_set_cpus(&p, 4);
                p.dl_total_bw = 0;
                cr_assert_eq(hcbs_model_new(&m, &p, true), 0);
        }
        return m;
}

static void run(HcbsInterface iface, unsigned revision, uint64_t seed) {
        Rng r = rng_from_env(seed);
        World w = { .m = model_of(iface, revision) };
        char err[256];

        w.nodes[w.n++] = hcbs_model_root(w.m);
        for (unsigned step = 0; step < OPS; step++) {
                unsigned what = rng_below(&r, 10);
                if (what == 0 && w.n < MAX_NODES) {
                        HcbsNode *p = pick(&w, &r), *n;
                        char name[16];
                        snprintf(name, sizeof(name), "g%u", step);
                        if (p->depth < 5 && hcbs_model_add(w.m, p, name, &n) == 0)
                                w.nodes[w.n++] = n;
                } else if (what == 1) {
                        HcbsNode *n = pick(&w, &r);
                        if (n->parent && !n->first_child && hcbs_model_remove(w.m, n) == 0)
                                forget(&w, n);
                } else if (what == 2)
                        op_tasks(&w, &r);
                else if (what == 3 && revision >= 7)
                        op_cpus(&w, &r);
                else
                        op_write(&w, &r, step);
                if (step % 997 == 0)
                        cr_assert_eq(hcbs_model_verify(w.m, err, sizeof(err)), 0, "op %u: %s", step, err);
        }
        fprintf(stderr, "%s: %u accepted, %u refused, %u disagreements\n", hcbs_interface_to_string(iface),
                w.accepted, w.refused, w.disagreements);
        if (iface == HCBS_IFACE_RTMAX)
                fprintf(stderr, "rtmax: %u writes of \"max\" accepted, %u max <-> reservation switches, "
                        "%u with a max group holding reserved descendants\n",
                        w.max_accepted, w.switches, w.max_with_children);
        cr_assert_eq(w.disagreements, 0);
        cr_assert_gt(w.accepted, OPS / 20, "too few accepted writes to mean anything");
        cr_assert_gt(w.refused, OPS / 20, "too few refused writes to mean anything");
        if (iface == HCBS_IFACE_RTMAX) {
                cr_assert_gt(w.switches, OPS / 100, "too few max <-> reservation switches");
                cr_assert_gt(w.max_with_children, OPS / 1000, "too few max groups over reservations");
        }
        if (revision >= 7) {
                fprintf(stderr, "rtmax v7: %u cpuset writes accepted, %u refused above a reservation, "
                        "%u writes short on a CPU other than 0\n",
                        w.cpus_accepted, w.cpus_refused, w.short_on_other_cpu);
                cr_assert_gt(w.cpus_accepted, OPS / 100, "too few cpuset writes");
                cr_assert_gt(w.cpus_refused, OPS / 100, "too few cpuset writes refused");
                cr_assert_gt(w.short_on_other_cpu, OPS / 1000, "too few refusals on one CPU of several");
        }
        hcbs_model_free(w.m);
}

Test(property, legacy_v1) {
        run(HCBS_IFACE_LEGACY_V1, 0, 0x5eed1);
}

Test(property, rfc1) {
        run(HCBS_IFACE_RFC1, 0, 0x5eed2);
}

Test(property, rtmax) {
        run(HCBS_IFACE_RTMAX, 0, 0x5eed3);
}

/* v7 on 4 CPUs, with cpusets */
Test(property, rtmax7) {
        run(HCBS_IFACE_RTMAX, 7, 0x5eed7);
}
