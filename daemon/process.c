/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "process.h"

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

int proc_pin(pid_t pid, int *ret_pidfd) {
        int fd;

        if (pid <= 0)
                return -ESRCH;
        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0 && errno != ENOSYS)
                return -errno;
        /* without pidfd_open (old kernels, valgrind) check existence and pin nothing */
        if (fd < 0 && kill(pid, 0) < 0 && errno == ESRCH)
                return -ESRCH;
        *ret_pidfd = fd;
        return 0;
}

int proc_pidfd_alive(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int r;

        if (pidfd < 0)
                return 0; /* not pinned: assume it runs */
        r = poll(&p, 1, 0);
        if (r < 0)
                return -errno;
        return r > 0 ? -ESRCH : 0; /* readable means exited */
}

int proc_get_uid(pid_t pid, uid_t *ret) {
        char path[64], line[256];
        FILE *f;
        unsigned uid;
        int r = -EBADMSG;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Uid: %u", &uid) == 1) {
                        *ret = uid;
                        r = 0;
                        break;
                }
        fclose(f);
        return r;
}

/* Matches a /proc/PID/cgroup line "ID:CONTROLLERS:PATH" for the wanted hierarchy. */
static bool line_matches(const char *controllers, const char *v1_controller) {
        size_t len = strlen(v1_controller);
        if (!*v1_controller)
                return *controllers == '\0';
        for (const char *p = controllers; p; p = strchr(p, ',')) {
                if (*p == ',')
                        p++;
                if (strncmp(p, v1_controller, len) == 0 && (p[len] == ',' || p[len] == '\0'))
                        return true;
        }
        return false;
}

int proc_get_cgroup(pid_t pid, const char *v1_controller, char **ret) {
        char path[64];
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        FILE *f;
        int r = -ENODATA;

        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (getline(&line, &cap, f) > 0) {
                line[strcspn(line, "\n")] = '\0';
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                *c2 = '\0';
                if (!line_matches(c1 + 1, v1_controller))
                        continue;
                const char *p = c2 + 1;
                while (*p == '/')
                        p++;
                *ret = strdup(p);
                r = *ret ? 0 : -ENOMEM;
                break;
        }
        fclose(f);
        return r;
}

/* Calls fn for every thread of pid. Stops at the first error other than ESRCH. */
static int for_each_thread(pid_t pid, int (*fn)(pid_t tid, void *userdata), void *userdata) {
        char path[64];
        DIR *d;
        struct dirent *de;
        int r = 0;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        d = opendir(path);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;
        while ((de = readdir(d))) {
                pid_t tid = (pid_t) strtol(de->d_name, NULL, 10);
                if (tid <= 0)
                        continue;
                r = fn(tid, userdata);
                if (r == -ESRCH)
                        r = 0;
                if (r != 0)
                        break;
        }
        closedir(d);
        return r;
}

static int thread_is_rt(pid_t tid, void *userdata) {
        int p = sched_getscheduler(tid);
        if (p < 0)
                return -errno;
        p &= ~SCHED_RESET_ON_FORK;
        return p == SCHED_FIFO || p == SCHED_RR ? 1 : 0;
}

int proc_is_rt(pid_t pid) {
        return for_each_thread(pid, thread_is_rt, NULL);
}

typedef struct PolicyArgs {
        int policy;
        struct sched_param sp;
} PolicyArgs;

static int thread_set_policy(pid_t tid, void *userdata) {
        PolicyArgs *a = userdata;
        return sched_setscheduler(tid, a->policy, &a->sp) < 0 ? -errno : 0;
}

int proc_set_policy(pid_t pid, ProcPolicy policy, int priority) {
        return proc_set_policy_pinned(pid, -1, policy, priority);
}

unsigned proc_count_rt(const pid_t *pids, size_t n) {
        unsigned count = 0;
        for (size_t i = 0; i < n; i++)
                count += proc_is_rt(pids[i]) > 0;
        return count;
}

/* Fields of /proc/PID/stat after the command (which may hold spaces and ')'): field 3 is the state. */
static int read_stat_fields(pid_t pid, char *buf, size_t size, const char **ret_after_comm) {
        char path[64];
        _cleanup_close_ int fd = -1;
        ssize_t n;
        char *paren;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        paren = strrchr(buf, ')');
        if (!paren || paren[1] != ' ')
                return -EBADMSG;
        *ret_after_comm = paren + 2;
        return 0;
}

/* The n-th field (1-based, as in proc(5)) of /proc/PID/stat, counting from field 3. */
static int stat_field(pid_t pid, unsigned field, unsigned long long *ret) {
        char buf[1024];
        const char *p = NULL;
        char *end;
        int r = read_stat_fields(pid, buf, sizeof(buf), &p);

        if (r < 0)
                return r;
        for (unsigned i = 3; i < field; i++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EBADMSG;
                p++;
        }
        errno = 0;
        *ret = strtoull(p, &end, 10);
        return errno || end == p ? -EBADMSG : 0;
}

