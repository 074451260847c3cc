/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The designer: candidate periods, and for each the least per-CPU runtime
 * that passes the test of sizing.h. The tests are monotone in the runtime
 * (a larger budget never supplies less), so each task's need is found by
 * bisection and the interface's runtime is the largest need.
 *
 * Work done once per request, independent of the period: the priority
 * order, the fixed-priority check points and their request bound (m' = 1),
 * and the demand each task puts on sbf(D_k) (m' > 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"
#include "macro.h"
#include "sizing.h"
#include "supply.h"

typedef struct Point {
        uint64_t t;      /* a check point in (0, D_k] */
        uint64_t demand; /* rbf_k(t) */
} Point;

typedef struct Sizer {
        const HcbsSizingRequest *req;
        size_t n;
        unsigned m;
        HcbsTask *task;  /* in priority order, deadlines filled in */
        size_t *index;   /* task[k] is req->tasks[index[k]] */
        size_t *hp_end;  /* hp(k) = [0, hp_end[k]) without k: equal priorities interfere both ways */
        Point *points;   /* m' = 1, fp: max_points per task */
        size_t max_points;
        size_t *n_points;
        uint64_t *need;  /* m' > 1, fp: sbf(D_k) must reach need[k] */
        uint64_t *scratch;
        uint64_t work, work_limit; /* steps taken, and allowed (sizing.h) */
        const atomic_bool *cancel;
        bool over;       /* the budget ran out, or the request was cancelled: every test fails from here */
        bool cancelled;
} Sizer;

/* Why a period failed, for the refusal. */
typedef struct Failure {
        size_t task;     /* index in priority order; SIZE_MAX: not one task's fault */
        uint64_t period;
        uint64_t runtime_max;
        bool edf_too_long;
} Failure;

static const char *const scheduler_names[_HCBS_SCHED_MAX] = {
        [HCBS_SCHED_FP] = "fp",
        [HCBS_SCHED_EDF] = "edf",
};

const char *hcbs_scheduler_to_string(HcbsScheduler s) {
        return s >= 0 && s < _HCBS_SCHED_MAX ? scheduler_names[s] : NULL;
}

int hcbs_scheduler_from_string(const char *s) {
        for (int i = 0; i < _HCBS_SCHED_MAX; i++)
                if (s && strcmp(s, scheduler_names[i]) == 0)
                        return i;
        return -EINVAL;
}

static uint64_t div_ceil(uint64_t a, uint64_t b) {
        return a / b + (a % b != 0);
}

/*
 * Counts steps of work against the request's budget. False once it is spent
 * or the request was cancelled: the caller stops, and hcbs_size() refuses.
 */
static bool charge(Sizer *s, uint64_t steps) {
        if (s->over)
                return false;
        s->work += steps;
        if (s->work > s->work_limit)
                s->over = true;
        else if (s->cancel && atomic_load_explicit(s->cancel, memory_order_relaxed))
                s->over = s->cancelled = true;
        return !s->over;
}

static void sizer_done(Sizer *s) {
        free(s->task);
        free(s->index);
        free(s->hp_end);
        free(s->points);
        free(s->n_points);
        free(s->need);
        free(s->scratch);
}

/* ---- validation ---------------------------------------------------------------------------- */

static const char *fmt_us(uint64_t us, char buf[static HCBS_DURATION_STRLEN]) {
        return hcbs_duration_format(us, buf);
}

/* "task 3 (2ms every 10ms, due 5ms)" */
static const char *task_desc(const HcbsSizingRequest *req, size_t i, char *buf, size_t len) {
        const HcbsTask *t = &req->tasks[i];
        char c[HCBS_DURATION_STRLEN], p[HCBS_DURATION_STRLEN], d[HCBS_DURATION_STRLEN];

        snprintf(buf, len, "task %zu (%s every %s, due %s)", i + 1, fmt_us(t->wcet_us, c),
                 fmt_us(t->period_us, p), fmt_us(t->deadline_us ? t->deadline_us : t->period_us, d));
        return buf;
}

/* The request's shape: how many tasks and CPUs, the scheduler, hcbsd's limits. */
static bool validate_request(const HcbsSizingRequest *req, HcbsVerdict *v) {
        if (req->n_tasks == 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "no tasks to size");
                return false;
        }
        if (req->n_tasks > HCBS_SIZING_MAX_TASKS) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "%zu tasks: at most %d can be sized at once",
                                 req->n_tasks, HCBS_SIZING_MAX_TASKS);
                return false;
        }
        if (req->cpus < 1 || req->cpus > HCBS_SIZING_MAX_CPUS) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "cpus %u: must be 1..%d", req->cpus,
                                 HCBS_SIZING_MAX_CPUS);
                return false;
        }
        if (req->scheduler < 0 || req->scheduler >= _HCBS_SCHED_MAX) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "unknown scheduler");
                return false;
        }
        if (req->scheduler == HCBS_SCHED_EDF && req->cpus > 1) {
                hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, EINVAL,
                                 "scheduler edf is analysed on one CPU only (HCBS runs SCHED_FIFO/RR tasks; "
                                 "use fp for %u CPUs)", req->cpus);
                return false;
        }
        if (req->limit_min_period_us == 0 || req->limit_min_period_us > req->limit_max_period_us ||
            req->limit_bw == 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "invalid period limits");
                return false;
        }
        return true;
}

