/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A process with two threads of chosen policies, for the per-thread checks
 * of test-privilege.sh:
 *
 *   rt-threads MAIN WORKER     each "other" or "fifo:PRIO"
 *
 * Sets the main thread's and the worker's policy, prints
 * "ready PID WORKER_TID" and sleeps until killed.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t worker_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static int set_policy(pid_t tid, const char *spec) {
        struct sched_param sp = {};
        int policy = SCHED_OTHER;

        if (strncmp(spec, "fifo:", 5) == 0) {
                policy = SCHED_FIFO;
                sp.sched_priority = atoi(spec + 5);
        } else if (strcmp(spec, "other") != 0)
                return fprintf(stderr, "rt-threads: bad policy '%s'\n", spec), -1;
        if (sched_setscheduler(tid, policy, &sp) < 0)
                return perror("rt-threads: sched_setscheduler"), -1;
        return 0;
}

static void *worker(void *arg) {
        pthread_mutex_lock(&lock);
        worker_tid = (pid_t) syscall(SYS_gettid);
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&lock);
        for (;;)
                pause();
        return arg;
}

int main(int argc, char **argv) {
        pthread_t t;

        if (argc != 3)
                return fprintf(stderr, "usage: rt-threads MAIN WORKER (other|fifo:PRIO)\n"), 2;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
                return perror("rt-threads: pthread_create"), 1;
        pthread_mutex_lock(&lock);
        while (!worker_tid)
                pthread_cond_wait(&cond, &lock);
        pthread_mutex_unlock(&lock);
        if (set_policy(0, argv[1]) < 0 || set_policy(worker_tid, argv[2]) < 0)
                return 1;
        printf("ready %d %d\n", (int) getpid(), (int) worker_tid);
        fflush(stdout);
        for (;;)
                pause();
}
