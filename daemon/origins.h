/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Origins: where hcbsd found each process it moved into its tree, so that
 * Detach puts it back there and never in the hierarchy's root (which would
 * escape MemoryMax=, TasksMax= and systemd's tracking of the process).
 *
 * A process is named by its pid and its start time, so a pid the kernel
 * recycles never inherits a dead process's origin; entries of processes
 * that exited are pruned. A child forked inside hcbsd's tree has no entry
 * of its own: it goes where its nearest recorded ancestor came from. The
 * table is saved in RUNTIMEDIR/origins (atomically, not flushed: processes
 * do not survive a reboot, only hcbsd's restarts), so an hcbsd restart
 * forgets nothing.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ORIGINS_FILE "origins"
#define ORIGINS_HEADER "# hcbsd origins v1"
#define ORIGINS_MAX 65536 /* processes hcbsd keeps an origin for */

typedef struct Origin {
        pid_t pid;
        uint64_t starttime;
        char *cgroup; /* relative to the mount */
} Origin;

typedef struct Origins {
        Origin *v;
        size_t n;
} Origins;

/*
 * The cgroup pid came from: its own entry, else its nearest ancestor's (a
 * process forked in hcbsd's tree). NULL if none is known.
 */
const char *origins_lookup(const Origins *o, pid_t pid);
/* Records where pid is now, unless it has an entry already. 0, -ENOSPC (ORIGINS_MAX), or -errno. */
int origins_record(Origins *o, pid_t pid, const char *cgroup);
/* Drops pid's own entry. */
void origins_forget(Origins *o, pid_t pid);
/* Drops the entries of processes that exited (or whose pid now names another process). */
void origins_prune(Origins *o);
void origins_done(Origins *o);

/* Saves the table in dir/origins. Returns 0 or -errno. */
int origins_save(const Origins *o, const char *dir);
/*
 * Loads dir/origins (a missing file is an empty table) and prunes it. A
 * file that is not in the format above is kept aside (origins.corrupt) and
 * the table starts empty. Returns 0 or -errno.
 */
int origins_load(Origins *o, const char *dir, char *err, size_t errlen);
