/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Admission control: hcbsd's own rules on top of the kernel's.
 *
 * The kernel's rules (model.h) say what a write may do; admission says
 * what hcbsd lets its clients ask for: names below its own root, periods
 * within [MinPeriod, MaxPeriod], RT tasks only in leaf groups, no group
 * deleted while it holds processes. Each function answers with a verdict
 * that names the reason, and on success with the plan of kernel writes
 * (plan.h) that carries it out. The model is never changed here: the
 * caller commits the plan once the kernel has accepted it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "plan.h"

typedef struct HcbsAdmission {
        HcbsModel *model;
        HcbsNode *base; /* hcbsd's root: its bandwidth is the capacity... */
        HcbsNode *pool; /* ...unless a pool holds it (plan.h); NULL: none */
        uint64_t pool_cap_bw; /* the most the pool may hold (Capacity=) */
        uint64_t min_period_us;
        uint64_t max_period_us;
} HcbsAdmission;

#define HCBS_DEFAULT_MIN_PERIOD_US UINT64_C(100)
#define HCBS_DEFAULT_MAX_PERIOD_US UINT64_C(4000000)

/* The model node of a group name below base, or NULL. */
HcbsNode *hcbs_admission_find(const HcbsAdmission *adm, const char *name);

/*
 * Each returns 1 and fills plan when admitted, 0 with v set when refused,
 * or a negative errno (ENOMEM). runtime/period are microseconds. cpus, when
 * not NULL, are the group's CPUs (empty: all of its parent's): only a
 * kernel whose reservations follow cpusets (cpuset_coupling) takes them,
 * and only CPUs online. hcbs_admitted() turns that answer into the
 * operations' rule (error.h).
 */
int hcbs_admit_create(const HcbsAdmission *adm, const char *name, uint64_t runtime_us, uint64_t period_us,
                      const HcbsCpuSet *cpus, bool grow_parents, HcbsPlan *plan, HcbsVerdict *v);
int hcbs_admit_set(const HcbsAdmission *adm, const char *name, uint64_t runtime_us, uint64_t period_us,
                   const HcbsCpuSet *cpus, bool grow_parents, HcbsPlan *plan, HcbsVerdict *v);
int hcbs_admit_delete(const HcbsAdmission *adm, const char *name, HcbsPlan *plan, HcbsVerdict *v);

/*
 * A unit's reservation: n is the unit's own cgroup, a child of the pool,
 * and unit names it in messages. The pool never grows for a unit, and
 * runtime 0 gives the reservation back. Same return convention.
 */
int hcbs_admit_unit(const HcbsAdmission *adm, HcbsNode *n, const char *unit, uint64_t runtime_us, uint64_t period_us,
                    const HcbsCpuSet *cpus, HcbsPlan *plan, HcbsVerdict *v);

/* Whether this kernel takes a CPU list for name (see above): 1, or 0 with v set. */
int hcbs_admit_cpus(const HcbsAdmission *adm, const char *name, const HcbsCpuSet *cpus, HcbsVerdict *v);

/* Whether processes may be placed in the group (rt: with an RT policy). 1 yes, 0 refused with v set. */
int hcbs_admit_attach(const HcbsAdmission *adm, const char *name, bool rt, HcbsVerdict *v);

/*
 * An answer of the functions above (or of the planner, plan.h) in the
 * operations' rule of error.h: 0 admitted, the HcbsError of the refusal
 * (v names it), or the negative errno passed through.
 */
int hcbs_admitted(int answer, HcbsVerdict *v);
