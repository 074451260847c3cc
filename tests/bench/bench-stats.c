/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF collector's cost, side by side in one run (needs root and a
 * kernel that takes the collector):
 *   - a pipe ping-pong between two processes, and `perf bench sched
 *     messaging` when perf is installed, each timed without the collector,
 *     with it loaded while the load's cgroup is not counted (the filter
 *     alone), and with the load's cgroup counted (every event recorded),
 *     interleaved REPS times; the median wall time of each and its ratio;
 *   - the sched_switch program's own time per event, from the kernel's
 *     BPF run-time statistics (BPF_ENABLE_STATS), and the wall-time
 *     difference per sched_switch event it ran for.
 * The load runs in a scratch cgroup of the cpu controller it creates
 * (/sys/fs/cgroup/cpu/hcbs-bench-PID) and removes; SCHED_OTHER only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "stats-bpf.h"

#define REPS 5
#define ROUND_TRIPS 50000
#define CPU_MNT "/sys/fs/cgroup/cpu"

static char cg[256];

static double now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int join_cgroup(pid_t pid) {
        char path[300];
        FILE *f;
        int r;

        snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
        f = fopen(path, "we");
        if (!f)
                return -errno;
        fprintf(f, "%d\n", (int) pid);
        r = fclose(f) == 0 ? 0 : -errno;
        return r;
}

static void leave_cgroup(void) {
        FILE *f = fopen(CPU_MNT "/cgroup.procs", "we");
        if (f) {
                fprintf(f, "%d\n", (int) getpid());
                fclose(f);
        }
}

/* Two processes in the cgroup bounce a byte ROUND_TRIPS times; returns the wall time. */
static double ping_pong(void) {
        int a[2], b[2];
        char c = 0;
        double start, t;
        pid_t child;

        if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
                return -1;
        if (join_cgroup(getpid()) < 0)
                return -1;
        child = fork();
        if (child < 0)
                return -1;
        if (child == 0) {
                for (int i = 0; i < ROUND_TRIPS; i++)
                        if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
                                _exit(1);
                _exit(0);
        }
        start = now();
        for (int i = 0; i < ROUND_TRIPS; i++)
                if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
                        break;
        t = now() - start;
        waitpid(child, NULL, 0);
        leave_cgroup();
        close(a[0]), close(a[1]), close(b[0]), close(b[1]);
        return t;
}

/* perf bench sched messaging, started inside the cgroup; its wall time. */
static double messaging(void) {
        double start = now(), t;
        int status;
        pid_t child = fork();

        if (child < 0)
                return -1;
        if (child == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (join_cgroup(getpid()) < 0)
                        _exit(127);
                if (null >= 0)
                        dup2(null, STDOUT_FILENO);
                execlp("perf", "perf", "bench", "sched", "messaging", "-g", "4", "-l", "300", (char *) NULL);
                _exit(127);
        }
        if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -1;
        t = now() - start;
        return t;
}

static int cmp(const void *x, const void *y) {
        double a = *(const double *) x, b = *(const double *) y;
        return a < b ? -1 : a > b;
}

static double median(double *v) {
        qsort(v, REPS, sizeof(double), cmp);
        return v[REPS / 2];
}

typedef enum { OFF, FILTER, COUNTED, _MODES } Mode;
static const char *const mode_names[] = { "no collector", "collector, cgroup not counted", "collector, cgroup counted" };

typedef struct Prog {
        unsigned long long run_ns, runs;
} Prog;

static int prog_stats(StatsBpf *b, Prog *ret) {
        struct bpf_prog_info info = {};
        __u32 len = sizeof(info);

        if (bpf_obj_get_info_by_fd(stats_bpf_switch_fd(b), &info, &len) < 0)
                return -errno;
        ret->run_ns = info.run_time_ns;
        ret->runs = info.run_cnt;
        return 0;
}