/* Task i: values in range, a deadline within its period, a WCET within its deadline. */
static bool validate_task(const HcbsSizingRequest *req, size_t i, HcbsVerdict *v) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN], desc[128];
        const HcbsTask *t = &req->tasks[i];
        uint64_t d = t->deadline_us ? t->deadline_us : t->period_us;

        if (t->wcet_us == 0 || t->period_us == 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "task %zu: %s is 0", i + 1,
                                 t->wcet_us == 0 ? "the WCET" : "the period");
                return false;
        }
        if (t->wcet_us > HCBS_SIZING_MAX_US || t->period_us > HCBS_SIZING_MAX_US || d > HCBS_SIZING_MAX_US) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "task %zu: values above %s are not sized", i + 1,
                                 fmt_us(HCBS_SIZING_MAX_US, a));
                return false;
        }
        if (d > t->period_us) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL,
                                 "%s: deadline %s is longer than the period %s (only deadlines <= periods "
                                 "are analysed)",
                                 task_desc(req, i, desc, sizeof(desc)), fmt_us(d, a), fmt_us(t->period_us, b));
                return false;
        }
        if (t->wcet_us > d) {
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                                 "%s cannot meet its deadline on any reservation: its WCET %s is longer "
                                 "than its deadline %s",
                                 task_desc(req, i, desc, sizeof(desc)), fmt_us(t->wcet_us, a), fmt_us(d, b));
                return false;
        }
        return true;
}

/* The period asked for, or the range to search, within MinPeriod..MaxPeriod. */
static bool validate_periods(const HcbsSizingRequest *req, HcbsVerdict *v) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN], lo[HCBS_DURATION_STRLEN], hi[HCBS_DURATION_STRLEN];
        uint64_t mn, mx;

        fmt_us(req->limit_min_period_us, lo);
        fmt_us(req->limit_max_period_us, hi);
        if (req->period_us && (req->period_us < req->limit_min_period_us || req->period_us > req->limit_max_period_us)) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "period %s is outside MinPeriod..MaxPeriod (%s..%s)",
                                 fmt_us(req->period_us, a), lo, hi);
                return false;
        }
        if (req->period_us || (!req->min_period_us && !req->max_period_us))
                return true;
        mn = req->min_period_us ? req->min_period_us : req->limit_min_period_us;
        mx = req->max_period_us ? req->max_period_us : req->limit_max_period_us;
        if (mn > mx) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL, "period range %s..%s is empty", fmt_us(mn, a),
                                 fmt_us(mx, b));
                return false;
        }
        if (mn < req->limit_min_period_us || mx > req->limit_max_period_us) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, EINVAL,
                                 "period range %s..%s is outside MinPeriod..MaxPeriod (%s..%s)", fmt_us(mn, a),
                                 fmt_us(mx, b), lo, hi);
                return false;
        }
        return true;
}

static bool validate(const HcbsSizingRequest *req, HcbsVerdict *v) {
        if (!validate_request(req, v))
                return false;
        for (size_t i = 0; i < req->n_tasks; i++)
                if (!validate_task(req, i, v))
                        return false;
        return validate_periods(req, v);
}

/* Σ C_i/T_i in the kernel's fixed point, each term rounded down (a lower bound) or up. */
static uint64_t utilisation(const HcbsSizingRequest *req, bool up) {
        uint64_t u = 0;
        for (size_t i = 0; i < req->n_tasks; i++) {
                uint64_t num = req->tasks[i].wcet_us << HCBS_BW_SHIFT;
                u += up ? div_ceil(num, req->tasks[i].period_us) : num / req->tasks[i].period_us;
        }
        return u;
}

/* ---- preparation --------------------------------------------------------------------------- */

static int cmp_priority(const void *a, const void *b, void *userdata) {
        const HcbsSizingRequest *sort_req = userdata;
        size_t i = *(const size_t *) a, j = *(const size_t *) b;
        const HcbsTask *ti = &sort_req->tasks[i], *tj = &sort_req->tasks[j];
        uint64_t di = ti->deadline_us ? ti->deadline_us : ti->period_us;
        uint64_t dj = tj->deadline_us ? tj->deadline_us : tj->period_us;

        if (sort_req->priorities && sort_req->priorities[i] != sort_req->priorities[j])
                return sort_req->priorities[i] > sort_req->priorities[j] ? -1 : 1;
        if (!sort_req->priorities || sort_req->scheduler == HCBS_SCHED_EDF) {
                if (di != dj)
                        return di < dj ? -1 : 1;
                if (ti->period_us != tj->period_us)
                        return ti->period_us < tj->period_us ? -1 : 1;
        }
        return i < j ? -1 : (i > j);
}

