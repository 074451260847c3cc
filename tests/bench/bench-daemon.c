/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client side of tests/bench/bench-daemon.sh: one process, one bus
 * connection (a long-lived orchestrator, not hcbsctl), timing each call.
 *
 *   bench-daemon ping N                 Peer.Ping to hcbsd: the bus's floor
 *   bench-daemon roundtrip N PREFIX     CreateGroup+DeleteGroup of PREFIX-i
 *   bench-daemon raw N DIR              the same kernel work in C: mkdir,
 *                                       runtime, runtime 0, rmdir (v1: the
 *                                       period is 1 s already)
 *   bench-daemon rawbatch N DIR         apply's floor: the same kernel work
 *                                       as `hcbsctl apply` of N groups then of
 *                                       their deletion, in C: N mkdir and
 *                                       runtime writes, then N runtime-0
 *                                       writes and rmdir
 *   bench-daemon fill N PREFIX          CreateGroup PREFIX-0..N-1 (2us/1s)
 *   bench-daemon clients K SECONDS PREFIX
 *                                       K processes, each its own connection,
 *                                       CreateGroup+DeleteGroup for SECONDS
 *   bench-daemon readtree DIR           start-up's floor: the files hcbsd must
 *                                       read of every group below DIR (period,
 *                                       runtime, cgroup.procs, the link count,
 *                                       the children of a group that has some),
 *                                       read in C
 *   bench-daemon startup HCBSD ARGS...  runs hcbsd with $NOTIFY_SOCKET on a
 *                                       socket of its own: the time from
 *                                       fork to READY=1, hcbsd's peak RSS
 *                                       (VmHWM) and CPU time then; stops it
 *                                       (SIGTERM)
 *
 * The bus is $DBUS_SYSTEM_BUS_ADDRESS. Prints one line of figures:
 * "n=N p50_us=… p99_us=… max_us=… mean_us=…", for clients
 * "calls=… seconds=… calls_per_s=…", for startup "ms=… hwm_kb=… cpu_ms=…",
 * for readtree "groups=… ms=…", for rawbatch "n=… seconds=…".
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "../bus-client.h"
#include "bus-names.h"

static double now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static void report(double *t, size_t n) {
        double sum = 0;

        qsort(t, n, sizeof(double), cmp_double);
        for (size_t i = 0; i < n; i++)
                sum += t[i];
        printf("n=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f\n", n, t[n / 2], t[(size_t) (n * 0.99)],
               t[n - 1], sum / (double) n);
}

static int bus_open(sd_bus **ret) {
        int r = test_bus_open(ret);

        if (r < 0)
                fprintf(stderr, "bench-daemon: cannot connect to the bus: %s\n", strerror(-r));
        return r;
}

static int call(sd_bus *bus, const char *member, const char *name, int create) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = create ? sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, member, &error,
                                            &reply, "stta{sv}", name, (uint64_t) 2, (uint64_t) 1000000, 0)
                       : sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, member, &error,
                                            &reply, "sa{sv}", name, 0);
        if (r < 0)
                fprintf(stderr, "bench-daemon: %s %s: %s\n", member, name, error.message ? error.message : strerror(-r));
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        return r;
}

static int ping(sd_bus *bus) {
        return sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, "org.freedesktop.DBus.Peer", "Ping", NULL, NULL,
                                  "");
}

static int write_file(const char *dir, const char *file, const char *value) {
        char path[4096];
        int fd, r = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, file);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, value, strlen(value)) < 0)
                r = -errno;
        close(fd);
        return r;
}

/*
 * What hcbsd asks of the kernel for a create and a delete, without hcbsd:
 * on cgroup v1 (where bench-daemon.sh runs) a new group has the 1 s period
 * already, so neither side writes it; each write costs a walk of the whole
 * RT tree in the kernel, so one more here would lower hcbsd's ratio.
 */
static int raw_pair(const char *dir, unsigned i) {
        char g[4096];
        int r;

        snprintf(g, sizeof(g), "%s/raw-%u", dir, i);
        if (mkdir(g, 0755) < 0)
                return -errno;
        r = write_file(g, "cpu.rt_runtime_us", "2");
        if (r >= 0)
                r = write_file(g, "cpu.rt_runtime_us", "0");
        if (rmdir(g) < 0 && r >= 0)
                r = -errno;
        return r;
}

/*
 * Apply's floor: all the groups, then all the deletions, as `hcbsctl apply`
 * makes them (a pair at a time would keep the tree small, and each runtime
 * write walks the whole RT tree in the kernel: not the same work).
 */
