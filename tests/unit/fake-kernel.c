/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An in-memory kernel behind daemon/cgroupfs.h and daemon/process.h: see
 * fake-kernel.h. process.h is faked too, not served by real children of the
 * test: the kernel's rules on RT tasks (runtime 0 refused while they run,
 * attach and setscheduler refused where they cannot run) need each task's
 * group and policy in the fake's tree, and a real child would report its
 * real cgroup in /proc and need CAP_SYS_NICE to become RT.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bandwidth.h"
#include "fake-kernel.h"
#include "kernel-facts.h"
#include "macro.h"
#include "strutil.h"

typedef struct FakeGroup {
        bool cpu;    /* "+cpu" in its cgroup.subtree_control (v2) */
        uint64_t id; /* what cgroupfs_cgroup_id() answers */
} FakeGroup;

typedef struct FakeTask {
        pid_t pid, ppid;
        uid_t uid;
        HcbsNode *group;
        ProcPolicy policy; /* OTHER, FIFO or RR */
        int priority;
        uint64_t starttime;
} FakeTask;

typedef struct FakeKernel {
        HcbsInterface rules;
        bool v2, detectable;
        HcbsModel *model;
        int mirror_fd;
        uint64_t next_id;

        FakeTask *tasks;
        size_t n_tasks;

        unsigned fail_at[_FAKE_OP_MAX]; /* countdown: the call that brings it to 0 fails */
        int fail_err[_FAKE_OP_MAX];
        unsigned exit_at[_FAKE_OP_MAX];
        pid_t exit_pid[_FAKE_OP_MAX];
        unsigned count[_FAKE_OP_MAX];
        unsigned lookups, id_reads; /* every cgroup the backend looked up; cgroupfs_cgroup_id() calls */
        unsigned policy_reads; /* threads whose policy proc_count_rt() read */

        pid_t pinned[4096]; /* the pid each pin descriptor holds */

        /* cgroupfs_watch_children(): one watch, told of the fixtures' mkdir and rmdir below it */
        char watch_path[256];
        CgroupFsChildFn watch_fn;
        void *watch_userdata;
        bool watching;
        int64_t servers_skew; /* added to every reserved group's server in cpu.rt.max.effective.local */
} FakeKernel;

struct CgroupFs {
        HcbsInterface iface;
        unsigned revision;
};

static FakeKernel *K;

/* ---- the tree ---- */

static FakeGroup *group_of(const HcbsNode *n) {
        return n->userdata;
}

static int group_attach_data(HcbsNode *n) {
        FakeGroup *g = calloc(1, sizeof(FakeGroup));
        if (!g)
                return -ENOMEM;
        g->id = ++K->next_id;
        n->userdata = g;
        return 0;
}

static HcbsNode *find(const char *path) {
        __atomic_fetch_add(&K->lookups, 1, __ATOMIC_RELAXED); /* start-up reads on several threads (cgroupfs-facts.c) */
        return hcbs_model_find(K->model, path);
}

static HcbsNode *find_parent(const char *path, const char **ret_name) {
        const char *slash = strrchr(path, '/');
        char parent[4096];

        snprintf(parent, sizeof(parent), "%.*s", slash ? (int) (slash - path) : 0, path);
        *ret_name = slash ? slash + 1 : path;
        return find(parent);
}

/* v2: a group's cpu files exist once its parent passes the controller on. */
static bool has_rt_files(const HcbsNode *n) {
        return !K->v2 || !n->parent || group_of(n->parent)->cpu;
}

/* What a new cpu css starts at (alloc_rt_sched_group(); rtmax: "max"). */
static void initial_values(uint64_t *ret_period, int64_t *ret_runtime) {
        const HcbsProfile *p = hcbs_model_profile(K->model);
        *ret_period = p->new_group_global_period ? p->global_period_us : 0;
        *ret_runtime = p->max_delegation ? -1 : 0;
}

static void recount(HcbsNode *n) {
        unsigned nprocs = n->is_kernel_root, nrt = n->is_kernel_root; /* the root's RT kernel threads */

        for (size_t i = 0; i < K->n_tasks; i++)
                if (K->tasks[i].group == n) {
                        nprocs++;
                        nrt += proc_policy_is_rt(K->tasks[i].policy);
                }
        hcbs_model_set_tasks(K->model, n, nprocs, nrt);
}

static FakeTask *task(pid_t pid) {
        for (size_t i = 0; i < K->n_tasks; i++)
                if (K->tasks[i].pid == pid)
                        return &K->tasks[i];
        return NULL;
}

static bool has_tasks(const HcbsNode *n) {
        for (size_t i = 0; i < K->n_tasks; i++)
                if (K->tasks[i].group == n)
                        return true;
        return false;
}

static void error_set(CgroupFsError *e, int err, const char *path, const char *file, const char *value) {
        if (!e)
                return;
        e->error = err;
        snprintf(e->file, sizeof(e->file), "%s%s%s", path, path[0] && file[0] ? "/" : "", file);
        snprintf(e->value, sizeof(e->value), "%s", value ? value : "");
}