/* Max-heap of the next multiple of each higher-priority period below D_k. */
typedef struct Next {
        uint64_t t;
        uint64_t period;
} Next;

static void heap_down(Next *h, size_t n, size_t i) {
        for (;;) {
                size_t l = 2 * i + 1, r = l + 1, top = i;
                if (l < n && h[l].t > h[top].t)
                        top = l;
                if (r < n && h[r].t > h[top].t)
                        top = r;
                if (top == i)
                        return;
                Next x = h[i];
                h[i] = h[top];
                h[top] = x;
                i = top;
        }
}

static uint64_t rbf(Sizer *s, size_t k, uint64_t t) {
        uint64_t d = s->task[k].wcet_us;

        charge(s, s->hp_end[k]);
        for (size_t i = 0; i < s->hp_end[k]; i++)
                if (i != k)
                        d += div_ceil(t, s->task[i].period_us) * s->task[i].wcet_us;
        return d;
}

/* The higher-priority tasks of k as (period, Σ WCET of that period), sorted by period. */
typedef struct PeriodLoad {
        uint64_t period;
        uint64_t wcet;
} PeriodLoad;

static int cmp_period_load(const void *a, const void *b) {
        const PeriodLoad *x = a, *y = b;
        return x->period < y->period ? -1 : (x->period > y->period);
}

static size_t period_loads(const Sizer *s, size_t k, PeriodLoad *pl) {
        size_t n = 0, out = 0;

        for (size_t i = 0; i < s->hp_end[k]; i++)
                if (i != k)
                        pl[n++] = (PeriodLoad) { s->task[i].period_us, s->task[i].wcet_us };
        qsort(pl, n, sizeof(*pl), cmp_period_load);
        for (size_t i = 0; i < n; i++)
                if (out > 0 && pl[out - 1].period == pl[i].period)
                        pl[out - 1].wcet += pl[i].wcet;
                else
                        pl[out++] = pl[i];
        return out;
}

/* The s->max_points largest check points of task k: D_k and multiples of hp periods. */
static void prepare_points(Sizer *s, size_t k, Next *heap, PeriodLoad *pl) {
        uint64_t dk = s->task[k].deadline_us;
        Point *p = s->points + k * s->max_points;
        size_t n = 0, h = 0, npl = period_loads(s, k, pl);

        for (size_t i = 0; i < npl; i++)
                if (pl[i].period < dk)
                        heap[h++] = (Next) { (dk - 1) / pl[i].period * pl[i].period, pl[i].period };
        for (size_t i = h; i-- > 0;)
                heap_down(heap, h, i);
        p[n++] = (Point) { dk, 0 };
        while (n < s->max_points && h > 0) {
                uint64_t t = heap[0].t;
                if (t != p[n - 1].t)
                        p[n++] = (Point) { t, 0 };
                if (heap[0].t > heap[0].period)
                        heap[0].t -= heap[0].period;
                else
                        heap[0] = heap[--h];
                heap_down(heap, h, 0);
        }
        for (size_t j = 0; j < n; j++) {
                uint64_t d = s->task[k].wcet_us;
                for (size_t i = 0; i < npl; i++)
                        d += div_ceil(p[j].t, pl[i].period) * pl[i].wcet;
                p[j].demand = d;
        }
        s->n_points[k] = n;
        charge(s, s->hp_end[k] + (n + 1) * npl);
}

/* BCL carry-in workload of task i in a window of length L. */
static uint64_t workload(const HcbsTask *t, uint64_t L) {
        uint64_t span = L + t->deadline_us - t->wcet_us;
        uint64_t n = span / t->period_us;
        uint64_t rest = span - n * t->period_us;
        return n * t->wcet_us + MIN(t->wcet_us, rest);
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : (x > y);
}

/*
 * The supply a window of length L must exceed for task k on m' CPUs:
 * max(f(C_k), max_{E < C_k} f(E) + 1), f(E) = m'E + Σ min(W_i, L - E).
 * f is evaluated at E = 0, C_k and its breakpoints L - W_i inside (0, C_k):
 * directly when they are few, else over the sorted W_i with prefix sums.
 */
#define GLOBAL_DIRECT_MAX 16

static uint64_t f_direct(const uint64_t *w, size_t n, unsigned m, uint64_t L, uint64_t e) {
        uint64_t sum = (uint64_t) m * e;
        for (size_t i = 0; i < n; i++)
                sum += MIN(w[i], L - e);
        return sum;
}

static uint64_t f_sorted(const uint64_t *w, const uint64_t *prefix, size_t n, unsigned m, uint64_t L, uint64_t e) {
        uint64_t cap = L - e;
        size_t lo = 0, hi = n; /* the W_i <= cap count whole, the others cap each */
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (w[mid] <= cap)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return (uint64_t) m * e + (lo ? prefix[lo - 1] : 0) + (uint64_t) (n - lo) * cap;
}