int proc_get_starttime(pid_t pid, uint64_t *ret) {
        unsigned long long v;
        int r = stat_field(pid, 22, &v);

        if (r >= 0)
                *ret = v;
        return r;
}

int proc_get_ppid(pid_t pid, pid_t *ret) {
        unsigned long long v;
        int r = stat_field(pid, 4, &v);

        if (r >= 0)
                *ret = (pid_t) v;
        return r;
}

int proc_get_uid_pinned(pid_t pid, int pidfd, uid_t *ret) {
        uid_t uid;
        int r = proc_get_uid(pid, &uid);

        /* read after the pin and checked after: the uid is the pinned process's, not a successor's */
        if (r >= 0)
                r = proc_pidfd_alive(pidfd);
        if (r >= 0)
                *ret = uid;
        return r;
}

typedef struct PinnedPolicy {
        int pidfd;
        PolicyArgs a;
} PinnedPolicy;

static int thread_set_policy_pinned(pid_t tid, void *userdata) {
        PinnedPolicy *p = userdata;
        int r = proc_pidfd_alive(p->pidfd); /* right before the write: the pid is still the one we checked */

        return r < 0 ? r : thread_set_policy(tid, &p->a);
}

static int policy_args(ProcPolicy policy, int priority, PolicyArgs *a) {
        *a = (PolicyArgs) {};
        switch (policy) {
        case PROC_POLICY_OTHER:
                a->policy = SCHED_OTHER;
                return 0;
        case PROC_POLICY_FIFO:
                a->policy = SCHED_FIFO;
                a->sp.sched_priority = priority;
                return 0;
        case PROC_POLICY_RR:
                a->policy = SCHED_RR;
                a->sp.sched_priority = priority;
                return 0;
        default:
                return -EINVAL;
        }
}

int proc_set_policy_pinned(pid_t pid, int pidfd, ProcPolicy policy, int priority) {
        PinnedPolicy p = { .pidfd = pidfd };
        int r;

        if (policy == PROC_POLICY_KEEP)
                return 0;
        r = policy_args(policy, priority, &p.a);
        if (r < 0)
                return r;
        r = for_each_thread(pid, thread_set_policy_pinned, &p);
        /* a thread may have exited, or the whole process: only the latter is ESRCH */
        return r == -ESRCH || proc_pidfd_alive(pidfd) < 0 ? -ESRCH : r;
}

/* ---- demoting RT threads for a move, and putting them back ---- */

typedef struct DemoteArgs {
        ProcThreads *acc;
        pid_t pid;
        int pidfd;
} DemoteArgs;

static int thread_demote(pid_t tid, void *userdata) {
        DemoteArgs *d = userdata;
        struct sched_param sp, other = {};
        ProcThread *t;
        int policy, r;

        r = proc_pidfd_alive(d->pidfd);
        if (r < 0)
                return r;
        policy = sched_getscheduler(tid);
        if (policy < 0)
                return -errno;
        policy &= ~SCHED_RESET_ON_FORK;
        if (policy != SCHED_FIFO && policy != SCHED_RR)
                return 0;
        if (sched_getparam(tid, &sp) < 0)
                return -errno;
        t = reallocarray(d->acc->threads, d->acc->n + 1, sizeof(ProcThread));
        if (!t)
                return -ENOMEM;
        d->acc->threads = t;
        if (sched_setscheduler(tid, SCHED_OTHER, &other) < 0)
                return -errno;
        t[d->acc->n++] = (ProcThread) { d->pid, d->pidfd, tid, policy, sp.sched_priority };
        return 0;
}

int proc_demote_rt(pid_t pid, int pidfd, ProcThreads *acc) {
        DemoteArgs d = { acc, pid, pidfd };
        return for_each_thread(pid, thread_demote, &d);
}

int proc_restore_rt(const ProcThreads *acc) {
        int ret = 0;

        for (size_t i = 0; i < acc->n; i++) {
                const ProcThread *t = &acc->threads[i];
                struct sched_param sp = { .sched_priority = t->priority };
                int r = proc_pidfd_alive(t->pidfd);

                if (r >= 0 && sched_setscheduler(t->tid, t->policy, &sp) < 0)
                        r = -errno;
                if (r < 0 && r != -ESRCH && ret == 0)
                        ret = r;
        }
        return ret;
}

void proc_threads_done(ProcThreads *acc) {
        free(acc->threads);
        *acc = (ProcThreads) {};
}
