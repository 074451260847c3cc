/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spin: a busy loop for the hcbsd kernel tests (built with `gcc -static` by
 * tests/kernel/qemu/harness.sh and installed as /guest/bin/spin).
 *
 *   spin [-c CPU] [-p PRIO] [-r] [-d RUNTIME_US:PERIOD_US] SECONDS
 *       Pin to CPU (-c), switch to SCHED_FIFO priority PRIO (-p, default 10;
 *       -p 0 keeps SCHED_OTHER; -r uses SCHED_RR instead; -d SCHED_DEADLINE
 *       with that runtime, and deadline = period), then spin for
 *       SECONDS of wall time (CLOCK_MONOTONIC) or until SIGTERM/SIGINT.  At
 *       the end, print one line:
 *         spin: pid=P policy=fifo cpu=C cpu_ns=N wall_ns=W share_permille=S
 *       where cpu_ns is the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID).
 *   spin -t
 *       Print CLOCK_MONOTONIC in nanoseconds (a precise clock for shell
 *       scripts; busybox has none).
 *   spin -m SECONDS PID...
 *       Measure the CPU time of each PID (/proc/PID/schedstat) over SECONDS
 *       of CLOCK_MONOTONIC, as SCHED_FIFO 99: a shell reading the counters
 *       itself is late by whole periods when RT tasks take every CPU (it
 *       runs on the fair server's 5%).  Prints "PID NS PERMILLE" per PID,
 *       PERMILLE being the share of one CPU, then "wall NS".
 *
 * The order matters for RT group scheduling: the caller puts the process into
 * its cgroup first, then spin changes the policy, so the kernel checks the
 * group's runtime at sched_setscheduler() (mainline: EPERM if it is 0).
 *
 * Exit status: 0 done; 2 usage; 3 sched_setaffinity failed; 4
 * sched_setscheduler (or sched_setattr) failed.  Failures print "spin: CALL: ENAME (text)" to
 * stderr, so tests can match the errno name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* struct sched_attr of sched_setattr(2), which glibc 2.36 does not wrap */
struct spin_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

static const char *errno_name(int e)
{
        switch (e) {
        case EPERM:   return "EPERM";
        case ENOENT:  return "ENOENT";
        case ESRCH:   return "ESRCH";
        case EACCES:  return "EACCES";
        case EBUSY:   return "EBUSY";
        case EINVAL:  return "EINVAL";
        case ENOSPC:  return "ENOSPC";
        case ERANGE:  return "ERANGE";
        case ENOSYS:  return "ENOSYS";
        default:      return "E?";
        }
}

static int64_t now_ns(clockid_t clock)
{
        struct timespec ts;

        if (clock_gettime(clock, &ts) < 0) {
                perror("spin: clock_gettime");
                exit(1);
        }
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int parse_long(const char *s, long min, long max, long *ret)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static void usage(void)
{
        fprintf(stderr,
                "usage: spin [-c CPU] [-p PRIO] [-r] [-d RUNTIME_US:PERIOD_US] SECONDS\n"
                "       spin -t\n"
                "       spin -m SECONDS PID...\n");
        exit(2);
}

/* The CPU time (ns) of pid, the first field of /proc/PID/schedstat; -1 if gone. */
static int64_t schedstat_ns(long pid)
{
        char path[64];
        long long ns;
        FILE *f;
        int n;

        snprintf(path, sizeof(path), "/proc/%ld/schedstat", pid);
        f = fopen(path, "r");
        if (!f)
                return -1;
        n = fscanf(f, "%lld", &ns);
        fclose(f);
        return n == 1 ? ns : -1;
}

static int measure(long seconds, int npids, char **args)
{
        struct sched_param sp = { .sched_priority = 99 };
        int64_t before[64], after[64], t1, t2;
        long pids[64];
        int i;

        if (npids < 1 || npids > 64)
                usage();
        for (i = 0; i < npids; i++)
                if (parse_long(args[i], 1, 1L << 30, &pids[i]) < 0)
                        usage();
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
                fprintf(stderr, "spin: sched_setscheduler(SCHED_FIFO, 99): %s (%s)\n",
                        errno_name(errno), strerror(errno));
                return 4;
        }
        t1 = now_ns(CLOCK_MONOTONIC);
        for (i = 0; i < npids; i++)
                before[i] = schedstat_ns(pids[i]);
        struct timespec ts = { .tv_sec = seconds };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        t2 = now_ns(CLOCK_MONOTONIC);
        for (i = 0; i < npids; i++)
                after[i] = schedstat_ns(pids[i]);
        for (i = 0; i < npids; i++) {
                int64_t d = before[i] < 0 || after[i] < 0 ? -1 : after[i] - before[i];

                printf("%ld %" PRId64 " %" PRId64 "\n", pids[i], d,
                       d < 0 ? -1 : d * 1000 / (t2 - t1));
        }
        printf("wall %" PRId64 "\n", t2 - t1);
        return 0;
}

/* "RUNTIME_US:PERIOD_US" -> a SCHED_DEADLINE attribute (deadline = period) */
static int parse_deadline(const char *s, struct spin_sched_attr *attr)
{
        char buf[64], *colon;
        long runtime, period;

        if (strlen(s) >= sizeof(buf))
                return -EINVAL;
        strcpy(buf, s);
        colon = strchr(buf, ':');
        if (!colon)
                return -EINVAL;
        *colon = '\0';
        if (parse_long(buf, 1, 4000000, &runtime) < 0 ||
            parse_long(colon + 1, 1, 4000000, &period) < 0 || runtime > period)
                return -EINVAL;
        *attr = (struct spin_sched_attr) {
                .size = sizeof(*attr),
                .sched_policy = SCHED_DEADLINE,
                .sched_runtime = (uint64_t) runtime * 1000,
                .sched_deadline = (uint64_t) period * 1000,
                .sched_period = (uint64_t) period * 1000,
        };
        return 0;
}

int main(int argc, char **argv)
{
        long cpu = -1, prio = 10, seconds;
        int policy = SCHED_FIFO, opt;
        int64_t start, deadline, wall, cpu_ns;
        struct spin_sched_attr dl = { 0 };

        while ((opt = getopt(argc, argv, "c:p:rd:tm:")) != -1) {
                switch (opt) {
                case 'c':
                        if (parse_long(optarg, 0, CPU_SETSIZE - 1, &cpu) < 0)
                                usage();
                        break;
                case 'p':
                        if (parse_long(optarg, 0, 99, &prio) < 0)
                                usage();
                        break;
                case 'r':
                        policy = SCHED_RR;
                        break;
                case 'd':
                        if (parse_deadline(optarg, &dl) < 0)
                                usage();
                        policy = SCHED_DEADLINE;
                        break;
                case 't':
                        printf("%" PRId64 "\n", now_ns(CLOCK_MONOTONIC));
                        return 0;
                case 'm':
                        if (parse_long(optarg, 1, 3600, &seconds) < 0)
                                usage();
                        return measure(seconds, argc - optind, argv + optind);
                default:
                        usage();
                }
        }
        if (optind != argc - 1 || parse_long(argv[optind], 1, 3600, &seconds) < 0)
                usage();

        struct sigaction sa = { .sa_handler = on_signal };
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0) {
                perror("spin: sigaction");
                return 1;
        }

        if (cpu >= 0) {
                cpu_set_t set;

                CPU_ZERO(&set);
                CPU_SET(cpu, &set);
                if (sched_setaffinity(0, sizeof(set), &set) < 0) {
                        fprintf(stderr, "spin: sched_setaffinity(cpu %ld): %s (%s)\n",
                                cpu, errno_name(errno), strerror(errno));
                        return 3;
                }
        }

        if (policy == SCHED_DEADLINE) {
                if (syscall(SYS_sched_setattr, 0, &dl, 0) < 0) {
                        fprintf(stderr, "spin: sched_setattr(SCHED_DEADLINE %" PRIu64 "/%" PRIu64 " us): %s (%s)\n",
                                dl.sched_runtime / 1000, dl.sched_period / 1000,
                                errno_name(errno), strerror(errno));
                        return 4;
                }
        } else if (prio > 0) {
                struct sched_param sp = { .sched_priority = (int) prio };

                if (sched_setscheduler(0, policy, &sp) < 0) {
                        fprintf(stderr, "spin: sched_setscheduler(%s, %ld): %s (%s)\n",
                                policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO", prio,
                                errno_name(errno), strerror(errno));
                        return 4;
                }
        } else
                policy = SCHED_OTHER;

        start = now_ns(CLOCK_MONOTONIC);
        deadline = start + (int64_t) seconds * 1000000000;
        while (!stop && now_ns(CLOCK_MONOTONIC) < deadline)
                ;
        wall = now_ns(CLOCK_MONOTONIC) - start;
        cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);

        printf("spin: pid=%ld policy=%s cpu=%d cpu_ns=%" PRId64 " wall_ns=%" PRId64
               " share_permille=%" PRId64 "\n",
               (long) getpid(),
               policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" :
               policy == SCHED_DEADLINE ? "deadline" : "other",
               sched_getcpu(), cpu_ns, wall, cpu_ns * 1000 / wall);
        return 0;
}
