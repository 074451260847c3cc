/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Processes: pinning, ownership, their cgroup, and their threads'
 * scheduling policy. No policy decisions here; all functions return
 * >= 0 or -errno, and ESRCH means the process is gone.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/*
 * The same, checking through pidfd right before each thread's write that
 * the process is still the one pinned (pidfd -1: not pinned). -ESRCH if
 * it exited.
 */
int proc_set_policy_pinned(pid_t pid, int pidfd, ProcPolicy policy, int priority);

/* The real uid of the pinned process: read, then the pin checked, so it is not a successor's. */
int proc_get_uid_pinned(pid_t pid, int pidfd, uid_t *ret);

/* Field starttime (clock ticks after boot) of /proc/PID/stat: with the pid, a name no other process has. */
int proc_get_starttime(pid_t pid, uint64_t *ret);
/* The parent's pid. */
int proc_get_ppid(pid_t pid, pid_t *ret);

/* RT threads put to SCHED_OTHER for a move, with what they had, to put back after. */
typedef struct ProcThread {
        pid_t pid;
        int pidfd;
        pid_t tid;
        int policy; /* SCHED_FIFO or SCHED_RR */
        int priority;
} ProcThread;

typedef struct ProcThreads {
        ProcThread *threads;
        size_t n;
} ProcThreads;

/*
 * Sets every RT thread of pid to SCHED_OTHER, recording each in acc, so a
 * move that needs the process non-RT can happen (SCHED_OTHER threads stay
 * as they are). Returns 0 or the first -errno; what was demoted is in acc.
 */
int proc_demote_rt(pid_t pid, int pidfd, ProcThreads *acc);
/* Gives each recorded thread its policy back; threads or processes gone are skipped. 0 or the first -errno. */
int proc_restore_rt(const ProcThreads *acc);
void proc_threads_done(ProcThreads *acc);

/* Counts RT threads of the processes in pids. */
unsigned proc_count_rt(const pid_t *pids, size_t n);
