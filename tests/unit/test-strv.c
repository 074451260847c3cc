/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "strv.h"

Test(strv, build_and_free) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;

        cr_assert_eq(strv_length(NULL), 0);
        cr_assert_not(strv_contains(NULL, "a"));
        cr_assert_eq(strv_extend(&l, &n, "b"), 0);
        cr_assert_eq(strv_consume(&l, &n, strdup("a")), 0);
        cr_assert_eq(strv_consume(&l, &n, NULL), -ENOMEM); /* a failed strdup() passed on */
        cr_assert_eq(n, 2);
        cr_assert_eq(strv_length(l), 2);
        cr_assert_null(l[2]);
        cr_assert_str_eq(l[0], "b");
        cr_assert_str_eq(l[1], "a");
        cr_assert(strv_contains(l, "a"));
        cr_assert_not(strv_contains(l, "c"));
        cr_assert_null(strv_free(NULL));
}

Test(strv, sort_uniq) {
        static const char *const in[] = { "c", "a", "b", "a", "c", "c" };
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;

        strv_sort_uniq(NULL);
        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
                cr_assert_eq(strv_extend(&l, &n, in[i]), 0);
        strv_sort_uniq(l);
        cr_assert_eq(strv_length(l), 3);
        cr_assert_str_eq(l[0], "a");
        cr_assert_str_eq(l[1], "b");
        cr_assert_str_eq(l[2], "c");
}

Test(strv, return_is_never_null) {
        char **l = NULL, **got = NULL;
        size_t n = 0;

        cr_assert_eq(strv_return(NULL, &got), 0);
        cr_assert_not_null(got);
        cr_assert_eq(strv_length(got), 0);
        strv_free(got);
        cr_assert_eq(strv_extend(&l, &n, "x"), 0);
        cr_assert_eq(strv_return(l, &got), 0);
        cr_assert_eq(got, l);
        strv_free(got);
}

static void simplified(const char *in, const char *want) {
        char *s = path_simplify(in);

        cr_assert_not_null(s);
        cr_assert_str_eq(s, want, "'%s' -> '%s', expected '%s'", in, s, want);
        free(s);
}

Test(path, simplify) {
        simplified("/", "/");
        simplified("//", "/");
        simplified("/etc/systemd/system", "/etc/systemd/system");
        simplified("/etc//systemd/./system/", "/etc/systemd/system");
        simplified("/lib/systemd/../systemd/system", "/lib/systemd/system");
        simplified("/a/..", "/");
        simplified("/..", "/");
        simplified("/../../a", "/a");
        simplified("/a/b/../../c", "/c");
        simplified("/a/.b/..c/...", "/a/.b/..c/...");
}

Test(path, join) {
        char *s = path_join("/etc/systemd", "system");

        cr_assert_str_eq(s, "/etc/systemd/system");
        free(s);
        s = path_join("/", "x");
        cr_assert_str_eq(s, "//x"); /* as it is: path_simplify() folds it */
        free(s);
}