/* Counts a mutating call; returns the injected -errno if this one is to fail. */
static int intercept(FakeOp op) {
        /* a policy is the process's, not a cgroup write: FAKE_OP_ANY counts the tree's changes */
        const FakeOp kinds[] = { op, op == FAKE_OP_POLICY ? op : FAKE_OP_ANY };
        int r = 0;

        for (size_t i = 0; i < (op == FAKE_OP_POLICY ? 1 : 2); i++) {
                FakeOp o = kinds[i];
                if (K->exit_at[o] && --K->exit_at[o] == 0)
                        fake_kernel_exit(K->exit_pid[o]);
                if (K->fail_at[o] && --K->fail_at[o] == 0 && r == 0)
                        r = -K->fail_err[o];
        }
        if (r == 0) {
                K->count[op]++;
                K->count[FAKE_OP_ANY] += op != FAKE_OP_POLICY;
        }
        return r;
}

/* ---- the test's side ---- */

int fake_kernel_new(HcbsInterface rules, const char *mirror_dir) {
        return fake_kernel_new_revision(rules, rules == HCBS_IFACE_RTMAX ? 6 : 0, mirror_dir);
}

int fake_kernel_new_revision(HcbsInterface rules, unsigned revision, const char *mirror_dir) {
        HcbsProfile p;
        int r;

        if (K)
                fake_kernel_free();
        K = calloc(1, sizeof(FakeKernel));
        if (!K)
                return -ENOMEM;
        K->rules = rules;
        K->v2 = rules != HCBS_IFACE_LEGACY_V1;
        K->detectable = true;
        K->mirror_fd = open(mirror_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (K->mirror_fd < 0)
                return -errno;
        hcbs_profile_init(&p, rules);
        if (revision && (r = hcbs_profile_set_revision(&p, revision)) < 0)
                return r;
        hcbs_profile_set_cpus(&p, 4); /* a machine of 4 CPUs, each with its fair server (cgroupfs_read_profile()) */
        r = hcbs_model_new(&K->model, &p, true);
        if (r < 0)
                return r;
        HcbsNode *root = hcbs_model_root(K->model);
        r = group_attach_data(root);
        if (r < 0)
                return r;
        group_of(root)->cpu = true;
        /* sched_init(): mainline's root starts at the global limits, HCBS's at runtime 0 (docs/kernel-rules.md) */
        hcbs_model_set(K->model, root, p.global_period_us, p.root_runtime_nonzero ? p.global_runtime_us : 0);
        recount(root);
        return 0;
}

static void free_groups(HcbsNode *n) {
        HCBS_NODE_FOREACH_CHILD(c, n)
                free_groups(c);
        free(n->userdata);
        n->userdata = NULL;
}

void fake_kernel_free(void) {
        if (!K)
                return;
        if (K->model) {
                free_groups(hcbs_model_root(K->model));
                hcbs_model_free(K->model);
        }
        if (K->mirror_fd >= 0)
                close(K->mirror_fd);
        free(K->tasks);
        free(K);
        K = NULL;
}

HcbsModel *fake_kernel_model(void) {
        return K->model;
}

void fake_kernel_set_detectable(bool yes) {
        K->detectable = yes;
}

static int do_mkdir(const char *path) {
        const char *name;
        HcbsNode *parent = find_parent(path, &name), *n;
        int r;

        if (!path[0] || find(path))
                return -EEXIST;
        if (!parent)
                return -ENOENT;
        r = hcbs_model_add(K->model, parent, name, &n);
        if (r < 0)
                return r;
        r = group_attach_data(n);
        if (r < 0)
                return r;
        if (!has_rt_files(n)) { /* no cpu css: nothing to count in the parent's sum */
                hcbs_model_set(K->model, n, 0, 0);
        }
        recount(n);
        if (mkdirat(K->mirror_fd, path, 0755) < 0)
                return -errno;
        return 0;
}

/* What inotify tells a watch on the parent of path (systemd's mkdir and rmdir: the fixtures). */
static void notify_watch(const char *path, bool created) {
        const char *name;
        HcbsNode *parent = find_parent(path, &name);

        if (K->watching && parent && strcmp(parent->path, K->watch_path) == 0)
                K->watch_fn(name, created, K->watch_userdata);
}

int fake_kernel_mkdir(const char *path) {
        const char *name;
        HcbsNode *parent = find_parent(path, &name);
        int r;

        if (parent && K->v2)
                group_of(parent)->cpu = true;
        r = do_mkdir(path);
        if (r >= 0)
                notify_watch(path, true);
        return r;
}

int fake_kernel_rmdir(const char *path) {
        HcbsNode *n = find(path);
        char copy[4096];

        if (!n || n->first_child || has_tasks(n))
                return -EBUSY;
        snprintf(copy, sizeof(copy), "%s", path);
        free(n->userdata);
        n->userdata = NULL;
        hcbs_model_remove(K->model, n);
        (void) unlinkat(K->mirror_fd, copy, AT_REMOVEDIR);
        notify_watch(copy, false);
        return 0;
}

int fake_kernel_set(const char *path, uint64_t period_us, int64_t runtime_us) {
        HcbsNode *n = find(path);
        if (!n)
                return -ENOENT;
        hcbs_model_set(K->model, n, period_us, runtime_us);
        return 0;
}

void fake_kernel_set_cpu(const char *path, bool enabled) {
        HcbsNode *n = find(path);
        if (n)
                group_of(n)->cpu = enabled;
}

int fake_kernel_spawn(pid_t pid, uid_t uid, const char *path, ProcPolicy policy) {
        HcbsNode *n = find(path);
        FakeTask *t;

        if (!n || task(pid))
                return -EINVAL;
        t = reallocarray(K->tasks, K->n_tasks + 1, sizeof(FakeTask));
        if (!t)
                return -ENOMEM;
        K->tasks = t;
        t[K->n_tasks++] = (FakeTask) { .pid = pid, .ppid = 1, .uid = uid, .group = n,
                                       .policy = policy == PROC_POLICY_KEEP ? PROC_POLICY_OTHER : policy,
                                       .priority = proc_policy_is_rt(policy) ? 10 : 0,
                                       .starttime = 1000 + (uint64_t) pid };
        recount(n);
        return 0;
}

void fake_kernel_exit(pid_t pid) {
        FakeTask *t = task(pid);
        HcbsNode *n;

        if (!t)
                return;
        n = t->group;
        *t = K->tasks[--K->n_tasks];
        recount(n);
}

const char *fake_kernel_task_group(pid_t pid) {
        FakeTask *t = task(pid);
        return t ? t->group->path : NULL;
}

ProcPolicy fake_kernel_task_policy(pid_t pid) {
        FakeTask *t = task(pid);
        return t ? t->policy : _PROC_POLICY_INVALID;
}

void fake_kernel_skew_servers(int64_t us) {
        K->servers_skew = us;
}

void fake_kernel_fail(FakeOp op, unsigned nth, int err) {
        K->fail_at[op] = nth;
        K->fail_err[op] = err;
}

void fake_kernel_exit_before(FakeOp op, unsigned nth, pid_t pid) {
        K->exit_at[op] = nth;
        K->exit_pid[op] = pid;
}

unsigned fake_kernel_count(FakeOp op) {
        return K->count[op];
}

unsigned fake_kernel_lookups(void) {
        return K->lookups;
}

unsigned fake_kernel_id_reads(void) {
        return K->id_reads;
}

void fake_kernel_reset_counts(void) {
        memset(K->count, 0, sizeof(K->count));
        K->lookups = K->id_reads = 0;
}

static void dump_node(FILE *f, const HcbsNode *n) {
        char cpus[HCBS_CPUSET_STRLEN];

        fprintf(f, "'%s' %" PRIu64 " %" PRId64 "%s", n->path, n->period_us, n->runtime_us,
                group_of(n)->cpu ? " +cpu" : "");
        if (!hcbs_cpuset_is_empty(&n->cpus))
                fprintf(f, " cpus=%s", hcbs_cpuset_format(&n->cpus, cpus, sizeof(cpus)));
        for (size_t i = 0; i < K->n_tasks; i++)
                if (K->tasks[i].group == n)
                        fprintf(f, " %d:%s", (int) K->tasks[i].pid, proc_policy_to_string(K->tasks[i].policy));
        fputc('\n', f);
        HCBS_NODE_FOREACH_CHILD(c, n)
                dump_node(f, c);
}

char *fake_kernel_dump(void) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return NULL;
        dump_node(f, hcbs_model_root(K->model));
        fclose(f);
        return buf;
}

