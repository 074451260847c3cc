/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The BPF collector's cost, side by side in one run (needs root and a
 * kernel that takes the collector):
 *   - the floor: what a sched_switch program costs before it counts
 *     anything (an empty program, tp_btf and raw_tp), and the ways to tell
 *     that a task is not counted (bench-floor.bpf.c), each attached alone
 *     during a pipe ping-pong; ns per event from the kernel's BPF run-time
 *     statistics (BPF_ENABLE_STATS);
 *   - a pipe ping-pong between two processes, and `perf bench sched
 *     messaging` when perf is installed, each timed without the collector,
 *     with empty programs on its three tracepoints (the wall-time floor),
 *     with it loaded while the load's cgroup is not counted (the filter
 *     alone), and with the load's cgroup counted (every event recorded),
 *     interleaved REPS times; the median wall time of each and its ratio,
 *     and the sched_switch program's ns per event;
 *   - with --compare OBJECT: another build of the collector (say, the one
 *     before a change, built from an older tree: bpf.o files are
 *     self-contained), loaded by name: its programs attached, the load's
 *     cgroup counted through its `groups` map (cgroup id -> slot 0), its
 *     sched_switch program's ns per event in the same runs.
 * The targets (issue 24): the sched_switch program at most 100 ns per
 * event for a task not counted and 200 ns counted (where the floor itself
 * is above 100 ns, on what the collector adds to it); the load's wall time
 * at most 1.02x (not counted) and 1.05x (counted) its time with the empty
 * programs. Each bench adds these rows to `make bench`'s table.
 * The load runs in a scratch cgroup of the cpu controller it creates
 * (/sys/fs/cgroup/cpu/hcbs-bench-PID) and removes; SCHED_OTHER only.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench-floor.skel.h"
#include "bench-table.h"
#include "macro.h"
#include "stats-bpf.h"

#define REPS 5
#define ROUND_TRIPS 50000
#define CPU_MNT "/sys/fs/cgroup/cpu"
#define TARGET_NOT_COUNTED 100.0
#define TARGET_COUNTED 200.0
/* the load's wall time with the collector over its time with empty programs on the same tracepoints */
#define TARGET_WALL_NOT_COUNTED 1.02
#define TARGET_WALL_COUNTED 1.05

static char cg[256];
static const char *compare; /* --compare OBJECT */
static struct bench_floor *floor_skel; /* bench-floor.bpf.c, loaded once */

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

/*
 * Two processes in the cgroup bounce a byte ROUND_TRIPS times, both on CPU 0
 * (each switch is one to the other: two per round trip; left to the
 * scheduler, runs went to two CPUs now and then, with an idle switch on
 * each, wakeup IPIs, and 6 times the wall time); returns the wall time.
 */