/* log2(n) + 1: the steps of a binary search or of one level of a sort over n */
static uint64_t log_steps(size_t n) {
        uint64_t l = 1;
        while (n >>= 1)
                l++;
        return l;
}

static uint64_t global_need(Sizer *s, size_t k, uint64_t L) {
        uint64_t *w = s->scratch, *prefix = s->scratch + s->n;
        uint64_t ck = s->task[k].wcet_us, best_in, at_end;
        size_t n = 0, breaks = 0;

        for (size_t i = 0; i < s->hp_end[k]; i++)
                if (i != k) {
                        w[n] = workload(&s->task[i], L);
                        breaks += w[n] < L && L - w[n] < ck;
                        n++;
                }
        if (breaks <= GLOBAL_DIRECT_MAX) {
                charge(s, n + (breaks + 2) * n);
                best_in = f_direct(w, n, s->m, L, 0) + 1;
                for (size_t i = 0; i < n; i++)
                        if (w[i] < L && L - w[i] < ck)
                                best_in = MAX(best_in, f_direct(w, n, s->m, L, L - w[i]) + 1);
                at_end = f_direct(w, n, s->m, L, ck);
                return MAX(best_in, at_end);
        }
        charge(s, n * (log_steps(n) + 2) + (breaks + 2) * log_steps(n));
        qsort(w, n, sizeof(*w), cmp_u64);
        for (size_t i = 0; i < n; i++)
                prefix[i] = (i ? prefix[i - 1] : 0) + w[i];
        best_in = f_sorted(w, prefix, n, s->m, L, 0) + 1;
        for (size_t i = 0; i < n; i++)
                if (w[i] < L && L - w[i] < ck)
                        best_in = MAX(best_in, f_sorted(w, prefix, n, s->m, L, L - w[i]) + 1);
        at_end = f_sorted(w, prefix, n, s->m, L, ck);
        return MAX(best_in, at_end);
}

static int sizer_init(Sizer *s, const HcbsSizingRequest *req) {
        _cleanup_free_ Next *heap = NULL;
        _cleanup_free_ PeriodLoad *pl = NULL;
        size_t n = req->n_tasks;

        *s = (Sizer) { .req = req, .n = n, .m = req->cpus, .cancel = req->cancel,
                       .work_limit = req->work_limit ? req->work_limit : HCBS_SIZING_MAX_WORK };
        s->task = calloc(n, sizeof(*s->task));
        s->index = calloc(n, sizeof(*s->index));
        s->hp_end = calloc(n, sizeof(*s->hp_end));
        if (!s->task || !s->index || !s->hp_end)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                s->index[i] = i;
        qsort_r(s->index, n, sizeof(*s->index), cmp_priority, (void *) req);
        for (size_t k = 0; k < n; k++) {
                s->task[k] = req->tasks[s->index[k]];
                if (!s->task[k].deadline_us)
                        s->task[k].deadline_us = s->task[k].period_us;
        }
        /* ties of given priorities interfere both ways; the default order is strict */
        for (size_t k = n; k-- > 0;) {
                bool tie = req->priorities && req->scheduler == HCBS_SCHED_FP && k + 1 < n &&
                           req->priorities[s->index[k]] == req->priorities[s->index[k + 1]];
                s->hp_end[k] = tie ? s->hp_end[k + 1] : k + 1;
        }
        if (req->scheduler == HCBS_SCHED_EDF)
                return 0;
        if (s->m == 1) {
                /* 64 points a task up to 128 tasks, then fewer: 8 from 1,024 (each costs n) */
                s->max_points = MAX(8, MIN(HCBS_SIZING_MAX_POINTS, HCBS_SIZING_MAX_POINTS * 128 / n));
                s->points = calloc(n * s->max_points, sizeof(*s->points));
                s->n_points = calloc(n, sizeof(*s->n_points));
                heap = calloc(n, sizeof(*heap));
                pl = calloc(n, sizeof(*pl));
                if (!s->points || !s->n_points || !heap || !pl)
                        return -ENOMEM;
                for (size_t k = 0; k < n && !s->over; k++)
                        prepare_points(s, k, heap, pl);
        } else {
                s->need = calloc(n, sizeof(*s->need));
                s->scratch = calloc(2 * n, sizeof(*s->scratch));
                if (!s->need || !s->scratch)
                        return -ENOMEM;
                for (size_t k = 0; k < n && !s->over; k++)
                        s->need[k] = global_need(s, k, s->task[k].deadline_us);
        }
        return 0;
}

/* ---- the tests at one (period, runtime) ---------------------------------------------------- */

