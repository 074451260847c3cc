/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Analyses on threads of their own (analysis.h). The analyses wait in one
 * list, oldest first; each is started, on a thread of its own, as soon as
 * fewer than the limit run in all and none runs for its uid. The thread
 * sets itself SCHED_IDLE, runs, marks the analysis finished and wakes the
 * loop through an eventfd; the loop joins finished threads, calls their
 * done() and starts the next. A thread per analysis rather than a pool:
 * at most one per CPU run, each lives as long as one call, and its creation
 * (tens of microseconds) is nothing beside the work it does.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "analysis.h"
#include "list.h"
#include "log.h"
#include "macro.h"

struct Analysis {
        Analysis *next;
        Analyses *owner;
        uid_t uid;
        AnalysisRunFn run;
        AnalysisDoneFn done;
        void *job;
        pthread_t thread;
        bool started;         /* its thread exists: join it */
        atomic_bool cancel;
        atomic_bool finished; /* run returned (r is set), or it was cancelled before it started */
        int r;
        int sched_error;      /* SCHED_IDLE refused (an errno): the thread ran at hcbsd's own priority */
        int wake_error;       /* the eventfd could not be written: found at the next wake-up */
};

struct Analyses {
        int fd; /* eventfd: an analysis finished */
        sd_event_source *source;
        Analysis *list;       /* running and waiting, oldest first */
        unsigned max_running; /* the limit the last start gave */
};

static void wake(Analyses *as, int *ret_error) {
        uint64_t one = 1;

        if (write(as->fd, &one, sizeof(one)) < 0)
                *ret_error = errno; /* only on an overflow of the counter, which a few wake-ups cannot reach */
}

static void *analysis_thread(void *userdata) {
        static const struct sched_param idle = { .sched_priority = 0 };
        Analysis *a = userdata;

        /* the loop (SCHED_OTHER) takes the CPU back the moment it has a call to serve */
        a->sched_error = pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
        a->r = a->run(a->job, &a->cancel);
        atomic_store(&a->finished, true);
        wake(a->owner, &a->wake_error);
        return NULL;
}

/* How many of uid's (all with uid (uid_t) -1) are running, or waiting. */
static unsigned count(const Analyses *as, uid_t uid, bool running) {
        unsigned n = 0;

        for (const Analysis *a = as->list; a; a = a->next)
                n += (uid == (uid_t) -1 || a->uid == uid) && a->started == running && !atomic_load(&a->finished);
        return n;
}

unsigned analyses_running(const Analyses *as, uid_t uid) {
        return count(as, uid, true);
}

/* Starts the oldest waiting analyses that the limits let run. */
static void start_waiting(Analyses *as) {
        for (Analysis *a = as->list; a; a = a->next) {
                int r;

                if (a->started || atomic_load(&a->finished) || count(as, a->uid, true) >= HCBS_ANALYSES_PER_USER)
                        continue;
                if (count(as, (uid_t) -1, true) >= as->max_running)
                        return;
                r = pthread_create(&a->thread, NULL, analysis_thread, a);
                if (r != 0) { /* answered with the failure: the call must not wait for good */
                        log_error_errno(-r, "Cannot start a thread for an analysis: %m");
                        a->r = -r;
                        atomic_store(&a->finished, true);
                        wake(as, &a->wake_error);
                        continue;
                }
                a->started = true;
        }
}

/* Joins a finished analysis' thread (if it had one), answers through done, frees it. */
static void finish(Analysis *a) {
        int r = a->started ? pthread_join(a->thread, NULL) : 0;

        if (r != 0)
                log_error_errno(-r, "Cannot join the thread of an analysis: %m");
        if (a->sched_error)
                log_warning_errno(-a->sched_error, "An analysis ran at hcbsd's own priority (SCHED_IDLE: %m)");
        if (a->wake_error)
                log_warning_errno(-a->wake_error, "An analysis could not wake the event loop: %m");
        a->done(atomic_load(&a->cancel) ? -ECANCELED : a->r, a->job);
        free(a);
}

/* Unlinks the finished analyses (every one when all), answers each, and starts the next. */
static void reap(Analyses *as, bool all) {
        Analysis *ready = NULL;

        for (Analysis **p = &as->list; *p;) {
                Analysis *a = *p;
                if (!all && !atomic_load(&a->finished)) {
                        p = &a->next;
                        continue;
                }
                *p = a->next;
                LIST_PREPEND(ready, a);
        }
        while (ready) { /* a done may start or cancel others: the list is consistent meanwhile */
                Analysis *a = ready;
                ready = a->next;
                finish(a);
        }
        if (!all)
                start_waiting(as);
}

static int on_wake(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        uint64_t n;

        if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
                log_warning_errno(-errno, "Cannot read the analyses' eventfd: %m");
        reap(userdata, false);
        return 0;
}

int analyses_new(sd_event *event, Analyses **ret) {
        Analyses *as = calloc(1, sizeof(*as));
        int r;

        if (!as)
                return -ENOMEM;
        as->max_running = 1;
        as->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (as->fd < 0) {
                r = -errno;
                free(as);
                return log_error_errno(r, "Cannot create an eventfd for the analyses: %m");
        }
        r = sd_event_add_io(event, &as->source, as->fd, EPOLLIN, on_wake, as);
        if (r < 0) {
                analyses_free(as);
                return log_error_errno(r, "Cannot watch the analyses' eventfd: %m");
        }
        (void) sd_event_source_set_description(as->source, "analyses");
        *ret = as;
        return 0;
}

Analyses *analyses_free(Analyses *as) {
        if (!as)
                return NULL;
        LIST_FOREACH(a, as->list)
                atomic_store(&a->cancel, true);
        reap(as, true);
        sd_event_source_disable_unref(as->source);
        (void) close(as->fd);
        free(as);
        return NULL;
}

int analyses_start(Analyses *as, uid_t uid, unsigned max_running, AnalysisRunFn run, AnalysisDoneFn done,
                   void *job, Analysis **ret, HcbsVerdict *v) {
        unsigned mine = count(as, uid, false), all = count(as, (uid_t) -1, false);
        Analysis *a, **tail;

        hcbs_verdict_ok(v);
        if (mine >= HCBS_ANALYSES_WAITING_PER_USER)
                return hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0,
                                        "uid %u has %u analyses waiting already, the most for one user; "
                                        "try again once they are answered",
                                        (unsigned) uid, mine);
        if (all >= HCBS_ANALYSES_WAITING_MAX)
                return hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0,
                                        "%u analyses wait already, the most hcbsd keeps; try again later", all);
        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->owner = as;
        a->uid = uid;
        a->run = run;
        a->done = done;
        a->job = job;
        for (tail = &as->list; *tail; tail = &(*tail)->next)
                ;
        *tail = a;
        as->max_running = MAX(max_running, 1u);
        start_waiting(as);
        if (ret)
                *ret = a;
        return 0;
}

void analysis_cancel(Analysis *a) {
        atomic_store(&a->cancel, true);
        if (!a->started && !atomic_load(&a->finished)) { /* waiting: answered from the loop, never run */
                atomic_store(&a->finished, true);
                wake(a->owner, &a->wake_error);
        }
}
