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
        uint32_t *index;    /* pid -> 1 + its entry in v, open addressing (0: empty): O(1) look-ups */
        size_t index_size;  /* a power of two, at least twice n */
        size_t prune_next;  /* where origins_prune_some() goes on */
} Origins;

/*
 * The cgroup pid came from: its own entry, else its nearest ancestor's (a
 * process forked in hcbsd's tree). NULL if none is known.
 */
const char *origins_lookup(const Origins *o, pid_t pid);
/*
 * Records where pid is now, unless it has an entry already (an entry of an
 * earlier process with the same pid is replaced). 0, -ENOSPC (ORIGINS_MAX
 * live processes), or -errno.
 */
int origins_record(Origins *o, pid_t pid, const char *cgroup);
/* Drops pid's own entry. */
void origins_forget(Origins *o, pid_t pid);
/* Drops the entries of processes that exited (or whose pid now names another process): one /proc read each. */
void origins_prune(Origins *o);
/*
 * The same for at most n entries, going on where the last call stopped: a
 * call (Attach, Detach) costs a bounded number of /proc reads, not one per
 * process ever attached, and the table still forgets the dead as calls come.
 */
#define ORIGINS_PRUNE_PER_CALL 16
void origins_prune_some(Origins *o, size_t n);
void origins_done(Origins *o);

/* Saves the table in dir/origins. Returns 0 or -errno. */
int origins_save(const Origins *o, const char *dir);
/*
 * Loads dir/origins (a missing file is an empty table) and prunes it. A
 * file that is not in the format above is kept aside (origins.corrupt) and
 * the table starts empty. Returns 0 or -errno.
 */
int origins_load(Origins *o, const char *dir, char *err, size_t errlen);