static bool fp1_passes(Sizer *s, size_t k, uint64_t period, uint64_t runtime) {
        const Point *p = s->points + k * s->max_points;
        for (size_t j = 0; j < s->n_points[k]; j++)
                if (hcbs_prm_sbf(period, runtime, p[j].t) >= p[j].demand)
                        return charge(s, j + 1);
        charge(s, s->n_points[k]);
        return false;
}

static bool global_passes(Sizer *s, size_t k, uint64_t period, uint64_t runtime) {
        return charge(s, 1) && (uint64_t) s->m * hcbs_prm_sbf(period, runtime, s->task[k].deadline_us) >= s->need[k];
}

/* Fails once the budget is spent: the search stops and the request is refused. */
static bool task_passes(Sizer *s, size_t k, uint64_t period, uint64_t runtime) {
        return s->m == 1 ? fp1_passes(s, k, period, runtime) : global_passes(s, k, period, runtime);
}

static uint64_t dbf(Sizer *s, uint64_t t) {
        uint64_t d = 0;

        charge(s, s->n);
        for (size_t i = 0; i < s->n; i++) {
                const HcbsTask *x = &s->task[i];
                if (t >= x->deadline_us)
                        d += ((t - x->deadline_us) / x->period_us + 1) * x->wcet_us;
        }
        return d;
}

/* 1 passes, 0 fails, -E2BIG: the check points past the analysis' budget (counted as a failure). */
static int edf_passes(Sizer *s, uint64_t period, uint64_t runtime) {
        long double alpha = (long double) runtime / period, u = 0, b = 0, horizon;
        uint64_t dmax = 0, work = 0;

        for (size_t i = 0; i < s->n; i++) {
                const HcbsTask *x = &s->task[i];
                long double ui = (long double) x->wcet_us / x->period_us;
                u += ui;
                b += (x->period_us - x->deadline_us) * ui;
                dmax = MAX(dmax, x->deadline_us);
        }
        if (alpha <= u)
                return 0;
        /* past this, U·t + B <= α(t - 2(Π - Θ)) <= sbf(t); a little extra covers rounding */
        horizon = (b + 2 * alpha * (period - runtime)) / (alpha - u);
        horizon = horizon * 1.0001L + 2;
        if (horizon < dmax)
                horizon = dmax;
        if (horizon > (long double) HCBS_SIZING_MAX_US * 1000)
                return -E2BIG;
        for (size_t i = 0; i < s->n; i++)
                work += (uint64_t) ((horizon - s->task[i].deadline_us) / s->task[i].period_us) + 1;
        if (work > HCBS_SIZING_MAX_EDF_WORK / s->n)
                return -E2BIG;
        charge(s, 2 * s->n);
        for (size_t i = 0; i < s->n; i++)
                for (uint64_t t = s->task[i].deadline_us; t <= (uint64_t) horizon; t += s->task[i].period_us)
                        if (dbf(s, t) > hcbs_prm_sbf(period, runtime, t) || s->over)
                                return 0;
        return !s->over;
}

/* ---- one period ----------------------------------------------------------------------------- */

