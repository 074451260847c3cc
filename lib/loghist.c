/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "loghist.h"

uint64_t loghist_lower(unsigned b) {
        unsigned h, sub;

        if (b < LOGHIST_SUB)
                return b;
        h = LOGHIST_SUB_BITS + (b - LOGHIST_SUB) / LOGHIST_SUB;
        sub = (b - LOGHIST_SUB) % LOGHIST_SUB;
        return (uint64_t) (LOGHIST_SUB + sub) << (h - LOGHIST_SUB_BITS);
}

uint64_t loghist_upper(unsigned b) {
        if (b + 1 >= LOGHIST_BUCKETS)
                return UINT64_MAX;
        return loghist_lower(b + 1) - 1;
}

uint64_t loghist_total(const uint64_t *counts) {
        uint64_t total = 0;

        for (unsigned b = 0; b < LOGHIST_BUCKETS; b++)
                total += counts[b];
        return total;
}

uint64_t loghist_quantile(const uint64_t *counts, double q, uint64_t max) {
        uint64_t total = loghist_total(counts), rank, seen = 0;

        if (total == 0)
                return 0;
        double x = q * (double) total;
        rank = (uint64_t) x;
        if ((double) rank < x)
                rank++; /* ceil, without libm */
        if (rank < 1)
                rank = 1;
        if (rank > total)
                rank = total;
        for (unsigned b = 0; b < LOGHIST_BUCKETS; b++) {
                seen += counts[b];
                if (seen >= rank) {
                        uint64_t v = loghist_upper(b);
                        return max && v > max ? max : v;
                }
        }
        return max; /* not reached: seen ends at total */
}
