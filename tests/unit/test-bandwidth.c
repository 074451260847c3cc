/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>

#include "bandwidth.h"

Test(bandwidth, to_ratio) {
        cr_assert_eq(hcbs_to_ratio(1000, 1000), HCBS_BW_UNIT);
        cr_assert_eq(hcbs_to_ratio(1000, 0), 0);
        cr_assert_eq(hcbs_to_ratio(0, 500), 0);
        cr_assert_eq(hcbs_to_ratio(0, HCBS_RUNTIME_INF), HCBS_BW_UNIT);
        /* truncation, as the kernel: 1048576/3 = 349525.33 */
        cr_assert_eq(hcbs_bw(3000000, 1000000), 349525);
        /* the default global limit, 95% */
        cr_assert_eq(hcbs_bw(1000000, 950000), 996147);
        cr_assert_eq(hcbs_bw(100, -1), HCBS_BW_UNIT);
        /* the largest runtime the kernel takes does not overflow the shift */
        cr_assert_eq(hcbs_to_ratio(HCBS_MAX_RT_RUNTIME_NS, HCBS_MAX_RT_RUNTIME_NS), HCBS_BW_UNIT);
}

/*
 * Where floating point and the kernel disagree: three children of 1/3 sum
 * to exactly 1.0 in reals, more than a parent of 0.9999999, yet the
 * kernel's truncated ratios fit exactly (349525 * 3 = 1048575 = parent).
 */
Test(bandwidth, fixed_point_not_float) {
        uint64_t child = hcbs_bw(3000000, 1000000);
        uint64_t parent = hcbs_bw(10000000, 9999999);
        double fchild = 1000000.0 / 3000000.0, fparent = 9999999.0 / 10000000.0;

        cr_assert(3 * fchild > fparent, "floating point refuses");
        cr_assert_eq(3 * child, parent, "the kernel's integers fit exactly");

        /* and the other way round: 0.95 of a period is 996147, not 996147.2 */
        cr_assert_eq(hcbs_bw(1000000, 950000), 996147);
        cr_assert((uint64_t) (0.95 * HCBS_BW_UNIT + 0.5) == 996147);
        cr_assert_eq(hcbs_bw(1000, 333), 349175); /* 349175.8 truncated, float would round to 349176 */
}

Test(bandwidth, runtime_for_bw) {
        uint64_t rt;
        cr_assert_eq(hcbs_runtime_for_bw(1000000, hcbs_bw(1000000, 400000), &rt), 0);
        cr_assert_eq(rt, 400000);
        /* minimal: one microsecond less does not reach the ratio */
        for (uint64_t period = 7; period < 100000; period = period * 3 + 1)
                for (uint64_t bw = 1; bw < HCBS_BW_UNIT; bw = bw * 5 + 3) {
                        if (hcbs_runtime_for_bw(period, bw, &rt) < 0) {
                                cr_assert(hcbs_bw(period, (int64_t) period) < bw);
                                continue;
                        }
                        cr_assert_geq(hcbs_bw(period, (int64_t) rt), bw);
                        cr_assert(rt == 0 || hcbs_bw(period, (int64_t) rt - 1) < bw);
                }
        cr_assert_eq(hcbs_runtime_for_bw(1000, HCBS_BW_UNIT + 1, &rt), -ERANGE);
}

Test(bandwidth, runtime_for_bw_zero_period) {
        uint64_t rt = 12345;

        /* no runtime at period 0 has any bandwidth: 0 would be a lie for bw > 0 (fuzz-values found it) */
        cr_assert_eq(hcbs_runtime_for_bw(0, 1, &rt), -ERANGE);
        cr_assert_eq(hcbs_runtime_for_bw(0, HCBS_BW_UNIT, &rt), -ERANGE);
        cr_assert_eq(hcbs_runtime_for_bw(0, 0, &rt), -ERANGE);
        cr_assert_eq(rt, 12345, "not written on failure");
}

Test(bandwidth, runtime_for_bw_huge) {
        uint64_t rt;

        /* bw * period_ns in 128 bits: a huge bw at a huge period must not wrap into a small runtime */
        cr_assert_eq(hcbs_runtime_for_bw(HCBS_MAX_FILE_USEC, UINT64_MAX, &rt), -ERANGE);
        cr_assert_eq(hcbs_runtime_for_bw(HCBS_MAX_FILE_USEC, HCBS_BW_UNIT, &rt), 0);
        cr_assert_eq(rt, HCBS_MAX_FILE_USEC);
}

Test(bandwidth, format) {
        char buf[HCBS_BW_STRLEN];
        cr_assert_str_eq(hcbs_bw_format(0, buf), "0.0%");
        cr_assert_str_eq(hcbs_bw_format(HCBS_BW_UNIT, buf), "100.0%");
        cr_assert_str_eq(hcbs_bw_format(hcbs_bw(100000, 10000), buf), "10.0%");
        cr_assert_str_eq(hcbs_bw_format(hcbs_bw(1000000, 950000), buf), "95.0%");
        cr_assert_str_eq(hcbs_bw_format(hcbs_bw(3, 1), buf), "33.3%");
}