/* ---- cgroupfs.h ---- */

int cgroupfs_open(const char *root_path, HcbsInterface iface, CgroupFs **ret) {
        CgroupFs *fs;

        if (!K)
                return -ENOTDIR;
        fs = calloc(1, sizeof(CgroupFs));
        if (!fs)
                return -ENOMEM;
        fs->iface = iface;
        *ret = fs;
        return 0;
}

CgroupFs *cgroupfs_free(CgroupFs *fs) {
        free(fs);
        return NULL;
}

HcbsInterface cgroupfs_interface(const CgroupFs *fs) {
        return fs->iface;
}

void cgroupfs_set_interface(CgroupFs *fs, HcbsInterface iface) {
        fs->iface = iface;
}

void cgroupfs_set_revision(CgroupFs *fs, unsigned revision) {
        fs->revision = revision;
}

int cgroupfs_rtmax_revision(CgroupFs *fs, const char *path, unsigned *ret) {
        HcbsNode *n = find(path);

        if (K->rules != HCBS_IFACE_RTMAX || !n || n->is_kernel_root || !has_rt_files(n))
                return -ENOENT;
        *ret = hcbs_model_profile(K->model)->revision;
        return 0;
}

static void watch_gone(void *userdata) {
        if (K)
                K->watching = false;
}

