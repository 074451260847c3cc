/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Analyses off the event loop (daemon/analysis.c): an analysis runs on a
 * thread while the loop goes on serving (a job that waits for the loop to
 * let it finish proves it), answers come back through the loop exactly
 * once, one uid's analyses run one after the other, the limits of running
 * and waiting analyses, cancellation of a waiting and of a running one, and
 * a stop that answers everything still there.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <systemd/sd-event.h>

#include "analysis.h"
#include "log.h"

typedef struct Job {
        sem_t go;             /* the test lets run() return */
        atomic_int ran;       /* run() was entered */
        int policy;           /* the thread's policy, as run() saw it */
        bool wait_for_cancel; /* run() returns only once cancelled */
        int result;
        int answered;         /* done() calls */
        int answer;           /* what done() got */
} Job;

static sd_event *E;
static Analyses *A;

static void setup(void) {
        log_set_target(LOG_TARGET_STDERR);
        log_set_max_level(LOG_CRIT);
        cr_assert_eq(sd_event_new(&E), 0);
        cr_assert_eq(analyses_new(E, &A), 0);
}

static void teardown(void) {
        A = analyses_free(A);
        E = sd_event_unref(E);
}

TestSuite(analysis, .init = setup, .fini = teardown);

static void job_init(Job *j, int result) {
        *j = (Job) { .result = result };
        cr_assert_eq(sem_init(&j->go, 0, 0), 0);
}

static int run(void *userdata, const atomic_bool *cancel) {
        Job *j = userdata;

        j->policy = sched_getscheduler(0);
        atomic_store(&j->ran, 1);
        if (j->wait_for_cancel) {
                while (!atomic_load(cancel))
                        sched_yield();
                return -ECANCELED;
        }
        while (sem_wait(&j->go) < 0 && errno == EINTR)
                ;
        return j->result;
}

static void done(int r, void *userdata) {
        Job *j = userdata;

        j->answered++;
        j->answer = r;
}

static void start(Job *j, uid_t uid, unsigned max_running) {
        HcbsVerdict v;

        cr_assert_eq(analyses_start(A, uid, max_running, run, done, j, NULL, &v), 0, "%s", v.message);
}

/* Runs the loop until j is answered (each iteration waits for an event: the eventfd). */
static void until_answered(Job *j) {
        while (!j->answered)
                cr_assert_geq(sd_event_run(E, UINT64_MAX), 0);
}

static void until_ran(Job *j) {
        while (!atomic_load(&j->ran))
                sched_yield();
}

/* A timer the loop serves while the analysis runs lets the analysis finish: it cannot be in the loop. */
static int release(sd_event_source *s, uint64_t usec, void *userdata) {
        Job *j = userdata;

        cr_assert_eq(j->answered, 0);
        cr_assert_eq(sem_post(&j->go), 0);
        return 0;
}

Test(analysis, runs_off_the_loop_and_answers_once) {
        Job j;
        sd_event_source *t = NULL;

        job_init(&j, 42);
        start(&j, 1000, 2);
        cr_assert_eq(sd_event_add_time_relative(E, &t, CLOCK_MONOTONIC, 1000, 0, release, &j), 0);
        until_answered(&j);
        cr_assert_eq(j.answer, 42);
        cr_assert_eq(j.policy, SCHED_IDLE);
        cr_assert_eq(analyses_running(A, (uid_t) -1), 0);
        /* nothing more comes */
        cr_assert_eq(sd_event_run(E, 20000), 0);
        cr_assert_eq(j.answered, 1);
        sd_event_source_unref(t);
}

Test(analysis, one_uid_waits_its_turn) {
        Job a, b, c;

        job_init(&a, 1);
        job_init(&b, 2);
        job_init(&c, 3);
        start(&a, 1000, 2);
        start(&b, 1000, 2);
        start(&c, 2000, 2);
        until_ran(&a);
        until_ran(&c);
        /* uid 1000's second one waits while its first runs; uid 2000 runs beside it */
        cr_assert_eq(analyses_running(A, 1000), 1);
        cr_assert_eq(analyses_running(A, (uid_t) -1), 2);
        cr_assert_eq(atomic_load(&b.ran), 0);
        cr_assert_eq(sem_post(&a.go), 0);
        until_answered(&a);
        until_ran(&b);
        cr_assert_eq(sem_post(&b.go), 0);
        cr_assert_eq(sem_post(&c.go), 0);
        until_answered(&b);
        until_answered(&c);
        cr_assert_eq(a.answer + b.answer + c.answer, 6);
}

Test(analysis, limits) {
        Job j[HCBS_ANALYSES_WAITING_MAX + 2];
        HcbsVerdict v;
        size_t n = 0;

        /* one running and HCBS_ANALYSES_WAITING_PER_USER waiting for uid 7, then a refusal */
        for (unsigned i = 0; i <= HCBS_ANALYSES_WAITING_PER_USER; i++) {
                job_init(&j[n], 0);
                start(&j[n++], 7, 1);
        }
        job_init(&j[n], 0);
        cr_assert_eq(analyses_start(A, 7, 1, run, done, &j[n], NULL, &v), HCBS_E_LIMITS_EXCEEDED);
        cr_assert(strstr(v.message, "uid 7 has 8 analyses waiting"), "%s", v.message);
        /* others' calls wait too, up to the limit of all */
        for (uid_t uid = 100; n < HCBS_ANALYSES_WAITING_MAX + 1; uid++) {
                job_init(&j[n], 0);
                start(&j[n++], uid, 1);
        }
        cr_assert_eq(analyses_start(A, 99, 1, run, done, &j[n], NULL, &v), HCBS_E_LIMITS_EXCEEDED);
        cr_assert(strstr(v.message, "64 analyses wait already"), "%s", v.message);
        cr_assert_eq(analyses_running(A, (uid_t) -1), 1);
        /* a stop answers every one of them, the running one once its thread returned */
        until_ran(&j[0]);
        cr_assert_eq(sem_post(&j[0].go), 0);
        A = analyses_free(A);
        for (size_t i = 0; i < n; i++) {
                cr_assert_eq(j[i].answered, 1, "job %zu", i);
                cr_assert_eq(j[i].answer, -ECANCELED);
                cr_assert_eq(atomic_load(&j[i].ran), i == 0);
        }
}

Test(analysis, cancel) {
        Job running, waiting;
        Analysis *ra, *wa;
        HcbsVerdict v;

        job_init(&running, 0);
        job_init(&waiting, 0);
        running.wait_for_cancel = true;
        cr_assert_eq(analyses_start(A, 5, 1, run, done, &running, &ra, &v), 0);
        cr_assert_eq(analyses_start(A, 5, 1, run, done, &waiting, &wa, &v), 0);
        until_ran(&running);
        /* a waiting one is answered without ever running */
        analysis_cancel(wa);
        until_answered(&waiting);
        cr_assert_eq(waiting.answer, -ECANCELED);
        cr_assert_eq(atomic_load(&waiting.ran), 0);
        /* a running one sees the flag and stops */
        analysis_cancel(ra);
        until_answered(&running);
        cr_assert_eq(running.answer, -ECANCELED);
}
