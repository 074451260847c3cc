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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "manager-internal.h"

static const char *v1_controller(const Manager *m) {
        return cgroupfs_is_v2(m->fs) ? "" : "cpu";
}

static Origin *origin_find(Manager *m, pid_t pid) {
        for (size_t i = 0; i < m->n_origins; i++)
                if (m->origins[i].pid == pid)
                        return &m->origins[i];
        return NULL;
}

static void origin_forget(Manager *m, pid_t pid) {
        Origin *o = origin_find(m, pid);
        if (!o)
                return;
        free(o->cgroup);
        *o = m->origins[--m->n_origins];
}

void manager_origins_clear(Manager *m) {
        for (size_t i = 0; i < m->n_origins; i++)
                free(m->origins[i].cgroup);
        free(m->origins);
        m->origins = NULL;
        m->n_origins = 0;
}

/* Whether a cgroup path (relative to the mount) lies in hcbsd's tree. */
static bool in_tree(const Manager *m, const char *cgroup) {
        size_t len = strlen(m->policy.base->path);
        return strncmp(cgroup, m->policy.base->path, len) == 0 && (cgroup[len] == '/' || cgroup[len] == '\0');
}

/* Remembers where a process was before hcbsd first moved it. */
static int origin_record(Manager *m, pid_t pid) {
        char *cgroup = NULL;
        int r;

        if (origin_find(m, pid))
                return 0;
        r = proc_get_cgroup(pid, v1_controller(m), &cgroup);
        if (r < 0)
                return r;
        if (in_tree(m, cgroup)) {
                free(cgroup);
                return 0;
        }
        Origin *o = realloc(m->origins, (m->n_origins + 1) * sizeof(Origin));
        if (!o) {
                free(cgroup);
                return -ENOMEM;
        }
        m->origins = o;
        o[m->n_origins++] = (Origin) { pid, cgroup };
        return 0;
}

/* Pins every pid and checks the caller may move it. Returns 1, or 0 with v set. */
static int pin_all(const pid_t *pids, size_t n, uid_t caller, int *fds, HcbsVerdict *v) {
        for (size_t i = 0; i < n; i++) {
                uid_t owner;
                int r;

                fds[i] = -1;
                r = proc_pin(pids[i], &fds[i]);
                if (r >= 0)
                        r = proc_get_uid(pids[i], &owner);
                if (r < 0) {
                        hcbs_verdict_set(v, HCBS_E_NO_SUCH_PROCESS, ESRCH, "no process %d", (int) pids[i]);
                        return 0;
                }
                if (caller != 0 && owner != caller) {
                        hcbs_verdict_set(v, HCBS_E_PERMISSION_DENIED, EPERM,
                                         "process %d belongs to uid %u; only root may move it", (int) pids[i],
                                         (unsigned) owner);
                        return 0;
                }
        }
        return 1;
}

static void close_all(int *fds, size_t n) {
        for (size_t i = 0; i < n; i++)
                closep(&fds[i]);
}

