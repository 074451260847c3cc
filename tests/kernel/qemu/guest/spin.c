/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spin: a busy loop for the hcbsd kernel tests (built with `gcc -static` by
 * tests/kernel/qemu/harness.sh and installed as /guest/bin/spin).
 *
 *   spin [-c CPU] [-p PRIO] [-r] SECONDS
 *       Pin to CPU (-c), switch to SCHED_FIFO priority PRIO (-p, default 10;
 *       -p 0 keeps SCHED_OTHER; -r uses SCHED_RR instead), then spin for
 *       SECONDS of wall time (CLOCK_MONOTONIC) or until SIGTERM/SIGINT.  At
 *       the end, print one line:
 *         spin: pid=P policy=fifo cpu=C cpu_ns=N wall_ns=W share_permille=S
 *       where cpu_ns is the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID).
 *   spin -t
 *       Print CLOCK_MONOTONIC in nanoseconds (a precise clock for shell
 *       scripts; busybox has none).
 *
 * The order matters for RT group scheduling: the caller puts the process into
 * its cgroup first, then spin changes the policy, so the kernel checks the
 * group's runtime at sched_setscheduler() (mainline: EPERM if it is 0).
 *
 * Exit status: 0 done; 2 usage; 3 sched_setaffinity failed; 4
 * sched_setscheduler failed.  Failures print "spin: CALL: ENAME (text)" to
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
#include <time.h>
#include <unistd.h>

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
                "usage: spin [-c CPU] [-p PRIO] [-r] SECONDS\n"
                "       spin -t\n");
        exit(2);
}

int main(int argc, char **argv)
{
        long cpu = -1, prio = 10, seconds;
        int policy = SCHED_FIFO, opt;
        int64_t start, deadline, wall, cpu_ns;

        while ((opt = getopt(argc, argv, "c:p:rt")) != -1) {
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
                case 't':
                        printf("%" PRId64 "\n", now_ns(CLOCK_MONOTONIC));
                        return 0;
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

        if (prio > 0) {
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
               policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other",
               sched_getcpu(), cpu_ns, wall, cpu_ns * 1000 / wall);
        return 0;
}
