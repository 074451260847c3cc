/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operations: each decides with the admission layer, applies the plan
 * through the backend, commits it to the model, then tells the bus.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "journal.h"
#include "log.h"
#include "message-ids.h"
#include "manager-internal.h"
#include "name.h"

/* Reads a group's RT files (and CPUs) into the model, where they can be read. */
static void load_rt(Manager *m, HcbsNode *n) {
        (void) manager_load_values(m, n);
}

/* After a refused plan the kernel may not be where the model thinks: read back what the plan touched. */
static void resync(Manager *m, const HcbsPlan *plan) {
        for (size_t i = 0; i < plan->n_ops; i++) {
                HcbsNode *n = hcbs_model_find(m->model, plan->ops[i].path);
                if (n)
                        load_rt(m, n);
        }
}

/* The kernel refused a write hcbsd made: v says which. Returns HCBS_E_KERNEL_REJECTED. */
static int kernel_rejected(Manager *m, const CgroupFsError *e, unsigned rollback_failed, HcbsVerdict *v) {
        char file[PATH_MAX];

        hcbs_verdict_set(v, HCBS_E_KERNEL_REJECTED, e->error, "the kernel refused %s/%s%s%s: %s", m->mount, e->file,
                         e->value[0] ? "=" : "", e->value, strerror(e->error));
        snprintf(file, sizeof(file), "%s/%s", m->mount, e->file);
        if (e->error == EINVAL || e->error == EBUSY || e->error == EPERM)
                log_struct_errno(LOG_ERR, -e->error, HCBS_MESSAGE_KERNEL_REJECTED,
                                 &(LogFields) { .file = file, .value = e->value,
                                                .error = hcbs_error_to_string(HCBS_E_KERNEL_REJECTED) },
                                 "Model defect: hcbsd admitted a change the kernel refused: %s", v->message);
        else
                log_error("%s", v->message);
        if (rollback_failed)
                log_error("Rolling back left %u write(s) undone; re-reading the kernel's values", rollback_failed);
        return HCBS_E_KERNEL_REJECTED;
}

/* A request admission control refused (not a kernel refusal: that is kernel_rejected()'s). */
static void log_refusal(const char *group, const char *unit, uint64_t runtime_us, uint64_t period_us,
                        const HcbsVerdict *v) {
        if (v->error == HCBS_OK || v->error == HCBS_E_KERNEL_REJECTED)
                return;
        log_struct(LOG_NOTICE, HCBS_MESSAGE_REFUSED,
                   &(LogFields) { .group = group, .unit = unit, .error = hcbs_error_to_string(v->error),
                                  .bandwidth = true, .runtime_us = runtime_us, .period_us = period_us },
                   "Refused %s %" PRIu64 "us/%" PRIu64 "us: %s", unit ? unit : group, runtime_us, period_us,
                   v->message);
}

static void log_granted(const char *name, uint64_t runtime_us, uint64_t period_us) {
        log_struct(LOG_INFO, HCBS_MESSAGE_GRANTED,
                   &(LogFields) { .group = name, .bandwidth = true, .runtime_us = runtime_us, .period_us = period_us },
                   "Reserved %s: %" PRIu64 "us every %" PRIu64 "us", name, runtime_us, period_us);
}

/* rtmax v7: what the kernel gives n's server on each CPU (cpu.rt.max.effective.local) against the model. */
static void verify_node_servers(Manager *m, const HcbsNode *n, CgroupFsCpuRuntime *lines) {
        size_t k = 0;

        if (!n->parent || cgroupfs_read_rt_cpus(m->fs, n->path, lines, HCBS_CPUS_MAX, &k) < 0)
                return; /* the root has no such file; a group gone meanwhile says nothing */
        for (size_t i = 0; i < k; i++) {
                int64_t want = hcbs_node_cpu_runtime_us(m->model, n, lines[i].cpu);

                if (lines[i].runtime_us != want) {
                        m->servers_differ++;
                        log_warning("Model defect: the kernel gives %s/%s %" PRId64 "us on CPU %u, the model %" PRId64
                                    "us (cpu.rt.max.effective.local)",
                                    m->mount, n->path, lines[i].runtime_us, lines[i].cpu, want);
                        return;
                }
        }
}

/*
 * rtmax v7: each group whose reservation a plan wrote, and the context that serves what it does not
 * reserve, read back per CPU after the plan: a difference is a defect of hcbsd's model, logged.
 */
