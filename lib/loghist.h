/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A log-linear latency histogram: values below 8 have a bucket each; above,
 * every power of two [2^h, 2^(h+1)) is cut into 8 equal sub-buckets (3
 * sub-bucket bits), so a bucket is at most 1/8 = 12.5% wider than its lower
 * bound and a percentile read from it is off by at most that much. Values
 * of 2^40 and more (about 18 minutes in nanoseconds) share the last bucket.
 *
 * loghist_bucket() is written for both sides: the BPF collector includes
 * this header (no libc there, hence no includes and plain C types), and
 * the daemon reads the buckets back with loghist.c.
 */

#define LOGHIST_SUB_BITS 3
#define LOGHIST_SUB (1u << LOGHIST_SUB_BITS)
#define LOGHIST_MAX_POW 40
#define LOGHIST_BUCKETS (LOGHIST_SUB + (LOGHIST_MAX_POW - LOGHIST_SUB_BITS) * LOGHIST_SUB)

static inline unsigned int loghist_bucket(unsigned long long v) {
        unsigned long long x = v;
        unsigned int h = 0;

        if (v < LOGHIST_SUB)
                return (unsigned int) v;
        if (v >= (1ULL << LOGHIST_MAX_POW))
                return LOGHIST_BUCKETS - 1;
        /* h = index of the most significant bit, by halving (no loops for the verifier) */
        if (x >> 32) { x >>= 32; h += 32; }
        if (x >> 16) { x >>= 16; h += 16; }
        if (x >> 8) { x >>= 8; h += 8; }
        if (x >> 4) { x >>= 4; h += 4; }
        if (x >> 2) { x >>= 2; h += 2; }
        if (x >> 1) h += 1;
        return LOGHIST_SUB + (h - LOGHIST_SUB_BITS) * LOGHIST_SUB +
               (unsigned int) ((v >> (h - LOGHIST_SUB_BITS)) & (LOGHIST_SUB - 1));
}

#ifndef __bpf__
#include <stddef.h>
#include <stdint.h>

/* The smallest and the largest value that fall into bucket b (< LOGHIST_BUCKETS). */
uint64_t loghist_lower(unsigned b);
uint64_t loghist_upper(unsigned b);

/*
 * The value at quantile q (0 < q <= 1) of counts[LOGHIST_BUCKETS]: the upper
 * bound of the bucket holding the ceil(q * total)-th value, capped at max
 * (the largest value seen, exact) when max is not 0. 0 when empty.
 */
uint64_t loghist_quantile(const uint64_t *counts, double q, uint64_t max);
uint64_t loghist_total(const uint64_t *counts);
#endif
