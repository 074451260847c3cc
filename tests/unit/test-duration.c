/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"

static uint64_t parse_ok(const char *s) {
        char err[256] = "";
        uint64_t us = 0;
        cr_assert_eq(hcbs_duration_parse(s, &us, err, sizeof(err)), 0, "'%s': %s", s, err);
        return us;
}

static void parse_fails(const char *s, int expected, const char *needle) {
        char err[256] = "";
        uint64_t us = 12345;
        cr_assert_eq(hcbs_duration_parse(s, &us, err, sizeof(err)), expected, "'%s' should fail", s);
        cr_assert_eq(us, 12345, "output written on failure");
        cr_assert_not_null(strstr(err, needle), "'%s': message '%s' lacks '%s'", s, err, needle);
}

Test(duration, units) {
        cr_assert_eq(parse_ok("500us"), 500);
        cr_assert_eq(parse_ok("10ms"), 10000);
        cr_assert_eq(parse_ok("1.5s"), 1500000);
        cr_assert_eq(parse_ok("0.5ms"), 500);
        cr_assert_eq(parse_ok("250"), 250);
        cr_assert_eq(parse_ok("0"), 0);
        cr_assert_eq(parse_ok("10 ms"), 10000);
        cr_assert_eq(parse_ok("1.000001s"), 1000001);
        cr_assert_eq(parse_ok("007ms"), 7000);
}

Test(duration, limits) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) HCBS_MAX_FILE_USEC);
        cr_assert_eq(parse_ok(buf), HCBS_MAX_FILE_USEC);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) HCBS_MAX_FILE_USEC + 1);
        parse_fails(buf, -ERANGE, "too large");
        parse_fails("99999999999999999999999s", -ERANGE, "too large");
        parse_fails("18446744073709551616", -ERANGE, "too large");
}

Test(duration, junk) {
        parse_fails("", -EINVAL, "empty");
        parse_fails("-5ms", -EINVAL, "negative");
        parse_fails("ms", -EINVAL, "number");
        parse_fails("5m", -EINVAL, "unknown unit 'm'");
        parse_fails("5 h", -EINVAL, "unknown unit");
        parse_fails("1.5us", -EINVAL, "whole number");
        parse_fails("0.0001ms", -EINVAL, "whole number");
        parse_fails("5ms ", -EINVAL, "unknown unit");
        parse_fails("1e3", -EINVAL, "unknown unit");
        parse_fails(".", -EINVAL, "number");
        parse_fails("0x10", -EINVAL, "unknown unit");
}

Test(duration, format_round_trip) {
        static const uint64_t values[] = { 0, 1, 999, 1000, 1500, 1234, 10000, 999999, 1000000, 1500000,
                                           1000001, 1234000, 4000000, HCBS_MAX_FILE_USEC };
        char buf[HCBS_DURATION_STRLEN];

        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
                cr_assert_eq(parse_ok(hcbs_duration_format(values[i], buf)), values[i], "%s", buf);
        cr_assert_str_eq(hcbs_duration_format(1500, buf), "1.5ms");
        cr_assert_str_eq(hcbs_duration_format(1000001, buf), "1000.001ms");
        cr_assert_str_eq(hcbs_duration_format(2000000, buf), "2s");
        cr_assert_str_eq(hcbs_duration_format(999, buf), "999us");
}

Test(percent, parse) {
        char err[256];
        uint64_t bw;
        cr_assert_eq(hcbs_percent_parse("90%", &bw, err, sizeof(err)), 0);
        cr_assert_eq(bw, (90 * HCBS_BW_UNIT) / 100);
        cr_assert_eq(hcbs_percent_parse("100%", &bw, err, sizeof(err)), 0);
        cr_assert_eq(bw, HCBS_BW_UNIT);
        cr_assert_eq(hcbs_percent_parse("12.5%", &bw, err, sizeof(err)), 0);
        cr_assert_eq(bw, HCBS_BW_UNIT / 8);
        cr_assert_eq(hcbs_percent_parse("101%", &bw, err, sizeof(err)), -ERANGE);
        cr_assert_eq(hcbs_percent_parse("90", &bw, err, sizeof(err)), -EINVAL);
        cr_assert_eq(hcbs_percent_parse("-5%", &bw, err, sizeof(err)), -EINVAL);
}
