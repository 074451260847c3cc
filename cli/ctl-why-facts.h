/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl why: every /proc and cgroup read, in one place. Nothing here
 * writes, decides or talks to a bus; cli/ctl-why.c asks hcbsd and systemd,
 * and lib/why.c decides. Each read is bounded (the chain by
 * HCBS_WHY_CHAIN_MAX levels, a cgroup's children and a process's threads by
 * WHY_SCAN_MAX entries). Functions return 0 or -errno; -ESRCH when the
 * process or thread is gone.
 */

#include <sys/types.h>

#include "kernel-facts.h"
#include "why.h"

#define WHY_SCAN_MAX 4096

/* The thread group (process) of id, which may be a pid or a tid. */
int why_read_tgid(pid_t id, pid_t *ret);

/*
 * The thread's own facts: name, real uid, policy and priority, CAP_SYS_NICE,
 * the seccomp mode, RLIMIT_RTPRIO and RLIMIT_RTTIME (from /proc/PID/limits,
 * which any user may read), and its process's thread and RT thread counts.
 */
int why_read_thread(pid_t pid, pid_t tid, HcbsWhyFacts *f);

/*
 * Which hierarchy holds the RT files (k: the kernel's facts), the thread's
 * cgroup on it and every cgroup from the root down with its RT values, and
 * on cgroup v2 a child of its cgroup holding a runtime (the rfc1 leaf rule).
 * prefix as kernel_facts_read()'s.
 */
int why_read_chain(const char *prefix, const HcbsKernelFacts *k, pid_t pid, pid_t tid, HcbsWhyFacts *f);

/* The first process of a cgroup (relative to the mount), or 0 when it has none. */
int why_first_pid(const char *prefix, const char *mount, const char *cgroup, pid_t *ret);