static int rawbatch(unsigned n, const char *dir) {
        double start = now_us();
        char g[4096];
        int r = 0;

        for (unsigned i = 0; i < n && r >= 0; i++) {
                snprintf(g, sizeof(g), "%s/raw-%u", dir, i);
                r = mkdir(g, 0755) < 0 ? -errno : write_file(g, "cpu.rt_runtime_us", "2");
        }
        for (unsigned i = 0; i < n && r >= 0; i++) {
                snprintf(g, sizeof(g), "%s/raw-%u", dir, i);
                r = write_file(g, "cpu.rt_runtime_us", "0");
                if (r >= 0 && rmdir(g) < 0)
                        r = -errno;
        }
        if (r < 0) {
                fprintf(stderr, "bench-daemon rawbatch: %s: %s\n", g, strerror(-r));
                return 1;
        }
        printf("n=%u seconds=%.4f\n", n, (now_us() - start) / 1e6);
        return 0;
}

static int timed(const char *mode, unsigned n, const char *arg) {
        sd_bus *bus = NULL;
        double *t = calloc(n, sizeof(double));
        char name[256];
        int r = 0;

        if (!t)
                return 1;
        if (strcmp(mode, "raw") != 0 && bus_open(&bus) < 0)
                return free(t), 1;
        for (unsigned i = 0; i < n && r >= 0; i++) {
                double start = now_us();
                snprintf(name, sizeof(name), "%s-%u", arg ? arg : "b", i);
                if (strcmp(mode, "ping") == 0)
                        r = ping(bus);
                else if (strcmp(mode, "raw") == 0)
                        r = raw_pair(arg, i);
                else if (strcmp(mode, "fill") == 0)
                        r = call(bus, "CreateGroup", name, 1);
                else {
                        snprintf(name, sizeof(name), "%s", arg);
                        r = call(bus, "CreateGroup", name, 1);
                        if (r >= 0)
                                r = call(bus, "DeleteGroup", name, 0);
                }
                t[i] = now_us() - start;
        }
        if (r < 0) {
                fprintf(stderr, "bench-daemon %s: %s\n", mode, strerror(-r));
                return 1;
        }
        report(t, n);
        free(t);
        sd_bus_flush_close_unref(bus);
        return 0;
}

/* One client of `clients`: its own connection, pairs until the deadline; writes its count to fd. */
static int client(unsigned id, double deadline, const char *prefix, int fd) {
        sd_bus *bus = NULL;
        char name[256];
        unsigned long calls = 0;

        if (bus_open(&bus) < 0)
                return 1;
        snprintf(name, sizeof(name), "%s-c%u", prefix, id);
        while (now_us() < deadline) {
                if (call(bus, "CreateGroup", name, 1) < 0 || call(bus, "DeleteGroup", name, 0) < 0)
                        return 1;
                calls += 2;
        }
        sd_bus_flush_close_unref(bus);
        return write(fd, &calls, sizeof(calls)) == (ssize_t) sizeof(calls) ? 0 : 1;
}

static int clients(unsigned k, double seconds, const char *prefix) {
        int p[2];
        double start, deadline;
        unsigned long total = 0, calls;
        int failed = 0;

        if (pipe(p) < 0)
                return 1;
        start = now_us();
        deadline = start + seconds * 1e6;
        for (unsigned i = 0; i < k; i++) {
                pid_t pid = fork();
                if (pid < 0)
                        return 1;
                if (pid == 0)
                        _exit(client(i, deadline, prefix, p[1]));
        }
        close(p[1]);
        for (unsigned i = 0; i < k; i++) {
                int status;
                if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        failed++;
        }
        while (read(p[0], &calls, sizeof(calls)) == (ssize_t) sizeof(calls))
                total += calls;
        if (failed) {
                fprintf(stderr, "bench-daemon clients: %d of %u clients failed\n", failed, k);
                return 1;
        }
        seconds = (now_us() - start) / 1e6;
        printf("calls=%lu seconds=%.2f calls_per_s=%.0f\n", total, seconds, (double) total / seconds);
        return 0;
}

static int read_small(int dirfd, const char *file) {
        char buf[4096];
        int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                ;
        close(fd);
        return n < 0 ? -1 : 0;
}

/* What adoption must read of the group at dirfd/path and below; the number of groups, or -1. */
static long read_group(int dirfd, const char *path) {
        char p[4096];
        struct stat st;
        long count = 1;
        int fd;
        DIR *d;

        snprintf(p, sizeof(p), "%s/cpu.rt_period_us", path);
        if (read_small(dirfd, p) < 0)
                return -1;
        snprintf(p, sizeof(p), "%s/cpu.rt_runtime_us", path);
        if (read_small(dirfd, p) < 0)
                return -1;
        snprintf(p, sizeof(p), "%s/cgroup.procs", path);
        if (read_small(dirfd, p) < 0 || fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -1;
        if (st.st_nlink == 2)
                return count;
        fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d)
                return -1;
        for (struct dirent *de; (de = readdir(d));) {
                long k;
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
                k = read_group(dirfd, p);
                if (k < 0) {
                        closedir(d);
                        return -1;
                }
                count += k;
        }
        closedir(d);
        return count;
}

