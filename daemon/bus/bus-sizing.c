/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SizeReservation of org.hcbsd1.Manager: reads the tasks and options, asks
 * the designer (lib/sizing.c) within hcbsd's limits (MinPeriod, MaxPeriod,
 * the kernel's global RT limit and Capacity= per CPU), and translates the
 * result or the refusal. Read-only: no polkit, nothing changes. Open to
 * every user and its cost decided by the input, the designer runs off the
 * event loop (bus_analysis_start()), within its count of steps, and the
 * call is answered once it is done.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "bus-errors.h"
#include "bus-sizing.h"
#include "bus-util.h"
#include "manager.h"
#include "sizing.h"

static int read_tasks(sd_bus_message *msg, HcbsTask **ret, size_t *ret_n, sd_bus_error *error) {
        _cleanup_free_ HcbsTask *t = NULL;
        size_t n = 0, cap = 0, total = 0;
        uint64_t c, p, d;
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "(ttt)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(msg, "(ttt)", &c, &p, &d)) > 0) {
                if (++total > HCBS_SIZING_MAX_TASKS)
                        continue; /* refused below, once counted */
                if (n == cap) {
                        size_t ncap = cap ? 2 * cap : 16;
                        HcbsTask *x = realloc(t, ncap * sizeof(*t));
                        if (!x)
                                return -ENOMEM;
                        t = x;
                        cap = ncap;
                }
                t[n++] = (HcbsTask) { c, p, d };
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(msg);
        if (r < 0)
                return r;
        if (total > HCBS_SIZING_MAX_TASKS)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "%zu tasks: at most %d can be sized at once", total, HCBS_SIZING_MAX_TASKS);
        *ret = TAKE_PTR(t);
        *ret_n = n;
        return 0;
}

/* The options; priorities, when given, are one per task (checked by the caller). */
static int read_options(sd_bus_message *msg, HcbsSizingRequest *req, bool *ret_cpus_given, BusU32Array *ret_prio,
                        sd_bus_error *error) {
        const char *scheduler = NULL;
        BusOption opts[] = {
                { "cpus", "u", &req->cpus },
                { "period", "t", &req->period_us },
                { "min_period", "t", &req->min_period_us },
                { "max_period", "t", &req->max_period_us },
                { "scheduler", "s", &scheduler },
                { "priorities", "au", ret_prio },
        };
        int r;

        r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r < 0)
                return r;
        *ret_cpus_given = opts[0].seen;
        if (!scheduler)
                return 0;
        r = hcbs_scheduler_from_string(scheduler);
        if (r < 0)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "scheduler '%s': expected fp or edf", scheduler);
        req->scheduler = r;
        return 0;
}

/* The per-CPU ceiling: the kernel's global RT limit, and Capacity= of hcbsd's root. */
static uint64_t limit_bw(const Manager *m) {
        uint64_t bw = hcbs_profile_global_bw(hcbs_model_profile(m->model)), cap_period;
        int64_t cap_runtime;

        manager_capacity(m, &cap_runtime, &cap_period);
        if (cap_period > 0 && cap_runtime >= 0)
                bw = MIN(bw, hcbs_bw(cap_period, cap_runtime));
        return bw;
}

/*
 * The details of a sizing, one a{sv} of the reply. Its appends stay one
 * chain: each can only fail as "cannot build the reply" (ENOMEM), and the
 * caller reports that once.
 */
static int append_details(sd_bus_message *reply, const HcbsSizingRequest *req, const HcbsSizing *s,
                          const HcbsTaskBound *b) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "budget", "t", s->budget_us);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "bandwidth", "d", (double) s->bw / (double) HCBS_BW_UNIT);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "bandwidth_fp", "t", s->bw);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "utilisation", "d",
                                          (double) s->utilisation_bw / (double) HCBS_BW_UNIT);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "limit", "d", (double) req->limit_bw / (double) HCBS_BW_UNIT);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "scheduler", "s", hcbs_scheduler_to_string(req->scheduler));
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "periods_tried", "u", s->periods_tried);
        if (r >= 0)
                r = sd_bus_message_append(reply, "{sv}", "work", "t", s->work);
        /* per task, in the order given: priority rank (1 runs first) and response bound (0: not computed) */
        if (r >= 0)
                r = bus_open_dict_array(reply, "rank", "au");
        for (size_t i = 0; i < req->n_tasks && r >= 0; i++)
                r = sd_bus_message_append(reply, "u", b[i].rank);
        if (r >= 0)
                r = bus_close_dict_array(reply);
        if (r >= 0)
                r = bus_open_dict_array(reply, "response", "at");
        for (size_t i = 0; i < req->n_tasks && r >= 0; i++)
                r = sd_bus_message_append(reply, "t", b[i].has_response ? b[i].response_us : UINT64_C(0));
        if (r >= 0)
                r = bus_close_dict_array(reply);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

