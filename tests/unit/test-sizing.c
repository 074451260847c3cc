/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sizing: the supply bound functions, the demand tests, the designer and its
 * refusals, and a property test against a discrete-time simulation of the
 * worst-case supply pattern.
 *
 * The worked examples below are computed by hand from the papers'
 * definitions (Shin & Lee RTSS 2003 Eq. (1)-(2) for sbf, Theorem 4.1 for
 * EDF, Theorem 4.3 for FP; Shin, Easwaran & Lee ECRTS 2008 Eq. (1) for the
 * MPR sbf), each step written out next to its numbers, and the simulation
 * replays the same schedules slot by slot.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../random.h"
#include "bandwidth.h"
#include "macro.h"
#include "sizing.h"
#include "supply.h"

static HcbsSizingRequest request(const HcbsTask *t, size_t n, unsigned cpus, uint64_t period) {
        return (HcbsSizingRequest) {
                .tasks = t,
                .n_tasks = n,
                .cpus = cpus,
                .scheduler = HCBS_SCHED_FP,
                .period_us = period,
                .limit_min_period_us = 1,
                .limit_max_period_us = 4000000,
                .limit_bw = HCBS_BW_UNIT,
        };
}

/* Γ(5, 3): blackout 2(Π - Θ) = 4, then 1 per slot until t' = t - 2 reaches the next blackout. */
Test(supply, prm_sbf_by_hand) {
        static const uint64_t want[] = { 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6, 7 };
        for (uint64_t t = 0; t < ELEMENTSOF(want); t++)
                cr_expect_eq(hcbs_prm_sbf(5, 3, t), want[t], "sbf(5,3,%llu) = %llu", (unsigned long long) t,
                             (unsigned long long) hcbs_prm_sbf(5, 3, t));
        /* the dedicated CPU and the empty resource */
        cr_assert_eq(hcbs_prm_sbf(7, 7, 12), 12);
        cr_assert_eq(hcbs_prm_sbf(7, 0, 1000), 0);
}

/* The pattern the simulation uses: supply in slot t iff t >= Π-Θ and (t-(Π-Θ)) mod Π >= Π-Θ. */
static bool supplied(uint64_t period, uint64_t budget, uint64_t t) {
        uint64_t b = period - budget;
        return t >= b && (t - b) % period >= b;
}

Test(supply, prm_sbf_is_the_worst_pattern) {
        for (uint64_t p = 1; p <= 12; p++)
                for (uint64_t q = 1; q <= p; q++) {
                        uint64_t got = 0;
                        for (uint64_t t = 0; t <= 60; t++) {
                                cr_assert_eq(hcbs_prm_sbf(p, q, t), got, "Γ(%llu,%llu) t=%llu",
                                             (unsigned long long) p, (unsigned long long) q, (unsigned long long) t);
                                got += supplied(p, q, t);
                        }
                }
}

Test(supply, prm_inverse) {
        for (uint64_t p = 1; p <= 20; p++)
                for (uint64_t q = 1; q <= p; q++)
                        for (uint64_t d = 1; d <= 50; d++) {
                                uint64_t t = hcbs_prm_sbf_inverse(p, q, d);
                                cr_assert_geq(hcbs_prm_sbf(p, q, t), d);
                                cr_assert_lt(hcbs_prm_sbf(p, q, t - 1), d);
                        }
}

/* ECRTS 2008 Eq. (1) with Θ = m'·r is m' periodic resources Γ(Π, r): what HCBS reserves. */
Test(supply, mpr_of_equal_servers) {
        for (unsigned m = 1; m <= 4; m++)
                for (uint64_t p = 1; p <= 15; p++)
                        for (uint64_t r = 1; r <= p; r++)
                                for (uint64_t t = 0; t <= 70; t++)
                                        cr_assert_eq(hcbs_mpr_sbf(p, m * r, m, t), m * hcbs_prm_sbf(p, r, t));
        /* ⟨10, 5, 2⟩: ⌈Θ/m'⌉ = 3, nothing before Π - 3 = 7; m'x - (m'Π - Θ) = 2x - 15 once positive */
        cr_assert_eq(hcbs_mpr_sbf(10, 5, 2, 7), 0);
        cr_assert_eq(hcbs_mpr_sbf(10, 5, 2, 15), 1); /* x = 8: 16 - 15 */
        cr_assert_eq(hcbs_mpr_sbf(10, 5, 2, 17), 5); /* k = 1, x = 0: Θ */
        /* never more than m' per unit of time, never decreasing */
        for (uint64_t t = 1; t < 200; t++) {
                cr_assert_leq(hcbs_mpr_sbf(10, 13, 3, t), 3 * t);
                cr_assert_geq(hcbs_mpr_sbf(10, 13, 3, t), hcbs_mpr_sbf(10, 13, 3, t - 1));
        }
}

