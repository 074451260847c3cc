/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"
#include "strutil.h"

static const struct {
        const char *suffix;
        uint64_t us;
} units[] = {
        { "us", 1 },
        { "ms", 1000 },
        { "s", 1000000 },
};

/*
 * Splits s into an integer part, an optional fraction and a unit suffix.
 * Digits are accumulated in 128 bits so overflow is detected, not wrapped.
 */
typedef struct Decimal {
        unsigned __int128 whole;
        unsigned __int128 frac;
        unsigned frac_digits;
        const char *rest;
} Decimal;

static int decimal_parse(const char *s, Decimal *ret, char *err, size_t errlen) {
        Decimal d = {};
        const char *p = s;
        bool digits = false;

        if (*p == '-')
                return hcbs_err(err, errlen, -EINVAL, "'%s' is negative", s);
        for (; *p >= '0' && *p <= '9'; p++, digits = true) {
                d.whole = d.whole * 10 + (unsigned) (*p - '0');
                if (d.whole > UINT64_MAX)
                        return hcbs_err(err, errlen, -ERANGE, "'%s' is too large", s);
        }
        if (*p == '.') {
                for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
                        if (d.frac_digits >= 18)
                                return hcbs_err(err, errlen, -EINVAL, "'%s' has too many decimals", s);
                        d.frac = d.frac * 10 + (unsigned) (*p - '0');
                        d.frac_digits++;
                }
        }
        if (!digits)
                return hcbs_err(err, errlen, -EINVAL, "'%s' does not start with a number", s);
        while (*p == ' ')
                p++;
        d.rest = p;
        *ret = d;
        return 0;
}

static unsigned __int128 pow10_u128(unsigned n) {
        unsigned __int128 r = 1;
        while (n--)
                r *= 10;
        return r;
}

/* Scales d by mult; fails unless the result is a whole number <= max. */
static int decimal_scale(const char *s, const Decimal *d, uint64_t mult, uint64_t max,
                         const char *what, uint64_t *ret, char *err, size_t errlen) {
        unsigned __int128 scale = pow10_u128(d->frac_digits);
        unsigned __int128 frac = d->frac * mult;
        unsigned __int128 v = d->whole * mult;

        if (frac % scale != 0)
                return hcbs_err(err, errlen, -EINVAL, "'%s' is not a whole number of %s", s, what);
        v += frac / scale;
        if (v > max)
                return hcbs_err(err, errlen, -ERANGE, "'%s' is too large (at most %llu %s)", s,
                                (unsigned long long) max, what);
        *ret = (uint64_t) v;
        return 0;
}

int hcbs_duration_parse(const char *s, uint64_t *ret_us, char *err, size_t errlen) {
        Decimal d;
        uint64_t mult = 0;
        int r;

        if (!s || !*s)
                return hcbs_err(err, errlen, -EINVAL, "empty duration");
        r = decimal_parse(s, &d, err, errlen);
        if (r < 0)
                return r;
        if (*d.rest == '\0')
                mult = 1;
        for (size_t i = 0; i < ELEMENTSOF(units) && !mult; i++)
                if (strcmp(d.rest, units[i].suffix) == 0)
                        mult = units[i].us;
        if (!mult)
                return hcbs_err(err, errlen, -EINVAL,
                                "'%s' has an unknown unit '%s' (use us, ms or s; a bare number is microseconds)",
                                s, d.rest);
        return decimal_scale(s, &d, mult, HCBS_MAX_FILE_USEC, "microseconds", ret_us, err, errlen);
}

const char *hcbs_duration_format(uint64_t us, char buf[static HCBS_DURATION_STRLEN]) {
        const char *unit = "us";
        uint64_t div = 1;

        if (us >= 1000000 && us % 1000 == 0)
                unit = "s", div = 1000000;
        else if (us >= 1000)
                unit = "ms", div = 1000;

        if (div == 1 || us % div == 0) {
                snprintf(buf, HCBS_DURATION_STRLEN, "%llu%s", (unsigned long long) (us / div), unit);
                return buf;
        }

        /* div is 1000 or 10^6 and us % 1000 == 0 for seconds: three decimals are exact */
        uint64_t frac = (us % div) / (div / 1000);
        int digits = 3;
        while (frac % 10 == 0)
                frac /= 10, digits--;
        snprintf(buf, HCBS_DURATION_STRLEN, "%llu.%0*llu%s", (unsigned long long) (us / div), digits,
                 (unsigned long long) frac, unit);
        return buf;
}

int hcbs_percent_parse(const char *s, uint64_t *ret_bw, char *err, size_t errlen) {
        Decimal d;
        int r;

        if (!s || !*s)
                return hcbs_err(err, errlen, -EINVAL, "empty percentage");
        r = decimal_parse(s, &d, err, errlen);
        if (r < 0)
                return r;
        if (strcmp(d.rest, "%") != 0)
                return hcbs_err(err, errlen, -EINVAL, "'%s' is not a percentage like 90%%", s);

        /* the range first: up to 100 the shift below cannot lose bits (100 * 10^18 < 2^67) */
        if (d.whole > 100)
                return hcbs_err(err, errlen, -ERANGE, "'%s' is above 100%%", s);

        /* bw = percent * 2^20 / 100, truncated like the kernel's ratios */
        unsigned __int128 scale = pow10_u128(d.frac_digits);
        unsigned __int128 num = (d.whole * scale + d.frac) << HCBS_BW_SHIFT;
        unsigned __int128 bw = num / (scale * 100);
        if (bw > HCBS_BW_UNIT)
                return hcbs_err(err, errlen, -ERANGE, "'%s' is above 100%%", s);
        *ret_bw = (uint64_t) bw;
        return 0;
}