/* The largest runtime at period whose ratio stays within limit_bw. */
static uint64_t runtime_limit(Sizer *s, uint64_t period, uint64_t limit_bw) {
        uint64_t lo = 0, hi = period;
        while (lo < hi) {
                uint64_t mid = lo + (hi - lo + 1) / 2;
                charge(s, 1);
                if (hcbs_bw(period, (int64_t) mid) <= limit_bw)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo;
}

/*
 * The least runtime in [lo, hi] at period that passes, or 0 with *fail filled.
 * lo is a lower bound of the answer (utilisation), so a pass at lo is minimal.
 */
static uint64_t design_period(Sizer *s, uint64_t period, uint64_t hi, Failure *fail) {
        uint64_t u = utilisation(s->req, false);
        /* m'·r/Π >= U is necessary: r >= ⌊U·Π / m'⌋ (one less for the rounding of U) */
        uint64_t lo = (uint64_t) (((unsigned __int128) u * period >> HCBS_BW_SHIFT) / s->m);
        uint64_t r;

        lo = MAX(lo > 0 ? lo - 1 : 0, (uint64_t) HCBS_SIZING_MIN_RUNTIME_US);
        *fail = (Failure) { .task = SIZE_MAX, .period = period, .runtime_max = hi };
        if (lo > hi)
                return 0;
        if (s->req->scheduler == HCBS_SCHED_EDF) {
                int ok = edf_passes(s, period, hi);
                if (ok <= 0) {
                        fail->edf_too_long = ok < 0;
                        return 0;
                }
                while (lo < hi && !s->over) {
                        uint64_t mid = lo + (hi - lo) / 2;
                        if (edf_passes(s, period, mid) > 0)
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                return hi;
        }
        r = lo;
        for (size_t k = 0; k < s->n && !s->over; k++) {
                uint64_t a, b;
                if (task_passes(s, k, period, r))
                        continue;
                if (!task_passes(s, k, period, hi)) {
                        fail->task = k;
                        return 0;
                }
                a = r + 1;
                b = hi;
                while (a < b && !s->over) {
                        uint64_t mid = a + (b - a) / 2;
                        if (task_passes(s, k, period, mid))
                                b = mid;
                        else
                                a = mid + 1;
                }
                r = a;
        }
        return r;
}

/* ---- candidate periods ---------------------------------------------------------------------- */

static size_t add_candidate(uint64_t *c, size_t n, uint64_t p, uint64_t lo, uint64_t hi) {
        if (p >= lo && p <= hi && n < HCBS_SIZING_MAX_CANDIDATES)
                c[n++] = p;
        return n;
}

/* f with lo * f^steps = hi, by bisection (no libm). */
static long double geometric_step(uint64_t lo, uint64_t hi, unsigned steps) {
        long double a = 1, b = (long double) hi / lo, target = b;
        for (int it = 0; it < 80; it++) {
                long double mid = (a + b) / 2, p = 1;
                for (unsigned i = 0; i < steps; i++)
                        p *= mid;
                if (p < target)
                        a = mid;
                else
                        b = mid;
        }
        return a;
}

static size_t candidates(const HcbsSizingRequest *req, uint64_t *c) {
        uint64_t lo, hi, dmin = UINT64_MAX, tmin = UINT64_MAX;
        size_t n = 0, out = 0;

        for (size_t i = 0; i < req->n_tasks; i++) {
                const HcbsTask *t = &req->tasks[i];
                dmin = MIN(dmin, t->deadline_us ? t->deadline_us : t->period_us);
                tmin = MIN(tmin, t->period_us);
        }
        if (req->period_us) {
                c[0] = req->period_us;
                return 1;
        }
        if (req->min_period_us || req->max_period_us) {
                lo = req->min_period_us ? req->min_period_us : req->limit_min_period_us;
                hi = req->max_period_us ? req->max_period_us : req->limit_max_period_us;
        } else {
                lo = MAX(req->limit_min_period_us, div_ceil(dmin, 10));
                hi = MIN(req->limit_max_period_us, dmin);
                lo = MIN(lo, req->limit_max_period_us);
                hi = MAX(hi, lo);
        }
        if (hi - lo < HCBS_SIZING_MAX_CANDIDATES) {
                for (uint64_t p = lo; p <= hi; p++)
                        c[n++] = p;
                return n;
        }
        /*
         * Periods spaced geometrically, then the shortest deadline's and period's
         * fractions: 128 and 1..32 up to 256 tasks, fewer for more tasks so that
         * the work (periods x tasks) stays bounded: 32 and 1..8 from 1,024 tasks.
         */
        unsigned geo = (unsigned) MAX(32, MIN(128, 128 * 256 / req->n_tasks));
        uint64_t fractions = geo >= 128 ? 32 : geo >= 64 ? 16 : 8;
        long double f = geometric_step(lo, hi, geo - 1), x = lo;
        for (unsigned i = 0; i < geo; i++, x *= f)
                n = add_candidate(c, n, i == geo - 1 ? hi : (uint64_t) (x + 0.5L), lo, hi);
        for (uint64_t j = 1; j <= fractions; j++) {
                n = add_candidate(c, n, dmin / j, lo, hi);
                n = add_candidate(c, n, tmin / j, lo, hi);
        }
        qsort(c, n, sizeof(*c), cmp_u64);
        for (size_t i = 0; i < n; i++)
                if (out == 0 || c[i] != c[out - 1])
                        c[out++] = c[i];
        return out;
}

/* ---- response bounds ------------------------------------------------------------------------ */

/*
 * m' = 1: R_k, the least t with sbf(t) >= rbf_k(t). The iteration
 * t <- sbf⁻¹(rbf_k(t)) climbs to it from any lower bound, but near the
 * supply's rate (U_hp close to α = Θ/Π) it closes only the fraction
 * 1 - U_hp/α of its distance a step: 10^5 steps and more. So it starts at
 * the larger of two lower bounds, stops when the task's share of
 * RESPONSE_WORK is spent, and then answers the least upper bound known,
 * all of them proven in integers:
 *
 * - lower: at t = R_k every higher-priority task has released its first
 *   job (sbf⁻¹(C_k + ΣC_i)); and sbf(t) <= α(t - (Π - Θ)) while
 *   rbf_k(t) >= C_k + U_hp·t, so R_k >= (C_k + α(Π - Θ)) / (α - U_hp);
 * - upper: any t with sbf(t) >= rbf_k(t): the least check point of the
 *   test that passes (D_k at worst), and the closed form where the
 *   supply's lower line α(t - 2(Π - Θ)) (Shin & Lee 2003) meets the
 *   request's upper line C_k + Σ(C_i + U_i·t), the bound of Bini et al.
 *   (ECRTS 2009) on a periodic resource, checked exactly before it is used.
 */
#define RESPONSE_WORK (UINT64_C(1) << 24) /* steps for the bounds of all tasks */

static uint64_t response_fp1(Sizer *s, size_t k, uint64_t period, uint64_t runtime) {
        const Point *p = s->points + k * s->max_points;
        uint64_t c = s->task[k].wcet_us, blackout = period - runtime, upper = s->task[k].deadline_us, r;
        long double alpha = (long double) runtime / period, u = 0;

        for (size_t i = 0; i < s->hp_end[k]; i++)
                if (i != k) {
                        c += s->task[i].wcet_us;
                        u += (long double) s->task[i].wcet_us / s->task[i].period_us;
                }
        charge(s, s->hp_end[k] + s->n_points[k]);
        for (size_t j = 0; j < s->n_points[k]; j++) /* descending */
                if (hcbs_prm_sbf(period, runtime, p[j].t) >= p[j].demand)
                        upper = MIN(upper, p[j].t);
        r = hcbs_prm_sbf_inverse(period, runtime, c);
        if (alpha > u) {
                long double lo = (s->task[k].wcet_us + alpha * blackout) / (alpha - u);
                long double hi = (c + 2 * alpha * blackout) / (alpha - u);
                if (lo < (long double) upper)
                        r = MAX(r, (uint64_t) (lo * (1 - 1e-12L)));
                if (hi < (long double) upper) {
                        uint64_t t = (uint64_t) hi + 1;
                        if (hcbs_prm_sbf(period, runtime, t) >= rbf(s, k, t))
                                upper = t;
                }
        }
        for (uint64_t spent = 0; spent < RESPONSE_WORK / s->n && r < upper && !s->over; spent += s->hp_end[k]) {
                uint64_t next = hcbs_prm_sbf_inverse(period, runtime, rbf(s, k, r));
                if (next == r)
                        return r;
                r = next;
        }
        return upper;
}

/* m' > 1: the test holds for any window L >= C_k that it passes; bisect for a short one. */
static uint64_t response_global(Sizer *s, size_t k, uint64_t period, uint64_t runtime) {
        uint64_t lo = s->task[k].wcet_us, hi = s->task[k].deadline_us;

        while (hi - lo > 1 + hi / 64 && !s->over) {
                uint64_t mid = lo + (hi - lo) / 2;
                if ((uint64_t) s->m * hcbs_prm_sbf(period, runtime, mid) >= global_need(s, k, mid))
                        hi = mid;
                else
                        lo = mid;
        }
        return hi;
}

/* ---- entry points --------------------------------------------------------------------------- */

static void refuse(const Sizer *s, const Failure *f, size_t n_candidates, uint64_t lo, uint64_t hi,
                   HcbsVerdict *v) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN], c[HCBS_DURATION_STRLEN],
                pct[HCBS_BW_STRLEN], desc[128], where[96];
        const HcbsSizingRequest *req = s->req;

        hcbs_bw_format(req->limit_bw, pct);
        if (n_candidates == 1)
                snprintf(where, sizeof(where), "at period %s", fmt_us(lo, a));
        else
                snprintf(where, sizeof(where), "at any period in %s..%s", fmt_us(lo, a), fmt_us(hi, b));
        if (f->edf_too_long)
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                                 "no reservation within the per-CPU limit %s could be proven for edf %s: "
                                 "the demand test needs more than %llu steps; try fp or a shorter period",
                                 pct, where, (unsigned long long) HCBS_SIZING_MAX_EDF_WORK);
        else if (f->task == SIZE_MAX)
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                                 "no reservation within the per-CPU limit %s on %u CPU%s schedules the tasks %s "
                                 "(at %s even %s per CPU is not enough)",
                                 pct, req->cpus, req->cpus > 1 ? "s" : "", where, fmt_us(f->period, c),
                                 fmt_us(f->runtime_max, b));
        else
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                                 "%s cannot meet its deadline within the per-CPU limit %s on %u CPU%s %s "
                                 "(at %s even %s per CPU is not enough)",
                                 task_desc(req, s->index[f->task], desc, sizeof(desc)), pct, req->cpus,
                                 req->cpus > 1 ? "s" : "", where, fmt_us(f->period, c), fmt_us(f->runtime_max, b));
}

