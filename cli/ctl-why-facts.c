/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-why-facts.h"
#include "macro.h"
#include "strutil.h"

#define CAP_SYS_NICE_BIT 23

static FILE *open_proc(pid_t pid, pid_t tid, const char *name) {
        char path[64];

        if (tid)
                snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int) pid, (int) tid, name);
        else
                snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, name);
        return fopen(path, "re");
}

static int errno_gone(void) {
        return errno == ENOENT ? -ESRCH : -errno;
}

int why_read_tgid(pid_t id, pid_t *ret) {
        _cleanup_fclose_ FILE *f = open_proc(id, 0, "status");
        char line[256];
        int tgid;

        if (!f)
                return errno_gone();
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Tgid: %d", &tgid) == 1) {
                        *ret = tgid;
                        return 0;
                }
        return -EBADMSG;
}

static int read_status(pid_t pid, pid_t tid, HcbsWhyFacts *f) {
        _cleanup_fclose_ FILE *in = open_proc(pid, tid, "status");
        char line[512];
        unsigned long long cap;
        unsigned uid;
        int seccomp;

        if (!in)
                return errno_gone();
        while (fgets(line, sizeof(line), in)) {
                if (sscanf(line, "Name: %63[^\n]", f->comm) == 1)
                        continue;
                if (sscanf(line, "Uid: %u", &uid) == 1)
                        f->uid = uid;
                else if (sscanf(line, "CapEff: %llx", &cap) == 1)
                        f->cap_sys_nice = (cap >> CAP_SYS_NICE_BIT) & 1;
                else if (sscanf(line, "Seccomp: %d", &seccomp) == 1)
                        f->seccomp_filter = seccomp == 2;
        }
        return 0;
}

static uint64_t limit_value(const char *s) {
        return strcmp(s, "unlimited") == 0 ? HCBS_WHY_UNLIMITED : strtoull(s, NULL, 10);
}

/* "Max realtime priority     0     0" and "Max realtime timeout      unlimited  unlimited  us" */
static int read_limits(pid_t pid, HcbsWhyFacts *f) {
        _cleanup_fclose_ FILE *in = open_proc(pid, 0, "limits");
        char line[256], soft[32], hard[32];

        if (!in)
                return errno_gone();
        while (fgets(line, sizeof(line), in)) {
                if (hcbs_startswith(line, "Max realtime priority") &&
                    sscanf(line + strlen("Max realtime priority"), "%31s %31s", soft, hard) == 2) {
                        f->rtprio_soft = limit_value(soft);
                        f->rtprio_hard = limit_value(hard);
                } else if (hcbs_startswith(line, "Max realtime timeout") &&
                           sscanf(line + strlen("Max realtime timeout"), "%31s %31s", soft, hard) == 2) {
                        f->rttime_soft_us = limit_value(soft);
                        f->rttime_hard_us = limit_value(hard);
                }
        }
        return 0;
}

static void count_threads(pid_t pid, HcbsWhyFacts *f) {
        char path[64];
        DIR *d;
        struct dirent *de;
        unsigned n = 0;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        d = opendir(path);
        if (!d)
                return;
        while ((de = readdir(d)) && n < WHY_SCAN_MAX) {
                int tid = atoi(de->d_name), p;
                if (tid <= 0)
                        continue;
                n++;
                f->threads++;
                p = sched_getscheduler(tid);
                if (p >= 0 && ((p & ~SCHED_RESET_ON_FORK) == SCHED_FIFO || (p & ~SCHED_RESET_ON_FORK) == SCHED_RR))
                        f->rt_threads++;
        }
        closedir(d);
}

int why_read_thread(pid_t pid, pid_t tid, HcbsWhyFacts *f) {
        struct sched_param sp;
        int r;

        f->pid = pid;
        f->tid = tid;
        r = read_status(pid, tid, f);
        if (r < 0)
                return r;
        r = read_limits(pid, f);
        if (r < 0)
                return r;
        r = sched_getscheduler(tid);
        if (r < 0 || sched_getparam(tid, &sp) < 0)
                return errno == ESRCH ? -ESRCH : -errno;
        f->policy = r & ~SCHED_RESET_ON_FORK;
        f->priority = sp.sched_priority;
        count_threads(pid, f);
        return 0;
}