static double ping_pong(void) {
        cpu_set_t one, was;
        int a[2], b[2];
        char c = 0;
        double start, t;
        pid_t child;

        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (sched_getaffinity(0, sizeof(was), &was) < 0 || sched_setaffinity(0, sizeof(one), &one) < 0)
                return -1;
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
        (void) sched_setaffinity(0, sizeof(was), &was);
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

typedef struct Prog {
        unsigned long long run_ns, runs;
} Prog;

static int prog_stats(int fd, Prog *ret) {
        struct bpf_prog_info info = {};
        __u32 len = sizeof(info);

        if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
                return -errno;
        ret->run_ns = info.run_time_ns;
        ret->runs = info.run_cnt;
        return 0;
}

static double ns_per_event(const Prog *p) {
        return p->runs ? (double) p->run_ns / (double) p->runs : 0;
}

/* One load with program fd attached (the caller's doing): its time and runs added to *acc. */
static double timed_load(double (*load)(void), int fd, Prog *acc) {
        Prog before = {}, after = {};
        double t;

        (void) prog_stats(fd, &before);
        t = load();
        (void) prog_stats(fd, &after);
        acc->run_ns += after.run_ns - before.run_ns;
        acc->runs += after.runs - before.runs;
        return t;
}

/* ---- the floor: bench-floor.bpf.c's programs, one at a time ---------------------------- */

static int floor_bench(double *ret_floor) {
        struct bench_floor *skel = floor_skel;
        struct {
                struct bpf_program *prog;
                const char *what;
        } progs[5];
        double ns[5] = {};
        int r = 0, stats_fd;

        progs[0].prog = skel->progs.floor_tp_btf, progs[0].what = "empty tp_btf program (the floor)";
        progs[1].prog = skel->progs.floor_raw_tp, progs[1].what = "empty raw_tp program";
        progs[2].prog = skel->progs.by_hash, progs[2].what = "not counted? cgroup id + hash lookup (before)";
        progs[3].prog = skel->progs.by_bit, progs[3].what = "not counted? cgroup id + filter bit (now)";
        progs[4].prog = skel->progs.by_storage, progs[4].what = "not counted? task-local storage, cached";
        stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
        if (stats_fd < 0) {
                printf("(no BPF run-time statistics: %s; the floor is not shown)\n", strerror(errno));
                return 0;
        }
        for (int rep = 0; rep < 3 && r >= 0; rep++) /* interleaved */
                for (int i = 0; i < 5 && r >= 0; i++) {
                        struct bpf_link *link = bpf_program__attach(progs[i].prog);
                        Prog p = {};
                        if (!link) {
                                r = -errno;
                                break;
                        }
                        (void) timed_load(ping_pong, bpf_program__fd(progs[i].prog), &p);
                        bpf_link__destroy(link);
                        if (rep == 0 || ns_per_event(&p) < ns[i]) /* least of 3: the program, not the machine */
                                ns[i] = ns_per_event(&p);
                }
        close(stats_fd);
        if (r < 0)
                return r;
        printf("\nsched_switch programs that count nothing (pipe ping-pong, least of 3 runs each):\n");
        for (int i = 0; i < 5; i++)
                printf("  %-48s %5.0f ns/event\n", progs[i].what, ns[i]);
        *ret_floor = ns[0];
        return 0;
}

/* ---- --compare: another build of the collector, loaded by its map and program names --- */

typedef struct Other {
        struct bpf_object *obj;
        struct bpf_link *links[8];
        int n_links, switch_fd;
} Other;

static void other_close(Other *o) {
        for (int i = 0; i < o->n_links; i++)
                bpf_link__destroy(o->links[i]);
        bpf_object__close(o->obj);
        *o = (Other) {};
}

/*
 * The offset of global variable name in the object's section sec (".rodata", ".bss") and the
 * section's map, when the variable is there with that size; -1 else.
 */
static long other_var(struct bpf_object *obj, const char *sec, const char *name, size_t size,
                      struct bpf_map **ret_map) {
        struct bpf_map *map = bpf_object__find_map_by_name(obj, sec);
        const struct btf *btf = bpf_object__btf(obj);
        const struct btf_var_secinfo *vs;
        const struct btf_type *t;
        int id;

        if (!map || !btf || (id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC)) < 0)
                return -1;
        t = btf__type_by_id(btf, (uint32_t) id);
        vs = btf_var_secinfos(t);
        for (unsigned i = 0; i < btf_vlen(t); i++, vs++)
                if (strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off), name) == 0) {
                        if (vs->size != size || vs->offset + size > bpf_map__value_size(map))
                                return -1;
                        *ret_map = map;
                        return (long) vs->offset;
                }
        return -1;
}

/*
 * Loads and attaches OBJECT; counts cgid when count. Two layouts of `groups`: cgroup id -> a slot
 * (a u32: the builds before the per-CPU counters), or cgroup id -> one struct of counters per CPU
 * in a stride of HCBS_STATS_CPU_STRIDE, sized at load with `ncpus` and the id's bit of the
 * membership filter `member_bits` set (the builds since), as stats-bpf.c loads it.
 */