/*
 * τ1 = (C 2, T 20), τ2 = (3, 30), deadline-monotonic, Π = 10 (Theorem 4.3):
 *  τ1: rbf(20) = 2; sbf(10,r,20) = r + max(0, 2r - 10) >= 2 from r = 2.
 *  τ2: points 20 and 30; rbf(20) = 3 + 2 = 5, rbf(30) = 3 + 2·2 = 7;
 *      sbf(10,r,30) = 2r + max(0, 2r - 10): r = 3 gives 6 < 7, r = 4 gives 8;
 *      sbf(10,r,20) >= 5 needs r = 5. So Θ = 4 (40%, for a utilisation of 20%).
 * Response bounds: τ1 sbf⁻¹(2) = 2·6 + 2 = 14; τ2 sbf⁻¹(5) = 23, rbf(23) = 7,
 * sbf⁻¹(7) = 25 = fixed point. The simulation below finishes them at 14 and 25.
 */
Test(sizing, fp_by_hand) {
        HcbsTask t[] = { { 2, 20, 0 }, { 3, 30, 0 } };
        HcbsSizingRequest req = request(t, 2, 1, 10);
        HcbsTaskBound b[2];
        HcbsSizing s;
        HcbsVerdict v;

        cr_assert_eq(hcbs_size(&req, &s, b, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(s.runtime_us, 4);
        cr_assert_eq(s.period_us, 10);
        cr_assert_eq(s.budget_us, 4);
        cr_assert_eq(b[0].rank, 1);
        cr_assert_eq(b[0].response_us, 14);
        cr_assert_eq(b[1].rank, 2);
        cr_assert_eq(b[1].response_us, 25);
        cr_assert_eq(hcbs_sizing_check(&req, 10, 4), 1);
        cr_assert_eq(hcbs_sizing_check(&req, 10, 3), 0);
}

/*
 * The same tasks under EDF (Theorem 4.1): dbf(20) = 2, dbf(30) = 5, dbf(40) = 7.
 * r = 2: sbf(30) = 4 < 5. r = 3: sbf(20) = 3, sbf(30) = 6, sbf(40) = 9, and past
 * t* = 2α(Π - Θ)/(α - U) = 2·0.3·7/0.1 = 42 the linear bounds hold. So Θ = 3.
 */
Test(sizing, edf_by_hand) {
        HcbsTask t[] = { { 2, 20, 0 }, { 3, 30, 0 } };
        HcbsSizingRequest req = request(t, 2, 1, 10);
        HcbsSizing s;
        HcbsVerdict v;

        req.scheduler = HCBS_SCHED_EDF;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(s.runtime_us, 3);
        cr_assert_eq(hcbs_sizing_check(&req, 10, 2), 0);
}

/*
 * Global FP on 2 CPUs, τ = (2, 10) alone: f(E) = 2E on [0, 2), so sbf(10) must
 * reach f(2) = 4: on each CPU sbf(Π, r, 10) >= 2. At Π = 5: r + max(0, ...) with
 * blackout 5 - r: r = 2 gives t' = 7, k = 1, x = 2: 2 + max(0, 2 - 3) = 2. r = 1: 1.
 */
Test(sizing, global_by_hand) {
        HcbsTask t[] = { { 2, 10, 0 } };
        HcbsSizingRequest req = request(t, 1, 2, 5);
        HcbsSizing s;
        HcbsVerdict v;

        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(s.runtime_us, 2);
        cr_assert_eq(s.budget_us, 4);
        cr_assert_eq(s.cpus, 2);
}

Test(sizing, given_priorities) {
        /* τ2 first by its given priority: τ1 (2, 20) now waits behind (3, 30) */
        HcbsTask t[] = { { 2, 20, 0 }, { 3, 30, 0 } };
        uint32_t prio[] = { 10, 20 };
        HcbsSizingRequest req = request(t, 2, 1, 10);
        HcbsTaskBound b[2];
        HcbsSizing s;
        HcbsVerdict v;

        req.priorities = prio;
        cr_assert_eq(hcbs_size(&req, &s, b, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(b[1].rank, 1);
        cr_assert_eq(b[0].rank, 2);
        /* τ1 needs sbf(20) >= 5 now: r + max(0, 2r - 10) >= 5 at r = 5 */
        cr_assert_eq(s.runtime_us, 5);
        /* equal priorities interfere both ways: each waits for the other */
        prio[0] = prio[1] = 7;
        cr_assert_eq(hcbs_size(&req, &s, b, &v), 0);
        cr_assert_geq(s.runtime_us, 5);
}

static void expect_refusal(const HcbsTask *t, size_t n, unsigned cpus, uint64_t period, HcbsError e,
                           const char *needle) {
        HcbsSizingRequest req = request(t, n, cpus, period);
        HcbsSizing s;
        HcbsVerdict v;

        req.limit_min_period_us = 100;
        req.limit_bw = hcbs_bw(1000000, 950000);
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, e, "%s", v.message);
        cr_assert(strstr(v.message, needle), "'%s' lacks '%s'", v.message, needle);
}

Test(sizing, refusals) {
        HcbsTask ok[] = { { 1000, 10000, 0 } };
        HcbsTask wcet[] = { { 1000, 10000, 0 }, { 5000, 10000, 4000 } };
        HcbsTask deadline[] = { { 1000, 10000, 20000 } };
        HcbsTask zero[] = { { 0, 10000, 0 } };
        HcbsTask huge[] = { { 1, UINT64_MAX, 0 } };
        HcbsTask util[] = { { 9000, 10000, 0 }, { 9000, 10000, 0 } };
        HcbsTask tight[] = { { 990, 1000, 0 } };

        expect_refusal(ok, 0, 1, 0, HCBS_E_INVALID_ARGUMENT, "no tasks");
        expect_refusal(wcet, 2, 1, 0, HCBS_E_INSUFFICIENT_BANDWIDTH, "task 2 (5ms every 10ms, due 4ms)");
        expect_refusal(wcet, 2, 1, 0, HCBS_E_INSUFFICIENT_BANDWIDTH, "WCET 5ms is longer than its deadline 4ms");
        expect_refusal(deadline, 1, 1, 0, HCBS_E_INVALID_ARGUMENT, "deadline 20ms is longer than the period");
        expect_refusal(zero, 1, 1, 0, HCBS_E_INVALID_ARGUMENT, "task 1: the WCET is 0");
        expect_refusal(huge, 1, 1, 0, HCBS_E_INVALID_ARGUMENT, "values above 3600s");
        expect_refusal(util, 2, 1, 0, HCBS_E_INSUFFICIENT_BANDWIDTH, "utilisation 180.0% is above 1 CPU x the per-CPU limit 95.0%");
        expect_refusal(ok, 1, 1, 50, HCBS_E_INVALID_ARGUMENT, "period 50us is outside MinPeriod..MaxPeriod (100us..4s)");
        expect_refusal(ok, 1, 0, 0, HCBS_E_INVALID_ARGUMENT, "cpus 0");
        /* 99% of a CPU on one CPU: within 2 x 95% but one task runs on one CPU at a time */
        expect_refusal(tight, 1, 2, 1000, HCBS_E_INSUFFICIENT_BANDWIDTH, "task 1 (990us every 1ms, due 1ms) cannot meet");
        expect_refusal(tight, 1, 1, 0, HCBS_E_INSUFFICIENT_BANDWIDTH, "above 1 CPU");
}

Test(sizing, limits) {
        HcbsTask *t = calloc(10000, sizeof(*t));
        HcbsSizingRequest req;
        HcbsSizing s;
        HcbsVerdict v;
        Rng r = { 7 };

        cr_assert(t);
        for (size_t i = 0; i < 10000; i++) {
                t[i].period_us = 1000 * (10 + rng_below(&r, 990));
                t[i].wcet_us = 1 + rng_below(&r, t[i].period_us / 2000);
        }
        req = request(t, 10000, 4, 0);
        req.limit_min_period_us = 100;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_E_INVALID_ARGUMENT);
        cr_assert(strstr(v.message, "at most 1024"), "%s", v.message);

        /* the limit itself is designed in bounded time (make bench measures it) */
        req.n_tasks = HCBS_SIZING_MAX_TASKS;
        req.cpus = 16;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert(v.error == HCBS_OK || v.error == HCBS_E_INSUFFICIENT_BANDWIDTH, "%s", v.message);
        req.cpus = 1;
        req.n_tasks = 64;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert(v.error == HCBS_OK || v.error == HCBS_E_INSUFFICIENT_BANDWIDTH, "%s", v.message);
        free(t);
}

Test(sizing, range_and_floor) {
        HcbsTask t[] = { { 2000, 10000, 0 }, { 1000, 20000, 15000 } };
        HcbsSizingRequest req = request(t, 2, 1, 0);
        HcbsSizing s, fixed;
        HcbsVerdict v;

        req.limit_min_period_us = 100;
        req.min_period_us = 500;
        req.max_period_us = 10000;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert(s.period_us >= 500 && s.period_us <= 10000);
        cr_assert_gt(s.periods_tried, 100);
        /* no candidate beats it: each tried period alone needs at least that ratio */
        for (uint64_t p = 500; p <= 10000; p += 250) {
                req.period_us = p;
                cr_assert_eq(hcbs_size(&req, &fixed, NULL, &v), 0);
                if (v.error == HCBS_OK)
                        cr_assert_geq((unsigned __int128) fixed.runtime_us * s.period_us,
                                      (unsigned __int128) s.runtime_us * p - s.period_us,
                                      "period %llu: %llu beats %llu/%llu", (unsigned long long) p,
                                      (unsigned long long) fixed.runtime_us, (unsigned long long) s.runtime_us,
                                      (unsigned long long) s.period_us);
        }
        /* the kernel's 1024 ns floor: 1us never comes out */
        HcbsTask small[] = { { 1, 1000, 0 } };
        req = request(small, 1, 1, 100);
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_geq(s.runtime_us, HCBS_SIZING_MIN_RUNTIME_US);
}

/*
 * The input that froze hcbsd (issue 23): four tasks whose utilisation is
 * half a CPU and 199 one-microsecond tasks every hour, one CPU, period
 * 100us at 90%. The design is Θ = 50 (α = 0.5), so the long tasks' higher
 * priority load U_hp = 0.48815 + 0.01185 + 0.00015 sits just below α: the
 * fixed point from sbf⁻¹(ΣC) climbed 10^5 steps per task and stopped at
 * D_k (4 s of CPU for the request). From the linear lower bound it lands
 * on R_4 exactly, in a few steps.
 */
static size_t frozen(HcbsTask *t) {
        size_t n = 0;

        t[n++] = (HcbsTask) { 2440, 5000, 0 };
        t[n++] = (HcbsTask) { 4740, 400000, 0 };
        t[n++] = (HcbsTask) { 5940, 40000000, 0 };
        t[n++] = (HcbsTask) { 4661, UINT64_C(3600000000), 0 };
        while (n < 203)
                t[n++] = (HcbsTask) { 1, UINT64_C(3600000000), 0 };
        return n;
}

Test(sizing, response_bounds_converge) {
        static HcbsTask t[203];
        static HcbsTaskBound b[203];
        HcbsSizingRequest req = request(t, frozen(t), 1, 100);
        HcbsSizing s;
        HcbsVerdict v;

        req.limit_bw = hcbs_bw(100, 90);
        cr_assert_eq(hcbs_size(&req, &s, b, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(s.runtime_us, 50);
        cr_assert_lt(s.work, HCBS_SIZING_MAX_WORK / 4, "%llu steps", (unsigned long long) s.work);
        /* the exact fixed points: τ1 2440 + 2·50 blackout + ...; τ3 and τ4 far below their deadlines */
        cr_assert_eq(b[0].response_us, 4940);
        cr_assert_eq(b[1].response_us, 399940);
        cr_assert_eq(b[2].response_us, 39999940);
        cr_assert_eq(b[3].response_us, UINT64_C(3159999921));
        for (size_t i = 0; i < 203; i++) {
                uint64_t r = b[i].response_us;
                cr_assert(r <= (t[i].deadline_us ? t[i].deadline_us : t[i].period_us));
                cr_assert_geq(hcbs_prm_sbf(100, 50, r), t[i].wcet_us, "task %zu", i);
        }
}

/* One budget for the whole request: a step less than it takes is the refusal that names the limit. */
Test(sizing, work_limit) {
        static HcbsTask t[203];
        HcbsTask edf[] = { { 1, 1000, 0 }, { 1000000000, UINT64_C(3600000000), 0 } };
        HcbsSizingRequest req = request(t, frozen(t), 1, 100);
        atomic_bool stop = false;
        HcbsSizing s, again;
        HcbsVerdict v;

        req.limit_bw = hcbs_bw(100, 90);
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        req.work_limit = s.work;
        cr_assert_eq(hcbs_size(&req, &again, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_eq(again.work, s.work);
        req.work_limit = s.work - 1;
        cr_assert_eq(hcbs_size(&req, &again, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_E_LIMITS_EXCEEDED);
        cr_assert(strstr(v.message, "needs more than"), "%s", v.message);
        req.work_limit = 1000; /* the check's own preparation takes more */
        cr_assert_eq(hcbs_sizing_check(&req, 100, 50), -E2BIG);

        /* edf's demand terms count too: the whole range, horizons of hours (86 million steps) */
        req = request(edf, ELEMENTSOF(edf), 1, 0);
        req.scheduler = HCBS_SCHED_EDF;
        req.min_period_us = 1;
        req.max_period_us = 4000000;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_OK, "%s", v.message);
        cr_assert_gt(s.work, 10000000);
        req.work_limit = 10000000;
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), 0);
        cr_assert_eq(v.error, HCBS_E_LIMITS_EXCEEDED, "%s", v.message);

        /* another thread's stop ends it at once */
        req = request(t, 203, 1, 100);
        req.cancel = &stop;
        atomic_store(&stop, true);
        cr_assert_eq(hcbs_size(&req, &s, NULL, &v), -ECANCELED);
}

/* ---- simulation ---------------------------------------------------------------------------- */

/*
 * Global fixed priority (or EDF when edf) on m CPUs, each supplied by the
 * worst-case pattern of Γ(period, runtime), all tasks released at 0.
 * Returns true when no job misses its deadline before horizon; resp (when
 * not NULL) gets each task's longest response seen.
 */
/*
 * Where each CPU's supply goes: NULL for the worst-case pattern on every
 * CPU; else, for each CPU and each server period, the offset in [0, Π - r]
 * at which that period's r units come (any such placement is a legal
 * periodic resource, so the designed runtime must survive it too).
 */
typedef struct Placement {
        unsigned cpus;
        uint64_t periods;
        const uint64_t *offset; /* [cpu * periods + k] */
} Placement;

static unsigned supplied_cpus(const Placement *pl, unsigned m, uint64_t period, uint64_t runtime, uint64_t now) {
        unsigned n = 0;

        if (!pl)
                return supplied(period, runtime, now) ? m : 0;
        for (unsigned c = 0; c < pl->cpus; c++) {
                uint64_t k = now / period, x = now % period, o;
                if (k >= pl->periods)
                        return 0;
                o = pl->offset[c * pl->periods + k];
                n += x >= o && x < o + runtime;
        }
        return n;
}

static bool simulate_on(const Placement *pl, const HcbsTask *t, size_t n, const uint32_t *rank, bool edf, unsigned m,
                        uint64_t period, uint64_t runtime, uint64_t horizon, uint64_t *resp) {
        uint64_t left[8] = {}, release[8] = {};

        if (resp)
                memset(resp, 0, n * sizeof(*resp));
        for (uint64_t now = 0; now < horizon; now++) {
                bool chosen[8] = {};
                unsigned cpus = supplied_cpus(pl, m, period, runtime, now);

                for (size_t i = 0; i < n; i++) {
                        uint64_t d = t[i].deadline_us ? t[i].deadline_us : t[i].period_us;
                        if (now == release[i] + d && left[i] > 0)
                                return false;
                        if (now % t[i].period_us == 0) {
                                if (left[i] > 0)
                                        return false;
                                left[i] = t[i].wcet_us;
                                release[i] = now;
                        }
                }
                for (unsigned c = 0; c < cpus; c++) {
                        size_t best = SIZE_MAX;
                        for (size_t i = 0; i < n; i++) {
                                if (!left[i] || chosen[i])
                                        continue;
                                if (best == SIZE_MAX)
                                        best = i;
                                else if (edf) {
                                        uint64_t di = release[i] + (t[i].deadline_us ? t[i].deadline_us : t[i].period_us);
                                        uint64_t db = release[best] + (t[best].deadline_us ? t[best].deadline_us : t[best].period_us);
                                        if (di < db)
                                                best = i;
                                } else if (rank[i] < rank[best])
                                        best = i;
                        }
                        if (best == SIZE_MAX)
                                break;
                        chosen[best] = true;
                }
                for (size_t i = 0; i < n; i++)
                        if (chosen[i] && --left[i] == 0 && resp)
                                resp[i] = MAX(resp[i], now + 1 - release[i]);
        }
        return true;
}

static bool simulate(const HcbsTask *t, size_t n, const uint32_t *rank, bool edf, unsigned m, uint64_t period,
                     uint64_t runtime, uint64_t horizon) {
        return simulate_on(NULL, t, n, rank, edf, m, period, runtime, horizon, NULL);
}

/* The designed runtime under random legal placements of each period's supply, on each CPU. */
static bool simulate_random(Rng *r, const HcbsTask *t, size_t n, const uint32_t *rank, bool edf, unsigned m,
                            uint64_t period, uint64_t runtime, uint64_t horizon) {
        uint64_t periods = horizon / period + 1;
        uint64_t *offset = calloc(m * periods, sizeof(*offset));
        Placement pl = { m, periods, offset };
        bool ok;

        cr_assert_not_null(offset);
        for (uint64_t i = 0; i < m * periods; i++)
                offset[i] = rng_below(r, period - runtime + 1);
        ok = simulate_on(&pl, t, n, rank, edf, m, period, runtime, horizon, NULL);
        free(offset);
        return ok;
}

Test(simulation, replays_the_hand_example) {
        HcbsTask t[] = { { 2, 20, 0 }, { 3, 30, 0 } };
        uint32_t rank[] = { 1, 2 };
        cr_assert(simulate(t, 2, rank, false, 1, 10, 4, 600));
        cr_assert(!simulate(t, 2, rank, false, 1, 10, 3, 600));
        cr_assert(simulate(t, 2, rank, true, 1, 10, 3, 600));
        cr_assert(!simulate(t, 2, rank, true, 1, 10, 2, 600));
}

static uint64_t gcd(uint64_t a, uint64_t b) {
        while (b) {
                uint64_t x = a % b;
                a = b;
                b = x;
        }
        return a;
}

/*
 * Random small task sets: the designed interface never misses in the
 * simulation (soundness), neither on the worst-case pattern nor on three
 * random legal placements of each period's supply on each CPU, and the
 * distance to the least runtime the worst-case simulation accepts is reported. On one CPU with fixed priorities the test
 * is exact, so the two must be equal.
 */
static void property(unsigned m, bool edf, unsigned rounds) {
        static const uint64_t periods[] = { 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40 };
        Rng r = rng_from_env(0x5eed + m * 10 + edf);
        unsigned designed_total = 0, sim_total = 0, equal = 0, sets = 0, refused = 0;
        double worst = 1.0;

        for (unsigned round = 0; round < rounds; round++) {
                size_t n = 1 + rng_below(&r, 4);
                HcbsTask t[4];
                uint32_t rank[4];
                HcbsTaskBound b[4];
                HcbsSizingRequest req;
                HcbsSizing s;
                HcbsVerdict v;
                uint64_t horizon, lcm = 1, sim_min = 0, period, resp[4];

                for (size_t i = 0; i < n; i++) {
                        t[i].period_us = periods[rng_below(&r, ELEMENTSOF(periods))];
                        t[i].wcet_us = 1 + rng_below(&r, MAX(1, t[i].period_us / (2 * n)));
                        t[i].deadline_us = t[i].wcet_us + rng_below(&r, t[i].period_us - t[i].wcet_us + 1);
                        lcm = lcm / gcd(lcm, t[i].period_us) * t[i].period_us;
                }
                period = 2 + rng_below(&r, 9);
                req = request(t, n, m, period);
                req.scheduler = edf ? HCBS_SCHED_EDF : HCBS_SCHED_FP;
                cr_assert_eq(hcbs_size(&req, &s, b, &v), 0);
                lcm = lcm / gcd(lcm, period) * period;
                horizon = MIN(2 * lcm + 100, 20000);
                if (v.error != HCBS_OK) {
                        cr_assert_eq(v.error, HCBS_E_INSUFFICIENT_BANDWIDTH, "%s", v.message);
                        if (m == 1 && !edf) {
                                /* exact: not even the whole CPU meets every deadline (deadline-monotonic order) */
                                uint32_t order[4];
                                for (size_t i = 0; i < n; i++) {
                                        order[i] = 1;
                                        for (size_t j = 0; j < n; j++)
                                                order[i] += t[j].deadline_us < t[i].deadline_us ||
                                                            (t[j].deadline_us == t[i].deadline_us &&
                                                             (t[j].period_us < t[i].period_us ||
                                                              (t[j].period_us == t[i].period_us && j < i)));
                                }
                                cr_assert(!simulate(t, n, order, false, 1, period, period, horizon),
                                          "round %u refused, yet the whole CPU schedules it: %s", round, v.message);
                        }
                        refused++;
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        rank[i] = b[i].rank;
                cr_assert(simulate_on(NULL, t, n, rank, edf, m, period, s.runtime_us, horizon, resp),
                          "round %u: designed runtime %llu/%llu misses a deadline", round,
                          (unsigned long long) s.runtime_us, (unsigned long long) period);
                /* the response bounds hold; on one CPU the fixed point is the worst response itself */
                for (size_t i = 0; i < n && !edf; i++)
                        cr_assert(m == 1 ? b[i].response_us == resp[i] : b[i].response_us >= resp[i],
                                  "round %u task %zu: response bound %llu, simulated %llu", round, i,
                                  (unsigned long long) b[i].response_us, (unsigned long long) resp[i]);
                for (unsigned j = 0; j < 3; j++)
                        cr_assert(simulate_random(&r, t, n, rank, edf, m, period, s.runtime_us, horizon),
                                  "round %u: designed runtime %llu/%llu misses under a random placement", round,
                                  (unsigned long long) s.runtime_us, (unsigned long long) period);
                for (uint64_t x = HCBS_SIZING_MIN_RUNTIME_US; x <= s.runtime_us; x++)
                        if (simulate(t, n, rank, edf, m, period, x, horizon)) {
                                sim_min = x;
                                break;
                        }
                cr_assert_gt(sim_min, 0);
                if (m == 1 && !edf)
                        cr_assert_eq(s.runtime_us, sim_min, "round %u: fp on one CPU is exact: %llu vs %llu", round,
                                     (unsigned long long) s.runtime_us, (unsigned long long) sim_min);
                sets++;
                designed_total += s.runtime_us;
                sim_total += sim_min;
                equal += s.runtime_us == sim_min;
                worst = MAX(worst, (double) s.runtime_us / sim_min);
        }
        cr_log_info("%s on %u CPU%s: %u sets (%u refused): designed runtime = simulated minimum in %u; "
                    "designed/simulated %.3f overall, worst %.2f",
                    edf ? "edf" : "fp", m, m > 1 ? "s" : "", sets, refused, equal,
                    sim_total ? (double) designed_total / sim_total : 0.0, worst);
        fprintf(stderr, "sizing property: %s on %u CPU(s): %u sets (%u refused), exact in %u, "
                "designed/simulated %.3f overall, worst %.2f\n",
                edf ? "edf" : "fp", m, sets, refused, equal, sim_total ? (double) designed_total / sim_total : 0.0,
                worst);
        cr_assert_gt(sets, rounds / 2);
}

Test(simulation, fp_one_cpu_sound_and_exact) {
        property(1, false, 2000);
}

Test(simulation, edf_one_cpu_sound) {
        property(1, true, 1000);
}

Test(simulation, global_fp_sound) {
        property(2, false, 1000);
        property(3, false, 500);
}
