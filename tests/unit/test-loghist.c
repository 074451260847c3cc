/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <stdint.h>

#include "loghist.h"

/* Every bucket's bounds map back to it, buckets tile the line, and none is wider than 12.5% of its lower bound. */
Test(loghist, buckets_tile_and_bound_the_error) {
        cr_assert_eq(loghist_lower(0), 0);
        for (unsigned b = 0; b < LOGHIST_BUCKETS; b++) {
                uint64_t lo = loghist_lower(b), hi = loghist_upper(b);
                cr_assert_eq(loghist_bucket(lo), b, "lower bound %llu of bucket %u", (unsigned long long) lo, b);
                cr_assert_eq(loghist_bucket(hi), b, "upper bound %llu of bucket %u", (unsigned long long) hi, b);
                if (b + 1 < LOGHIST_BUCKETS) {
                        cr_assert_eq(loghist_lower(b + 1), hi + 1, "bucket %u ends where %u starts", b, b + 1);
                        cr_assert_leq((double) (hi - lo + 1), lo / 8.0 + 1.0, "bucket %u [%llu, %llu] too wide", b,
                                      (unsigned long long) lo, (unsigned long long) hi);
                }
        }
        cr_assert_eq(loghist_upper(LOGHIST_BUCKETS - 1), UINT64_MAX);
}

/* Against a plain formula at random points over the whole range. */
Test(loghist, bucket_matches_a_direct_computation) {
        uint64_t x = 0x9e3779b97f4a7c15ULL;

        for (int i = 0; i < 100000; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                uint64_t v = x >> (x % 64);
                unsigned want;
                if (v < 8)
                        want = (unsigned) v;
                else if (v >= (1ULL << 40))
                        want = LOGHIST_BUCKETS - 1;
                else {
                        unsigned h = 63 - (unsigned) __builtin_clzll(v);
                        want = 8 + (h - 3) * 8 + (unsigned) ((v >> (h - 3)) & 7);
                }
                cr_assert_eq(loghist_bucket(v), want, "value %llu", (unsigned long long) v);
        }
}

Test(loghist, quantiles) {
        uint64_t c[LOGHIST_BUCKETS] = {};

        cr_assert_eq(loghist_quantile(c, 0.99, 0), 0, "empty");
        /* 990 values of 1000 ns, 9 of 50 us, 1 of 3 ms */
        c[loghist_bucket(1000)] = 990;
        c[loghist_bucket(50000)] = 9;
        c[loghist_bucket(3000000)] = 1;
        cr_assert_eq(loghist_quantile(c, 0.5, 3000000), loghist_upper(loghist_bucket(1000)));
        cr_assert_eq(loghist_quantile(c, 0.99, 3000000), loghist_upper(loghist_bucket(1000)));
        cr_assert_eq(loghist_quantile(c, 0.991, 3000000), loghist_upper(loghist_bucket(50000)));
        cr_assert_eq(loghist_quantile(c, 0.999, 3000000), loghist_upper(loghist_bucket(50000)));
        cr_assert_eq(loghist_quantile(c, 1.0, 3000000), 3000000, "capped at the exact max");
        cr_assert_geq(loghist_quantile(c, 0.5, 0), 1000);
        cr_assert_leq(loghist_quantile(c, 0.5, 0), 1125, "within 12.5%%");
        cr_assert_eq(loghist_total(c), 1000);
}
