/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <string.h>

#include "name.h"

static void refused(const char *name, const char *needle) {
        char err[256] = "";
        cr_assert_lt(hcbs_name_validate(name, err, sizeof(err)), 0, "'%s' accepted", name);
        cr_assert_not_null(strstr(err, needle), "'%s': message '%s' lacks '%s'", name, err, needle);
}

Test(name, valid) {
        cr_assert(hcbs_name_is_valid("audio"));
        cr_assert(hcbs_name_is_valid("media/audio"));
        cr_assert(hcbs_name_is_valid("a/b/c/d/e/f/g/h"));
        cr_assert(hcbs_name_is_valid("A-z_0.9"));
        cr_assert(hcbs_name_is_valid("...")); /* not . or .. */
        cr_assert(hcbs_name_is_valid("v1.2"));
}

Test(name, invalid) {
        char seg[70], deep[64];
        refused("", "empty");
        refused(NULL, "empty");
        refused("..", "'..' is not allowed");
        refused("a/../b", "'..' is not allowed");
        refused("./a", "'.' is not allowed");
        refused("/x", "relative");
        refused("a//b", "empty path segment");
        refused("a/", "empty path segment");
        refused("a b", "0x20");
        refused("a\nb", "0x0a");
        refused("a\tb", "0x09");
        refused("caf\xc3\xa9", "0xc3");
        refused("cgroup.procs", "clashes");
        refused("media/cpu.max", "clashes");
        memset(seg, 'x', 65);
        seg[65] = '\0';
        refused(seg, "longer than 64");
        seg[64] = '\0';
        cr_assert(hcbs_name_is_valid(seg));
        strcpy(deep, "a/b/c/d/e/f/g/h/i");
        refused(deep, "deeper than 8");
}

Test(name, parts) {
        cr_assert_eq(hcbs_name_depth("a"), 1);
        cr_assert_eq(hcbs_name_depth("a/b/c"), 3);
        cr_assert_eq(hcbs_name_parent_len("a/b/c"), 3);
        cr_assert_eq(hcbs_name_parent_len("abc"), 0);
        cr_assert_str_eq(hcbs_name_last("a/b/c"), "c");
        cr_assert_str_eq(hcbs_name_last("abc"), "abc");
}

Test(name, service_names) {
        char longest[HCBS_UNIT_NAME_MAX + 2];

        cr_assert(hcbs_service_name_is_valid("motor.service"));
        cr_assert(hcbs_service_name_is_valid("getty@tty1.service"));
        cr_assert(hcbs_service_name_is_valid("a\\x2db:c_d.e-f.service"));
        cr_assert_not(hcbs_service_name_is_valid(".service"), "needs a name before the suffix");
        cr_assert_not(hcbs_service_name_is_valid("motor.scope"));
        cr_assert_not(hcbs_service_name_is_valid("motor.service.d"));
        cr_assert_not(hcbs_service_name_is_valid("hcbs.slice/motor.service"));
        cr_assert_not(hcbs_service_name_is_valid("motor .service"));
        cr_assert_not(hcbs_service_name_is_valid("motor\n.service"));
        memset(longest, 'a', sizeof(longest));
        strcpy(longest + HCBS_UNIT_NAME_MAX - strlen(".service"), ".service");
        cr_assert(hcbs_service_name_is_valid(longest), "255 characters");
        memset(longest, 'a', sizeof(longest));
        strcpy(longest + HCBS_UNIT_NAME_MAX + 1 - strlen(".service"), ".service");
        cr_assert_not(hcbs_service_name_is_valid(longest), "256 characters");
}
