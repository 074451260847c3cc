/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../random.h"
#include "bandwidth.h"
#include "kernel-diff.h"
#include "macro.h"
#include "plan.h"

#define MAX_NODES 48
#define N_HELPERS 2

typedef struct Helper {
        pid_t pid;
        bool rt;
        HcbsNode *where;
} Helper;

typedef struct Diff {
        const KernelDiffOptions *o;
        pid_t dl_task; /* a sleeping SCHED_DEADLINE task that loads the root domain */
        CgroupFs *fs;
        HcbsModel *m;
        HcbsNode *scratch;
        HcbsNode *nodes[MAX_NODES];
        unsigned n;
        Helper helpers[N_HELPERS];
        Rng rng;
        KernelDiffResult res;
        unsigned step;
} Diff;

static void disagree(Diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void disagree(Diff *d, const char *fmt, ...) {
        va_list ap;
        d->res.disagreements++;
        fprintf(stderr, "DISAGREEMENT op %u: ", d->step);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static bool v2(const Diff *d) {
        return cgroupfs_is_v2(d->fs);
}

/* Brings the model's copy of n in line with the kernel after a disagreement, to keep going. */
static void resync(Diff *d, HcbsNode *n) {
        uint64_t p;
        int64_t rt;
        if (cgroupfs_read_rt(d->fs, n->path, &p, &rt) == 0)
                hcbs_model_set(d->m, n, p, rt);
}

static void compare_values(Diff *d, HcbsNode *n, const char *what) {
        uint64_t p;
        int64_t rt;
        int r = cgroupfs_read_rt(d->fs, n->path, &p, &rt);
        if (r < 0) {
                disagree(d, "%s: cannot read %s back: %s", what, n->path, strerror(-r));
                return;
        }
        if (p != n->period_us || rt != n->runtime_us) {
                disagree(d, "%s: %s holds %" PRId64 "/%" PRIu64 ", model %" PRId64 "/%" PRIu64, what, n->path, rt, p,
                         n->runtime_us, n->period_us);
                hcbs_model_set(d->m, n, p, rt);
        }
}

/* rtmax v7: what n's server runs on each CPU (cpu.rt.max.effective.local) against the model's. */
static void compare_cpus(Diff *d, const HcbsNode *n, const char *what) {
        CgroupFsCpuRuntime lines[HCBS_CPUS_MAX];
        size_t k = 0;
        int r = cgroupfs_read_rt_cpus(d->fs, n->path, lines, ELEMENTSOF(lines), &k);

        if (r < 0) {
                disagree(d, "%s: cannot read cpu.rt.max.effective.local of %s: %s", what, n->path, strerror(-r));
                return;
        }
        for (size_t i = 0; i < k; i++) {
                int64_t want = hcbs_node_cpu_runtime_us(d->m, n, lines[i].cpu);

                d->res.cpu_checks++;
                if (lines[i].runtime_us != want || lines[i].period_us != n->period_us)
                        disagree(d, "%s: %s on CPU %u: runtime %" PRId64 " period %" PRIu64 ", model %" PRId64 " %" PRIu64
                                 " (sum %" PRIu64 "ns)",
                                 what, n->path, lines[i].cpu, lines[i].runtime_us, lines[i].period_us, want,
                                 n->period_us, lines[i].cpu < hcbs_model_nr_cpus(d->m) ? n->cpu_sum[lines[i].cpu] : 0);
        }
}

/* rtmax: the internal runtime the kernel gave n's servers (cpu.rt.internal) against the model's. */
static void compare_internal(Diff *d, const HcbsNode *n, const char *what) {
        const HcbsProfile *p = hcbs_model_profile(d->m);
        uint64_t per, rt, want;
        int r;

        if (!p->max_delegation || !n->parent)
                return; /* the root has no cpu.rt.internal */
        if (p->percpu_admission) {
                compare_cpus(d, n, what);
                return;
        }
        r = cgroupfs_read_rt_internal(d->fs, n->path, &per, &rt);
        if (r < 0) {
                disagree(d, "%s: cannot read the internal bandwidth of %s: %s", what, n->path, strerror(-r));
                return;
        }
        d->res.internal_checks++;
        want = hcbs_node_internal_runtime_us(p, n);
        if (rt != want || per != n->period_us)
                disagree(d, "%s: %s internal %" PRIu64 "/%" PRIu64 ", model %" PRIu64 "/%" PRIu64
                         " (bw %" PRIu64 ", children %" PRIu64 ")",
                         what, n->path, rt, per, want, n->period_us, n->bw, n->children_bw);
}

static HcbsNode *pick(Diff *d) {
        return d->nodes[rng_below(&d->rng, d->n)];
}

/* One write with a random value, judged by both. */
static void op_write(Diff *d, HcbsNode *n, HcbsFile file, int64_t rt, uint64_t p) {
        HcbsCheck c = hcbs_model_check_write(d->m, n, file, rt, p);
        CgroupFsError e = {};
        int r = cgroupfs_write_rt(d->fs, n->path, file, rt, p, &e);
        int k = r < 0 ? -r : 0;

        d->res.writes++;
        d->res.short_on_cpu += c.cpu > 0;
        if (k != c.kernel_errno) {
                disagree(d, "write %s=%s: kernel %s, model %s (reason %d)", e.file[0] ? e.file : n->path,
                         file == HCBS_FILE_PERIOD ? "period" : "runtime", k ? strerror(k) : "ok",
                         c.kernel_errno ? strerror(c.kernel_errno) : "ok", c.reason);
                fprintf(stderr, "    value runtime=%" PRId64 " period=%" PRIu64 "; group %" PRId64 "/%" PRIu64
                        " nrt=%u parent children_bw=%" PRIu64 " parent bw=%" PRIu64 "\n",
                        rt, p, n->runtime_us, n->period_us, n->nrt, n->parent ? n->parent->children_bw : 0,
                        n->parent ? n->parent->bw : 0);
                resync(d, n);
                return;
        }
        if (k) {
                d->res.refused++;
                d->res.refused_by[c.reason]++;
                return;
        }
        d->res.accepted++;
        if (hcbs_model_profile(d->m)->max_delegation)
                d->res.switches += (n->runtime_us < 0) != (rt < 0);
        if (file == HCBS_FILE_PERIOD)
                hcbs_model_set(d->m, n, p, n->runtime_us);
        else if (file == HCBS_FILE_MAX)
                hcbs_model_set(d->m, n, p, rt);
        else
                hcbs_model_set(d->m, n, n->period_us, rt);
        compare_values(d, n, "after write");
        compare_internal(d, n, "after write");
        if (n->parent)
                compare_internal(d, hcbs_node_context(hcbs_model_profile(d->m), n->parent), "after write, context");
}

static void op_random_write(Diff *d) {
        /* the root's files carry the HCBS root reserve (dl_check_tg) and its RT kernel threads */
        HcbsNode *n = d->o->write_root && rng_below(&d->rng, 8) == 0 ? hcbs_model_root(d->m) : pick(d);

        /* near the top, where the root reserve and the global limit part ways */
        if (n == hcbs_model_root(d->m) && n->period_us && rng_below(&d->rng, 2)) {
                int64_t rt = (int64_t) (n->period_us * (88 + rng_below(&d->rng, 9)) / 100);
                if (d->o->iface == HCBS_IFACE_RTMAX)
                        op_write(d, n, HCBS_FILE_MAX, rt, n->period_us);
                else
                        op_write(d, n, HCBS_FILE_RUNTIME, rt, 0);
                return;
        }
        if (d->o->iface == HCBS_IFACE_RTMAX) {
                /* v6: a quarter "max" (delegation switches), mostly the group's own period so reservations
                 * stay small enough to nest */
                uint64_t p = rng_below(&d->rng, 3) == 0 || n->period_us == 0 ? rng_period(&d->rng) : n->period_us;
                int64_t rt = rng_below(&d->rng, 4) == 0 ? -1 : rng_runtime(&d->rng, p ? p : 1000);
                op_write(d, n, HCBS_FILE_MAX, rt, p);
        } else if (rng_below(&d->rng, 2))
                op_write(d, n, HCBS_FILE_PERIOD, 0, rng_period(&d->rng));
        else
                op_write(d, n, HCBS_FILE_RUNTIME, rng_runtime(&d->rng, n->period_us ? n->period_us : 1000), 0);
}

/* cpuset.cpus.effective of n against the model's effective CPUs. */
static void compare_effective(Diff *d, const HcbsNode *n, const char *what) {
        char p[PATH_MAX], buf[HCBS_CPUSET_STRLEN], want[HCBS_CPUSET_STRLEN];
        HcbsCpuSet eff;
        int r;

        snprintf(p, sizeof(p), "%s/cpuset.cpus.effective", n->path);
        r = cgroupfs_read_file(d->fs, p, buf, sizeof(buf));
        if (r < 0 || hcbs_cpuset_parse(buf, &eff) < 0) {
                disagree(d, "%s: cannot read %s: %s", what, p, r < 0 ? strerror(-r) : "not a CPU list");
                return;
        }
        d->res.effective_checks++;
        if (!hcbs_cpuset_equal(&eff, &n->effective))
                disagree(d, "%s: %s covers CPUs %s, model %s", what, n->path, buf,
                         hcbs_cpuset_format(&n->effective, want, sizeof(want)));
}

/* rtmax v7: a cpuset.cpus write of a random set of the CPUs online (sometimes none: the parent's). */
static void op_cpus(Diff *d) {
        const HcbsProfile *p = hcbs_model_profile(d->m);
        HcbsNode *n = pick(d);
        HcbsCpuSet cpus = {};
        CgroupFsError e = {};
        HcbsCheck c;
        char list[HCBS_CPUSET_STRLEN];
        int r, k;

        HCBS_CPUSET_FOREACH(cpu, &p->online)
                if (rng_below(&d->rng, 2))
                        hcbs_cpuset_add(&cpus, (unsigned) cpu);
        c = hcbs_model_check_cpus(d->m, n, &cpus);
        r = cgroupfs_write_cpus(d->fs, n->path, &cpus, &e);
        k = r < 0 ? -r : 0;
        d->res.cpus_writes++;
        if (k != c.kernel_errno) {
                disagree(d, "write %s/cpuset.cpus=%s: kernel %s, model %s (%u reserved at or below)", n->path,
                         hcbs_cpuset_format(&cpus, list, sizeof(list)), k ? strerror(k) : "ok",
                         c.kernel_errno ? strerror(c.kernel_errno) : "ok", n->n_reserved);
                return;
        }
        if (k) {
                d->res.cpus_refused++;
                d->res.refused_by[c.reason]++;
                return;
        }
        d->res.cpus_accepted++;
        hcbs_model_set_cpus(d->m, n, &cpus);
        for (unsigned i = 0; i < d->n; i++)
                if (d->nodes[i] == n || hcbs_node_is_ancestor(n, d->nodes[i]))
                        compare_effective(d, d->nodes[i], "after cpuset write");
}

static bool has_helpers(const Diff *d, const HcbsNode *n) {
        return n->nprocs > 0;
}

static void op_create(Diff *d) {
        HcbsNode *parent = pick(d), *n;
        CgroupFsError e = {};
        char name[32];

        if (d->n >= MAX_NODES || parent->depth - d->scratch->depth >= d->o->max_depth)
                return;
        /* v2: no children with controllers under a group holding processes; v6 has internal tasks, and cgroup
         * v2 allows them beside the threaded cpu controller, so try */
        if (v2(d) && ((d->o->iface != HCBS_IFACE_RTMAX && has_helpers(d, parent)) ||
                      cgroupfs_enable_cpu(d->fs, parent->path, &e) < 0))
                return;
        /* v7: the cpuset controller too, so that each group has a cpuset.cpus of its own */
        if (hcbs_model_profile(d->m)->cpuset_coupling && cgroupfs_enable_cpuset(d->fs, parent->path, &e) < 0)
                return;
        snprintf(name, sizeof(name), "g%u", d->step);
        if (hcbs_model_add(d->m, parent, name, &n) < 0)
                return;
        if (cgroupfs_mkdir(d->fs, n->path, &e) < 0) {
                disagree(d, "mkdir %s: %s", n->path, strerror(e.error));
                hcbs_model_remove(d->m, n);
                return;
        }
        d->nodes[d->n++] = n;
        d->res.creates++;
        compare_values(d, n, "new group");
}

static void forget(Diff *d, HcbsNode *n) {
        for (unsigned i = 0; i < d->n; i++)
                if (d->nodes[i] == n) {
                        d->nodes[i] = d->nodes[--d->n];
                        return;
                }
}

static void op_delete(Diff *d) {
        HcbsNode *n = pick(d);
        CgroupFsError e = {};
        int r, expected;

        if (n == d->scratch || n->first_child)
                return;
        /* drop the runtime first, so the bandwidth returns now rather than an RCU grace period later
         * (a v6 "max" group holds none) */
        if (n->runtime_us != 0 && !hcbs_node_is_max(hcbs_model_profile(d->m), n)) {
                op_write(d, n, d->o->iface == HCBS_IFACE_RTMAX ? HCBS_FILE_MAX : HCBS_FILE_RUNTIME, 0, n->period_us);
                if (n->runtime_us != 0)
                        return;
        }
        expected = n->nprocs > 0 ? EBUSY : 0;
        cgroupfs_set_busy_retries(d->fs, 0);
        r = cgroupfs_rmdir(d->fs, n->path, &e);
        if ((r < 0 ? -r : 0) != expected) {
                disagree(d, "rmdir %s: kernel %s, expected %s", n->path, r < 0 ? strerror(-r) : "ok",
                         expected ? strerror(expected) : "ok");
                return;
        }
        if (r == 0) {
                forget(d, n);
                hcbs_model_remove(d->m, n);
                d->res.deletes++;
        }
}

static void move_tasks(Diff *d, Helper *h, HcbsNode *to) {
        HcbsNode *from = h->where;
        hcbs_model_set_tasks(d->m, from, from->nprocs - 1, from->nrt - h->rt);
        hcbs_model_set_tasks(d->m, to, to->nprocs + 1, to->nrt + h->rt);
        h->where = to;
}

static void op_attach(Diff *d) {
        Helper *h = &d->helpers[rng_below(&d->rng, N_HELPERS)];
        HcbsNode *to = rng_below(&d->rng, 8) == 0 ? hcbs_model_root(d->m) : pick(d);
        CgroupFsError e = {};
        int expected, r;

        if (v2(d) && to->first_child && to != hcbs_model_root(d->m) && d->o->iface != HCBS_IFACE_RTMAX)
                return; /* v2 core rule, not ours: no processes in inner groups */
        expected = hcbs_model_can_attach(d->m, to, h->rt) ? 0 : EINVAL; /* cpu_cgroup_can_attach() */
        r = cgroupfs_attach(d->fs, to->path, h->pid, &e);
        /* cgroup v2's own rules come first and use errnos HCBS never does: a group with populated
         * children takes no processes (EBUSY), nor does the child of a group with processes, an
         * invalid domain (EOPNOTSUPP) */
        if (r == -EOPNOTSUPP || (r == -EBUSY && to->first_child)) {
                d->res.core_refusals++;
                return;
        }
        d->res.attaches++;
        d->res.internal_attaches += r == 0 && to->first_child && to != hcbs_model_root(d->m);
        if ((r < 0 ? -r : 0) != expected) {
                disagree(d, "attach %s pid %d to '%s': kernel %s, model %s", h->rt ? "RT" : "non-RT", h->pid,
                         to->path, r < 0 ? strerror(-r) : "ok", expected ? strerror(expected) : "ok");
                return;
        }
        if (r == 0)
                move_tasks(d, h, to);
}

static void op_setscheduler(Diff *d) {
        Helper *h = &d->helpers[rng_below(&d->rng, N_HELPERS)];
        struct sched_param sp = { .sched_priority = h->rt ? 0 : 1 };
        int expected = h->rt || hcbs_model_can_setscheduler(d->m, h->where) ? 0 : EPERM;
        int r = sched_setscheduler(h->pid, h->rt ? SCHED_OTHER : SCHED_FIFO, &sp) < 0 ? errno : 0;

        d->res.setschedulers++;
        if (r != expected) {
                disagree(d, "sched_setscheduler(%s) pid %d in '%s': kernel %s, model %s", h->rt ? "OTHER" : "FIFO",
                         h->pid, h->where->path, r ? strerror(r) : "ok", expected ? strerror(expected) : "ok");
                return;
        }
        if (r == 0) {
                HcbsNode *w = h->where;
                hcbs_model_set_tasks(d->m, w, w->nprocs, w->nrt + (h->rt ? -1 : 1));
                h->rt = !h->rt;
        }
}

static pid_t spawn_helper(bool rt) {
        pid_t pid = fork();
        if (pid == 0) {
                for (;;)
                        pause();
        }
        if (pid > 0 && rt) {
                struct sched_param sp = { .sched_priority = 1 };
                if (sched_setscheduler(pid, SCHED_FIFO, &sp) < 0) {
                        int r = -errno;
                        kill(pid, SIGKILL);
                        waitpid(pid, NULL, 0);
                        return r;
                }
        }
        return pid < 0 ? -errno : pid;
}

/*
 * Removes a scratch subtree bottom-up. Each group drops to runtime 0 before
 * its rmdir: a removed group's ratio stays in its parent's sum until the
 * kernel releases it, after an RCU grace period, and would make the next
 * run's writes fail.
 */
static void remove_tree(CgroupFs *fs, HcbsInterface iface, const char *path) {
        _cleanup_close_ int fd = openat(cgroupfs_dirfd(fs), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *dir;
        struct dirent *de;

        if (fd < 0)
                return;
        dir = fdopendir(TAKE_FD(fd));
        if (!dir)
                return;
        while ((de = readdir(dir)))
                if (de->d_type == DT_DIR && de->d_name[0] != '.') {
                        char child[PATH_MAX];
                        snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
                        remove_tree(fs, iface, child);
                }
        closedir(dir);
        cgroupfs_set_busy_retries(fs, 50);
        (void) cgroupfs_write_rt(fs, path, iface == HCBS_IFACE_RTMAX ? HCBS_FILE_MAX : HCBS_FILE_RUNTIME, 0, 1000000,
                                 NULL);
        (void) cgroupfs_rmdir(fs, path, NULL);
}

/* Scratch trees of earlier runs whose process is gone (a crashed test) are ours to remove. */
static void remove_stale(CgroupFs *fs, HcbsInterface iface) {
        DIR *dir = fdopendir(dup(cgroupfs_dirfd(fs)));
        struct dirent *de;
        int pid;

        if (!dir)
                return;
        rewinddir(dir);
        while ((de = readdir(dir)))
                if (sscanf(de->d_name, "hcbs-diff-%d", &pid) == 1 && kill(pid, 0) < 0 && errno == ESRCH) {
                        fprintf(stderr, "removing stale scratch tree %s\n", de->d_name);
                        remove_tree(fs, iface, de->d_name);
                }
        closedir(dir);
}

static uint64_t foreign_bw(Diff *d, const char *skip) {
        DIR *dir = fdopendir(dup(cgroupfs_dirfd(d->fs)));
        struct dirent *de;
        uint64_t sum = 0, bw;

        if (!dir)
                return 0;
        rewinddir(dir);
        while ((de = readdir(dir)))
                if (de->d_type == DT_DIR && de->d_name[0] != '.' && strcmp(de->d_name, skip) != 0 &&
                    cgroupfs_read_share(d->fs, de->d_name, &bw) == 0)
                        sum += bw;
        closedir(dir);
        return sum;
}

/* rtmax: which revision a new group's files show (the root has neither file): a probe made and removed. */
static int probe_revision(Diff *d, unsigned *ret) {
        char probe[64];
        CgroupFsError e = {};
        int r;

        *ret = 0;
        if (d->o->iface != HCBS_IFACE_RTMAX)
                return 0;
        snprintf(probe, sizeof(probe), "hcbs-diff-probe-%d", (int) getpid());
        (void) cgroupfs_enable_cpu(d->fs, "", &e);
        r = cgroupfs_mkdir(d->fs, probe, &e);
        if (r < 0)
                return r;
        r = cgroupfs_rtmax_revision(d->fs, probe, ret);
        (void) cgroupfs_rmdir(d->fs, probe, NULL);
        return r;
}

static int setup_model(Diff *d) {
        HcbsProfile prof;
        uint64_t p;
        int64_t rt;
        int r;

        r = cgroupfs_read_profile(d->o->iface, &prof);
        if (r < 0)
                return r;
        r = probe_revision(d, &d->res.revision);
        if (r < 0)
                return r;
        if (d->res.revision) {
                (void) hcbs_profile_set_revision(&prof, d->res.revision);
                cgroupfs_set_revision(d->fs, d->res.revision);
        }
        r = hcbs_model_new(&d->m, &prof, true);
        if (r < 0)
                return r;
        r = cgroupfs_read_rt(d->fs, "", &p, &rt);
        if (r < 0)
                return r;
        hcbs_model_set(d->m, hcbs_model_root(d->m), p, rt);
        /* kernel threads (migration/N, ...) are RT tasks of the root group */
        hcbs_model_set_tasks(d->m, hcbs_model_root(d->m), 1, 1);
        return 0;
}

struct dl_attr {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
};

/* A SCHED_DEADLINE task of 20ms every 100ms, so the root reserve has something to fit beside. */
static int spawn_dl_task(Diff *d) {
        struct dl_attr a = { .size = sizeof(a), .policy = 6 /* SCHED_DEADLINE */, .runtime = 20 * 1000 * 1000,
                             .deadline = 100 * 1000 * 1000, .period = 100 * 1000 * 1000 };
        pid_t pid = fork();

        if (pid < 0)
                return -errno;
        if (pid == 0) {
                for (;;)
                        pause();
        }
        d->dl_task = pid;
        if (syscall(SYS_sched_setattr, pid, &a, 0) < 0) {
                fprintf(stderr, "no SCHED_DEADLINE task: %s\n", strerror(errno));
                return 0;
        }
        fprintf(stderr, "SCHED_DEADLINE task %d: 20ms/100ms\n", (int) pid);
        return 0;
}

static bool root_write_ok(Diff *d, int64_t runtime) {
        if (d->o->iface == HCBS_IFACE_RTMAX)
                return cgroupfs_write_rt(d->fs, "", HCBS_FILE_MAX, runtime, hcbs_model_root(d->m)->period_us, NULL) >= 0;
        return cgroupfs_write_rt(d->fs, "", HCBS_FILE_RUNTIME, runtime, 0, NULL) >= 0;
}

/*
 * The HCBS root reserve must fit beside the SCHED_DEADLINE bandwidth of the
 * root domain (dl_check_tg). That load is not visible without debugfs and
 * changes as fair servers start (6.12 accounts a CPU's fair server only
 * once it first runs), so in a guest the test measures it: the largest
 * root runtime the kernel accepts gives the total_bw the model then uses.
 */
static int calibrate_root_reserve(Diff *d) {
        HcbsProfile *p = hcbs_model_profile_mut(d->m);
        HcbsNode *root = hcbs_model_root(d->m);
        uint64_t period = root->period_us, hi, lo;
        int64_t saved = root->runtime_us;

        if (!d->o->write_root || !p->root_reserve || period == 0 || p->dl_bw == UINT64_MAX)
                return 0;
        if (hcbs_runtime_for_bw(period, root->children_bw, &lo) < 0 || hcbs_runtime_for_bw(period,
                                                                                            hcbs_profile_global_bw(p), &hi) < 0)
                return -ERANGE;
        lo = MAX(lo, (uint64_t) 10);
        if (hcbs_bw(period, (int64_t) hi) > hcbs_profile_global_bw(p))
                hi--;
        if (!root_write_ok(d, (int64_t) lo))
                return -EBUSY;
        /* with the root low, a deadline task fits; then the root can only grow beside it */
        if (spawn_dl_task(d) < 0)
                return -errno;
        if (root_write_ok(d, (int64_t) hi))
                lo = hi; /* no reserve limit below the global one */
        else
                while (hi - lo > 1) {
                        uint64_t mid = lo + (hi - lo) / 2;
                        *(root_write_ok(d, (int64_t) mid) ? &lo : &hi) = mid;
                }
        p->dl_total_bw = p->dl_cpus * (p->dl_bw - hcbs_bw(period, (int64_t) lo));
        fprintf(stderr, "root reserve: at most %" PRIu64 "us/%" PRIu64 "us, so SCHED_DEADLINE holds %" PRIu64
                        " of %u x %" PRIu64 "\n",
                lo, period, p->dl_total_bw, p->dl_cpus, p->dl_bw);
        /* the kernel now holds lo, the last value it accepted; go back if the old value still fits */
        if (saved != 0 && (uint64_t) saved <= lo && root_write_ok(d, saved))
                return 0;
        hcbs_model_set(d->m, root, period, (int64_t) lo);
        return 0;
}

static int setup_scratch(Diff *d) {
        HcbsPlan plan;
        HcbsVerdict v;
        CgroupFsError e = {};
        char name[64];
        int r;

        snprintf(name, sizeof(name), "hcbs-diff-%d", (int) getpid());
        hcbs_model_set_foreign(d->m, hcbs_model_root(d->m), foreign_bw(d, name));
        if (v2(d) && (r = cgroupfs_enable_cpu(d->fs, "", &e)) < 0)
                return r;
        if (hcbs_model_profile(d->m)->cpuset_coupling && (r = cgroupfs_enable_cpuset(d->fs, "", &e)) < 0)
                return r;
        r = hcbs_model_add(d->m, hcbs_model_root(d->m), name, &d->scratch);
        if (r < 0)
                return r;
        r = cgroupfs_mkdir(d->fs, name, &e);
        if (r < 0)
                return r;
        d->nodes[d->n++] = d->scratch;
        compare_values(d, d->scratch, "scratch root");

        /* the scratch root's reservation, within what other cgroups leave free; an HCBS root starting at 0 is
         * raised first */
        HcbsPlanScope scope = { .grow = d->o->iface == HCBS_IFACE_RFC1 || d->o->iface == HCBS_IFACE_RTMAX };
        int64_t runtime = d->o->scratch_runtime_us;
        uint64_t room = hcbs_node_free_bw(hcbs_model_root(d->m)), fit;
        if (!scope.grow && hcbs_runtime_for_bw(d->o->scratch_period_us, room, &fit) == 0 && (int64_t) fit < runtime)
                runtime = (int64_t) fit - 1;
        if (runtime <= 0)
                return -ENOSPC;
        fprintf(stderr, "scratch root %s: %" PRId64 "us/%" PRIu64 "us\n", name, runtime, d->o->scratch_period_us);
        r = hcbs_plan_set(d->m, d->scratch, d->o->scratch_period_us, runtime, scope, &plan, &v);
        if (r <= 0) {
                fprintf(stderr, "scratch root refused: %s\n", v.message);
                return r < 0 ? r : -ENOSPC;
        }
        r = cgroupfs_apply_plan(d->fs, &plan, NULL, NULL, &e);
        if (r >= 0)
                r = hcbs_plan_commit(d->m, &plan);
        else
                fprintf(stderr, "scratch root: %s=%s: %s\n", e.file, e.value, strerror(e.error));
        hcbs_plan_done(&plan);
        return r;
}

static int setup_helpers(Diff *d) {
        for (unsigned i = 0; i < N_HELPERS; i++) {
                Helper *h = &d->helpers[i];
                CgroupFsError e = {};
                pid_t pid = spawn_helper(i == 0);
                int r;

                if (pid < 0)
                        return pid;
                h->pid = pid;
                h->rt = i == 0;
                r = cgroupfs_attach(d->fs, d->scratch->path, pid, &e);
                if (r < 0)
                        return r;
                h->where = d->scratch;
                hcbs_model_set_tasks(d->m, d->scratch, d->scratch->nprocs + 1, d->scratch->nrt + h->rt);
        }
        return 0;
}

static void teardown(Diff *d) {
        if (d->dl_task > 0) {
                kill(d->dl_task, SIGKILL);
                waitpid(d->dl_task, NULL, 0);
        }
        for (unsigned i = 0; i < N_HELPERS; i++) {
                Helper *h = &d->helpers[i];
                if (h->pid <= 0)
                        continue;
                (void) cgroupfs_attach(d->fs, "", h->pid, NULL);
                kill(h->pid, SIGKILL);
                waitpid(h->pid, NULL, 0);
        }
        if (d->scratch)
                remove_tree(d->fs, d->o->iface, d->scratch->path);
        d->fs = cgroupfs_free(d->fs);
        d->m = hcbs_model_free(d->m);
}

static void run_ops(Diff *d) {
        for (d->step = 0; d->step < d->o->ops; d->step++) {
                unsigned what = rng_below(&d->rng, 100);
                if (what < 10)
                        op_create(d);
                else if (what < 16)
                        op_delete(d);
                else if (what < 30)
                        op_attach(d);
                else if (what < 38)
                        op_setscheduler(d);
                else if (what < 46 && hcbs_model_profile(d->m)->cpuset_coupling)
                        op_cpus(d);
                else
                        op_random_write(d);
                d->res.ops++;
        }
        for (unsigned i = 0; i < d->n; i++) {
                compare_values(d, d->nodes[i], "final state");
                compare_internal(d, d->nodes[i], "final state");
                if (hcbs_model_profile(d->m)->cpuset_coupling)
                        compare_effective(d, d->nodes[i], "final state");
        }
}

int kernel_diff_run(const KernelDiffOptions *o, KernelDiffResult *ret) {
        Diff d = { .o = o, .rng = { o->seed ? o->seed : 1 } };
        int r;

        r = cgroupfs_open(o->mount, o->iface, &d.fs);
        if (r < 0)
                return r;
        cgroupfs_set_busy_retries(d.fs, 0);
        remove_stale(d.fs, o->iface);
        r = setup_model(&d);
        if (r >= 0)
                r = calibrate_root_reserve(&d);
        if (r >= 0)
                r = setup_scratch(&d);
        if (r >= 0)
                r = setup_helpers(&d);
        if (r >= 0) {
                cgroupfs_set_busy_retries(d.fs, 0);
                run_ops(&d);
                *ret = d.res;
        }
        teardown(&d);
        return r;
}