/* An event source that never fires (the fixtures call the watch), whose end ends the watch. */
int cgroupfs_watch_children(CgroupFs *fs, sd_event *event, const char *path, CgroupFsChildFn fn, void *userdata,
                            sd_event_source **ret) {
        int r = sd_event_add_defer(event, ret, NULL, NULL);

        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(*ret, SD_EVENT_OFF);
        (void) sd_event_source_set_destroy_callback(*ret, watch_gone);
        snprintf(K->watch_path, sizeof(K->watch_path), "%s", path);
        K->watch_fn = fn;
        K->watch_userdata = userdata;
        K->watching = true;
        return 0;
}

int cgroupfs_read_cpus(CgroupFs *fs, const char *path, HcbsCpuSet *ret) {
        HcbsNode *n = find(path);

        if (!n)
                return -ENOENT;
        *ret = n->cpus;
        return 0;
}

/* cpuset.cpus: the cpuset controller is always there; cpuset_can_change() as the model has it. */
int cgroupfs_write_cpus(CgroupFs *fs, const char *path, const HcbsCpuSet *cpus, CgroupFsError *e) {
        HcbsNode *n = find(path);
        char value[HCBS_CPUSET_STRLEN];
        int r = intercept(FAKE_OP_WRITE);

        if (r >= 0 && (!n || n->is_kernel_root))
                r = -ENOENT;
        if (r >= 0 && !hcbs_cpuset_is_subset(cpus, &hcbs_model_profile(K->model)->online))
                r = -EINVAL;
        if (r >= 0)
                r = -hcbs_model_check_cpus(K->model, n, cpus).kernel_errno;
        if (r < 0) {
                error_set(e, -r, path, "cpuset.cpus", hcbs_cpuset_format(cpus, value, sizeof(value)));
                return r;
        }
        hcbs_model_set_cpus(K->model, n, cpus);
        return 0;
}

int cgroupfs_read_rt_cpus(CgroupFs *fs, const char *path, CgroupFsCpuRuntime *out, size_t max, size_t *ret_n) {
        const HcbsProfile *p = hcbs_model_profile(K->model);
        HcbsNode *n = find(path);
        size_t k = 0;

        if (K->rules != HCBS_IFACE_RTMAX || p->revision < 7)
                return -EOPNOTSUPP;
        if (!n || n->is_kernel_root || !has_rt_files(n))
                return -ENOENT;
        HCBS_CPUSET_FOREACH(cpu, &p->online)
                if (k < max) {
                        int64_t rt = hcbs_node_cpu_runtime_us(K->model, n, cpu);
                        out[k++] = (CgroupFsCpuRuntime) { (unsigned) cpu, rt < 0 ? rt : rt + K->servers_skew,
                                                          n->period_us };
                }
        *ret_n = k;
        return 0;
}

const char *cgroupfs_root_path(const CgroupFs *fs) {
        return "/proc";
}

int cgroupfs_dirfd(const CgroupFs *fs) {
        return K->mirror_fd;
}

bool cgroupfs_is_v2(const CgroupFs *fs) {
        return K->v2;
}

int cgroupfs_detect(const char *path, HcbsInterface *ret, char *why, size_t whylen) {
        if (!K || !K->detectable)
                return hcbs_err(why, whylen, -ENOTSUP, "%s: the fake kernel has no RT group scheduling", path);
        /* the files of mainline rules on v2 look like HCBS's: cgroupfs_probe_v2_rules() tells them apart */
        *ret = K->rules == HCBS_IFACE_LEGACY_V2 ? HCBS_IFACE_RFC1 : K->rules;
        return 0;
}

/* kernel-facts.h: the facts of this kernel, which has its files at "/proc" (or nowhere when not detectable). */
const char *kernel_facts_prefix(void) {
        return "";
}

void kernel_facts_read_sysctls(const char *prefix, HcbsKernelFacts *f) {
        const HcbsProfile *k = hcbs_model_profile(K->model);

        f->have_sysctls = true;
        f->rt_runtime_us = k->global_runtime_us;
        f->rt_period_us = k->global_period_us;
}

int kernel_facts_read(const char *prefix, const char *root, HcbsKernelFacts *ret) {
        HcbsKernelFacts f;

        hcbs_kernel_facts_init(&f);
        kernel_facts_read_sysctls(prefix, &f);
        if (!K->detectable) {
                f.config_rt_group_sched = HCBS_TRI_NO;
                *ret = f;
                return 0;
        }
        snprintf(K->v2 ? f.v2_mount : f.v1_cpu_mount, sizeof(f.v2_mount), "/proc");
        f.v2_has_cpu = K->v2;
        f.v2_rt_max = K->v2 && K->rules == HCBS_IFACE_RTMAX;
        f.v2_rt_runtime = K->v2 && !f.v2_rt_max;
        f.v1_rt_runtime = !K->v2;
        if (root && root[0]) {
                snprintf(f.root, sizeof(f.root), "%s", root);
                snprintf(f.root_mount, sizeof(f.root_mount), "/proc");
                snprintf(f.root_anchor, sizeof(f.root_anchor), "/proc");
                f.root_mount_v2 = K->v2;
                f.root_mount_has_cpu = f.anchor_has_cpu = true;
        }
        *ret = f;
        return 0;
}