static void verify_servers(Manager *m, const HcbsPlan *plan) {
        _cleanup_free_ CgroupFsCpuRuntime *lines = NULL;

        if (!hcbs_model_profile(m->model)->percpu_admission)
                return;
        lines = calloc(HCBS_CPUS_MAX, sizeof(*lines));
        if (!lines)
                return;
        for (size_t i = 0; i < plan->n_ops; i++) {
                const HcbsNode *n = hcbs_model_find(m->model, plan->ops[i].path);

                if (!n || plan->ops[i].kind != HCBS_OP_WRITE || plan->ops[i].file != HCBS_FILE_MAX)
                        continue;
                verify_node_servers(m, n, lines);
                if (n->parent)
                        verify_node_servers(m, hcbs_node_context(hcbs_model_profile(m->model), n->parent), lines);
        }
}

/* Commits an applied plan to the model and announces it. */
static int commit(Manager *m, const HcbsPlan *plan) {
        int r;

        for (size_t i = 0; i < plan->n_ops; i++)
                if (plan->ops[i].kind == HCBS_OP_RMDIR) {
                        HcbsNode *n = hcbs_model_find(m->model, plan->ops[i].path);
                        if (n)
                                manager_group_info_free(m, n);
                }
        r = hcbs_plan_commit(m->model, plan);
        if (r < 0)
                return log_error_errno(r, "Cannot commit a plan to the model: %m");

        verify_servers(m, plan);
        /* the record keeps one entry a group, whatever number of writes it took */
        for (size_t i = 0; i < plan->n_ops; i++) {
                const HcbsOp *op = &plan->ops[i];
                HcbsNode *n = hcbs_model_find(m->model, op->path);

                if (op->kind == HCBS_OP_MKDIR && n) {
                        r = manager_group_info_ensure(n);
                        if (r < 0)
                                return r;
                        manager_changed_group_created(m, n);
                } else if (op->kind == HCBS_OP_RMDIR)
                        manager_changed_group_removed(m, op->path);
                else if (op->kind == HCBS_OP_WRITE && n)
                        manager_changed_bandwidth(m, n);
        }
        return 0;
}

int manager_execute(Manager *m, HcbsPlan *plan, HcbsVerdict *v) {
        CgroupFsError e = {};
        size_t failed = 0;
        unsigned rollback_failed = 0;
        bool journaled;
        int r;

        assert(m);
        assert(plan);
        assert(v);
        hcbs_verdict_ok(v);
        if (plan->n_ops == 0) /* nothing to write: at 10,000 groups each kernel write walks them all */
                return 0;
        r = m->journal ? 0 : journal_open(manager_runtime_dir(m), &m->journal);
        if (r >= 0)
                r = journal_begin(m->journal, plan);
        journaled = r >= 0;
        if (!journaled)
                log_warning_errno(r, "Cannot journal a plan in %s, applying it unprotected: %m",
                                  manager_runtime_dir(m));
        r = cgroupfs_apply_plan(m->fs, plan, &failed, &rollback_failed, &e);
        if (journaled)
                (void) journal_end(m->journal);
        if (r < 0) {
                r = kernel_rejected(m, &e, rollback_failed, v);
                resync(m, plan);
                return r;
        }
        return commit(m, plan);
}

static HcbsNode *parent_of(Manager *m, const char *name) {
        size_t len = hcbs_name_parent_len(name);
        char buf[len + 1];

        if (len == 0)
                return m->admission.base;
        memcpy(buf, name, len);
        buf[len] = '\0';
        return hcbs_admission_find(&m->admission, buf);
}

/* Persistence follows every change to a persistent group. */
static int save_if_persistent(Manager *m, bool persistent) {
        return persistent ? manager_save_persistent(m) : 0;
}

static int create_plain(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us, const CreateOptions *o,
                        HcbsVerdict *v) {
        HcbsNode *n;
        HcbsPlan plan;
        int r;

        r = hcbs_admitted(hcbs_admit_create(&m->admission, name, runtime_us, period_us, o->cpus, o->grow_parents,
                                            &plan, v),
                          v);
        if (r > 0)
                log_refusal(name, NULL, runtime_us, period_us, v);
        if (r != 0)
                return r;
        r = manager_execute(m, &plan, v); /* the backend enables +cpu in the parent (v2) */
        hcbs_plan_done(&plan);
        if (r != 0)
                return r;
        log_granted(name, runtime_us, period_us);
        n = hcbs_admission_find(&m->admission, name);
        if (n && o->persistent) {
                r = manager_group_set_persistent(m, n, true);
                if (r < 0)
                        return log_error_errno(r, "Cannot record %s as persistent: %m", name);
        }
        manager_persist_forget(m, name);
        return save_if_persistent(m, o->persistent);
}