/* One load in one mode; for the collector's modes also the switch program's time and runs. */
static int run_mode(double (*load)(void), Mode mode, uint64_t cgid, double *ret_t, Prog *ret_prog) {
        char why[512];
        StatsBpf *b = NULL;
        Prog before = {}, after = {};
        double t;
        int r;

        if (mode != OFF) {
                r = stats_bpf_open(&b, true, why, sizeof(why));
                if (r < 0) {
                        fprintf(stderr, "SKIP: the collector does not load: %s\n", why);
                        return r;
                }
                if (mode == COUNTED && (r = stats_bpf_track(b, cgid, 0)) < 0) {
                        stats_bpf_free(b);
                        return r;
                }
                (void) prog_stats(b, &before);
        }
        t = load();
        if (b) {
                (void) prog_stats(b, &after);
                ret_prog->run_ns += after.run_ns - before.run_ns;
                ret_prog->runs += after.runs - before.runs;
                stats_bpf_free(b);
        }
        if (t < 0)
                return -EIO;
        *ret_t = t;
        return 0;
}

/*
 * The wall times are taken with the kernel's BPF run-time statistics off
 * (they cost two clock reads per program run); then one more run of each
 * collector mode with them on gives the switch program's ns/event.
 */
static int bench(const char *name, double (*load)(void), uint64_t cgid) {
        double t[_MODES][REPS], med[_MODES], ignored;
        Prog prog[_MODES] = {}, unused = {};
        int r, stats_fd;

        for (int i = 0; i < REPS; i++)
                for (Mode m = 0; m < _MODES; m++) {
                        r = run_mode(load, m, cgid, &t[m][i], &unused);
                        if (r < 0)
                                return r;
                }
        stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME); /* the kernel times BPF programs while we hold it */
        if (stats_fd < 0)
                printf("(no BPF run-time statistics: %s; ns/event not shown)\n", strerror(errno));
        for (Mode m = FILTER; stats_fd >= 0 && m < _MODES; m++) {
                r = run_mode(load, m, cgid, &ignored, &prog[m]);
                if (r < 0)
                        break;
        }
        if (stats_fd >= 0)
                close(stats_fd);
        printf("\n%s: median of %d interleaved runs\n", name, REPS);
        for (Mode m = 0; m < _MODES; m++)
                med[m] = median(t[m]);
        for (Mode m = 0; m < _MODES; m++) {
                printf("  %-30s %8.3f s  ratio %.4f", mode_names[m], med[m], med[m] / med[OFF]);
                if (m != OFF && prog[m].runs) {
                        double events = (double) prog[m].runs;
                        printf("  sched_switch prog %.0f ns/event (%.0f events/run), wall %+.0f ns/event",
                               (double) prog[m].run_ns / events, events, (med[m] - med[OFF]) * 1e9 / events);
                }
                printf("\n");
        }
        return 0;
}

int main(void) {
        struct stat st;
        int r = 0;

        if (geteuid() != 0) {
                printf("SKIP: bench-stats needs root (BPF, a scratch cgroup)\n");
                return 0;
        }
        if (access(CPU_MNT "/cgroup.procs", W_OK) < 0) {
                printf("SKIP: bench-stats needs the cgroup-v1 cpu controller at " CPU_MNT "\n");
                return 0;
        }
        snprintf(cg, sizeof(cg), CPU_MNT "/hcbs-bench-%d", (int) getpid());
        if (mkdir(cg, 0755) < 0 || stat(cg, &st) < 0) {
                fprintf(stderr, "bench-stats: cannot create %s: %s\n", cg, strerror(errno));
                return 1;
        }
        printf("BPF collector overhead: %d round trips of a pipe ping-pong%s\n", ROUND_TRIPS,
               access("/usr/bin/perf", X_OK) == 0 ? ", perf bench sched messaging -g 4 -l 300" : "");
        r = bench("pipe ping-pong", ping_pong, (uint64_t) st.st_ino);
        if (r >= 0 && access("/usr/bin/perf", X_OK) == 0)
                r = bench("perf bench sched messaging", messaging, (uint64_t) st.st_ino);
        if (rmdir(cg) < 0)
                fprintf(stderr, "bench-stats: cannot remove %s: %s\n", cg, strerror(errno));
        return r < 0 && r != -EPERM ? 1 : 0;
}
