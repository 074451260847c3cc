/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Attach and Detach: moving whole processes, and their threads' policy.
 *
 * Order matters to the kernel. Attach moves the process first and sets the
 * RT policy after, so the task enters a group that can run it (an RT task
 * cannot enter a group without runtime, and a task cannot become RT
 * outside one). Detach resets the policy first, then moves the process
 * back, so it never sits RT in a group that cannot hold it.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "manager-internal.h"
#include "name.h"

static const char *v1_controller(const Manager *m) {
        return cgroupfs_is_v2(m->fs) ? "" : "cpu";
}

/* Whether a cgroup path (relative to the mount) lies in hcbsd's tree. */
static bool in_tree(const Manager *m, const char *cgroup) {
        return hcbs_path_is_under(cgroup, m->admission.base->path);
}

void manager_origins_load(Manager *m) {
        char err[HCBS_MESSAGE_MAX];

        if (origins_load(&m->origins, manager_runtime_dir(m), err, sizeof(err)) < 0)
                log_error("Not using the recorded origins of attached processes: %s", err);
}

static void origins_save_logged(Manager *m) {
        int r = origins_save(&m->origins, manager_runtime_dir(m));
        if (r < 0)
                log_warning_errno(r, "Cannot save the origins of attached processes in %s: %m",
                                  manager_runtime_dir(m));
}

/* Remembers where a process was before hcbsd first moved it into its tree. */
static int origin_record(Manager *m, pid_t pid) {
        _cleanup_free_ char *cgroup = NULL;
        int r = proc_get_cgroup(pid, v1_controller(m), &cgroup);

        if (r < 0 || in_tree(m, cgroup))
                return r;
        return origins_record(&m->origins, pid, cgroup);
}

int manager_pin_owned(const pid_t *pids, size_t n, uid_t caller_uid, int *fds, HcbsVerdict *v) {
        for (size_t i = 0; i < n; i++)
                fds[i] = -1;
        for (size_t i = 0; i < n; i++) {
                uid_t owner;
                int r = proc_pin(pids[i], &fds[i]);

                if (r >= 0) /* both fail only when the process is gone: one refusal */
                        r = proc_get_uid_pinned(pids[i], fds[i], &owner);
                if (r < 0) {
                        manager_unpin(fds, n);
                        return hcbs_verdict_set(v, HCBS_E_NO_SUCH_PROCESS, ESRCH, "no process %d", (int) pids[i]);
                }
                if (caller_uid != 0 && owner != caller_uid) {
                        manager_unpin(fds, n);
                        return hcbs_verdict_set(v, HCBS_E_PERMISSION_DENIED, EPERM,
                                                "process %d belongs to uid %u; only root may move it", (int) pids[i],
                                                (unsigned) owner);
                }
        }
        return 0;
}

void manager_unpin(int *fds, size_t n) {
        for (size_t i = 0; i < n; i++) {
                closep(&fds[i]);
                fds[i] = -1;
        }
}

/* One move, checked through the pin right before the write. 0, -ESRCH if it exited, or -errno in e. */
static int move_one(Manager *m, const char *to, pid_t pid, int pidfd, CgroupFsError *e) {
        int r = proc_pidfd_alive(pidfd);

        if (r < 0)
                return -ESRCH;
        r = cgroupfs_attach(m->fs, to, pid, e);
        return r < 0 && proc_pidfd_alive(pidfd) < 0 ? -ESRCH : r;
}

int manager_move_pinned(Manager *m, const char *to, const pid_t *pids, const int *fds, size_t n, CgroupFsError *e) {
        for (size_t i = 0; i < n; i++) {
                int r = move_one(m, to, pids[i], fds[i], e);
                if (r < 0 && r != -ESRCH)
                        return r;
        }
        return 0;
}

/* Refreshes the model of every group the processes were in or went to. */
static void refresh_paths(Manager *m, char **paths, size_t n) {
        for (size_t i = 0; i < n; i++) {
                HcbsNode *g = paths[i] ? hcbs_model_find(m->model, paths[i]) : NULL;
                if (g && g != hcbs_model_root(m->model)) {
                        (void) manager_refresh_tasks(m, g);
                        manager_changed_tasks(m, g);
                }
                free(paths[i]);
        }
}