int cgroupfs_read_profile(HcbsInterface iface, HcbsProfile *p) {
        const HcbsProfile *k = hcbs_model_profile(K->model);

        hcbs_profile_init(p, iface);
        hcbs_profile_set_global(p, k->global_runtime_us, k->global_period_us);
        p->dl_period_min_us = k->dl_period_min_us;
        p->dl_period_max_us = k->dl_period_max_us;
        hcbs_profile_set_online(p, &k->online);
        p->dl_total_bw = k->dl_total_bw;
        return 0;
}

int cgroupfs_mkdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        int r = intercept(FAKE_OP_MKDIR);

        if (r >= 0)
                r = do_mkdir(path);
        if (r < 0)
                error_set(e, -r, path, "", NULL);
        return r;
}

int cgroupfs_probe_v2_rules(CgroupFs *fs, const char *parent, HcbsInterface *ret) {
        char probe[4096];
        uint64_t period;
        int64_t runtime;
        int r;

        snprintf(probe, sizeof(probe), "%s%shcbs-probe", parent, parent[0] ? "/" : "");
        r = cgroupfs_mkdir(fs, probe, NULL);
        if (r < 0 && r != -EEXIST)
                return r;
        r = cgroupfs_read_rt(fs, probe, &period, &runtime);
        int q = cgroupfs_rmdir(fs, probe, NULL);
        if (r >= 0)
                r = q;
        if (r < 0)
                return r;
        *ret = period == 0 ? HCBS_IFACE_RFC1 : HCBS_IFACE_LEGACY_V2;
        return 0;
}

int cgroupfs_rmdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        HcbsNode *n = find(path);
        int r = intercept(FAKE_OP_RMDIR);

        if (r >= 0 && !n)
                r = -ENOENT;
        if (r >= 0 && (n->first_child || has_tasks(n) || n->is_kernel_root))
                r = -EBUSY;
        if (r >= 0) {
                free(n->userdata);
                n->userdata = NULL;
                r = hcbs_model_remove(K->model, n);
        }
        if (r >= 0 && unlinkat(K->mirror_fd, path, AT_REMOVEDIR) < 0)
                r = -errno;
        if (r < 0)
                error_set(e, -r, path, "", NULL);
        return r;
}

bool cgroupfs_exists(CgroupFs *fs, const char *path) {
        return find(path) != NULL;
}

/* Every group of the in-memory kernel belongs to root. */
int cgroupfs_owner(CgroupFs *fs, const char *path, uid_t *ret) {
        if (!find(path))
                return -ENOENT;
        *ret = 0;
        return 0;
}

void cgroupfs_set_busy_retries(CgroupFs *fs, unsigned n) {
}

static bool file_exists(const CgroupFs *fs, HcbsFile file) {
        return (K->rules == HCBS_IFACE_RTMAX) == (file == HCBS_FILE_MAX);
}

int cgroupfs_write_rt(CgroupFs *fs, const char *path, HcbsFile file, int64_t runtime_us, uint64_t period_us,
                      CgroupFsError *e) {
        HcbsNode *n = find(path);
        char value[64];
        uint64_t period;
        int64_t runtime;
        HcbsCheck c = {};
        int r;

        switch (file) {
        case HCBS_FILE_RUNTIME:
                snprintf(value, sizeof(value), "%" PRId64, runtime_us);
                break;
        case HCBS_FILE_PERIOD:
                snprintf(value, sizeof(value), "%" PRIu64, period_us);
                break;
        default:
                if (runtime_us < 0)
                        snprintf(value, sizeof(value), "max %" PRIu64, period_us);
                else
                        snprintf(value, sizeof(value), "%" PRId64 " %" PRIu64, runtime_us, period_us);
        }
        r = intercept(FAKE_OP_WRITE);
        if (r >= 0 && (!n || !has_rt_files(n) || !file_exists(fs, file)))
                r = -ENOENT;
        if (r >= 0) {
                /* cpu_rt_runtime_write() (negative: unlimited), cpu_rt_period_write_uint() */
                if (file != HCBS_FILE_PERIOD && runtime_us > 0 && (uint64_t) runtime_us > HCBS_MAX_FILE_USEC)
                        r = -EINVAL;
                if (file != HCBS_FILE_RUNTIME && period_us > HCBS_MAX_FILE_USEC)
                        r = -EINVAL;
        }
        if (r >= 0) {
                period = file == HCBS_FILE_RUNTIME ? n->period_us : period_us;
                runtime = file == HCBS_FILE_PERIOD ? n->runtime_us : runtime_us;
                c = hcbs_model_walk_check(K->model, n, period, runtime);
                r = -c.kernel_errno;
        }
        if (r < 0) {
                error_set(e, -r, path, hcbs_file_name(NULL, file), value);
                return r;
        }
        hcbs_model_set(K->model, n, period, runtime);
        return 0;
}

int cgroupfs_release_rt(CgroupFs *fs, const char *path) {
        uint64_t period;
        int64_t runtime;
        int r;

        if (fs->iface != HCBS_IFACE_RTMAX)
                return cgroupfs_write_rt(fs, path, HCBS_FILE_RUNTIME, 0, 0, NULL);
        r = cgroupfs_read_rt(fs, path, &period, &runtime);
        if (r < 0 || runtime < 0)
                return r;
        return cgroupfs_write_rt(fs, path, HCBS_FILE_MAX, 0, period, NULL);
}