/* mkdir of a group on its own, recorded in the model from the kernel's files (they appear with +cpu on v2). */
static int make_bare_group(Manager *m, HcbsNode *parent, const char *name, HcbsNode **ret, HcbsVerdict *v) {
        CgroupFsError e = {};
        HcbsNode *n;
        int r;

        r = hcbs_model_add(m->model, parent, hcbs_name_last(name), &n);
        if (r < 0)
                return log_error_errno(r, "Cannot add %s to the model: %m", name);
        r = manager_group_info_ensure(n);
        if (r < 0) {
                manager_forget_group(m, n);
                return log_error_errno(r, "Cannot record %s: %m", name);
        }
        if (cgroupfs_mkdir(m->fs, n->path, &e) < 0) {
                manager_forget_group(m, n);
                return kernel_rejected(m, &e, 0, v);
        }
        *ret = n;
        return 0;
}

/*
 * CreateGroup with move_processes_to: the parent's processes move into the
 * new leaf. The order keeps every step valid on every interface: RT
 * processes drop to SCHED_OTHER (nothing refuses that), the group is made
 * bare, the processes move in, the cpu controller is enabled on the now
 * empty parent (v2: only then do the group's RT files exist), the
 * bandwidth is set through the planner, and the RT policies return.
 */
static int create_moving(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us,
                         const CreateOptions *o, HcbsVerdict *v) {
        HcbsNode *parent = parent_of(m, name), *child = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        _cleanup_free_ int *fds = NULL;
        ProcThreads demoted = {};
        size_t n = 0;
        unsigned nprocs = parent->nprocs, nrt = parent->nrt;
        CgroupFsError e = {};
        HcbsPlan plan;
        int r;

        r = manager_group_pids(m, parent, &pids, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot read the processes of %s/%s: %m", m->mount, parent->path);
        /* dry run with the parent as it will be once its processes have moved */
        hcbs_model_set_tasks(m->model, parent, 0, 0);
        r = hcbs_admitted(hcbs_admit_create(&m->admission, name, runtime_us, period_us, o->cpus, o->grow_parents,
                                            &plan, v),
                          v);
        hcbs_model_set_tasks(m->model, parent, nprocs, nrt);
        hcbs_plan_done(&plan);
        if (r > 0)
                log_refusal(name, NULL, runtime_us, period_us, v);
        if (r != 0)
                return r;
        if (nrt > 0 && runtime_us == 0)
                return hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, EINVAL,
                                        "%s would get the RT processes of its parent but has no runtime", name);
        fds = calloc(n ? n : 1, sizeof(int));
        if (!fds)
                return -ENOMEM;
        r = manager_pin_owned(pids, n, o->caller_uid, fds, v);
        if (r != 0)
                return r;

        /* every RT thread, whatever its process's main thread runs; one that exited meanwhile has none */
        for (size_t i = 0; i < n; i++) {
                r = proc_demote_rt(pids[i], fds[i], &demoted);
                if (r < 0 && r != -ESRCH) {
                        log_error_errno(r, "Cannot drop the RT policy of process %d: %m", (int) pids[i]);
                        goto out;
                }
        }
        r = make_bare_group(m, parent, name, &child, v);
        if (r != 0)
                goto out;
        r = manager_move_pinned(m, child->path, pids, fds, n, &e);
        if (r < 0) {
                r = kernel_rejected(m, &e, 0, v);
                goto undo;
        }
        r = cgroupfs_enable_cpu(m->fs, parent->path, &e);
        if (r < 0) {
                r = kernel_rejected(m, &e, 0, v);
                goto undo;
        }
        load_rt(m, child);
        r = manager_group_set_persistent(m, child, o->persistent);
        if (r < 0)
                goto undo;
        (void) manager_refresh_tasks(m, parent);
        (void) manager_refresh_tasks(m, child);
        r = manager_set_bandwidth(m, name, runtime_us, period_us, o->cpus, o->grow_parents, v);
        if (r != 0)
                goto undo;
        manager_changed_group_created(m, child);
        manager_persist_forget(m, name);
        r = save_if_persistent(m, o->persistent);
        goto out;
undo:
        /* back as it was: the processes in the parent, which holds processes only without +cpu */
        (void) cgroupfs_set_cpu_controller(m->fs, parent->path, false, NULL);
        (void) manager_move_pinned(m, parent->path, pids, fds, n, &e);
        (void) cgroupfs_rmdir(m->fs, child->path, NULL);
        manager_forget_group(m, child);
        child = NULL;
out:
        if (proc_restore_rt(&demoted) < 0)
                log_warning("Cannot give every thread moved to %s its RT policy back", name);
        proc_threads_done(&demoted);
        manager_unpin(fds, n);
        (void) manager_refresh_tasks(m, parent);
        if (child) {
                (void) manager_refresh_tasks(m, child);
                manager_changed_tasks(m, child);
        }
        return r;
}

