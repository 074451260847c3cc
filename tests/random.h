/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A small deterministic generator for property tests: the seed is printed, and HCBS_SEED replays it. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Rng {
        uint64_t s;
} Rng;

static inline Rng rng_from_env(uint64_t fallback) {
        const char *e = getenv("HCBS_SEED");
        Rng r = { e ? strtoull(e, NULL, 0) : fallback };
        fprintf(stderr, "seed: HCBS_SEED=%llu\n", (unsigned long long) r.s);
        if (!r.s)
                r.s = 1;
        return r;
}

static inline uint64_t rng_next(Rng *r) {
        r->s ^= r->s << 13;
        r->s ^= r->s >> 7;
        r->s ^= r->s << 17;
        return r->s;
}

static inline uint64_t rng_below(Rng *r, uint64_t n) {
        return n ? rng_next(r) % n : 0;
}

/* A value for cpu.rt_period_us: mostly sane, sometimes 0, tiny or past the kernel's limits. */
static inline uint64_t rng_period(Rng *r) {
        static const uint64_t periods[] = { 1000, 10000, 100000, 1000000 };
        switch (rng_below(r, 12)) {
        case 0:
                return 0;
        case 1:
                return 1 + rng_below(r, 3);
        case 2:
                return (UINT64_C(1) << 63) / 1000 + rng_below(r, 3) - 1;
        case 3:
                return 10 + rng_below(r, 2000000);
        default:
                return periods[rng_below(r, 4)];
        }
}

/* A value for cpu.rt_runtime_us relative to a period: fractions, 0, 1us, negative, above the period. */
static inline int64_t rng_runtime(Rng *r, uint64_t period) {
        switch (rng_below(r, 12)) {
        case 0:
                return 0;
        case 1:
                return 1;
        case 2:
                return -1;
        case 3:
                return (int64_t) period + 1;
        case 4:
                return (int64_t) (UINT64_C(1) << 44) / 1000 + 1;
        default:
                return (int64_t) (period * rng_below(r, 60) / 100);
        }
}