int cgroupfs_read_rt(CgroupFs *fs, const char *path, uint64_t *ret_period_us, int64_t *ret_runtime_us) {
        HcbsNode *n = find(path);

        if (!n || !has_rt_files(n))
                return -ENOENT;
        *ret_period_us = n->period_us;
        *ret_runtime_us = n->runtime_us;
        return 0;
}

int cgroupfs_read_share(CgroupFs *fs, const char *path, uint64_t *ret_bw) {
        HcbsNode *n = find(path);

        if (!n || !has_rt_files(n))
                return -ENOENT;
        *ret_bw = hcbs_node_is_max(hcbs_model_profile(K->model), n) ? n->children_bw : n->bw;
        return 0;
}

int cgroupfs_read_rt_internal(CgroupFs *fs, const char *path, uint64_t *ret_period_us, uint64_t *ret_runtime_us) {
        HcbsNode *n = find(path);

        if (K->rules != HCBS_IFACE_RTMAX)
                return -EOPNOTSUPP;
        if (!n || !has_rt_files(n))
                return -ENOENT;
        *ret_period_us = n->period_us;
        *ret_runtime_us = hcbs_node_internal_runtime_us(hcbs_model_profile(K->model), n);
        return 0;
}

/* The same steps as daemon/cgroupfs.c's make_group(), over the fake's primitives. */
static int make_group(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e) {
        const char *slash = strrchr(op->path, '/');
        char parent[4096];
        int r;

        snprintf(parent, sizeof(parent), "%.*s", slash ? (int) (slash - op->path) : 0, op->path);
        r = cgroupfs_set_cpu_controller(fs, parent, true, e);
        if (r >= 0)
                r = cgroupfs_mkdir(fs, op->path, e);
        if (r >= 0 && op->period_us)
                r = fs->iface == HCBS_IFACE_RTMAX
                            ? cgroupfs_write_rt(fs, op->path, HCBS_FILE_MAX, op->runtime_us < 0 ? -1 : 0, op->period_us, e)
                            : cgroupfs_write_rt(fs, op->path, HCBS_FILE_PERIOD, 0, op->period_us, e);
        return r;
}

int cgroupfs_apply_op(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e) {
        switch (op->kind) {
        case HCBS_OP_NONE:
                return 0;
        case HCBS_OP_MKDIR:
                return make_group(fs, op, e);
        case HCBS_OP_RMDIR:
                return cgroupfs_rmdir(fs, op->path, e);
        default:
                if (op->file == HCBS_FILE_CPUS)
                        return cgroupfs_write_cpus(fs, op->path, &op->cpus, e);
                return cgroupfs_write_rt(fs, op->path, op->file, op->runtime_us, op->period_us, e);
        }
}

/* The contract of cgroupfs.h: in order; on the first failure the undo of each op done, in reverse. */
int cgroupfs_apply_plan(CgroupFs *fs, const HcbsPlan *plan, size_t *ret_failed, unsigned *ret_rollback_failed,
                        CgroupFsError *e) {
        unsigned rollback_failed = 0;
        size_t i;
        int r = 0;

        for (i = 0; i < plan->n_ops && r >= 0; i++)
                r = cgroupfs_apply_op(fs, &plan->ops[i], e);
        if (r < 0) {
                i--; /* the failed one */
                for (size_t j = i; j > 0; j--) {
                        CgroupFsError ignored;
                        if (cgroupfs_apply_op(fs, &plan->undo[j - 1], &ignored) < 0)
                                rollback_failed++;
                }
                if (ret_failed)
                        *ret_failed = i;
        }
        if (ret_rollback_failed)
                *ret_rollback_failed = rollback_failed;
        return r;
}

int cgroupfs_attach(CgroupFs *fs, const char *path, pid_t pid, CgroupFsError *e) {
        HcbsNode *n = find(path);
        FakeTask *t;
        char value[32];
        int r = intercept(FAKE_OP_ATTACH);

        snprintf(value, sizeof(value), "%d", (int) pid);
        t = task(pid);
        if (r >= 0 && !n)
                r = -ENOENT;
        if (r >= 0 && !t)
                r = -ESRCH;
        /* v2: no processes in a non-root group that passes controllers on */
        if (r >= 0 && K->v2 && !n->is_kernel_root && group_of(n)->cpu)
                r = -EBUSY;
        if (r >= 0 && has_rt_files(n) && !hcbs_model_can_attach(K->model, n, proc_policy_is_rt(t->policy)))
                r = -EINVAL;
        if (r < 0) {
                error_set(e, -r, path, "cgroup.procs", value);
                return r;
        }
        HcbsNode *from = t->group;
        t->group = n;
        recount(from);
        recount(n);
        return 0;
}

/* The fake's cpuset controller is always there. */
int cgroupfs_enable_cpuset(CgroupFs *fs, const char *path, CgroupFsError *e) {
        return find(path) ? 0 : -ENOENT;
}