static bool any_rt(const pid_t *pids, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (proc_is_rt(pids[i]) > 0)
                        return true;
        return false;
}

/* A write the model said the kernel would take, refused: a defect of the model. Returns the refusal. */
static int model_defect(HcbsVerdict *v) {
        log_error("Model defect: %s", v->message);
        return (int) v->error;
}

/*
 * Moves one process and sets its policy. 0 done, the refusal (v set), -ESRCH if
 * it exited meanwhile, or another -errno if hcbsd cannot record where it came from.
 */
static int attach_one(Manager *m, HcbsNode *n, pid_t pid, int pidfd, const AttachOptions *o, HcbsVerdict *v) {
        CgroupFsError e = {};
        int r;

        r = origin_record(m, pid);
        if (r == -ENOSPC)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                        "hcbsd keeps the origins of %d processes at most; detach some first",
                                        ORIGINS_MAX);
        if (r == -ESRCH)
                return r;
        if (r < 0)
                return log_error_errno(r, "Cannot record where process %d came from: %m", (int) pid);
        r = move_one(m, n->path, pid, pidfd, &e);
        if (r == -ESRCH)
                return r;
        if (r < 0) {
                hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, e.error ? e.error : -r,
                                 "the kernel refused to move %d into %s: %s", (int) pid, e.error ? e.file : n->path,
                                 strerror(e.error ? e.error : -r));
                return model_defect(v);
        }
        r = proc_set_policy_pinned(pid, pidfd, o->policy, o->priority);
        if (r == -ESRCH)
                return r;
        if (r < 0) {
                hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, -r, "the kernel refused policy %s for %d in %s: %s",
                                 proc_policy_to_string(o->policy), (int) pid, manager_group_name(m, n), strerror(-r));
                return model_defect(v);
        }
        return 0;
}

/* Refuses more pids in one call than a caller can mean, before any is pinned (each pin is a descriptor). */
static int check_pid_count(size_t n, HcbsVerdict *v) {
        if (n == 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "no pids given");
        if (n > HCBS_PIDS_MAX)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%zu pids in one call; at most %d", n,
                                        HCBS_PIDS_MAX);
        return 0;
}

int manager_attach(Manager *m, const char *name, const pid_t *pids, size_t n, const AttachOptions *o,
                   HcbsVerdict *v) {
        HcbsNode *g;
        _cleanup_free_ int *fds = NULL;
        _cleanup_free_ char **touched = NULL;
        size_t n_touched = 0;
        bool rt;
        int r;

        assert(m);
        assert(name);
        assert(pids || n == 0);
        assert(o);
        assert(v);
        hcbs_verdict_ok(v);
        g = hcbs_admission_find(&m->admission, name);
        if (!g) /* names the problem: InvalidName or NoSuchGroup */
                return hcbs_admitted(hcbs_admit_attach(&m->admission, name, false, v), v);
        r = check_pid_count(n, v);
        if (r != 0)
                return r;
        fds = calloc(n, sizeof(int));
        touched = calloc(n + 1, sizeof(char *));
        if (!fds || !touched)
                return -ENOMEM;
        (void) manager_refresh_tasks(m, g);
        r = manager_pin_owned(pids, n, o->caller_uid, fds, v);
        if (r != 0)
                return r;
        rt = proc_policy_is_rt(o->policy) || (o->policy == PROC_POLICY_KEEP && any_rt(pids, n));
        r = hcbs_admitted(hcbs_admit_attach(&m->admission, name, rt, v), v);
        if (r != 0)
                goto out;
        origins_prune_some(&m->origins, ORIGINS_PRUNE_PER_CALL);
        for (size_t i = 0; i < n; i++) {
                char *from = NULL;
                (void) proc_get_cgroup(pids[i], v1_controller(m), &from);
                touched[n_touched++] = from;
                r = attach_one(m, g, pids[i], fds[i], o, v);
                if (r == -ESRCH)
                        r = 0; /* a process that exited meanwhile is dropped without error */
                if (r != 0)
                        break;
        }
        origins_save_logged(m);
        touched[n_touched++] = strdup(g->path);
        refresh_paths(m, touched, n_touched);
out:
        manager_unpin(fds, n);
        return r;
}

