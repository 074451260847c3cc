/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Processes: pinning, ownership, their cgroup, and their threads'
 * scheduling policy. No policy decisions here; all functions return
 * >= 0 or -errno, and ESRCH means the process is gone.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum ProcPolicy {
        PROC_POLICY_KEEP,
        PROC_POLICY_OTHER,
        PROC_POLICY_FIFO,
        PROC_POLICY_RR,
        _PROC_POLICY_INVALID = -1,
} ProcPolicy;

ProcPolicy proc_policy_from_string(const char *s);
const char *proc_policy_to_string(ProcPolicy p);
static inline bool proc_policy_is_rt(ProcPolicy p) {
        return p == PROC_POLICY_FIFO || p == PROC_POLICY_RR;
}

/*
 * Pins the process with pidfd_open() so its pid cannot be reused under us.
 * Where the kernel (or valgrind) lacks pidfd_open, only checks that the
 * process exists and stores -1. Returns 0 or -ESRCH.
 */
int proc_pin(pid_t pid, int *ret_pidfd);
/* 0 if the pinned process still runs (or was not pinned), -ESRCH if it exited. */
int proc_pidfd_alive(int pidfd);

/* The real uid owning the process. */
int proc_get_uid(pid_t pid, uid_t *ret);

/*
 * The process's cgroup path in the hierarchy mounted at `mount`
 * ("" for v2, or the v1 controller name such as "cpu"), relative to the
 * hierarchy's root, without leading '/'. Caller frees.
 */
int proc_get_cgroup(pid_t pid, const char *v1_controller, char **ret);

/* Whether any thread of pid runs SCHED_FIFO or SCHED_RR. */
int proc_is_rt(pid_t pid);

/* Sets the policy of every thread; threads that exit meanwhile are skipped. Returns 0 or the first -errno. */
int proc_set_policy(pid_t pid, ProcPolicy policy, int priority);

/* Counts RT threads of the processes in pids. */
unsigned proc_count_rt(const pid_t *pids, size_t n);
