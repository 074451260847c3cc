/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "bandwidth.h"

uint64_t hcbs_to_ratio(uint64_t period_ns, uint64_t runtime_ns) {
        if (runtime_ns == HCBS_RUNTIME_INF)
                return HCBS_BW_UNIT;
        if (period_ns == 0)
                return 0;
        return (runtime_ns << HCBS_BW_SHIFT) / period_ns;
}

uint64_t hcbs_runtime_ns(int64_t runtime_us) {
        if (runtime_us < 0)
                return HCBS_RUNTIME_INF;
        return (uint64_t) runtime_us * HCBS_NSEC_PER_USEC;
}

uint64_t hcbs_bw(uint64_t period_us, int64_t runtime_us) {
        return hcbs_to_ratio(period_us * HCBS_NSEC_PER_USEC, hcbs_runtime_ns(runtime_us));
}

int hcbs_runtime_for_bw(uint64_t period_us, uint64_t bw, uint64_t *ret_runtime_us) {
        /* a zero period has no bandwidth to give, and no runtime <= period exceeds BW_UNIT */
        if (period_us == 0 || bw > HCBS_BW_UNIT)
                return -ERANGE;

        unsigned __int128 period_ns = (unsigned __int128) period_us * HCBS_NSEC_PER_USEC;
        /* ceil(bw * period / 2^20) ns, then ceil to whole microseconds; bw <= 2^20 keeps it in 128 bits */
        unsigned __int128 ns = (bw * period_ns + HCBS_BW_UNIT - 1) >> HCBS_BW_SHIFT;
        unsigned __int128 us = (ns + HCBS_NSEC_PER_USEC - 1) / HCBS_NSEC_PER_USEC;

        if (us > period_us)
                return -ERANGE;
        *ret_runtime_us = (uint64_t) us;
        return 0;
}

const char *hcbs_bw_format(uint64_t bw, char buf[static HCBS_BW_STRLEN]) {
        /* tenths of a percent, rounded half up */
        unsigned __int128 tenths = ((unsigned __int128) bw * 1000 + HCBS_BW_UNIT / 2) >> HCBS_BW_SHIFT;

        snprintf(buf, HCBS_BW_STRLEN, "%llu.%llu%%",
                 (unsigned long long) (tenths / 10), (unsigned long long) (tenths % 10));
        return buf;
}
