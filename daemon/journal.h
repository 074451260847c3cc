/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The plan journal: what makes a multi-write plan atomic across a crash.
 *
 * Before hcbsd applies a plan it writes the plan's undo ops to
 * STATEDIR/plan (atomically, see persist.h), and removes the file once the
 * plan is done or rolled back. If hcbsd dies in between, the next start
 * finds the file and applies every undo op in reverse order, before it
 * adopts anything. An op that had not been applied yet undoes to the value
 * the file already holds, which the kernel accepts as it accepted that
 * state before; a group that was never created is simply absent. So the
 * tree returns to exactly the state before the plan: no half-applied
 * bandwidth survives a crash.
 */

#include "cgroupfs.h"
#include "plan.h"

#define JOURNAL_FILE "plan"

/* Records how to undo plan. Returns 0 or -errno. */
int journal_begin(const char *dir, const HcbsPlan *plan);
/* Forgets the record. */
int journal_end(const char *dir);
/* Undoes an interrupted plan, if one is recorded. Returns the number of undo ops applied, or -errno. */
int journal_replay(const char *dir, CgroupFs *fs);