int cgroupfs_set_cpu_controller(CgroupFs *fs, const char *path, bool enable, CgroupFsError *e) {
        HcbsNode *n = find(path);
        int r;

        if (!K->v2)
                return 0;
        r = intercept(FAKE_OP_CONTROL);
        if (r >= 0 && !n)
                r = -ENOENT;
        if (r >= 0 && enable && !n->is_kernel_root && has_tasks(n))
                r = -EBUSY; /* no internal processes */
        if (r >= 0 && !enable)
                HCBS_NODE_FOREACH_CHILD(c, n)
                        if (group_of(c)->cpu)
                                r = -EBUSY; /* a child passes it on */
        if (r < 0) {
                error_set(e, -r, path, "cgroup.subtree_control", enable ? "+cpu" : "-cpu");
                return r;
        }
        if (group_of(n)->cpu == enable)
                return 0;
        group_of(n)->cpu = enable;
        /* the children's cpu css come and go: a new one starts afresh, a gone one holds nothing */
        HCBS_NODE_FOREACH_CHILD(c, n) {
                uint64_t period = 0;
                int64_t runtime = 0;
                if (enable)
                        initial_values(&period, &runtime);
                hcbs_model_set(K->model, c, period, runtime);
        }
        return 0;
}

int cgroupfs_read_procs(CgroupFs *fs, const char *path, pid_t **ret, size_t *ret_n) {
        HcbsNode *n = find(path);
        pid_t *pids;
        size_t k = 0;

        if (!n)
                return -ENOENT;
        pids = calloc(K->n_tasks + 1, sizeof(pid_t));
        if (!pids)
                return -ENOMEM;
        for (size_t i = 0; i < K->n_tasks; i++)
                if (K->tasks[i].group == n)
                        pids[k++] = K->tasks[i].pid;
        *ret = pids;
        *ret_n = k;
        return 0;
}

int cgroupfs_read_file(CgroupFs *fs, const char *path, char *buf, size_t size) {
        return -ENOENT; /* the manager reads no other file through it */
}

/* Every group's cpu.stat: 1 ms of CPU, throttled 7 us (7000 ns on v1, which the backend converts). */
int cgroupfs_read_cpu_stat(CgroupFs *fs, const char *path, CpuStatField *fields, size_t max, size_t *ret_n) {
        static const CpuStatField stat[] = { { "usage_usec", 1000 }, { "throttled_usec", 7 } };
        size_t n = 0;

        if (!find(path))
                return -ENOENT;
        for (; n < max && n < ELEMENTSOF(stat); n++)
                fields[n] = stat[n];
        *ret_n = n;
        return 0;
}

int cgroupfs_find_mount(const char *path, char **ret) {
        *ret = strdup("/proc"); /* cgroupfs_root_path() */
        return *ret ? 0 : -ENOMEM;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int cgroupfs_list_children(CgroupFs *fs, const char *path, CgroupFsChildren *ret) {
        HcbsNode *n = find(path);
        CgroupFsChildren c = { 0 };

        if (!n)
                return -ENOENT;
        for (HcbsNode *ch = n->first_child; ch; ch = ch->next)
                c.n++;
        c.names = calloc(c.n + 1, sizeof(char *));
        if (!c.names)
                return -ENOMEM;
        c.n = 0;
        for (HcbsNode *ch = n->first_child; ch; ch = ch->next) {
                c.names[c.n] = strdup(ch->name);
                if (!c.names[c.n++]) {
                        cgroupfs_children_done(&c);
                        return -ENOMEM;
                }
        }
        qsort(c.names, c.n, sizeof(char *), cmp_names);
        *ret = c;
        return 0;
}

void cgroupfs_children_done(CgroupFsChildren *c) {
        for (size_t i = 0; i < c->n; i++)
                free(c->names[i]);
        free(c->names);
        *c = (CgroupFsChildren) { 0 };
}

int cgroupfs_stat(CgroupFs *fs, const char *path, uint64_t *ret_id, bool *ret_has_children) {
        HcbsNode *n = find(path);

        __atomic_fetch_add(&K->id_reads, 1, __ATOMIC_RELAXED);
        if (!n)
                return -ENOENT;
        *ret_id = group_of(n)->id;
        if (ret_has_children)
                *ret_has_children = n->first_child != NULL;
        return 0;
}

int cgroupfs_cgroup_id(CgroupFs *fs, const char *path, uint64_t *ret) {
        return cgroupfs_stat(fs, path, ret, NULL);
}

/* ---- process.h ---- */

static const char *const policy_names[] = {
        [PROC_POLICY_KEEP] = "keep",
        [PROC_POLICY_OTHER] = "other",
        [PROC_POLICY_FIFO] = "fifo",
        [PROC_POLICY_RR] = "rr",
};

ProcPolicy proc_policy_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(policy_names); i++)
                if (strcmp(s, policy_names[i]) == 0)
                        return (ProcPolicy) i;
        return _PROC_POLICY_INVALID;
}

const char *proc_policy_to_string(ProcPolicy p) {
        return (unsigned) p < ELEMENTSOF(policy_names) ? policy_names[p] : NULL;
}