/*
 * The least runtime/period ratio over the candidate periods (ties: the
 * longer period) into best_r and best_p, both 0 if none passes; first is why
 * the first candidate that failed did, for the refusal.
 */
static void search(Sizer *s, const HcbsSizingRequest *req, const uint64_t *cand, size_t nc, uint64_t *best_r,
                   uint64_t *best_p, Failure *first) {
        Failure f;

        for (size_t i = 0; i < nc && !s->over; i++) {
                uint64_t p = cand[i], hi = runtime_limit(s, p, req->limit_bw), rt;

                /* only a smaller ratio than the best so far is of interest */
                if (*best_p)
                        hi = MIN(hi, (uint64_t) ((unsigned __int128) *best_r * p / *best_p));
                rt = design_period(s, p, hi, &f);
                if (s->over)
                        return;
                if (!rt) {
                        if (!*best_p && (i == 0 || first->period == 0))
                                *first = f;
                        continue;
                }
                if (!*best_p || (unsigned __int128) rt * *best_p <= (unsigned __int128) *best_r * p) {
                        *best_r = rt;
                        *best_p = p;
                }
        }
}

/* Each task's rank and, under fixed priorities, its response bound on the chosen server. */
static void fill_bounds(Sizer *s, const HcbsSizingRequest *req, uint64_t period_us, uint64_t runtime_us,
                        HcbsTaskBound *bounds) {
        for (size_t k = 0; k < s->n && !s->over; k++) {
                HcbsTaskBound *tb = &bounds[s->index[k]];

                *tb = (HcbsTaskBound) { .rank = (uint32_t) k + 1 };
                if (req->scheduler != HCBS_SCHED_FP)
                        continue;
                tb->has_response = true;
                tb->response_us = s->m == 1 ? response_fp1(s, k, period_us, runtime_us)
                                            : response_global(s, k, period_us, runtime_us);
        }
}