static int other_open(Other *o, uint64_t cgid, bool count) {
        struct bpf_program *p;
        struct bpf_map *groups;
        uint32_t slot = 0;
        int n = libbpf_num_possible_cpus();
        bool per_cpu;

        *o = (Other) { .switch_fd = -1 };
        o->obj = bpf_object__open_file(compare, NULL);
        if (!o->obj)
                return -errno;
        groups = bpf_object__find_map_by_name(o->obj, "groups");
        if (!groups || n <= 0)
                return -ENOENT;
        per_cpu = bpf_map__value_size(groups) == HCBS_STATS_CPU_STRIDE;
        if (per_cpu) {
                struct bpf_map *rodata;
                long at = other_var(o->obj, ".rodata", "ncpus", sizeof(uint32_t), &rodata);
                size_t size;
                char *data = at < 0 ? NULL : (char *) bpf_map__initial_value(rodata, &size); /* before load */
                uint32_t ncpus = (uint32_t) n;
                if (!data || bpf_map__set_max_entries(groups, 16) < 0 ||
                    bpf_map__set_value_size(groups, ncpus * HCBS_STATS_CPU_STRIDE) < 0)
                        return -EINVAL; /* not the layout this knows */
                memcpy(data + at, &ncpus, sizeof(ncpus));
        }
        if (bpf_object__load(o->obj) < 0)
                return -errno;
        bpf_object__for_each_program(p, o->obj) {
                const char *sec = bpf_program__section_name(p);
                if (strcmp(sec, "raw_tp") == 0 || o->n_links == 8)
                        continue; /* not attachable by name */
                o->links[o->n_links] = bpf_program__attach(p);
                if (!o->links[o->n_links])
                        return -errno;
                o->n_links++;
                if (strstr(sec, "sched_switch"))
                        o->switch_fd = bpf_program__fd(p);
        }
        if (o->switch_fd < 0)
                return -ENOENT;
        if (!count)
                return 0;
        if (per_cpu) { /* the id's counters, then its bit in the live .bss (a plain object has no mmap of it) */
                struct bpf_map *bss;
                long at = other_var(o->obj, ".bss", "member_bits", HCBS_FILTER_WORDS * sizeof(uint64_t), &bss);
                _cleanup_free_ char *zero = calloc((size_t) n, HCBS_STATS_CPU_STRIDE);
                _cleanup_free_ char *data = at < 0 ? NULL : calloc(1, bpf_map__value_size(bss));
                uint32_t key = 0;
                uint64_t word;
                if (!data || !zero || bpf_map_update_elem(bpf_map__fd(groups), &cgid, zero, BPF_ANY) < 0 ||
                    bpf_map_lookup_elem(bpf_map__fd(bss), &key, data) < 0)
                        return -EINVAL;
                at += (long) (((cgid / 64) % HCBS_FILTER_WORDS) * sizeof(uint64_t));
                memcpy(&word, data + at, sizeof(word));
                word |= 1ULL << (cgid % 64);
                memcpy(data + at, &word, sizeof(word));
                return bpf_map_update_elem(bpf_map__fd(bss), &key, data, BPF_ANY) < 0 ? -errno : 0;
        }
        if (bpf_map__value_size(groups) != sizeof(slot) ||
            bpf_map_update_elem(bpf_map__fd(groups), &cgid, &slot, BPF_ANY) < 0)
                return -EINVAL; /* not the layout of slots this knows */
        return 0;
}

/* ---- the collector under a load --------------------------------------------------------- */

typedef enum { OFF, EMPTY, FILTER, COUNTED, OTHER_FILTER, OTHER_COUNTED, _MODES } Mode;
static const char *const mode_names[] = {
        "no collector", "empty programs (the floor)", "collector, cgroup not counted", "collector, cgroup counted",
        "--compare, cgroup not counted", "--compare, cgroup counted",
};

/* The load with empty programs on the collector's three tracepoints: what any program there costs it. */
static double empty_load(double (*load)(void)) {
        struct bpf_program *progs[] = {
                floor_skel->progs.floor_tp_btf, floor_skel->progs.floor_wakeup, floor_skel->progs.floor_wakeup_new,
        };
        struct bpf_link *links[ELEMENTSOF(progs)] = {};
        double t = -1;
        size_t i;

        for (i = 0; i < ELEMENTSOF(progs); i++)
                if (!(links[i] = bpf_program__attach(progs[i])))
                        break;
        if (i == ELEMENTSOF(progs))
                t = load();
        for (i = 0; i < ELEMENTSOF(progs); i++)
                bpf_link__destroy(links[i]);
        return t;
}