/* A pin is a real descriptor (of /dev/null, so closing it is harmless) that names the pid it holds. */
int proc_pin(pid_t pid, int *ret_pidfd) {
        int fd;

        if (!task(pid))
                return -ESRCH;
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if ((size_t) fd >= ELEMENTSOF(K->pinned)) {
                close(fd);
                return -EMFILE;
        }
        K->pinned[fd] = pid;
        *ret_pidfd = fd;
        return 0;
}

int proc_pidfd_alive(int pidfd) {
        if (pidfd < 0)
                return 0;
        if ((size_t) pidfd >= ELEMENTSOF(K->pinned) || !task(K->pinned[pidfd]))
                return -ESRCH;
        return 0;
}

int proc_get_uid(pid_t pid, uid_t *ret) {
        FakeTask *t = task(pid);

        if (!t)
                return -ESRCH;
        *ret = t->uid;
        return 0;
}

int proc_get_uid_pinned(pid_t pid, int pidfd, uid_t *ret) {
        uid_t uid;
        int r = proc_get_uid(pid, &uid);

        if (r >= 0)
                r = proc_pidfd_alive(pidfd);
        if (r >= 0)
                *ret = uid;
        return r;
}

int proc_get_cgroup(pid_t pid, const char *v1_controller, char **ret) {
        FakeTask *t = task(pid);

        if (!t)
                return -ESRCH;
        if (!!v1_controller[0] == K->v2)
                return -ENODATA; /* no line for that hierarchy */
        *ret = strdup(t->group->path);
        return *ret ? 0 : -ENOMEM;
}

int proc_is_rt(pid_t pid) {
        FakeTask *t = task(pid);
        return t ? proc_policy_is_rt(t->policy) : -ESRCH;
}

unsigned proc_count_rt(const pid_t *pids, size_t n) {
        unsigned count = 0;
        for (size_t i = 0; i < n; i++)
                count += proc_is_rt(pids[i]) > 0;
        K->policy_reads += n;
        return count;
}

unsigned fake_kernel_policy_reads(void) {
        return K->policy_reads;
}

/* __sched_setscheduler(): an RT policy only where the task's group can run it. */
static int set_policy(FakeTask *t, ProcPolicy policy, int priority) {
        int r = intercept(FAKE_OP_POLICY);

        if (r >= 0 && proc_policy_is_rt(policy) && has_rt_files(t->group) &&
            !hcbs_model_can_setscheduler(K->model, t->group))
                r = -EPERM;
        if (r < 0)
                return r;
        t->policy = policy;
        t->priority = priority;
        recount(t->group);
        return 0;
}

int proc_set_policy_pinned(pid_t pid, int pidfd, ProcPolicy policy, int priority) {
        FakeTask *t;
        int r;

        if (policy == PROC_POLICY_KEEP)
                return 0;
        if (policy != PROC_POLICY_OTHER && !proc_policy_is_rt(policy))
                return -EINVAL;
        r = proc_pidfd_alive(pidfd);
        t = task(pid);
        if (r < 0 || !t)
                return -ESRCH;
        return set_policy(t, policy, priority);
}

int proc_set_policy(pid_t pid, ProcPolicy policy, int priority) {
        return proc_set_policy_pinned(pid, -1, policy, priority);
}

int proc_get_starttime(pid_t pid, uint64_t *ret) {
        FakeTask *t = task(pid);

        if (!t)
                return -ESRCH;
        *ret = t->starttime;
        return 0;
}

int proc_get_ppid(pid_t pid, pid_t *ret) {
        FakeTask *t = task(pid);

        if (!t)
                return -ESRCH;
        *ret = t->ppid;
        return 0;
}

int proc_demote_rt(pid_t pid, int pidfd, ProcThreads *acc) {
        FakeTask *t = task(pid);
        ProcThread *th;
        int r = proc_pidfd_alive(pidfd);

        if (r < 0 || !t)
                return -ESRCH;
        if (!proc_policy_is_rt(t->policy))
                return 0;
        th = reallocarray(acc->threads, acc->n + 1, sizeof(ProcThread));
        if (!th)
                return -ENOMEM;
        acc->threads = th;
        th[acc->n] = (ProcThread) { pid, pidfd, pid, t->policy, t->priority };
        r = set_policy(t, PROC_POLICY_OTHER, 0);
        if (r >= 0)
                acc->n++;
        return r;
}

/* ProcThread.policy holds a ProcPolicy here, not a SCHED_* value: only this file reads it. */
int proc_restore_rt(const ProcThreads *acc) {
        int ret = 0;

        for (size_t i = 0; i < acc->n; i++) {
                const ProcThread *th = &acc->threads[i];
                FakeTask *t = task(th->pid);
                int r = proc_pidfd_alive(th->pidfd);

                if (r >= 0 && t)
                        r = set_policy(t, (ProcPolicy) th->policy, th->priority);
                if (r < 0 && r != -ESRCH && ret == 0)
                        ret = r;
        }
        return ret;
}

void proc_threads_done(ProcThreads *acc) {
        free(acc->threads);
        *acc = (ProcThreads) {};
}
