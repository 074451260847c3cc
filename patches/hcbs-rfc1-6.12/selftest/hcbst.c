// SPDX-License-Identifier: GPL-2.0
/* hcbst: tiny static helper for selftest.sh (built with gcc -static by run.sh).
 *   hcbst w FILE VALUE          write VALUE (one write(2)); print OK or errno name
 *   hcbst fifo PID PRIO         sched_setscheduler(PID, PRIO ? SCHED_FIFO : SCHED_OTHER, PRIO);
 *                               print OK or the errno name
 *   hcbst dl RUNTIME_US PERIOD_US SECS   become SCHED_DEADLINE (deadline = period), print
 *                               "dl=OK" or "dl=ENAME", then sleep SECS holding the bandwidth
 *   hcbst spin CPU PRIO WARM WIN TOTAL
 *        pin to CPU, SCHED_FIFO PRIO (0: stay SCHED_OTHER), spin TOTAL s; report the
 *        thread CPU time over [WARM, WARM+WIN] s as permille of wall time.
 *        If sched_setscheduler fails: print "setscheduler=ENAME" and exit 4.
 *        PRIO < 0 means SCHED_RR -PRIO; CPU -1 means unpinned.
 *   hcbst sleepfifo PRIO SECS   become SCHED_FIFO PRIO and sleep (an RT task that is not running)
 *   hcbst periodic CPU PRIO RUN_US SLEEP_US SECS   SCHED_FIFO task: spin RUN_US, sleep SLEEP_US
 *   hcbst forkspin CPU PRIO N SECS   become SCHED_FIFO, fork N children (inheriting it) that
 *        spin SECS each; prints each child's CPU time and the parent's wall time
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <stdint.h>

static const char *en(int e)
{
	switch (e) {
	case EPERM: return "EPERM"; case EINVAL: return "EINVAL"; case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT"; case ESRCH: return "ESRCH"; case EACCES: return "EACCES";
	case ENOSPC: return "ENOSPC"; case ERANGE: return "ERANGE"; case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	default: return "E?";
	}
}
static int64_t ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "w")) {
		int fd = open(argv[2], O_WRONLY);
		if (fd < 0) { printf("%s\n", en(errno)); return 0; }
		size_t n = strlen(argv[3]);
		ssize_t r = write(fd, argv[3], n);
		printf("%s\n", r == (ssize_t)n ? "OK" : en(errno));
		close(fd);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "fifo")) {
		struct sched_param sp = { .sched_priority = atoi(argv[3]) };
		int r = sched_setscheduler(atoi(argv[2]), atoi(argv[3]) ? SCHED_FIFO : SCHED_OTHER, &sp);
		printf("%s\n", r == 0 ? "OK" : en(errno));
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "sleepfifo")) {
		struct sched_param sp = { .sched_priority = atoi(argv[2]) };
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) { printf("setscheduler=%s\n", en(errno)); fflush(stdout); return 4; }
		printf("sleepfifo: pid=%d fifo\n", getpid()); fflush(stdout);
		sleep(atoi(argv[3]));
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "spin")) {
		int cpu = atoi(argv[2]), prio = atoi(argv[3]);
		double warm = atof(argv[4]), win = atof(argv[5]), total = atof(argv[6]);
		if (cpu >= 0) {
			cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) { printf("setaffinity=%s\n", en(errno)); return 3; }
		}
		if (prio != 0) {
			struct sched_param sp = { .sched_priority = prio > 0 ? prio : -prio };
			if (sched_setscheduler(0, prio > 0 ? SCHED_FIFO : SCHED_RR, &sp)) { printf("setscheduler=%s\n", en(errno)); fflush(stdout); return 4; }
		}
		int64_t t0 = ns(CLOCK_MONOTONIC), tw0 = t0 + (int64_t)(warm * 1e9), tw1 = tw0 + (int64_t)(win * 1e9);
		int64_t tend = t0 + (int64_t)(total * 1e9);
		int64_t c0 = -1, c1 = -1, w0 = 0, w1 = 0, now;
		volatile unsigned long x = 0;
		while ((now = ns(CLOCK_MONOTONIC)) < tend) {
			for (int i = 0; i < 2000; i++) x++;
			if (c0 < 0 && now >= tw0) { c0 = ns(CLOCK_THREAD_CPUTIME_ID); w0 = now; }
			if (c0 >= 0 && c1 < 0 && now >= tw1) { c1 = ns(CLOCK_THREAD_CPUTIME_ID); w1 = now; }
		}
		if (c1 < 0) { c1 = ns(CLOCK_THREAD_CPUTIME_ID); w1 = ns(CLOCK_MONOTONIC); }
		printf("spin: pid=%d cpu=%d now_on=%d prio=%d window_ns=%lld cpu_ns=%lld permille=%lld\n", getpid(), cpu, sched_getcpu(), prio,
		       (long long)(w1 - w0), (long long)(c1 - c0), (long long)((c1 - c0) * 1000 / (w1 - w0)));
		(void)0;
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "periodic")) {
		/* periodic CPU PRIO RUN_US SLEEP_US SECS: spin RUN_US, sleep SLEEP_US, repeat */
		int cpu = atoi(argv[2]), prio = atoi(argv[3]);
		int64_t run = atoll(argv[4]) * 1000, slp = atoll(argv[5]) * 1000, secs = atoll(argv[6]);
		if (cpu >= 0) { cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set); sched_setaffinity(0, sizeof(set), &set); }
		struct sched_param sp = { .sched_priority = prio };
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) { printf("setscheduler=%s\n", en(errno)); return 4; }
		int64_t t0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID); long n = 0;
		while (ns(CLOCK_MONOTONIC) - t0 < secs * 1000000000LL) {
			int64_t c = ns(CLOCK_THREAD_CPUTIME_ID);
			while (ns(CLOCK_THREAD_CPUTIME_ID) - c < run) ;
			struct timespec ts = { slp / 1000000000, slp % 1000000000 }; nanosleep(&ts, NULL); n++;
		}
		printf("periodic: pid=%d cycles=%ld cpu_ns=%lld\n", getpid(), n, (long long)(ns(CLOCK_THREAD_CPUTIME_ID) - c0));
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "forkspin")) {
		/* forkspin CPU PRIO N SECS: become SCHED_FIFO PRIO, fork N children that
		 * inherit the policy; each spins SECS and reports its share. */
		int cpu = atoi(argv[2]), prio = atoi(argv[3]), n = atoi(argv[4]);
		int64_t secs = atoll(argv[5]);
		if (cpu >= 0) { cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set); sched_setaffinity(0, sizeof(set), &set); }
		struct sched_param sp = { .sched_priority = prio };
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) { printf("setscheduler=%s\n", en(errno)); return 4; }
		fflush(stdout);
		int64_t pt0 = ns(CLOCK_MONOTONIC);
		for (int i = 0; i < n; i++) {
			if (fork() == 0) {
				int64_t t0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_THREAD_CPUTIME_ID), t1;
				volatile unsigned long x = 0;
				while ((t1 = ns(CLOCK_MONOTONIC)) - t0 < secs * 1000000000LL)
					for (int k = 0; k < 2000; k++) x++;
				int64_t c = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
				printf("forkspin: child=%d cpu=%d policy=%d cpu_ns=%lld own_permille=%lld\n", getpid(), sched_getcpu(),
				       sched_getscheduler(0), (long long)c, (long long)(c * 1000 / (t1 - t0)));
				return 0;
			}
		}
		int total = 0;
		while (wait(NULL) > 0) total++;
		printf("forkspin: %d children done wall_ns=%lld\n", total, (long long)(ns(CLOCK_MONOTONIC) - pt0));
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "dl")) {
		struct { uint32_t size, policy; uint64_t flags; int32_t nice; uint32_t prio;
			 uint64_t runtime, deadline, period; } a = { 0 };
		a.size = 48; a.policy = 6 /* SCHED_DEADLINE */;
		a.runtime = atoll(argv[2]) * 1000; a.period = a.deadline = atoll(argv[3]) * 1000;
		int r = syscall(SYS_sched_setattr, 0, &a, 0);
		printf("dl=%s\n", r == 0 ? "OK" : en(errno)); fflush(stdout);
		if (r == 0) sleep(atoi(argv[4]));
		return r == 0 ? 0 : 4;
	}
	fprintf(stderr, "usage\n");
	return 2;
}
