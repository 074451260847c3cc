/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Sizing: from a set of periodic tasks to the smallest HCBS reservation
 * under which every task meets its deadline.
 *
 * A task is (C, T, D): at most C of CPU time every T, due D after release,
 * C <= D <= T (constrained deadlines). The group is a server on each of
 * m' CPUs with runtime r every Π (the interface ⟨Π, m'·r, m'⟩, supply.h).
 *
 * Tests (all sufficient, the first also necessary for the periodic resource):
 * - m' = 1, fixed priority (Shin & Lee RTSS 2003, Theorem 4.3 / Eq. (9)):
 *   task k meets its deadline if some t in (0, D_k] has
 *   rbf_k(t) = C_k + Σ_{i ∈ hp(k)} ⌈t/T_i⌉C_i <= sbf(t); rbf only steps at
 *   multiples of the T_i, so t is taken among them and D_k.
 * - m' = 1, EDF (Shin & Lee RTSS 2003, Theorem 4.1 / Eq. (6)): for every
 *   absolute deadline t, dbf(t) = Σ ⌊(t + T_i - D_i)/T_i⌋C_i <= sbf(t), up to
 *   the point past which the linear bounds dbf <= U·t + Σ(T_i - D_i)U_i and
 *   sbf >= (Θ/Π)(t - 2(Π - Θ)) settle it.
 * - m' > 1, global fixed priority, the argument of Bertogna, Cirinei &
 *   Lipari (OPODIS 2005, ECRTS 2008) on a supply ⟨Π, Θ, m'⟩ as in Easwaran,
 *   Shin & Lee (2009). If a job of task k misses, it ran E < C_k in its window
 *   of D_k and was ready but not running the other D_k - E, when every CPU
 *   that received supply ran a higher-priority job; task i can fill at most
 *   min(W_i, D_k - E) of that, with W_i the carry-in workload bound
 *   N_i C_i + min(C_i, D_k + D_i - C_i - N_i T_i), N_i = ⌊(D_k + D_i - C_i)/T_i⌋.
 *   So the supply of the window is at most f(E) = m'E + Σ min(W_i, D_k - E),
 *   and sbf(D_k) > f(E) for every E in [0, C_k) (f is concave, so its
 *   breakpoints decide) proves that no job of k misses.
 *
 * The designer tries each candidate period and, for each, the least
 * per-CPU runtime r (integer µs) that passes; it keeps the least bandwidth
 * r/Π, ties going to the longer period (fewer server activations). Every
 * quantity is an integer. The work is bounded by HCBS_SIZING_MAX_TASKS,
 * HCBS_SIZING_MAX_POINTS check points per task (fewer from 128 tasks on, 8
 * at 1,024; the largest ones, which keeps the fixed-priority test
 * sufficient), HCBS_SIZING_MAX_CANDIDATES periods (fewer from 256 tasks),
 * and above all by one count of steps for the whole request
 * (HCBS_SIZING_MAX_WORK): the time of a request is what its input decides,
 * so the count stops it. Refusals name the task and the reason in an
 * HcbsVerdict: InvalidArgument for input no analysis accepts,
 * InsufficientBandwidth when no interface within the limits passes,
 * NotSupported for EDF on m' > 1, LimitsExceeded past the count of steps.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define HCBS_SIZING_MAX_TASKS 1024
#define HCBS_SIZING_MAX_CPUS 1024
#define HCBS_SIZING_MAX_US (UINT64_C(3600) * 1000000) /* one hour, for any task value */
#define HCBS_SIZING_MAX_POINTS 64      /* fixed-priority check points per task (m' = 1), up to 128 tasks */
#define HCBS_SIZING_MAX_EDF_WORK (UINT64_C(20000000)) /* dbf terms evaluated per EDF test */
#define HCBS_SIZING_MAX_CANDIDATES 192
#define HCBS_SIZING_MIN_RUNTIME_US 2   /* the kernel refuses runtimes below 1024 ns */
/*
 * One budget for a whole request, in steps (a term of a demand or request
 * bound, a supply evaluated at a check point, a bisection step): every
 * candidate period, every bisection and every response bound draws on it.
 * A request that needs more is refused (HCBS_E_LIMITS_EXCEEDED), whatever it
 * had found so far. At most 0.1 to 0.7 s of one core (docs/sizing.md).
 */
