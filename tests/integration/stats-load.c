/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats-load LOOPS WORK_US PERIOD_US: a periodic task for test-stats.sh and
 * the benchmark. Every PERIOD_US it burns WORK_US of its own CPU time, then
 * sleeps until the next period (absolute CLOCK_MONOTONIC). At the end it
 * prints what it knows of itself, to compare with the collector:
 *   loops=N sleeps=S schedstat_ns=T start_ns=T0 wait_ns=W
 * (sleeps: the loops that really slept, each one wakeup; schedstat_ns: the
 * first field of /proc/self/schedstat, its time on CPU; start_ns the same
 * when main() began, so T - T0 is the time the loop itself took; wait_ns:
 * the change of its second field since main() began, the time it was
 * runnable but not running).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t ns(clockid_t c) {
        struct timespec ts;
        clock_gettime(c, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* /proc/self/schedstat: the time on CPU, the time waiting for one */
static int schedstat(unsigned long long *ret, unsigned long long *ret_wait) {
        FILE *f = fopen("/proc/self/schedstat", "re");
        int ok = f && fscanf(f, "%llu %llu", ret, ret_wait) == 2;

        if (f)
                fclose(f);
        if (!ok)
                perror("/proc/self/schedstat");
        return ok ? 0 : -1;
}

int main(int argc, char **argv) {
        unsigned long long on_cpu = 0, at_start = 0, wait = 0, wait_at_start = 0;
        uint64_t loops, work, period, sleeps = 0, next;
        struct timespec ts;

        if (argc != 4) {
                fprintf(stderr, "usage: %s LOOPS WORK_US PERIOD_US\n", argv[0]);
                return 2;
        }
        loops = strtoull(argv[1], NULL, 10);
        work = strtoull(argv[2], NULL, 10) * 1000;
        period = strtoull(argv[3], NULL, 10) * 1000;
        if (schedstat(&at_start, &wait_at_start) < 0)
                return 1;
        next = ns(CLOCK_MONOTONIC);
        for (uint64_t i = 0; i < loops; i++) {
                uint64_t start = ns(CLOCK_THREAD_CPUTIME_ID);
                while (ns(CLOCK_THREAD_CPUTIME_ID) - start < work)
                        ;
                next += period;
                if (ns(CLOCK_MONOTONIC) >= next)
                        continue; /* overran: no sleep, no wakeup */
                ts.tv_sec = (time_t) (next / 1000000000ULL);
                ts.tv_nsec = (long) (next % 1000000000ULL);
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                sleeps++;
        }
        if (schedstat(&on_cpu, &wait) < 0)
                return 1;
        printf("loops=%" PRIu64 " sleeps=%" PRIu64 " schedstat_ns=%llu start_ns=%llu wait_ns=%llu\n", loops, sleeps,
               on_cpu, at_start, wait - wait_at_start);
        /*
         * No exit handlers: in the ASan build LeakSanitizer's would scan the
         * memory from a thread of its own, still in the group and SCHED_FIFO,
         * after schedstat_ns was read (tens of ms the collector rightly counts).
         */
        fflush(stdout);
        _exit(0);
}