/* One SizeReservation: the request (its own copy of everything), and what the designer found. */
typedef struct SizingJob {
        HcbsTask *tasks;
        uint32_t *priorities;
        HcbsSizingRequest req;
        HcbsTaskBound *bounds;
        HcbsSizing s;
        HcbsVerdict v;
} SizingJob;

static void sizing_job_free(void *userdata) {
        SizingJob *j = userdata;

        free(j->tasks);
        free(j->priorities);
        free(j->bounds);
        free(j);
}

static int append_sizing(sd_bus_message *reply, void *userdata) {
        const SizingJob *j = userdata;
        int r;

        r = sd_bus_message_append(reply, "ttu", j->s.runtime_us, j->s.period_us, j->s.cpus);
        if (r < 0)
                return r;
        return append_details(reply, &j->req, &j->s, j->bounds);
}

/* On the analysis' thread: the designer, within its count of steps (sizing.h). */
static int sizing_run(void *userdata, const atomic_bool *cancel) {
        SizingJob *j = userdata;
        int r;

        j->req.cancel = cancel;
        r = hcbs_size(&j->req, &j->s, j->bounds, &j->v);
        return r == 0 ? (int) j->v.error : r; /* sizing.h answers a refusal with 0 and v: the rule of error.h */
}

/* On the loop, once the designer is done. */
static int sizing_answer(void *userdata, int r, sd_bus_message *msg, sd_bus_error *error) {
        SizingJob *j = userdata;

        return bus_reply_operation(msg, r, &j->v, append_sizing, j, error);
}

/* The request from the call and hcbsd's limits, into j (its own copies). */
static int read_request(Manager *m, sd_bus_message *msg, SizingJob *j, sd_bus_error *error) {
        BusU32Array prio = {};
        bool cpus_given = false;
        int r;

        j->req.scheduler = HCBS_SCHED_FP;
        r = read_tasks(msg, &j->tasks, &j->req.n_tasks, error);
        if (r < 0)
                return r;
        r = read_options(msg, &j->req, &cpus_given, &prio, error);
        j->priorities = prio.v; /* freed with the job from here */
        if (r < 0)
                return r;
        if (j->priorities && prio.n != j->req.n_tasks)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument", "%zu priorities for %zu tasks",
                                         prio.n, j->req.n_tasks);
        j->req.tasks = j->tasks;
        j->req.priorities = j->priorities;
        if (!cpus_given) /* a server on every CPU, as HCBS gives a group its whole cpuset */
                j->req.cpus = MAX(hcbs_model_profile(m->model)->dl_cpus, 1u); /* the online CPUs cgroupfs read */
        j->req.limit_min_period_us = m->conf.min_period_us;
        j->req.limit_max_period_us = m->conf.max_period_us;
        j->req.limit_bw = limit_bw(m);
        j->bounds = calloc(j->req.n_tasks ? j->req.n_tasks : 1, sizeof(*j->bounds));
        return j->bounds ? 0 : -ENOMEM;
}

int bus_method_size_reservation(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SizingJob *j = calloc(1, sizeof(*j));
        int r;

        if (!j)
                return -ENOMEM;
        r = read_request(bus_manager(userdata), msg, j, error);
        if (r >= 0)
                r = bus_analysis_start(userdata, msg, sizing_run, sizing_answer, sizing_job_free, j, error);
        if (r < 0)
                sizing_job_free(j);
        return r;
}
