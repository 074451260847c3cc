/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU lists as the kernel writes them ("0-3,5"), and cpuset's effective CPUs. */
#include <criterion/criterion.h>
#include <errno.h>

#include "cpuset.h"

static const char *roundtrip(const char *in) {
        static char buf[HCBS_CPUSET_STRLEN];
        HcbsCpuSet s;

        cr_assert_eq(hcbs_cpuset_parse(in, &s), 0, "'%s'", in);
        return hcbs_cpuset_format(&s, buf, sizeof(buf));
}

Test(cpuset, parse_and_format) {
        cr_assert_str_eq(roundtrip(""), "");
        cr_assert_str_eq(roundtrip("\n"), "");
        cr_assert_str_eq(roundtrip("0"), "0");
        cr_assert_str_eq(roundtrip("0-3,5\n"), "0-3,5");
        cr_assert_str_eq(roundtrip(" 5 , 0-1,2"), "0-2,5");
        cr_assert_str_eq(roundtrip("3-3"), "3");
        cr_assert_str_eq(roundtrip("1023"), "1023");
        cr_assert_str_eq(roundtrip("0,2,4,6"), "0,2,4,6");
        cr_assert_str_eq(roundtrip("0-1023"), "0-1023");
}

Test(cpuset, parse_refuses) {
        HcbsCpuSet s;
        static const char *const bad[] = { "a", "1-", "-1", "3-1", "1,,2", "1,", "1 2", "0x1", "1-2-3", "1\n2" };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_assert_eq(hcbs_cpuset_parse(bad[i], &s), -EINVAL, "'%s'", bad[i]);
        cr_assert_eq(hcbs_cpuset_parse("1024", &s), -ERANGE);
        cr_assert_eq(hcbs_cpuset_parse("0-99999999999999999999", &s), -ERANGE);
}

Test(cpuset, set_operations) {
        HcbsCpuSet a, b, c;

        cr_assert_eq(hcbs_cpuset_parse("0-3,64,1000", &a), 0);
        cr_assert_eq(hcbs_cpuset_parse("2-5,1000", &b), 0);
        cr_assert_eq(hcbs_cpuset_count(&a), 6);
        cr_assert_eq(hcbs_cpuset_last(&a), 1000);
        cr_assert_eq(hcbs_cpuset_next(&a, 3), 64);
        cr_assert_eq(hcbs_cpuset_next(&a, 1000), -1);
        hcbs_cpuset_and(&c, &a, &b);
        cr_assert(hcbs_cpuset_has(&c, 2) && hcbs_cpuset_has(&c, 3) && hcbs_cpuset_has(&c, 1000));
        cr_assert_eq(hcbs_cpuset_count(&c), 3);
        cr_assert(hcbs_cpuset_is_subset(&c, &a) && !hcbs_cpuset_is_subset(&a, &c));
        cr_assert(!hcbs_cpuset_equal(&a, &b));
        cr_assert(!hcbs_cpuset_has(&a, 5000));
        hcbs_cpuset_add(&c, 5000); /* out of range: ignored */
        cr_assert_eq(hcbs_cpuset_count(&c), 3);
        cr_assert_eq(hcbs_cpuset_last(&(HcbsCpuSet) {}), -1);
}

Test(cpuset, effective_is_within_the_parent_or_all_of_it) {
        HcbsCpuSet parent, cpus, eff;
        char buf[64];

        cr_assert_eq(hcbs_cpuset_parse("0-3", &parent), 0);
        cr_assert_eq(hcbs_cpuset_parse("2-5", &cpus), 0);
        hcbs_cpuset_effective(&eff, &cpus, &parent);
        cr_assert_str_eq(hcbs_cpuset_format(&eff, buf, sizeof(buf)), "2-3");
        cr_assert_eq(hcbs_cpuset_parse("6-7", &cpus), 0);
        hcbs_cpuset_effective(&eff, &cpus, &parent);
        cr_assert_str_eq(hcbs_cpuset_format(&eff, buf, sizeof(buf)), "0-3");
        hcbs_cpuset_effective(&eff, &(HcbsCpuSet) {}, &parent);
        cr_assert_str_eq(hcbs_cpuset_format(&eff, buf, sizeof(buf)), "0-3");
}

Test(cpuset, format_cuts_to_fit) {
        HcbsCpuSet s;
        char buf[6];

        cr_assert_eq(hcbs_cpuset_parse("0,2,4,6,8", &s), 0);
        hcbs_cpuset_format(&s, buf, sizeof(buf));
        cr_assert_eq(strlen(buf), 5);
}