/* The thread's path on the hierarchy (v1: the line whose controllers include cpu; v2: "0::PATH"). */
static int read_cgroup_path(pid_t pid, pid_t tid, bool v2, char *ret, size_t len) {
        _cleanup_fclose_ FILE *in = open_proc(pid, tid, "cgroup");
        char line[PATH_MAX + 128];

        if (!in)
                return errno_gone();
        while (fgets(line, sizeof(line), in)) {
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                *c1 = *c2 = '\0';
                if (v2 ? strcmp(line, "0") != 0 || c1[1] : !hcbs_has_word(c1 + 1, "cpu", ","))
                        continue;
                c2[1 + strcspn(c2 + 1, "\n")] = '\0';
                snprintf(ret, len, "%s", c2 + 1);
                return 0;
        }
        return -ENOENT;
}

static bool read_i64(const char *path, int64_t *ret) {
        _cleanup_fclose_ FILE *in = fopen(path, "re");
        long long v;

        if (!in || fscanf(in, "%lld", &v) != 1)
                return false;
        *ret = v;
        return true;
}

/* The RT values of dir: cpu.rt.max ("max P" or "R P") or the two files. */
static void read_node(const char *dir, HcbsWhyNode *n) {
        char path[PATH_MAX + 32], word[32];
        int64_t v;
        unsigned long long period;

        snprintf(path, sizeof(path), "%s/cpu.rt.max", dir);
        _cleanup_fclose_ FILE *max = fopen(path, "re");
        if (max) {
                n->has_files = fscanf(max, "%31s %llu", word, &period) == 2;
                n->max = strcmp(word, "max") == 0;
                n->runtime_us = n->max ? -1 : strtoll(word, NULL, 10);
                n->period_us = period;
                return;
        }
        snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
        if (!read_i64(path, &n->runtime_us))
                return;
        n->has_files = true;
        snprintf(path, sizeof(path), "%s/cpu.rt_period_us", dir);
        if (read_i64(path, &v))
                n->period_us = (uint64_t) v;
}

/* A child of dir with a runtime > 0 (the rfc1 leaf rule), relative path into ret. */
static void find_busy_child(const char *dir, const char *rel, char *ret, size_t len) {
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;

        if (!d)
                return;
        while ((de = readdir(d)) && n++ < WHY_SCAN_MAX) {
                char sub[PATH_MAX * 2 + 300];
                HcbsWhyNode c = {};

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
                read_node(sub, &c);
                if (c.has_files && !c.max && c.runtime_us != 0) {
                        snprintf(ret, len, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
                        break;
                }
        }
        closedir(d);
}

static void add_node(const char *prefix, const char *mount, const char *rel, size_t len, HcbsWhyFacts *f) {
        HcbsWhyNode *n = &f->chain[f->n_chain++];
        char dir[PATH_MAX * 2];

        snprintf(n->path, sizeof(n->path), "%.*s", (int) len, rel);
        snprintf(dir, sizeof(dir), "%s%s/%s", prefix, mount, n->path);
        read_node(dir, n);
}

int why_read_chain(const char *prefix, const HcbsKernelFacts *k, pid_t pid, pid_t tid, HcbsWhyFacts *f) {
        bool v2 = !k->v1_rt_runtime;
        const char *mount = v2 ? k->v2_mount : k->v1_cpu_mount;
        char path[PATH_MAX], dir[PATH_MAX * 2];
        int r;

        if (!mount[0])
                return 0;
        snprintf(f->mount, sizeof(f->mount), "%s", mount);
        r = read_cgroup_path(pid, tid, v2, path, sizeof(path));
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (hcbs_startswith(path, "/..") || path[0] != '/')
                return 0; /* a cgroup namespace hides the way up */
        /* "/a/b": the nodes "", "a" and "a/b" */
        add_node(prefix, mount, path + 1, 0, f);
        for (const char *p = path + 1; *p && f->n_chain < HCBS_WHY_CHAIN_MAX;) {
                p += strcspn(p, "/");
                add_node(prefix, mount, path + 1, (size_t) (p - path - 1), f);
                p += strspn(p, "/");
        }
        if (v2 && f->n_chain > 0) {
                const HcbsWhyNode *leaf = &f->chain[f->n_chain - 1];
                snprintf(dir, sizeof(dir), "%s%s/%s", prefix, mount, leaf->path);
                find_busy_child(dir, leaf->path, f->busy_child, sizeof(f->busy_child));
        }
        return 0;
}

int why_first_pid(const char *prefix, const char *mount, const char *cgroup, pid_t *ret) {
        char path[PATH_MAX * 2];
        _cleanup_fclose_ FILE *in = NULL;
        int pid;

        snprintf(path, sizeof(path), "%s%s/%s/cgroup.procs", prefix, mount, cgroup[0] == '/' ? cgroup + 1 : cgroup);
        in = fopen(path, "re");
        if (!in)
                return -errno;
        *ret = fscanf(in, "%d", &pid) == 1 ? pid : 0;
        return 0;
}
