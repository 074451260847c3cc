/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Bandwidth in the kernel's own fixed point.
 *
 * The scheduler compares reservations as to_ratio(period, runtime) =
 * (runtime << BW_SHIFT) / period, both in nanoseconds, truncated
 * (kernel/sched/core.c). hcbsd computes exactly the same integers, so its
 * verdicts and the kernel's can never disagree because of rounding: a
 * floating point model would admit 1/3 + 1/3 + 1/3 where the kernel's
 * truncated sum differs by one unit.
 *
 * The cgroup files hold microseconds; the kernel multiplies by 1000.
 * A negative runtime written to cpu.rt_runtime_us means "unlimited"
 * (RUNTIME_INF), whose ratio is BW_UNIT.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HCBS_BW_SHIFT 20
#define HCBS_BW_UNIT (UINT64_C(1) << HCBS_BW_SHIFT)
#define HCBS_RUNTIME_INF UINT64_MAX
/* A runtime of "max" (rtmax: no reservation, the group delegates to its context) as the D-Bus API and
 * hcbsctl carry it: the kernel's RUNTIME_INF, (uint64_t) -1 of the model's runtime_us */
#define HCBS_RUNTIME_MAX_US UINT64_MAX
#define HCBS_NSEC_PER_USEC UINT64_C(1000)
/* MAX_BW: the largest runtime (ns) that cannot overflow the shift above. */
#define HCBS_MAX_RT_RUNTIME_NS ((UINT64_C(1) << (64 - HCBS_BW_SHIFT)) - 1)
/* Largest value of a microsecond file the kernel accepts (U64_MAX / NSEC_PER_USEC). */
#define HCBS_MAX_FILE_USEC (UINT64_MAX / HCBS_NSEC_PER_USEC)

/* to_ratio(): returns BW_UNIT for RUNTIME_INF and 0 for a zero period. */
uint64_t hcbs_to_ratio(uint64_t period_ns, uint64_t runtime_ns);

/* The kernel's view of a runtime file value: negative -> RUNTIME_INF, else us * 1000. */
uint64_t hcbs_runtime_ns(int64_t runtime_us);

/* Bandwidth of a (runtime_us, period_us) pair as the kernel computes it. */
uint64_t hcbs_bw(uint64_t period_us, int64_t runtime_us);

/*
 * The smallest runtime in microseconds whose bandwidth at period_us is >= bw.
 * Returns 0 on success, -ERANGE when no runtime <= period_us reaches bw, and
 * for a zero period whatever bw is.
 */
int hcbs_runtime_for_bw(uint64_t period_us, uint64_t bw, uint64_t *ret_runtime_us);

#define HCBS_BW_STRLEN 32
/* Formats bw as percent of one CPU with one decimal ("12.5%"), rounded to nearest. */
const char *hcbs_bw_format(uint64_t bw, char buf[static HCBS_BW_STRLEN]);