/* Once the budget ran out: -ECANCELED, or the refusal that names the limit. */
static int refuse_over(const Sizer *s, HcbsVerdict *v) {
        if (s->cancelled)
                return -ECANCELED;
        hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0,
                         "sizing these %zu tasks needs more than %llu steps of analysis, the limit of one request; "
                         "a given period, a narrower period range or fewer tasks need fewer",
                         s->n, (unsigned long long) s->work_limit);
        return 0;
}

/* The search and the bounds on a prepared sizer: 0 with v (HCBS_OK and *ret, or a refusal), or -ECANCELED. */
static int design(Sizer *s, const HcbsSizingRequest *req, HcbsSizing *ret, HcbsTaskBound *ret_bounds,
                  HcbsVerdict *v) {
        uint64_t cand[HCBS_SIZING_MAX_CANDIDATES], best_r = 0, best_p = 0;
        Failure first = {};
        size_t nc = candidates(req, cand);

        if (!s->over)
                search(s, req, cand, nc, &best_r, &best_p, &first);
        if (best_p && !s->over && ret_bounds)
                fill_bounds(s, req, best_p, best_r, ret_bounds);
        if (s->over)
                return refuse_over(s, v);
        if (!best_p) {
                refuse(s, &first, nc, cand[0], cand[nc - 1], v);
                return 0;
        }
        *ret = (HcbsSizing) {
                .runtime_us = best_r,
                .period_us = best_p,
                .cpus = req->cpus,
                .budget_us = best_r * req->cpus,
                .bw = hcbs_bw(best_p, (int64_t) best_r),
                .utilisation_bw = utilisation(req, true),
                .periods_tried = (unsigned) nc,
                .work = s->work,
        };
        return 0;
}

int hcbs_size(const HcbsSizingRequest *req, HcbsSizing *ret, HcbsTaskBound *ret_bounds, HcbsVerdict *v) {
        char a[HCBS_BW_STRLEN], b[HCBS_BW_STRLEN];
        uint64_t u_lo;
        Sizer s;
        int r;

        hcbs_verdict_ok(v);
        if (!validate(req, v))
                return 0;
        u_lo = utilisation(req, false);
        if (u_lo > (uint64_t) req->cpus * req->limit_bw) {
                hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, 0,
                                 "the tasks' utilisation %s is above %u CPU%s x the per-CPU limit %s",
                                 hcbs_bw_format(u_lo, a), req->cpus, req->cpus > 1 ? "s" : "",
                                 hcbs_bw_format(req->limit_bw, b));
                return 0;
        }
        r = sizer_init(&s, req);
        if (r >= 0)
                r = design(&s, req, ret, ret_bounds, v);
        sizer_done(&s);
        return r;
}

int hcbs_sizing_check(const HcbsSizingRequest *req, uint64_t period_us, uint64_t runtime_us) {
        HcbsVerdict v;
        Sizer s;
        int r;

        if (!validate(req, &v)) /* a task that cannot fit anywhere fails, bad input is an error */
                return v.error == HCBS_E_INSUFFICIENT_BANDWIDTH ? 0 : -EINVAL;
        if (period_us == 0 || runtime_us > period_us)
                return -EINVAL;
        if (runtime_us == 0)
                return 0;
        r = sizer_init(&s, req);
        if (r >= 0) {
                if (req->scheduler == HCBS_SCHED_EDF)
                        r = edf_passes(&s, period_us, runtime_us) > 0;
                else {
                        r = 1;
                        for (size_t k = 0; k < s.n && r; k++)
                                r = task_passes(&s, k, period_us, runtime_us);
                }
                if (s.over)
                        r = s.cancelled ? -ECANCELED : -E2BIG;
        }
        sizer_done(&s);
        return r;
}
