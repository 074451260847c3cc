/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats-fork THREADS: a group's hostile process for test-stats.sh. Starts
 * THREADS threads (small stacks), each of which sleeps 1 ms once (a wakeup
 * of its own, besides its creation's) and then waits to be killed; prints
 * "ready THREADS" once every thread has slept, then waits for SIGTERM. A
 * collector with one table of tasks for every group (16384 threads, as
 * hcbsd's had) is full from then on, for every group.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_ulong slept;

static void *thread(void *arg) {
        struct timespec ts = { 0, 1000000 };

        (void) arg;
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        atomic_fetch_add(&slept, 1);
        for (;;)
                pause();
        return NULL;
}

int main(int argc, char **argv) {
        unsigned long n = argc == 2 ? strtoul(argv[1], NULL, 10) : 0;
        pthread_attr_t attr;
        pthread_t t;
        int r;

        if (n == 0) {
                fprintf(stderr, "usage: %s THREADS\n", argv[0]);
                return 2;
        }
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
        for (unsigned long i = 0; i < n; i++) {
                r = pthread_create(&t, &attr, thread, NULL);
                if (r != 0) {
                        fprintf(stderr, "thread %lu: %s\n", i, strerror(r));
                        return 1;
                }
        }
        while (atomic_load(&slept) < n)
                usleep(10000);
        printf("ready %lu\n", n);
        fflush(stdout);
        for (;;)
                pause();
}