int manager_check_persistent_parent(Manager *m, const char *name, bool parent_made_persistent, HcbsVerdict *v) {
        size_t len = hcbs_name_parent_len(name);
        char pname[len + 1];
        HcbsNode *parent;

        if (len == 0 || parent_made_persistent)
                return 0;
        memcpy(pname, name, len);
        pname[len] = '\0';
        parent = hcbs_admission_find(&m->admission, pname);
        if ((parent && manager_group_info(parent) && manager_group_info(parent)->persistent) ||
            hcbs_conf_find_group(&m->conf, pname))
                return 0;
        return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                "%s cannot be persistent: its parent %s is neither persistent nor declared in the "
                                "configuration, so it would not exist after a reboot",
                                name, pname);
}

int manager_create_group(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us,
                         const CreateOptions *o, HcbsVerdict *v) {
        HcbsNode *parent;
        int r;

        assert(m);
        assert(name);
        assert(o);
        assert(v);
        hcbs_verdict_ok(v);
        if (manager_group_count(m) >= m->conf.max_groups)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "hcbsd serves %zu groups, MaxGroups=%" PRIu32,
                                        manager_group_count(m), m->conf.max_groups);
        if (o->move_processes_to && strcmp(o->move_processes_to, name) != 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                        "move_processes_to must name the new group '%s' itself", name);
        parent = hcbs_name_is_valid(name) ? parent_of(m, name) : NULL;
        if (o->persistent && parent) {
                r = manager_check_persistent_parent(m, name, false, v);
                if (r != 0)
                        return r;
        }
        if (parent)
                (void) manager_refresh_tasks(m, parent);
        if (o->move_processes_to && parent && parent != m->admission.base && parent->nprocs > 0)
                return create_moving(m, name, runtime_us, period_us, o, v);
        return create_plain(m, name, runtime_us, period_us, o, v);
}

/*
 * The RT tasks the kernel counts for n's reservation: those of n and of its "max" subgroups, which run on
 * its servers (rtmax). Read afresh before a change that may switch n to or from max.
 */
static void refresh_context_tasks(Manager *m, HcbsNode *n) {
        (void) manager_refresh_tasks(m, n);
        HCBS_NODE_FOREACH_CHILD(c, n)
                if (hcbs_node_is_max(hcbs_model_profile(m->model), c))
                        refresh_context_tasks(m, c);
}

int manager_set_bandwidth(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us,
                          const HcbsCpuSet *cpus, bool grow_parents, HcbsVerdict *v) {
        HcbsNode *n = hcbs_name_is_valid(name) ? hcbs_admission_find(&m->admission, name) : NULL;
        bool same = n && n->runtime_us >= 0 && (uint64_t) n->runtime_us == runtime_us && n->period_us == period_us &&
                    (!cpus || hcbs_cpuset_equal(cpus, &n->cpus));
        HcbsPlan plan;
        int r;

        assert(m);
        assert(name);
        assert(v);
        if (n)
                refresh_context_tasks(m, n);
        r = hcbs_admitted(hcbs_admit_set(&m->admission, name, runtime_us, period_us, cpus, grow_parents, &plan, v), v);
        if (r > 0)
                log_refusal(name, NULL, runtime_us, period_us, v);
        if (r != 0)
                return r;
        r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r != 0)
                return r;
        n = hcbs_admission_find(&m->admission, name);
        if (!n)
                return 0;
        if (!same) /* a reload that finds a declared group as it was is not news */
                log_granted(name, runtime_us, period_us);
        manager_trim_pool(m);
        return save_if_persistent(m, manager_group_info(n)->persistent);
}