static int readtree(const char *dir) {
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        double start = now_us();
        long n;

        n = dirfd >= 0 ? read_group(dirfd, ".") : -1;
        if (n < 0) {
                fprintf(stderr, "bench-daemon readtree: cannot read %s: %s\n", dir, strerror(errno));
                return 1;
        }
        printf("groups=%ld ms=%.1f\n", n - 1, (now_us() - start) / 1000.0);
        close(dirfd);
        return 0;
}

/* VmHWM of pid, in kB; -1 if unknown. */
static long peak_rss_kb(pid_t pid) {
        char path[64], line[256];
        long kb = -1;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

/*
 * The CPU time pid's threads ran, in ms, the ended ones included (start-up
 * reads on several): utime + stime of /proc/PID/stat, in clock ticks (10 ms
 * at USER_HZ 100); -1 if unknown.
 */
static double cpu_ms(pid_t pid) {
        unsigned long long utime, stime;
        char path[64], buf[1024], *p;
        long hz = sysconf(_SC_CLK_TCK);
        size_t n;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')'); /* after the name, which may hold anything */
        if (!p || hz <= 0 ||
            sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
                return -1;
        return (double) (utime + stime) * 1000.0 / (double) hz;
}

/* Waits up to 60 s for a datagram holding READY=1 on fd; 0 or -1. */
static int wait_ready(int fd, pid_t pid) {
        char buf[4096];

        for (int waited = 0; waited < 60000; waited += 100) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t n;

                if (poll(&p, 1, 100) > 0 && (n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
                        buf[n] = '\0';
                        if (strstr(buf, "READY=1"))
                                return 0;
                }
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        return -1; /* exited before it was ready */
        }
        return -1;
}

static int startup(char **argv) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        double start, ready, cpu;
        long hwm;
        int fd, status;
        pid_t pid;

        snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/hcbs-bench-notify-%d", (int) getpid());
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                fprintf(stderr, "bench-daemon startup: notify socket: %s\n", strerror(errno));
                return 1;
        }
        start = now_us();
        pid = fork();
        if (pid == 0) {
                setenv("NOTIFY_SOCKET", sa.sun_path, 1);
                execv(argv[0], argv);
                _exit(127);
        }
        if (pid < 0 || wait_ready(fd, pid) < 0) {
                fprintf(stderr, "bench-daemon startup: %s did not get ready\n", argv[0]);
                unlink(sa.sun_path);
                if (pid > 0 && kill(pid, SIGKILL) == 0)
                        (void) waitpid(pid, NULL, 0);
                return 1;
        }
        ready = now_us();
        hwm = peak_rss_kb(pid);
        cpu = cpu_ms(pid);
        (void) kill(pid, SIGTERM);
        (void) waitpid(pid, &status, 0);
        unlink(sa.sun_path);
        close(fd);
        printf("ms=%.1f hwm_kb=%ld cpu_ms=%.1f\n", (ready - start) / 1000.0, hwm, cpu);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
        if (argc >= 3 && strcmp(argv[1], "startup") == 0)
                return startup(argv + 2);
        if (argc == 4 && strcmp(argv[1], "rawbatch") == 0)
                return rawbatch((unsigned) atoi(argv[2]), argv[3]);
        if (argc == 3 && strcmp(argv[1], "readtree") == 0)
                return readtree(argv[2]);
        if (argc >= 3 && strcmp(argv[1], "clients") == 0 && argc == 5)
                return clients((unsigned) atoi(argv[2]), atof(argv[3]), argv[4]);
        if (argc >= 3 && (strcmp(argv[1], "ping") == 0 || strcmp(argv[1], "roundtrip") == 0 ||
                          strcmp(argv[1], "raw") == 0 || strcmp(argv[1], "fill") == 0))
                return timed(argv[1], (unsigned) atoi(argv[2]), argc > 3 ? argv[3] : NULL);
        fprintf(stderr, "usage: bench-daemon ping N | roundtrip N NAME | raw N DIR | rawbatch N DIR | fill N PREFIX | "
                        "clients K SECONDS PREFIX | readtree DIR | startup HCBSD ARGS...\n");
        return 2;
}