/* One load in one mode; for the collector's modes also the switch program's time and runs. */
static int run_mode(double (*load)(void), Mode mode, uint64_t cgid, double *ret_t, Prog *ret_prog) {
        char why[512];
        StatsBpf *b = NULL;
        Other other = {};
        Prog unused = {};
        double t;
        int r;

        if (mode == FILTER || mode == COUNTED) {
                r = stats_bpf_open(&b, 16, why, sizeof(why));
                if (r < 0) {
                        fprintf(stderr, "SKIP: bench-stats: the collector does not load: %s\n", why);
                        return r;
                }
                if (mode == COUNTED && (r = stats_bpf_track(b, cgid)) < 0) {
                        stats_bpf_free(b);
                        return r;
                }
                t = timed_load(load, stats_bpf_switch_fd(b), ret_prog ? ret_prog : &unused);
                stats_bpf_free(b);
        } else if (mode == OTHER_FILTER || mode == OTHER_COUNTED) {
                r = other_open(&other, cgid, mode == OTHER_COUNTED);
                if (r < 0) {
                        fprintf(stderr, "bench-stats: --compare %s: %s\n", compare, strerror(-r));
                        other_close(&other);
                        return r;
                }
                t = timed_load(load, other.switch_fd, ret_prog ? ret_prog : &unused);
                other_close(&other);
        } else if (mode == EMPTY)
                t = empty_load(load);
        else
                t = load();
        if (t < 0)
                return -EIO;
        *ret_t = t;
        return 0;
}

/* Whether ns meets target: where the floor itself is above the target, what the collector adds to it. */
static bool meets(double ns, double floor, double target) {
        return floor <= target ? ns <= target : ns - floor <= target;
}

static const char *verdict(double ns, double floor, double target, char buf[static 96]) {
        if (floor <= target)
                snprintf(buf, 96, "target <= %.0f ns: %s", target, meets(ns, floor, target) ? "pass" : "MISS");
        else
                snprintf(buf, 96, "floor %.0f ns is above %.0f: %+.0f ns above it: %s", floor, target, ns - floor,
                         meets(ns, floor, target) ? "pass" : "MISS");
        return buf;
}

/*
 * The verdicts against the targets, printed, and as rows of the reviewer's
 * table (tests/bench/table.sh): the wall time over the floor's, and the
 * sched_switch program's ns per event.
 */
static void report(const char *name, const double *med, const Prog *prog, double floor) {
        double off = med[FILTER] / med[EMPTY], on = med[COUNTED] / med[EMPTY];
        double ns_off = ns_per_event(&prog[FILTER]), ns_on = ns_per_event(&prog[COUNTED]);
        bool wall_off = off <= TARGET_WALL_NOT_COUNTED, wall_on = on <= TARGET_WALL_COUNTED;
        char figure[128], buf[96];

        printf("  wall time over the floor: not counted %.4f (target <= %.2f: %s), counted %.4f (target <= %.2f: %s)\n",
               off, TARGET_WALL_NOT_COUNTED, wall_off ? "pass" : "MISS", on, TARGET_WALL_COUNTED,
               wall_on ? "pass" : "MISS");
        snprintf(figure, sizeof(figure), "collector, %s wall time over empty programs", name);
        bench_table_row(figure, "≤ 1.02 not counted, ≤ 1.05 counted", wall_off && wall_on ? "ok" : "miss",
                        "%.3f / %.3f (the floor, empty programs: %.3f× no programs)", off, on, med[EMPTY] / med[OFF]);
        if (floor <= 0 || !prog[FILTER].runs || !prog[COUNTED].runs)
                return;
        printf("  sched_switch, not counted: %.0f ns/event (%s)\n", ns_off, verdict(ns_off, floor, TARGET_NOT_COUNTED, buf));
        printf("  sched_switch, counted:     %.0f ns/event (%s)\n", ns_on, verdict(ns_on, floor, TARGET_COUNTED, buf));
        snprintf(figure, sizeof(figure), "`sched_switch` program under %s, ns/event", name);
        bench_table_row(figure, "≤ 100 not counted, ≤ 200 counted",
                        meets(ns_off, floor, TARGET_NOT_COUNTED) && meets(ns_on, floor, TARGET_COUNTED) ? "ok" : "miss",
                        "%.0f / %.0f (an empty program: %.0f)", ns_off, ns_on, floor);
}