int manager_check_bandwidth(Manager *m, const char *name, uint64_t runtime_us, uint64_t period_us, HcbsVerdict *v) {
        HcbsNode *n, *parent;
        HcbsPlan plan;
        int r;

        assert(m);
        assert(name);
        assert(v);
        n = hcbs_name_is_valid(name) ? hcbs_admission_find(&m->admission, name) : NULL;
        parent = hcbs_name_is_valid(name) ? parent_of(m, name) : NULL;
        if (parent) /* a dry run anyone may ask for: the RT count of a read */
                manager_refresh_tasks_for_read(m, parent);
        r = n ? hcbs_admit_set(&m->admission, name, runtime_us, period_us, NULL, false, &plan, v)
              : hcbs_admit_create(&m->admission, name, runtime_us, period_us, NULL, false, &plan, v);
        hcbs_plan_done(&plan);
        return hcbs_admitted(r, v);
}

/* Moves a group's processes to the group to_name, or with "" out of hcbsd's tree as Detach does. */
static int migrate(Manager *m, HcbsNode *from, const char *to_name, uid_t caller_uid, HcbsVerdict *v) {
        _cleanup_free_ pid_t *pids = NULL;
        _cleanup_free_ int *fds = NULL;
        HcbsNode *to;
        CgroupFsError e = {};
        size_t n = 0;
        int r;

        r = manager_group_pids(m, from, &pids, &n);
        if (r < 0)
                return log_error_errno(r, "Cannot read the processes of %s/%s: %m", m->mount, from->path);
        if (!to_name[0])
                return manager_detach(m, pids, n, caller_uid, v);
        r = hcbs_admitted(hcbs_admit_attach(&m->admission, to_name, proc_count_rt(pids, n) > 0, v), v);
        if (r != 0)
                return r;
        fds = calloc(n ? n : 1, sizeof(int));
        if (!fds)
                return -ENOMEM;
        r = manager_pin_owned(pids, n, caller_uid, fds, v);
        if (r != 0)
                return r;
        to = hcbs_admission_find(&m->admission, to_name);
        r = manager_move_pinned(m, to->path, pids, fds, n, &e);
        manager_unpin(fds, n);
        if (r < 0)
                return kernel_rejected(m, &e, 0, v);
        (void) manager_refresh_tasks(m, from);
        (void) manager_refresh_tasks(m, to);
        manager_changed_tasks(m, to);
        return 0;
}

/* migrate_to names a group, or "" for out of hcbsd's tree; checked even when there is nothing to move. */
static int check_migrate_target(Manager *m, const char *name, const char *to_name, HcbsVerdict *v) {
        char err[HCBS_MESSAGE_MAX];

        if (!to_name || !to_name[0])
                return 0;
        if (hcbs_name_validate(to_name, err, sizeof(err)) < 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_NAME, 0, "migrate_to: %s", err);
        if (strcmp(to_name, name) == 0 || !hcbs_admission_find(&m->admission, to_name))
                return hcbs_verdict_set(v, HCBS_E_NO_SUCH_GROUP, 0, "migrate_to: no group '%s' to take the processes",
                                        to_name);
        return 0;
}

int manager_delete_group(Manager *m, const char *name, const char *migrate_to, uid_t caller_uid, HcbsVerdict *v) {
        HcbsNode *n, *parent;
        bool persistent;
        HcbsPlan plan;
        int r;

        assert(m);
        assert(name);
        assert(v);
        hcbs_verdict_ok(v);
        n = hcbs_name_is_valid(name) ? hcbs_admission_find(&m->admission, name) : NULL;
        if (n) {
                r = check_migrate_target(m, name, migrate_to, v);
                if (r != 0)
                        return r;
                (void) manager_refresh_tasks(m, n);
                if (migrate_to && n->nprocs > 0) {
                        r = migrate(m, n, migrate_to, caller_uid, v);
                        if (r != 0)
                                return r;
                }
        }
        r = hcbs_admitted(hcbs_admit_delete(&m->admission, name, &plan, v), v);
        if (r != 0)
                return r;
        assert(n); /* admitted: it exists */
        parent = n->parent;
        persistent = manager_group_info(n)->persistent;
        r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r != 0)
                return r;
        log_struct(LOG_INFO, HCBS_MESSAGE_RELEASED, &(LogFields) { .group = name }, "Released %s", name);
        /* v2: a parent left without children may hold processes again */
        if (parent != m->admission.base && !parent->first_child)
                (void) cgroupfs_set_cpu_controller(m->fs, parent->path, false, NULL);
        manager_trim_pool(m);
        return save_if_persistent(m, persistent);
}
