/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbs-rtload: a periodic real-time load for the sizing proofs.
 *
 *   hcbs-rtload [--cpu N] [--periods K] [--priority-max P] [--text] WCET:PERIOD[:DEADLINE]...
 *
 * One SCHED_FIFO thread per task, priorities deadline-monotonic (shortest
 * deadline highest, distinct, from --priority-max down; ties by period, then
 * by order). All release their first job at the same instant, then every
 * PERIOD (absolute CLOCK_MONOTONIC times, clock_nanosleep). The first release
 * is fixed only once every thread runs (the last one to reach a barrier takes
 * the time): the SCHED_OTHER main thread that creates them may wait a long
 * while beside a SCHED_FIFO hog on its CPU, and that wait must not count
 * against the tasks. A job burns CPU
 * until its thread's CPU time (CLOCK_THREAD_CPUTIME_ID) grew by WCET, so it
 * costs WCET of CPU whatever the machine's speed or a hypervisor's stalls.
 * A job that completes after release + DEADLINE is a miss; the next job is
 * still released on its own schedule. The run lasts K periods of the longest
 * task (default 200). --cpu pins every thread to one CPU.
 *
 * Prints one JSON object: {"periods": K, "duration_us", "misses", "tasks":
 * [{"wcet_us", "period_us", "deadline_us", "priority", "jobs", "misses",
 * "worst_response_us"}]}; with --text, one line per task for a person (make
 * demo KERNEL=hcbs). Exit 0 when the run happened (misses or not), 1
 * when a system call failed (named with its errno), 2 for bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "duration.h"

#define TASKS_MAX 64

typedef struct Task {
        uint64_t wcet_ns, period_ns, deadline_ns;
        int priority;
        uint64_t jobs, misses, worst_ns;
        int error; /* errno of a failed call in the thread */
        const char *failed;
        pthread_t thread;
} Task;

static Task tasks[TASKS_MAX];
static size_t n_tasks;
static uint64_t start_ns, end_ns, longest, periods = 200;
static int cpu = -1;
static bool text;
static pthread_barrier_t started, timed;

/* The lead before the first release: every thread is SCHED_FIFO by then, so
 * this only covers a thread going back to sleep after the barrier. */
#define LEAD_NS (20 * 1000000u)

static uint64_t ts_ns(const struct timespec *ts) {
        return (uint64_t) ts->tv_sec * 1000000000u + (uint64_t) ts->tv_nsec;
}

static int clock_ns(clockid_t id, uint64_t *ret) {
        struct timespec ts;
        if (clock_gettime(id, &ts) < 0)
                return -errno;
        *ret = ts_ns(&ts);
        return 0;
}

static int sleep_until(uint64_t ns) {
        struct timespec ts = { .tv_sec = (time_t) (ns / 1000000000u), .tv_nsec = (long) (ns % 1000000000u) };
        int r;

        while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
                ;
        return -r;
}

/* Burns CPU until this thread's CPU time grew by ns. */
static int burn(uint64_t ns) {
        uint64_t t0 = 0, t = 0;
        volatile uint64_t sink = 0;
        int r;

        (void) sink; /* written only, to keep the loop: clang's -Wunused-but-set-variable */
        r = clock_ns(CLOCK_THREAD_CPUTIME_ID, &t0);
        if (r < 0)
                return r;
        do {
                for (unsigned i = 0; i < 2000; i++)
                        sink += i;
                r = clock_ns(CLOCK_THREAD_CPUTIME_ID, &t);
                if (r < 0)
                        return r;
        } while (t - t0 < ns);
        return 0;
}

static void *task_main(void *arg) {
        Task *t = arg;
        int r;

        r = pthread_barrier_wait(&started);
        if (r == PTHREAD_BARRIER_SERIAL_THREAD) { /* the last thread to start */
                r = clock_ns(CLOCK_MONOTONIC, &start_ns);
                if (r < 0) {
                        t->error = -r;
                        t->failed = "clock";
                        start_ns = 0; /* end_ns stays 0: nobody runs a job */
                } else {
                        start_ns += LEAD_NS;
                        end_ns = start_ns + periods * longest;
                }
        }
        (void) pthread_barrier_wait(&timed); /* start_ns and end_ns are set */

        for (uint64_t release = start_ns; release < end_ns; release += t->period_ns) {
                uint64_t done = 0;

                r = sleep_until(release);
                if (r == 0)
                        r = burn(t->wcet_ns);
                if (r == 0)
                        r = clock_ns(CLOCK_MONOTONIC, &done);
                if (r < 0) {
                        t->error = -r;
                        t->failed = "clock";
                        return NULL;
                }
                t->jobs++;
                if (done - release > t->worst_ns)
                        t->worst_ns = done - release;
                if (done - release > t->deadline_ns)
                        t->misses++;
        }
        return NULL;
}

