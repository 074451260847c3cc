/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ObserveTasks of org.hcbsd1.Manager: the RT threads of a group, a unit's
 * reservation or a process, observed for a while through the BPF collector
 * (manager-observe.h), each with its jobs' shape and the task it makes
 * (lib/observe.h). The call is answered when the observation is over: the
 * handler keeps the call and returns 1; the loop serves everything else
 * meanwhile (the job records come through a ring buffer it reads when
 * readable). A caller who leaves ends the observation. Read-only, open to
 * every user for a group or a unit (as GetStats is); a process only for its
 * owner or root. When it is over, the threads' shapes (lib/observe.h) are
 * an analysis off the loop (analysis.h), with the caller's uid's limits
 * of any analysis. Sizing the tasks is SizeReservation's, applying them
 * SetBandwidth's or ReserveUnit's: each with its own limits and checks.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-observe.h"
#include "bus-util.h"
#include "log.h"
#include "macro.h"
#include "manager-observe.h"
#include "process.h"

typedef struct ObserveCall {
        BusServer *b;
        sd_bus_message *msg;
        sd_bus_track *track;       /* the caller: gone, the observation (or the analysis) ends */
        ManagerObservation *observation;
        Analysis *analysis;        /* once the observation is over: the threads' shapes, off the loop */
        uid_t uid;
        uint32_t margin;
        /* the observation's result, the analysis' job: only the analysis' thread touches it while it runs */
        char *group;
        bool unit;
        pid_t pid;
        uint64_t duration_us, jobs_lost, jobs_dropped;
        ObservedThread *threads;
        size_t n_threads;
        HcbsJobShape *shapes;
} ObserveCall;

static void observe_call_free(ObserveCall *c) {
        sd_bus_track_unref(c->track);
        sd_bus_message_unref(c->msg);
        manager_observed_threads_free(c->threads, c->n_threads);
        free(c->shapes);
        free(c->group);
        free(c);
}

/*
 * On the analysis' thread: each thread's shape (lib/observe.c sorts its
 * intervals, up to HCBS_JOBS_INTERVALS_MAX of each of up to
 * HCBS_OBSERVE_THREADS threads: bounded, but not the loop's to spend).
 */
