/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The cgroupfs backend: the only code that touches the kernel's RT files.
 *
 * A CgroupFs is a directory fd on the cgroup that contains hcbsd's tree
 * (for a model rooted at the kernel's root group: the mount point) and
 * the kernel interface spoken there. Every path is relative to that fd
 * and is opened with openat(); callers pass model paths, which are
 * validated names, never raw input. Functions return >= 0 or -errno; on
 * failure they fill a CgroupFsError with the file and the value, so the
 * caller can say exactly what the kernel refused. No policy lives here.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "plan.h"
#include "profile.h"

typedef struct CgroupFs CgroupFs;

typedef struct CgroupFsError {
        int error;        /* positive errno */
        char file[512];   /* path relative to the root, e.g. "hcbs/audio/cpu.rt_runtime_us" */
        char value[64];   /* what was written, if anything */
} CgroupFsError;

/* Opens root_path (a directory in a cgroup mount) for interface iface. */
int cgroupfs_open(const char *root_path, HcbsInterface iface, CgroupFs **ret);
CgroupFs *cgroupfs_free(CgroupFs *fs);
DEFINE_FREE_FUNC(CgroupFs, cgroupfs_free)

HcbsInterface cgroupfs_interface(const CgroupFs *fs);
void cgroupfs_set_interface(CgroupFs *fs, HcbsInterface iface);
/* rtmax: the revision whose files to read (6 unless told; cgroupfs_rtmax_revision() finds it). */
void cgroupfs_set_revision(CgroupFs *fs, unsigned revision);
const char *cgroupfs_root_path(const CgroupFs *fs);
int cgroupfs_dirfd(const CgroupFs *fs);
bool cgroupfs_is_v2(const CgroupFs *fs);

/*
 * Detects the interface of the cgroup mount holding path: cgroup v2 with
 * cpu.rt.max (rtmax) or cpu.rt_runtime_us (rfc1) in its cgroups, or a v1
 * hierarchy with the cpu controller and cpu.rt_runtime_us (legacy-v1).
 * -ENOTSUP (with a reason in why) when RT group scheduling is absent.
 */
int cgroupfs_detect(const char *path, HcbsInterface *ret, char *why, size_t whylen);

/*
 * On cgroup v2 the RT files alone do not tell HCBS (rfc1) from mainline
 * rules behind the same files (legacy-v2): a new group starts at period 0
 * on HCBS and at the global period on mainline. Creates and removes
 * parent/hcbs-probe to find out, and stores the answer in *ret.
 */
int cgroupfs_probe_v2_rules(CgroupFs *fs, const char *parent, HcbsInterface *ret);

/*
 * The mount point holding path (absolute): its topmost existing ancestor on
 * the same device. Caller frees.
 */
int cgroupfs_find_mount(const char *path, char **ret);

/*
 * Fills p with iface's rules (hcbs_profile_init) and this machine's
 * limits: the kernel.sched_rt_{runtime,period}_us and
 * kernel.sched_deadline_period_{min,max}_us sysctls and the online CPUs
 * (hcbs_profile_set_cpus, which knows the deadline load they carry).
 */
int cgroupfs_read_profile(HcbsInterface iface, HcbsProfile *p);

int cgroupfs_mkdir(CgroupFs *fs, const char *path, CgroupFsError *e);
int cgroupfs_rmdir(CgroupFs *fs, const char *path, CgroupFsError *e);
bool cgroupfs_exists(CgroupFs *fs, const char *path);
/* The uid owning the cgroup's directory (systemd chowns a delegated one to its user). */
int cgroupfs_owner(CgroupFs *fs, const char *path, uid_t *ret);

/* How often EBUSY is retried (2 ms apart) for writes and rmdir; 0 reports the kernel's first answer. */
void cgroupfs_set_busy_retries(CgroupFs *fs, unsigned n);

/* Writes one RT file as the op says. */
int cgroupfs_write_rt(CgroupFs *fs, const char *path, HcbsFile file, int64_t runtime_us, uint64_t period_us,
                      CgroupFsError *e);
int cgroupfs_read_rt(CgroupFs *fs, const char *path, uint64_t *ret_period_us, int64_t *ret_runtime_us);
/*
 * The bandwidth a cgroup holds in its parent's sum: to_ratio() of its values; on rtmax a "max"
 * cgroup holds its subgroups' shares (read down through "max" cgroups).
 */
int cgroupfs_read_share(CgroupFs *fs, const char *path, uint64_t *ret_bw);

/*
 * rtmax: the read-only "RUNTIME PERIOD" of the group's own servers, its bandwidth minus its children's
 * (cpu.rt.internal, or cpu.rt.max.effective.local in later revisions). -EOPNOTSUPP on other interfaces.
 */
int cgroupfs_read_rt_internal(CgroupFs *fs, const char *path, uint64_t *ret_period_us, uint64_t *ret_runtime_us);

/*
 * rtmax: the revision the files of the group at path (not the root) show: 7 with
 * cpu.rt.max.effective.local (the author's devel-v7 tree), 6 with cpu.rt.internal. -ENOENT with neither.
 */
int cgroupfs_rtmax_revision(CgroupFs *fs, const char *path, unsigned *ret);

/* The group's cpuset.cpus; empty when it is "" or the group has no cpuset files (all of the parent's). */
int cgroupfs_read_cpus(CgroupFs *fs, const char *path, HcbsCpuSet *ret);
/*
 * Writes the group's cpuset.cpus (empty: all of the parent's). Where the file is missing, the parent
 * passes the cpuset controller on first (+cpuset in its cgroup.subtree_control).
 */
int cgroupfs_write_cpus(CgroupFs *fs, const char *path, const HcbsCpuSet *cpus, CgroupFsError *e);

/* One line of cpu.rt.max.effective.local: what the group's server on a CPU runs per period. */
typedef struct CgroupFsCpuRuntime {
        unsigned cpu;
        int64_t runtime_us; /* -1: "max" */
        uint64_t period_us;
} CgroupFsCpuRuntime;

/*
 * rtmax v7: cpu.rt.max.effective.local, one line a CPU, "CPU runtime=US|max period=US". Fills at
 * most max entries; -EBADMSG for a line of another shape, -EOPNOTSUPP on other interfaces.
 */
int cgroupfs_read_rt_cpus(CgroupFs *fs, const char *path, CgroupFsCpuRuntime *out, size_t max, size_t *ret_n);
/* Parses that file's text (for tests). */
int cgroupfs_parse_rt_cpus(const char *text, CgroupFsCpuRuntime *out, size_t max, size_t *ret_n);

/* Applies one plan op (mkdir, write, rmdir). */
int cgroupfs_apply_op(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e);
/*
 * Gives a group's bandwidth back (runtime 0, the period kept) before it is
 * removed: the kernel counts a removed group's bandwidth until it frees the
 * group, after an RCU grace period. Returns 0 or -errno.
 */
int cgroupfs_release_rt(CgroupFs *fs, const char *path);

/*
 * Applies a plan in order; on the first failure applies the undo of every
 * op already done, in reverse. Returns 0, or the failing op's -errno with
 * *ret_failed set to its index and e describing it. *ret_rollback_failed
 * counts undo ops the kernel refused (a model defect worth logging).
 */
int cgroupfs_apply_plan(CgroupFs *fs, const HcbsPlan *plan, size_t *ret_failed, unsigned *ret_rollback_failed,
                        CgroupFsError *e);

/* Moves a whole process into path (cgroup.procs). */
int cgroupfs_attach(CgroupFs *fs, const char *path, pid_t pid, CgroupFsError *e);

/* Enables (+cpu) or disables (-cpu) the cpu controller for path's children (v2 only; no-op on v1). */
int cgroupfs_set_cpu_controller(CgroupFs *fs, const char *path, bool enable, CgroupFsError *e);
/* Enables the cpuset controller for path's children (+cpuset; v2 only). */
int cgroupfs_enable_cpuset(CgroupFs *fs, const char *path, CgroupFsError *e);
static inline int cgroupfs_enable_cpu(CgroupFs *fs, const char *path, CgroupFsError *e) {
        return cgroupfs_set_cpu_controller(fs, path, true, e);
}

/* A group's child cgroups, by name. */
typedef struct CgroupFsChildren {
        char **names; /* sorted (strcmp), so callers see the same order on every run */
        size_t n;
} CgroupFsChildren;

/*
 * Lists the child cgroups of path: its subdirectories, without "." and
 * "..", and without the control files beside them. A snapshot: the caller
 * may create or remove groups while it walks the list. 0 or -errno
 * (-ENOENT: path is gone; -ENOTDIR: not a directory); nothing is filled on
 * failure. Free with cgroupfs_children_done().
 */
int cgroupfs_list_children(CgroupFs *fs, const char *path, CgroupFsChildren *ret);
void cgroupfs_children_done(CgroupFsChildren *c);

/* A child cgroup of a watched group made (created) or removed. */
typedef void (*CgroupFsChildFn)(const char *name, bool created, void *userdata);

/*
 * Calls fn from the event loop whenever a child cgroup of path is made or
 * removed (inotify on the directory: whoever makes it, systemd included).
 * The source is the caller's: unref it to stop. 0 or -errno.
 */
int cgroupfs_watch_children(CgroupFs *fs, sd_event *event, const char *path, CgroupFsChildFn fn, void *userdata,
                            sd_event_source **ret);

/* One "KEY VALUE" line of a group's cpu.stat. */
typedef struct CpuStatField {
        char key[32];
        uint64_t value;
} CpuStatField;

/*
 * Parses cpu.stat text into at most max fields, in file order, and returns
 * how many. Lines that are not "KEY VALUE" (an unsigned decimal), or whose
 * key does not fit, are skipped. The v1 cpu controller's throttled_time
 * and burst_time count nanoseconds; they come out as throttled_usec and
 * burst_usec in microseconds, the names and unit of cgroup v2, so callers
 * see one set of names.
 */
size_t cgroupfs_parse_cpu_stat(const char *text, CpuStatField *fields, size_t max);
/* Reads and parses path's cpu.stat; *ret_n fields. -errno if the file cannot be read (absent on this kernel: -ENOENT). */
int cgroupfs_read_cpu_stat(CgroupFs *fs, const char *path, CpuStatField *fields, size_t max, size_t *ret_n);

/* Reads cgroup.procs of path into a malloc'd array. */
int cgroupfs_read_procs(CgroupFs *fs, const char *path, pid_t **ret, size_t *ret_n);

/*
 * What adoption reads of a group: its RT values, its CPUs (when asked: rtmax
 * v7), its processes, its id and whether it has subgroups. error is the
 * first failure (-errno; -ENOENT: the group went away), 0 when all is read.
 */
typedef struct CgroupFsFacts {
        uint64_t period_us;
        int64_t runtime_us;
        HcbsCpuSet cpus;
        pid_t *pids; /* malloc'd */
        size_t n_pids;
        uint64_t id;
        bool has_children;
        int error;
} CgroupFsFacts;

/*
 * Reads the facts of n groups (paths relative to the root) into out[0..n),
 * on up to CGROUPFS_READERS threads when there are enough of them (the
 * kernel's side of a read, most of its cost, runs on every CPU): start-up
 * with 10,000 groups reads 30,000 files. Each group's failure is in its
 * error. Blocks until all are read; no thread outlives the call.
 */
#define CGROUPFS_READERS 4
void cgroupfs_read_facts(CgroupFs *fs, const char *const *paths, size_t n, bool with_cpus, CgroupFsFacts *out);
void cgroupfs_facts_done(CgroupFsFacts *facts, size_t n);

/* Reads a small file relative to the root into buf (NUL-terminated, trailing newline dropped). */
int cgroupfs_read_file(CgroupFs *fs, const char *path, char *buf, size_t size);

/*
 * The kernel's id of the cgroup at path (relative to the root): its
 * directory's inode number, which is kernfs_node.id, what
 * task->sched_task_group->css.cgroup->kn->id reads in BPF.
 */
int cgroupfs_cgroup_id(CgroupFs *fs, const char *path, uint64_t *ret);
/*
 * The same id, and whether the cgroup has child cgroups, from one stat:
 * kernfs keeps a directory's link count at 2 + its subdirectories (adoption
 * lists the children only of a group that has some).
 */
int cgroupfs_stat(CgroupFs *fs, const char *path, uint64_t *ret_id, bool *ret_has_children);
