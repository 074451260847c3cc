/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Sets of CPUs, as a cgroup's cpuset holds them (cpuset.cpus,
 * cpuset.cpus.effective), written in the kernel's list format: "0-3,5",
 * "" for none. A value type of fixed size: CPUs 0 to HCBS_CPUS_MAX - 1.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HCBS_CPUS_MAX 1024
/* "0,2,4,…": at most five characters a CPU, and the terminating NUL */
#define HCBS_CPUSET_STRLEN (5 * HCBS_CPUS_MAX / 2 + 1)

typedef struct HcbsCpuSet {
        uint64_t w[HCBS_CPUS_MAX / 64];
} HcbsCpuSet;

static inline bool hcbs_cpuset_has(const HcbsCpuSet *s, unsigned cpu) {
        return cpu < HCBS_CPUS_MAX && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void hcbs_cpuset_add(HcbsCpuSet *s, unsigned cpu) {
        if (cpu < HCBS_CPUS_MAX)
                s->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

bool hcbs_cpuset_is_empty(const HcbsCpuSet *s);
bool hcbs_cpuset_equal(const HcbsCpuSet *a, const HcbsCpuSet *b);
/* Whether every CPU of a is in b. */
bool hcbs_cpuset_is_subset(const HcbsCpuSet *a, const HcbsCpuSet *b);
unsigned hcbs_cpuset_count(const HcbsCpuSet *s);
/* a ∩ b into ret (which may be a or b). */
void hcbs_cpuset_and(HcbsCpuSet *ret, const HcbsCpuSet *a, const HcbsCpuSet *b);
/* The lowest CPU of s above `after` (-1: from the start), or -1. */
int hcbs_cpuset_next(const HcbsCpuSet *s, int after);
/* The highest CPU of s, or -1 when empty. */
int hcbs_cpuset_last(const HcbsCpuSet *s);

#define HCBS_CPUSET_FOREACH(c, s) for (int c = hcbs_cpuset_next((s), -1); c >= 0; c = hcbs_cpuset_next((s), c))

/*
 * cpuset's effective CPUs (cgroup v2, compute_effective_cpumask()): the
 * CPUs asked for within the parent's effective ones, or all of the
 * parent's when none of them is (or none is asked for).
 */
void hcbs_cpuset_effective(HcbsCpuSet *ret, const HcbsCpuSet *cpus, const HcbsCpuSet *parent_effective);

/*
 * Parses a CPU list: CPUs and ranges (N, N-M with N <= M) separated by
 * commas; blanks around items and a trailing newline are allowed; "" is
 * the empty set. Returns 0, -EINVAL (the syntax, or a range going down)
 * or -ERANGE (a CPU of HCBS_CPUS_MAX or more).
 */
int hcbs_cpuset_parse(const char *s, HcbsCpuSet *ret);

/* The kernel's list format ("0-3,5"; "" when empty), cut to fit size. Returns buf. */
const char *hcbs_cpuset_format(const HcbsCpuSet *s, char *buf, size_t size);
