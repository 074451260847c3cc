/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A call answered by an analysis off the event loop (bus-util.h,
 * analysis.h): the call is kept, the caller watched (gone, the analysis
 * stops), and the answer sent from the loop once the analysis' thread is
 * done. SizeReservation is one; any method whose cost the caller's input
 * decides is another.
 */
#include <errno.h>
#include <stdlib.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "log.h"

typedef struct BusAnalysisCall {
        sd_bus_message *msg;
        sd_bus_track *caller;
        Analysis *analysis;
        AnalysisRunFn run;
        BusAnalysisAnswerFn answer;
        void (*free_job)(void *job);
        void *job;
} BusAnalysisCall;

static void call_free(BusAnalysisCall *c) {
        sd_bus_track_unref(c->caller);
        sd_bus_message_unref(c->msg);
        free(c);
}

/* On the analysis' thread: only the job, which nothing else touches until done. */
static int call_run(void *userdata, const atomic_bool *cancel) {
        BusAnalysisCall *c = userdata;

        return c->run(c->job, cancel);
}

/* From the loop, once the analysis' thread has returned (or it was cancelled). */
static void call_done(int r, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        BusAnalysisCall *c = userdata;

        if (r == -ECANCELED)
                r = sd_bus_reply_method_errnof(c->msg, ECANCELED,
                                               "the analysis was cancelled: its caller left, or hcbsd is stopping");
        else {
                r = c->answer(c->job, r, c->msg, &error);
                if (r < 0)
                        r = sd_bus_reply_method_errno(c->msg, r, &error);
        }
        if (r < 0) /* a caller who left is no one's problem */
                log_debug_errno(r, "Cannot answer %s: %m", sd_bus_message_get_member(c->msg));
        c->free_job(c->job);
        call_free(c);
}

/* The caller left: nobody waits for the answer any more. */
static int caller_gone(sd_bus_track *t, void *userdata) {
        BusAnalysisCall *c = userdata;

        analysis_cancel(c->analysis);
        return 1; /* 0 would have sd-bus call this again while the track stays empty */
}

/* Watches the caller, so that an analysis nobody waits for stops. */
static int track_caller(BusAnalysisCall *c) {
        int r = sd_bus_track_new(sd_bus_message_get_bus(c->msg), &c->caller, caller_gone, c);

        if (r >= 0)
                r = sd_bus_track_add_sender(c->caller, c->msg);
        return r;
}

int bus_analysis_start(BusServer *b, sd_bus_message *msg, AnalysisRunFn run, BusAnalysisAnswerFn answer,
                       void (*free_job)(void *job), void *job, sd_bus_error *error) {
        BusAnalysisCall *c;
        HcbsVerdict v;
        uid_t uid;
        int r;

        r = bus_sender_uid(b, msg, &uid, error);
        if (r < 0)
                return r;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = (BusAnalysisCall) { .msg = sd_bus_message_ref(msg), .run = run, .answer = answer, .free_job = free_job,
                                 .job = job };
        r = track_caller(c);
        if (r < 0) { /* gone already, or the bus refused a match: nobody to answer or nothing to watch with */
                call_free(c);
                return r;
        }
        r = manager_analysis_start(b->manager, uid, call_run, call_done, c, &c->analysis, &v);
        if (r != 0) {
                call_free(c);
                return r < 0 ? r : hcbs_bus_error_set_verdict(error, &v);
        }
        return 1;
}
