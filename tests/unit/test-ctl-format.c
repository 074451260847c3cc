/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hcbsctl's bandwidth from the D-Bus fraction: rounded to the nearest unit, without libm. */
#include <criterion/criterion.h>
#include <math.h>

#include "ctl-format.h"

Test(ctl_format, a_fraction_back_in_fixed_point) {
        cr_assert_eq(ctl_bw_from_fraction(1.0), HCBS_BW_UNIT);
        cr_assert_eq(ctl_bw_from_fraction(0.5), HCBS_BW_UNIT / 2);
        /* every bandwidth the daemon can send comes back as it was */
        for (uint64_t bw = 0; bw <= HCBS_BW_UNIT; bw += 997)
                cr_assert_eq(ctl_bw_from_fraction(ctl_bw_fraction(bw)), bw, "bw %llu", (unsigned long long) bw);
        cr_assert_eq(ctl_bw_from_fraction((2.0 + 0.49) / (double) HCBS_BW_UNIT), 2, "rounded down below .5");
        cr_assert_eq(ctl_bw_from_fraction((2.0 + 0.51) / (double) HCBS_BW_UNIT), 3, "rounded up above .5");
        cr_assert_eq(ctl_bw_from_fraction(0), 0);
        cr_assert_eq(ctl_bw_from_fraction(-0.5), 0);
        cr_assert_eq(ctl_bw_from_fraction(NAN), 0);
}