/*
 * The wall times are taken with the kernel's BPF run-time statistics off
 * (they cost two clock reads per program run); then one more run of each
 * collector mode with them on gives the switch program's ns/event. The
 * wall-time targets are on what the collector adds to empty programs on
 * its three tracepoints: the tracepoints' own cost to the load (a program
 * there at all) is the kernel's, not the collector's, and is shown apart.
 */
static int bench(const char *name, double (*load)(void), uint64_t cgid, double floor) {
        double t[_MODES][REPS], med[_MODES], ignored;
        Mode last = compare ? OTHER_COUNTED : COUNTED;
        Prog prog[_MODES] = {};
        int r, stats_fd;

        for (int i = 0; i < REPS; i++)
                for (Mode m = 0; m <= last; m++) {
                        r = run_mode(load, m, cgid, &t[m][i], NULL);
                        if (r < 0)
                                return r;
                }
        stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME); /* the kernel times BPF programs while we hold it */
        if (stats_fd < 0)
                printf("(no BPF run-time statistics: %s; ns/event not shown)\n", strerror(errno));
        for (Mode m = FILTER; stats_fd >= 0 && m <= last; m++) {
                r = run_mode(load, m, cgid, &ignored, &prog[m]);
                if (r < 0)
                        break;
        }
        if (stats_fd >= 0)
                close(stats_fd);
        printf("\n%s: median of %d interleaved runs\n", name, REPS);
        for (Mode m = 0; m <= last; m++)
                med[m] = median(t[m]);
        for (Mode m = 0; m <= last; m++) {
                printf("  %-30s %8.3f s  ratio %.4f", mode_names[m], med[m], med[m] / med[OFF]);
                if (m > EMPTY)
                        printf(" (%.4f over the floor)", med[m] / med[EMPTY]);
                if (m > EMPTY && prog[m].runs) {
                        double events = (double) prog[m].runs;
                        printf("  sched_switch prog %.0f ns/event (%.0f events/run), wall %+.0f ns/event",
                               ns_per_event(&prog[m]), events, (med[m] - med[OFF]) * 1e9 / events);
                }
                printf("\n");
        }
        report(name, med, prog, floor);
        return 0;
}

int main(int argc, char **argv) {
        double floor = 0;
        struct stat st;
        int r = 0;

        if (argc == 3 && strcmp(argv[1], "--compare") == 0)
                compare = argv[2];
        else if (argc != 1) {
                fprintf(stderr, "usage: %s [--compare COLLECTOR.bpf.o]\n", argv[0]);
                return 2;
        }
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
        printf("BPF collector overhead: %d round trips of a pipe ping-pong%s%s%s\n", ROUND_TRIPS,
               access("/usr/bin/perf", X_OK) == 0 ? ", perf bench sched messaging -g 4 -l 300" : "",
               compare ? "; compared with " : "", compare ? compare : "");
        floor_skel = bench_floor__open_and_load();
        if (!floor_skel) {
                fprintf(stderr, "SKIP: bench-stats: the floor programs do not load: %s\n", strerror(errno));
                (void) rmdir(cg);
                return 0;
        }
        r = floor_bench(&floor);
        if (r >= 0)
                r = bench("pipe ping-pong", ping_pong, (uint64_t) st.st_ino, floor);
        if (r >= 0 && access("/usr/bin/perf", X_OK) == 0)
                r = bench("perf bench sched messaging", messaging, (uint64_t) st.st_ino, floor);
        bench_floor__destroy(floor_skel);
        /* the loads' last processes may still be on their way out (EBUSY): up to 2 s */
        for (int i = 0; i < 200 && rmdir(cg) < 0 && errno == EBUSY; i++)
                (void) nanosleep(&(struct timespec) { .tv_nsec = 10000000 }, NULL);
        if (access(cg, F_OK) == 0 && rmdir(cg) < 0)
                fprintf(stderr, "bench-stats: cannot remove %s: %s\n", cg, strerror(errno));
        return r < 0 && r != -EPERM ? 1 : 0;
}