/* Refreshes the model of every group the processes were in or went to. */
static void refresh_paths(Manager *m, char **paths, size_t n) {
        for (size_t i = 0; i < n; i++) {
                HcbsNode *g = paths[i] ? hcbs_model_find(m->model, paths[i]) : NULL;
                if (g && g != hcbs_model_root(m->model)) {
                        (void) manager_refresh_tasks(m, g);
                        manager_bus_tasks_changed(m, g);
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

/* Moves one process and sets its policy. 1 done, 0 refused (v set), or -ESRCH if it exited. */
static int attach_one(Manager *m, HcbsNode *n, pid_t pid, int pidfd, const AttachOptions *o, HcbsVerdict *v) {
        CgroupFsError e = {};
        int r;

        r = origin_record(m, pid);
        if (r >= 0)
                r = cgroupfs_attach(m->fs, n->path, pid, &e);
        if (r >= 0)
                r = proc_set_policy(pid, o->policy, o->priority);
        if (r == -ESRCH || (r < 0 && proc_pidfd_alive(pidfd) == -ESRCH))
                return -ESRCH;
        if (r >= 0)
                return 1;
        if (e.error)
                hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, e.error, "the kernel refused to move %d into %s: %s",
                                 (int) pid, e.file, strerror(e.error));
        else
                hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, -r, "the kernel refused policy %s for %d in %s: %s",
                                 proc_policy_to_string(o->policy), (int) pid, manager_group_name(m, n), strerror(-r));
        log_error("Model defect: %s", v->message);
        return 0;
}

int manager_attach(Manager *m, const char *name, const pid_t *pids, size_t n, const AttachOptions *o,
                   HcbsVerdict *v) {
        HcbsNode *g = hcbs_policy_find(&m->policy, name);
        _cleanup_free_ int *fds = calloc(n ? n : 1, sizeof(int));
        _cleanup_free_ char **touched = calloc(n + 1, sizeof(char *));
        size_t n_touched = 0;
        bool rt;
        int r = 0;

        if (!fds || !touched)
                return -ENOMEM;
        if (!g) /* names the problem: InvalidName or NoSuchGroup */
                return hcbs_admit_attach(&m->policy, name, false, v), 0;
        if (n == 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "no pids given");
                return 0;
        }
        (void) manager_refresh_tasks(m, g);
        if (!pin_all(pids, n, o->caller_uid, fds, v))
                goto out;
        rt = proc_policy_is_rt(o->policy) || (o->policy == PROC_POLICY_KEEP && any_rt(pids, n));
        if (!hcbs_admit_attach(&m->policy, name, rt, v))
                goto out;
        for (size_t i = 0; i < n; i++) {
                char *from = NULL;
                (void) proc_get_cgroup(pids[i], v1_controller(m), &from);
                touched[n_touched++] = from;
                r = attach_one(m, g, pids[i], fds[i], o, v);
                if (r == 0)
                        break;
                r = 0; /* a process that exited meanwhile is dropped without error */
        }
        touched[n_touched++] = strdup(g->path);
        refresh_paths(m, touched, n_touched);
out:
        close_all(fds, n);
        return r < 0 ? r : 0;
}

int manager_detach(Manager *m, const pid_t *pids, size_t n, uid_t caller_uid, HcbsVerdict *v) {
        _cleanup_free_ int *fds = calloc(n ? n : 1, sizeof(int));
        _cleanup_free_ char **touched = calloc(n + 1, sizeof(char *));
        size_t n_touched = 0;

        if (!fds || !touched)
                return -ENOMEM;
        hcbs_verdict_ok(v);
        if (n == 0) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "no pids given");
                return 0;
        }
        if (!pin_all(pids, n, caller_uid, fds, v))
                goto out;
        for (size_t i = 0; i < n; i++) {
                char *cgroup = NULL;
                if (proc_get_cgroup(pids[i], v1_controller(m), &cgroup) < 0)
                        continue; /* exited */
                if (!in_tree(m, cgroup)) {
                        hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "process %d is not in a group of hcbsd",
                                         (int) pids[i]);
                        free(cgroup);
                        break;
                }
                touched[n_touched++] = cgroup;
        }
        if (v->error != HCBS_OK)
                goto out;
        for (size_t i = 0; i < n; i++) {
                Origin *o = origin_find(m, pids[i]);
                const char *to = o && cgroupfs_exists(m->fs, o->cgroup) ? o->cgroup : "";
                CgroupFsError e = {};
                int r = proc_set_policy(pids[i], PROC_POLICY_OTHER, 0);

                if (r >= 0)
                        r = cgroupfs_attach(m->fs, to, pids[i], &e);
                if (r < 0 && r != -ESRCH && proc_pidfd_alive(fds[i]) == 0) {
                        hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, -r, "cannot detach %d to /%s: %s", (int) pids[i],
                                         to, strerror(-r));
                        break;
                }
                origin_forget(m, pids[i]);
        }
out:
        refresh_paths(m, touched, n_touched);
        close_all(fds, n);
        return 0;
}

int manager_reload(Manager *m, HcbsVerdict *v) {
        HcbsConf old = m->conf;
        char err[512] = "";
        int r;

        hcbs_verdict_ok(v);
        hcbs_conf_init(&m->conf);
        r = hcbs_conf_load(&m->conf, m->opts.config_path, m->opts.config_dir, err, sizeof(err));
        if (r < 0) {
                hcbs_conf_done(&m->conf);
                m->conf = old;
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "configuration not reloaded: %s", err);
                return 0;
        }
        hcbs_conf_done(&old);
        m->policy.min_period_us = m->conf.min_period_us;
        m->policy.max_period_us = m->conf.max_period_us;
        m->policy.pool_cap_bw = m->conf.capacity_bw;
        r = manager_apply_capacity(m);
        if (r < 0)
                return r;
        manager_apply_declared(m);
        if (m->n_persist_kept > 0)
                (void) manager_restore_persistent(m);
        return 0;
}
