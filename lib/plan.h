/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write planner.
 *
 * The kernel checks each write on its own, so changing a group from
 * (r0, p0) to (r1, p1) is two writes whose intermediate state must pass
 * too: (r0, p1) if the period goes first, (r1, p0) if the runtime does.
 * Growing usually wants the period first, shrinking the runtime first;
 * when neither intermediate state is valid (say p1 < r0 and
 * r1/p0 > the parent's room) the planner goes through a third state,
 * a runtime small enough to be valid under both periods. A group whose
 * parent lacks room may have its ancestors grown first, top-down, up to
 * a ceiling the caller names. A group about to be removed first drops to
 * runtime 0, so its bandwidth returns to the parent at once rather than
 * after the kernel frees the group (an RCU grace period later).
 *
 * The planner finds an order by simulating every write on the model with
 * the kernel's own per-write check, so a plan it returns is valid step by
 * step, and the model is left exactly as it was. Each op has an inverse;
 * undoing a prefix of the plan in reverse order walks back through the
 * same valid states.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef enum HcbsOpKind {
        HCBS_OP_NONE,
        HCBS_OP_MKDIR,
        HCBS_OP_WRITE,
        HCBS_OP_RMDIR,
} HcbsOpKind;

typedef struct HcbsOp {
        HcbsOpKind kind;
        char *path; /* model path of the group */
        HcbsFile file;
        int64_t runtime_us; /* for HCBS_FILE_RUNTIME and HCBS_FILE_MAX */
        uint64_t period_us; /* for HCBS_FILE_PERIOD and HCBS_FILE_MAX */
        HcbsCpuSet cpus;    /* for HCBS_FILE_CPUS (empty: all of the parent's) */
} HcbsOp;

typedef struct HcbsPlan {
        HcbsOp *ops;
        HcbsOp *undo; /* undo[i] reverts ops[i]; HCBS_OP_NONE if nothing needs reverting */
        size_t n_ops;
} HcbsPlan;

void hcbs_plan_init(HcbsPlan *plan);
void hcbs_plan_done(HcbsPlan *plan);

/* Where a plan may reach and how refusals name groups. */
typedef struct HcbsPlanScope {
        bool grow;               /* ancestors may be grown to make room... */
        const HcbsNode *ceiling; /* ...if strictly below this one (NULL: up to the root) */
        const HcbsNode *base;    /* groups are named relative to it in messages */
        /*
         * A shared pool (NULL: none): the pool, and base with its ancestors
         * below the pool if base is inside it, grow whenever a child needs
         * room, grow or not; the pool's ancestors do not. How far the pool
         * may grow is the caller's policy (admission.h: Capacity=). Under
         * systemd the pool is hcbs.slice, shared by hcbsd's groups and the
         * units' reservations.
         */
        const HcbsNode *pool;
} HcbsPlanScope;

/*
 * Plans writes that bring n to (period_us, runtime_us). Returns 1 with the
 * plan filled and v ok, 0 with v explaining why no valid order exists, or
 * -ENOMEM. The model is left as it was.
 */
int hcbs_plan_set(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us, HcbsPlanScope scope,
                  HcbsPlan *plan, HcbsVerdict *v);

/*
 * hcbs_plan_set() that also brings n's cpuset.cpus to cpus (NULL: as it is). The CPUs are written
 * before the reservation; under cpuset_coupling (rtmax v7) they change only while n and the groups
 * below it are "max", so a group holding a reservation goes to "max" first (refused while RT tasks
 * run there, or while a group below holds a reservation), then gets its CPUs, then its reservation.
 */
int hcbs_plan_set_cpus(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us, const HcbsCpuSet *cpus,
                       HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v);

/* Plans mkdir of parent/name and its writes. Same return convention; -EEXIST if present. */
int hcbs_plan_create(HcbsModel *m, HcbsNode *parent, const char *name, uint64_t period_us, int64_t runtime_us,
                     HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v);
/* The same, with the new group's cpuset.cpus written between the mkdir and the reservation (cpus NULL: none). */
int hcbs_plan_create_cpus(HcbsModel *m, HcbsNode *parent, const char *name, uint64_t period_us, int64_t runtime_us,
                          const HcbsCpuSet *cpus, HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v);

/* Plans the removal of a group without children or processes: runtime 0, then rmdir. */
int hcbs_plan_delete(HcbsModel *m, HcbsNode *n, HcbsPlanScope scope, HcbsPlan *plan, HcbsVerdict *v);

/* Applies one op to the model (after the kernel accepted it). Returns 0 or -errno. */
int hcbs_model_apply_op(HcbsModel *m, const HcbsOp *op);

/* Applies a whole plan to the model. */
int hcbs_plan_commit(HcbsModel *m, const HcbsPlan *plan);
