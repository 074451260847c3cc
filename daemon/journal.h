/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The plan journal: what makes a multi-write plan atomic across a crash.
 *
 * Before hcbsd applies a plan it writes the plan's undo ops to
 * RUNTIMEDIR/plan (/run/hcbsd/plan), and empties the file once the plan is
 * done or rolled back. If hcbsd dies in between, the next start finds the
 * file and applies every undo op in reverse order, before it adopts
 * anything. An op that had not been applied yet undoes to the value
 * the file already holds, which the kernel accepts as it accepted that
 * state before; a group that was never created is simply absent. So the
 * tree returns to exactly the state before the plan: no half-applied
 * bandwidth survives a crash.
 *
 * The file is read whole before anything is undone. Each line must be one
 * hcbsd writes, for a cgroup a plan of hcbsd reaches (JournalScope); if
 * one is not, nothing is undone and the file is kept aside as
 * plan.corrupt: undoing part of a plan, or a plan someone else wrote, is
 * worse than adopting the tree as the kernel has it, and a start that
 * refuses takes every RT unit down with it.
 *
 * What it guards against is a crash of hcbsd, not of the machine: cgroups
 * do not survive a reboot, so neither must the journal (undoing a stale
 * plan's root write on a fresh boot would be wrong). It lives in the
 * runtime directory, a tmpfs that outlives hcbsd and not the boot, and is
 * never flushed: after an hcbsd crash the kernel's page cache has the
 * file, and after a power loss there is nothing left to undo. Only
 * persistent groups (STATEDIR) are flushed.
 *
 * The file is kept open while hcbsd runs and written in place: a plan is
 * one pwrite() into the empty file, its end one ftruncate() to zero (a
 * temporary file renamed into place cost a new inode, a rename and an
 * unlink a plan, most of what a create cost hcbsd beyond the kernel's own
 * writes). A crash in the middle of the pwrite() leaves a prefix of the
 * plan, and no write of the plan has been made yet (hcbsd writes the
 * kernel only once the pwrite() returned): a prefix cut in a line is
 * refused like any file hcbsd did not write (nothing undone, kept aside),
 * and a prefix of whole lines undoes writes that were never made, each to
 * the value the kernel already holds. An empty file is no plan; a clean
 * exit removes it.
 */

#include "cgroupfs.h"
#include "macro.h"
#include "plan.h"

#define JOURNAL_FILE "plan"

/* Where hcbsd's plans write, relative to the mount. */
typedef struct JournalScope {
        const char *root; /* hcbsd's root: it, its groups, and its ancestors up to the kernel's root ("") */
        const char *pool; /* the slice shared with units, whose children plans write too; NULL: none */
} JournalScope;

typedef struct Journal Journal;

/* Opens dir/plan for the plans to come (dir and its parents made if missing): 0 or -errno. */
int journal_open(const char *dir, Journal **ret);
/* Removes dir/plan (no plan is in progress: hcbsd stops cleanly) and frees j. NULL-safe. */
Journal *journal_close(Journal *j);
DEFINE_FREE_FUNC(Journal, journal_close)
/* Records how to undo plan. Returns 0 or -errno (then the file is emptied, if it can be). */
int journal_begin(Journal *j, const HcbsPlan *plan);
/* Forgets the record: 0 or -errno. */
int journal_end(Journal *j);

/*
 * Reads dir/plan: 0 if there is none (or it is empty); 1 with its undo ops in file order;
 * -EBADMSG with "DIR/plan:LINE: reason" in err if any line is not one
 * hcbsd writes or names a cgroup outside scope; another -errno if it
 * cannot be read. Free the ops with journal_ops_free().
 */
int journal_load(const char *dir, const JournalScope *scope, HcbsOp **ret_ops, size_t *ret_n, char *err,
                 size_t errlen);
void journal_ops_free(HcbsOp *ops, size_t n);

/*
 * Undoes an interrupted plan, if one is recorded, and forgets it. A file
 * that cannot be trusted is kept aside (plan.corrupt) and nothing is
 * undone. Returns the number of undo ops applied, or -errno if the record
 * cannot be removed. Call it before journal_open().
 */
int journal_replay(const char *dir, CgroupFs *fs, const JournalScope *scope);