static int observe_run(void *job, const atomic_bool *cancel) {
        ObserveCall *c = job;
        int r;

        for (size_t i = 0; i < c->n_threads; i++) {
                if (atomic_load(cancel))
                        return -ECANCELED;
                r = hcbs_job_shape(&c->threads[i].jobs, c->margin, &c->shapes[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int append_thread(sd_bus_message *reply, const ObservedThread *t, const HcbsJobShape *v) {
        return sd_bus_message_append(reply, "(uussttttttttttt)", (uint32_t) t->tid, (uint32_t) t->tgid, t->comm,
                                     hcbs_job_kind_to_string(v->kind), v->jobs, v->exec_mean_ns, v->exec_p50_ns,
                                     v->exec_p999_ns, v->exec_max_ns, v->period_ns, v->jitter_ns, v->interval_min_ns,
                                     v->interval_max_ns, v->wcet_us, v->task_period_us);
}

static int append_result(sd_bus_message *reply, const ObserveCall *c) {
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(uussttttttttttt)");
        for (size_t i = 0; r >= 0 && i < c->n_threads; i++)
                r = append_thread(reply, &c->threads[i], &c->shapes[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "a{sv}", 7, "group", "s", c->group ? c->group : "", "unit", "b",
                                          (int) c->unit, "pid", "u", (uint32_t) c->pid, "duration_us", "t",
                                          c->duration_us, "margin", "u", c->margin, "jobs_lost", "t", c->jobs_lost,
                                          "jobs_dropped", "t", c->jobs_dropped);
        return r;
}

static void observe_reply_error(ObserveCall *c, int r) {
        if (r == -ECANCELED && !c->track)
                return; /* the caller left: nobody to answer */
        r = sd_bus_reply_method_errnof(c->msg, -r,
                                       r == -ECANCELED ? "The observation was cancelled: hcbsd is stopping"
                                                       : "The observation failed: %s",
                                       strerror(-r));
        if (r < 0)
                log_debug_errno(r, "Cannot answer ObserveTasks: %m");
}

/* From the loop, once the analysis' thread has returned (or it was cancelled): the answer. */
static void observe_analysed(int r, void *job) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        ObserveCall *c = job;

        c->analysis = NULL;
        if (r >= 0) {
                r = sd_bus_message_new_method_return(c->msg, &reply);
                if (r >= 0)
                        r = append_result(reply, c);
                if (r >= 0)
                        r = sd_bus_send(NULL, reply, NULL);
                if (r < 0)
                        log_debug_errno(r, "Cannot answer ObserveTasks: %m");
        } else
                observe_reply_error(c, r);
        observe_call_free(c);
}

/* The observation is over (or cancelled): its threads' shapes are an analysis' (analysis.h). */
static void observe_done(Manager *m, int r, ObservationResult *res, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        ObserveCall *c = userdata;
        HcbsVerdict v;

        c->observation = NULL;
        if (r < 0) {
                observe_reply_error(c, r);
                observe_call_free(c);
                return;
        }
        c->unit = res->unit;
        c->pid = res->pid;
        c->duration_us = res->duration_us;
        c->jobs_lost = res->jobs_lost;
        c->jobs_dropped = res->jobs_dropped;
        c->group = res->group ? strdup(res->group) : NULL;
        c->shapes = calloc(MAX(res->n_threads, 1u), sizeof(HcbsJobShape));
        if ((res->group && !c->group) || !c->shapes) {
                observe_reply_error(c, -ENOMEM);
                observe_call_free(c);
                return;
        }
        c->threads = TAKE_PTR(res->threads);
        c->n_threads = res->n_threads;
        hcbs_verdict_ok(&v);
        r = manager_analysis_start(m, c->uid, observe_run, observe_analysed, c, &c->analysis, &v);
        if (r != 0) {
                if (r > 0)
                        r = hcbs_bus_error_set_verdict(&error, &v);
                r = sd_bus_reply_method_errno(c->msg, r, &error);
                if (r < 0)
                        log_debug_errno(r, "Cannot answer ObserveTasks: %m");
                observe_call_free(c);
        }
}

static int on_caller_gone(sd_bus_track *t, void *userdata) {
        ObserveCall *c = userdata;

        c->track = sd_bus_track_unref(c->track);
        if (c->observation)
                manager_observation_cancel(c->observation); /* calls observe_done, which frees c */
        else if (c->analysis)
                analysis_cancel(c->analysis); /* observe_analysed frees c, from the loop */
        return 0;
}

int bus_method_observe_tasks(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        BusServer *b = userdata;
        Manager *m = bus_manager(userdata);
        uint32_t margin = HCBS_OBSERVE_MARGIN_DEFAULT;
        BusOption opts[] = { { "margin", "u", &margin } };
        const char *target;
        uint64_t duration;
        ObserveCall *c;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "st", &target, &duration);
        if (r < 0)
                return r;
        r = bus_read_options(msg, opts, ELEMENTSOF(opts), error);
        if (r < 0)
                return r;
        if (margin > HCBS_OBSERVE_MARGIN_MAX)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "margin %u%%: at most %d%%", margin, HCBS_OBSERVE_MARGIN_MAX);
        r = bus_sender_uid(b, msg, &uid, error);
        if (r < 0)
                return r;
        c = calloc(1, sizeof(ObserveCall));
        if (!c)
                return -ENOMEM;
        *c = (ObserveCall) { .b = b, .msg = sd_bus_message_ref(msg), .uid = uid, .margin = margin };
        r = sd_bus_track_new(sd_bus_message_get_bus(msg), &c->track, on_caller_gone, c);
        if (r >= 0)
                r = sd_bus_track_add_sender(c->track, msg);
        if (r < 0) {
                observe_call_free(c);
                return r;
        }
        hcbs_verdict_ok(&v);
        r = manager_observe(m, target, duration, uid, observe_done, c, &c->observation, &v);
        if (r != 0) {
                observe_call_free(c);
                return bus_reply_operation(msg, r, &v, NULL, NULL, error);
        }
        return 1; /* answered by observe_done() */
}
