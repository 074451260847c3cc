/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "strutil.h"

static void parsed(const char *s, uint64_t max, uint64_t want, const char *rest) {
        const char *end = NULL;
        uint64_t v = 42;

        cr_assert_eq(hcbs_parse_u64(s, max, &end, &v), 0, "'%s' refused", s);
        cr_assert_eq(v, want, "'%s': %" PRIu64 ", expected %" PRIu64, s, v, want);
        cr_assert_str_eq(end, rest, "'%s': left '%s', expected '%s'", s, end, rest);
        v = 42;
        cr_assert_eq(hcbs_parse_u64(s, max, NULL, &v), 0, "'%s' refused without ret_end", s);
        cr_assert_eq(v, want);
}

static void refused(const char *s, uint64_t max, int err) {
        const char *end = "untouched";
        uint64_t v = 42;

        cr_assert_eq(hcbs_parse_u64(s, max, &end, &v), err, "'%s': expected %d", s, err);
        cr_assert_eq(v, 42, "'%s': *ret written on failure", s);
        cr_assert_str_eq(end, "untouched", "'%s': *ret_end written on failure", s);
}

Test(parse_u64, fields) {
        parsed("0", UINT64_MAX, 0, "");
        parsed("100000", UINT64_MAX, 100000, "");
        parsed("950000 1000000", UINT64_MAX, 950000, " 1000000");
        parsed("007", UINT64_MAX, 7, "");
        parsed("18446744073709551615", UINT64_MAX, UINT64_MAX, "");
        parsed("1000", 1000, 1000, "");
        parsed("5", 5, 5, "");
}

Test(parse_u64, refusals) {
        refused("", UINT64_MAX, -EINVAL);
        refused(" 5", UINT64_MAX, -EINVAL);
        refused("+5", UINT64_MAX, -EINVAL);
        refused("-1", UINT64_MAX, -EINVAL);
        refused("max 100000", UINT64_MAX, -EINVAL);
        refused("12x", UINT64_MAX, -EINVAL);
        refused("12\n", UINT64_MAX, -EINVAL);
        refused("0x10", UINT64_MAX, -EINVAL);
        refused("1.5", UINT64_MAX, -EINVAL);
        refused("18446744073709551616", UINT64_MAX, -ERANGE);
        refused("99999999999999999999999", UINT64_MAX, -ERANGE);
        refused("1001", 1000, -ERANGE);
        refused("7", 5, -ERANGE); /* a digit above a one-digit max: no wrap-around */
        refused("10", 9, -ERANGE);
}

Test(endswith, suffixes) {
        const char *s = "motor.service";

        cr_assert_eq(hcbs_endswith(s, ".service"), s + 5);
        cr_assert_eq(hcbs_endswith(s, ""), s + strlen(s));
        cr_assert_eq(hcbs_endswith(s, s), s);
        cr_assert_not_null(hcbs_endswith(".slice", ".slice"));
        cr_assert_null(hcbs_endswith(s, ".slice"));
        cr_assert_null(hcbs_endswith(s, "service.x"));
        cr_assert_null(hcbs_endswith("ice", ".slice"));
        cr_assert_null(hcbs_endswith("", ".d"));
}

Test(write_all, pipe) {
        char buf[70000], back[sizeof(buf)];
        int p[2];

        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char) ('a' + i % 26);
        cr_assert_eq(pipe(p), 0);
        /* more than a pipe holds at once (64 KiB): a reader drains it while the writer writes */
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(p[0]);
                _exit(hcbs_write_all(p[1], buf, sizeof(buf)) == 0 ? 0 : 1);
        }
        close(p[1]);
        size_t got = 0;
        for (ssize_t k; got < sizeof(back) && (k = read(p[0], back + got, sizeof(back) - got)) > 0;)
                got += (size_t) k;
        close(p[0]);
        cr_assert_eq(got, sizeof(buf));
        cr_assert_eq(memcmp(buf, back, sizeof(buf)), 0);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

Test(write_all, error) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

        cr_assert_geq(fd, 0);
        cr_assert_eq(hcbs_write_all(fd, "x", 1), -EBADF);
        cr_assert_eq(hcbs_write_all(fd, "", 0), 0);
        close(fd);
}

/* What a caller wrote, made safe for a terminal: controls, C1, stray bytes and backslashes escaped. */
Test(strutil, escape_printable) {
        char buf[128];

        cr_assert_str_eq(hcbs_escape_printable("fifo:50 ok", buf, sizeof(buf)), "fifo:50 ok");
        cr_assert_str_eq(hcbs_escape_printable("\x1b[31mred\n\r\t", buf, sizeof(buf)), "\\x1b[31mred\\x0a\\x0d\\x09");
        cr_assert_str_eq(hcbs_escape_printable("a\\x1b", buf, sizeof(buf)), "a\\\\x1b");
        cr_assert_str_eq(hcbs_escape_printable("\x7f", buf, sizeof(buf)), "\\x7f");
        /* UTF-8 stays, unless it is a C1 control (U+009B is CSI), overlong, a surrogate, or cut short */
        cr_assert_str_eq(hcbs_escape_printable("µs ∞ 🙂", buf, sizeof(buf)), "µs ∞ 🙂");
        cr_assert_str_eq(hcbs_escape_printable("\xc2\x9b" "2J", buf, sizeof(buf)), "\\xc2\\x9b2J");
        cr_assert_str_eq(hcbs_escape_printable("\x9b\xc0\xaf\xed\xa0\x80\xe2\x88", buf, sizeof(buf)),
                         "\\x9b\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x88");
        cr_assert_str_eq(hcbs_escape_printable("\xf5\x80\x80\x80", buf, sizeof(buf)), "\\xf5\\x80\\x80\\x80");
        /* truncated whole: never half an escape or half a character */
        cr_assert_str_eq(hcbs_escape_printable("ab\x1b", buf, 5), "ab");
        cr_assert_str_eq(hcbs_escape_printable("a∞", buf, 4), "a");
        cr_assert_str_eq(hcbs_escape_printable("abc", buf, 1), "");
}

Test(strutil, has_word) {
        cr_assert(hcbs_has_word("cpu,cpuacct", "cpu", ","));
        cr_assert(hcbs_has_word("rw,cpuacct,cpu", "cpu", ","));
        cr_assert_not(hcbs_has_word("cpuacct,cpuset", "cpu", ","));
        cr_assert(hcbs_has_word("cpuset cpu io", "cpu", " "));
        cr_assert(hcbs_has_word("  cpu  ", "cpu", " "));
        cr_assert_not(hcbs_has_word("", "cpu", ","));
}