/*
 * Where Detach sends a process: where hcbsd found it (or, for a child
 * forked in the tree, its parent), if that cgroup still exists outside
 * the tree. Never the hierarchy's root by default: that would take the
 * process out of its unit and its limits. 0 with *ret, or the refusal.
 */
static int detach_target(Manager *m, pid_t pid, const char **ret, HcbsVerdict *v) {
        const char *to = origins_lookup(&m->origins, pid);

        if (to && !in_tree(m, to) && cgroupfs_exists(m->fs, to)) {
                *ret = to;
                return 0;
        }
        if (to)
                return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                        "process %d came from %s/%s, which is gone; attach it to another group, or "
                                        "move it with cgroup.procs yourself",
                                        (int) pid, m->mount, to);
        return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                "hcbsd does not know where process %d came from (it did not attach it); attach it "
                                "to another group, or move it with cgroup.procs yourself",
                                (int) pid);
}

static int detach_refused(Manager *m, pid_t pid, const char *to, int r, HcbsVerdict *v) {
        return hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, -r, "cannot detach %d to %s/%s: %s", (int) pid, m->mount,
                                to, strerror(-r));
}

/* Resets one process's policy and moves it to `to`: 0 (also when it exited meanwhile) or the refusal. */
static int detach_one(Manager *m, pid_t pid, int pidfd, const char *to, HcbsVerdict *v) {
        CgroupFsError e = {};
        int r;

        r = proc_set_policy_pinned(pid, pidfd, PROC_POLICY_OTHER, 0);
        if (r < 0)
                return r == -ESRCH ? 0 : detach_refused(m, pid, to, r, v);
        r = move_one(m, to, pid, pidfd, &e);
        if (r < 0)
                return r == -ESRCH ? 0 : detach_refused(m, pid, to, r, v);
        return 0;
}

int manager_detach(Manager *m, const pid_t *pids, size_t n, uid_t caller_uid, HcbsVerdict *v) {
        _cleanup_free_ int *fds = NULL;
        _cleanup_free_ char **touched = NULL;
        _cleanup_free_ const char **targets = NULL;
        size_t n_touched = 0;
        int r;

        assert(m);
        assert(pids || n == 0);
        assert(v);
        hcbs_verdict_ok(v);
        r = check_pid_count(n, v);
        if (r != 0)
                return r;
        fds = calloc(n, sizeof(int));
        touched = calloc(n + 1, sizeof(char *));
        targets = calloc(n, sizeof(char *));
        if (!fds || !touched || !targets)
                return -ENOMEM;
        r = manager_pin_owned(pids, n, caller_uid, fds, v);
        if (r != 0)
                return r;
        origins_prune_some(&m->origins, ORIGINS_PRUNE_PER_CALL);
        for (size_t i = 0; i < n && r == 0; i++) {
                char *cgroup = NULL;
                if (proc_get_cgroup(pids[i], v1_controller(m), &cgroup) < 0)
                        continue; /* exited */
                touched[n_touched++] = cgroup;
                r = in_tree(m, cgroup) ? detach_target(m, pids[i], &targets[i], v)
                                       : hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                                          "process %d is not in a group of hcbsd", (int) pids[i]);
        }
        for (size_t i = 0; i < n && r == 0; i++)
                if (targets[i]) /* else it exited */
                        r = detach_one(m, pids[i], fds[i], targets[i], v);
        for (size_t i = 0; i < n && r == 0; i++)
                origins_forget(&m->origins, pids[i]);
        origins_save_logged(m);
        refresh_paths(m, touched, n_touched);
        manager_unpin(fds, n);
        return r;
}