static int usage(const char *why) {
        if (why)
                fprintf(stderr, "hcbs-rtload: %s\n", why);
        fprintf(stderr, "usage: hcbs-rtload [--cpu N] [--periods K] [--priority-max P] [--text] "
                        "WCET:PERIOD[:DEADLINE]...\n");
        return 2;
}

static int parse_task(const char *s, Task *ret) {
        char buf[128], err[HCBS_ERRLEN], *save = NULL;
        uint64_t v[3] = {};
        unsigned n = 0;

        if (strlen(s) >= sizeof(buf))
                return -EINVAL;
        strcpy(buf, s);
        for (char *f = strtok_r(buf, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
                if (n == 3 || hcbs_duration_parse(f, &v[n], err, sizeof(err)) < 0)
                        return -EINVAL;
                n++;
        }
        if (n < 2 || v[0] == 0 || v[1] == 0 || (v[2] ? v[2] : v[1]) < v[0])
                return -EINVAL;
        *ret = (Task) { .wcet_ns = v[0] * 1000, .period_ns = v[1] * 1000, .deadline_ns = (v[2] ? v[2] : v[1]) * 1000 };
        return 0;
}

static int cmp_dm(const void *a, const void *b) {
        const Task *x = *(Task *const *) a, *y = *(Task *const *) b;
        if (x->deadline_ns != y->deadline_ns)
                return x->deadline_ns < y->deadline_ns ? -1 : 1;
        if (x->period_ns != y->period_ns)
                return x->period_ns < y->period_ns ? -1 : 1;
        return x < y ? -1 : (x > y);
}

/* --text: "  2ms every 25ms (FIFO 90): 400 jobs, 0 missed, worst response 2.3ms of 25ms" */
static void print_text(uint64_t misses) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN], d[HCBS_DURATION_STRLEN];

        for (size_t i = 0; i < n_tasks; i++) {
                const Task *t = &tasks[i];
                printf("  task %s every %s (SCHED_FIFO %d): %llu jobs, %llu missed, worst response %.1fms of a "
                       "%s deadline\n",
                       hcbs_duration_format(t->wcet_ns / 1000, a), hcbs_duration_format(t->period_ns / 1000, b),
                       t->priority, (unsigned long long) t->jobs, (unsigned long long) t->misses,
                       (double) t->worst_ns / 1e6, hcbs_duration_format(t->deadline_ns / 1000, d));
        }
        printf("  %llu periods of %s in %.1fs: %llu deadline%s missed\n", (unsigned long long) periods,
               hcbs_duration_format(longest / 1000, a), (double) (end_ns - start_ns) / 1e9, (unsigned long long) misses,
               misses == 1 ? "" : "s");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "cpu", required_argument, NULL, 'c' },
                { "periods", required_argument, NULL, 'k' },
                { "priority-max", required_argument, NULL, 'p' },
                { "text", no_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        unsigned long prio_max = 90;
        uint64_t misses = 0;
        Task *order[TASKS_MAX];
        pthread_attr_t attr;
        int c, r, failed = 0;

        while ((c = getopt_long(argc, argv, "c:k:p:th", options, NULL)) != -1) {
                char *end;
                switch (c) {
                case 'c':
                        cpu = (int) strtol(optarg, &end, 10);
                        if (*end || cpu < 0 || cpu >= CPU_SETSIZE)
                                return usage("invalid --cpu");
                        break;
                case 'k':
                        periods = strtoul(optarg, &end, 10);
                        if (*end || periods < 1 || periods > 1000000)
                                return usage("invalid --periods (1..1000000)");
                        break;
                case 'p':
                        prio_max = strtoul(optarg, &end, 10);
                        if (*end || prio_max < 2 || prio_max > 99)
                                return usage("invalid --priority-max (2..99)");
                        break;
                case 't':
                        text = true;
                        break;
                case 'h':
                        return usage(NULL), 0;
                default:
                        return usage(NULL);
                }
        }
        if (optind >= argc)
                return usage("no tasks");
        for (int i = optind; i < argc; i++) {
                if (n_tasks == TASKS_MAX)
                        return usage("too many tasks");
                if (parse_task(argv[i], &tasks[n_tasks]) < 0) {
                        fprintf(stderr, "hcbs-rtload: invalid task '%s' (WCET:PERIOD[:DEADLINE], WCET <= DEADLINE)\n",
                                argv[i]);
                        return 2;
                }
                if (tasks[n_tasks].period_ns > longest)
                        longest = tasks[n_tasks].period_ns;
                order[n_tasks] = &tasks[n_tasks];
                n_tasks++;
        }
        if (n_tasks > prio_max)
                return usage("more tasks than distinct priorities below --priority-max");
        qsort(order, n_tasks, sizeof(order[0]), cmp_dm);
        for (size_t i = 0; i < n_tasks; i++)
                order[i]->priority = (int) (prio_max - i);

        if (cpu >= 0) {
                cpu_set_t set;
                CPU_ZERO(&set);
                CPU_SET(cpu, &set);
                if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                        fprintf(stderr, "hcbs-rtload: sched_setaffinity(CPU %d): %s\n", cpu, strerror(errno));
                        return 1;
                }
        }
        r = pthread_barrier_init(&started, NULL, (unsigned) n_tasks);
        if (r == 0)
                r = pthread_barrier_init(&timed, NULL, (unsigned) n_tasks);
        if (r != 0) {
                fprintf(stderr, "hcbs-rtload: pthread_barrier_init: %s\n", strerror(r));
                return 1;
        }
        if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
                fprintf(stderr, "hcbs-rtload: mlockall: %s (going on without)\n", strerror(errno));
        for (size_t i = 0; i < n_tasks; i++) {
                struct sched_param sp = { .sched_priority = tasks[i].priority };

                /* the threads start SCHED_FIFO: they never wait for a SCHED_OTHER turn */
                r = pthread_attr_init(&attr);
                if (r == 0)
                        r = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
                if (r == 0)
                        r = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
                if (r == 0)
                        r = pthread_attr_setschedparam(&attr, &sp);
                if (r == 0)
                        r = pthread_create(&tasks[i].thread, &attr, task_main, &tasks[i]);
                pthread_attr_destroy(&attr);
                if (r != 0) {
                        fprintf(stderr, "hcbs-rtload: task %zu: pthread_create(SCHED_FIFO %d): %s\n", i + 1,
                                tasks[i].priority, strerror(r));
                        return 1;
                }
        }
        for (size_t i = 0; i < n_tasks; i++)
                pthread_join(tasks[i].thread, NULL);

        for (size_t i = 0; i < n_tasks; i++)
                if (tasks[i].error) {
                        fprintf(stderr, "hcbs-rtload: task %zu: %s: %s\n", i + 1, tasks[i].failed,
                                strerror(tasks[i].error));
                        failed = 1;
                }
        if (failed)
                return 1;
        for (size_t i = 0; i < n_tasks; i++)
                misses += tasks[i].misses;
        if (text)
                return print_text(misses), 0;
        printf("{\"periods\": %llu, \"duration_us\": %llu, \"misses\": %llu, \"tasks\": [", (unsigned long long) periods,
               (unsigned long long) ((end_ns - start_ns) / 1000), (unsigned long long) misses);
        for (size_t i = 0; i < n_tasks; i++) {
                const Task *t = &tasks[i];
                printf("%s{\"wcet_us\": %llu, \"period_us\": %llu, \"deadline_us\": %llu, \"priority\": %d, "
                       "\"jobs\": %llu, \"misses\": %llu, \"worst_response_us\": %llu}",
                       i ? ", " : "", (unsigned long long) (t->wcet_ns / 1000), (unsigned long long) (t->period_ns / 1000),
                       (unsigned long long) (t->deadline_ns / 1000), t->priority, (unsigned long long) t->jobs,
                       (unsigned long long) t->misses, (unsigned long long) (t->worst_ns / 1000));
        }
        printf("]}\n");
        return 0;
}
