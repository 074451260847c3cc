/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * fake-kernel.c: an in-memory kernel for the manager's unit tests. It
 * defines every function of daemon/cgroupfs.h and daemon/process.h and is
 * linked instead of daemon/cgroupfs.c and daemon/process.c.
 *
 * The kernel is one tree of groups (an HcbsModel of its own, rooted at the
 * kernel's root group) with their RT values, the cpu controller of each
 * group's subtree_control (v2), and a table of processes (one thread each)
 * with their uid, group and policy. Every write is judged the way the
 * kernel judges it: the file's own range, then tg_rt_schedulable() as
 * hcbs_model_walk_check() computes it by walking the whole tree (not the
 * O(1) check the manager's planner uses). On top come the cgroup rules the
 * model does not hold: mkdir/rmdir (EEXIST, ENOENT, EBUSY with children or
 * processes), v2's RT files only below a parent with +cpu, no processes in
 * a non-root group with +cpu (EBUSY both ways), RT tasks only into groups
 * that can run them (EINVAL), RT policy only where it can run (EPERM).
 *
 * Fault injection: fake_kernel_fail() makes the nth mutating call of a kind
 * (counted from the call) fail with a chosen errno before it changes
 * anything, once.
 *
 * There is one kernel at a time (the one fake_kernel_new() made): every
 * CgroupFs cgroupfs_open() returns speaks to it, so a second Manager on the
 * same kernel adopts what the first left.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroupfs.h"
#include "model.h"
#include "process.h"

typedef enum FakeOp {
        FAKE_OP_ANY,     /* any change to the tree: all of the below but FAKE_OP_POLICY */
        FAKE_OP_MKDIR,
        FAKE_OP_RMDIR,
        FAKE_OP_WRITE,   /* an RT file */
        FAKE_OP_ATTACH,  /* cgroup.procs */
        FAKE_OP_CONTROL, /* cgroup.subtree_control */
        FAKE_OP_POLICY,  /* sched_setscheduler */
        _FAKE_OP_MAX,
} FakeOp;

/*
 * A kernel with `rules` (legacy-v2 reports itself as rfc1 to detection, as
 * the real files do). Directories are mirrored below mirror_dir (an empty
 * directory) so that code still enumerating children through
 * cgroupfs_dirfd() finds them.
 */
int fake_kernel_new(HcbsInterface rules, const char *mirror_dir);
/* The same with rtmax's revision (6, or 7: per-CPU admission and cpusets); 0 for the other interfaces. */
int fake_kernel_new_revision(HcbsInterface rules, unsigned revision, const char *mirror_dir);
void fake_kernel_free(void);

/* The kernel's own tree: read it, or change its profile (global limits, DL load) before a Manager starts. */
HcbsModel *fake_kernel_model(void);
/* Whether cgroupfs_detect() finds RT group scheduling at all. */
void fake_kernel_set_detectable(bool yes);

/* Fixtures, past every check and fault: */
int fake_kernel_mkdir(const char *path);                             /* with +cpu in its parent (v2) */
int fake_kernel_rmdir(const char *path);                             /* an empty group: systemd removing it */
int fake_kernel_set(const char *path, uint64_t period_us, int64_t runtime_us);
void fake_kernel_set_cpu(const char *path, bool enabled);
/* A process (one thread) in the group at path. */
int fake_kernel_spawn(pid_t pid, uid_t uid, const char *path, ProcPolicy policy);
void fake_kernel_exit(pid_t pid);
/* The group of a live process (mount-relative, "" for the root), or NULL. */
const char *fake_kernel_task_group(pid_t pid);
ProcPolicy fake_kernel_task_policy(pid_t pid);

/* rtmax v7: cpu.rt.max.effective.local shows every reserved group's servers us off the model's. */
void fake_kernel_skew_servers(int64_t us);

/* The nth (1-based) call of kind op from now fails with -err, once. n = 0 clears. */
void fake_kernel_fail(FakeOp op, unsigned nth, int err);
/* Mutating calls of kind op accepted since the kernel was made (or since fake_kernel_reset_counts()). */
unsigned fake_kernel_count(FakeOp op);
void fake_kernel_reset_counts(void);
/* Cgroups the backend looked up, reads and writes alike (what a call costs the kernel, roughly)... */
unsigned fake_kernel_lookups(void);
/* ...and cgroupfs_cgroup_id() and cgroupfs_stat() calls among them, since the same reset. */
unsigned fake_kernel_id_reads(void);
/* Threads whose policy was read (proc_count_rt) since the kernel was made. */
unsigned fake_kernel_policy_reads(void);
/* Right before the nth call of kind op from now, process pid exits. */
void fake_kernel_exit_before(FakeOp op, unsigned nth, pid_t pid);

/*
 * The whole kernel as text, one group a line in pre-order ("path period runtime [+cpu] [pids]"), then the
 * processes' policies: two dumps are equal iff the kernels are. Caller frees.
 */
char *fake_kernel_dump(void);