#define HCBS_SIZING_MAX_WORK (UINT64_C(100000000))

typedef enum HcbsScheduler {
        HCBS_SCHED_FP,  /* fixed priority: deadline-monotonic unless priorities are given */
        HCBS_SCHED_EDF, /* earliest deadline first (m' = 1 only) */
        _HCBS_SCHED_MAX,
} HcbsScheduler;

typedef struct HcbsTask {
        uint64_t wcet_us;
        uint64_t period_us;
        uint64_t deadline_us; /* 0: the period */
} HcbsTask;

typedef struct HcbsSizingRequest {
        const HcbsTask *tasks;
        size_t n_tasks;
        const uint32_t *priorities; /* NULL: deadline-monotonic; else one per task, higher runs first */
        unsigned cpus;              /* m' >= 1 */
        HcbsScheduler scheduler;
        uint64_t period_us;         /* != 0: only this period */
        uint64_t min_period_us;     /* the range to search when period_us is 0; 0: see below */
        uint64_t max_period_us;
        /* hcbsd's limits: MinPeriod..MaxPeriod and the per-CPU ratio (kernel fixed point) */
        uint64_t limit_min_period_us;
        uint64_t limit_max_period_us;
        uint64_t limit_bw;
        uint64_t work_limit;        /* steps this request may take; 0: HCBS_SIZING_MAX_WORK */
        const atomic_bool *cancel;  /* NULL, or set by another thread to stop: hcbs_size() returns -ECANCELED */
} HcbsSizingRequest;

/* Without period or range: D_min/10 .. D_min, clamped to the limits. */

typedef struct HcbsTaskBound {
        uint32_t rank;        /* 1 = highest priority (fp); by deadline for edf */
        bool has_response;    /* fp only */
        uint64_t response_us; /* a bound on the worst response time, <= deadline */
} HcbsTaskBound;

typedef struct HcbsSizing {
        uint64_t runtime_us; /* per CPU: what cpu.rt_runtime_us gets */
        uint64_t period_us;
        unsigned cpus;
        uint64_t budget_us;  /* Θ = cpus * runtime_us */
        uint64_t bw;         /* runtime/period in the kernel's fixed point, per CPU */
        uint64_t utilisation_bw; /* Σ C_i/T_i in fixed point (of one CPU), rounded up */
        unsigned periods_tried;
        uint64_t work;       /* steps taken, of at most the request's work limit */
} HcbsSizing;

/*
 * Designs the interface for req. Returns 0 and fills v (HCBS_OK: *ret and, if
 * not NULL, ret_bounds[n_tasks] are written; HCBS_E_LIMITS_EXCEEDED when the
 * work limit ran out, the message naming it), -ECANCELED when req->cancel
 * was set, or -ENOMEM.
 */
int hcbs_size(const HcbsSizingRequest *req, HcbsSizing *ret, HcbsTaskBound *ret_bounds, HcbsVerdict *v);

/*
 * Whether req's tasks pass under runtime/period on req->cpus CPUs (the same
 * tests, no search). Returns 1 or 0, -EINVAL if req is not valid input,
 * -E2BIG past the work limit, -ECANCELED, -ENOMEM.
 */
int hcbs_sizing_check(const HcbsSizingRequest *req, uint64_t period_us, uint64_t runtime_us);

/* "fp", "edf". */
const char *hcbs_scheduler_to_string(HcbsScheduler s);
int hcbs_scheduler_from_string(const char *s);
