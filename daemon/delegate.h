/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Running as a systemd service with Delegate=yes (README, "Reservations in unit files"): hcbsd owns
 * its unit's cgroup, e.g. /sys/fs/cgroup/hcbs.slice/hcbsd.service. It
 * moves itself to …/daemon, since cgroup v2 lets only a cgroup without
 * processes pass controllers on, and keeps its groups below …/groups.
 */

#include <stdbool.h>

#include "cgroupfs.h"

#define DELEGATE_DAEMON "daemon"
#define DELEGATE_GROUPS "groups"

/*
 * Our own cgroup relative to the v2 mount ("hcbs.slice/hcbsd.service"),
 * when systemd started us as a service (INVOCATION_ID) on a pure cgroup-v2
 * system. Returns 1 with *ret set, 0 when not delegated, or -errno.
 */
int delegate_detect(char **ret);

/* Moves this process into own/daemon, creating it. */
int delegate_move_self(CgroupFs *fs, const char *own, CgroupFsError *e);

/*
 * The slice holding own ("hcbs.slice"), when it may serve as the pool
 * shared with units' reservations: a slice of its own, never systemd's
 * system.slice, user.slice or machine.slice, nor the root. Caller frees;
 * NULL when there is none (or on ENOMEM, which disables the pool too).
 */
char *delegate_pool_of(const char *own);
