/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "conf.h"
#include "duration.h"
#include "strutil.h"

#define FIXTURES HCBS_TEST_SRCDIR "/tests/fixtures/conf"
#define ERRLEN 512

static char tmpdir[64];

static void setup(void) {
        strcpy(tmpdir, "/tmp/hcbsd-test-conf.XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        cr_assert_eq(nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0, "cannot remove %s", tmpdir);
}

TestSuite(conf, .init = setup, .fini = teardown);

/* Writes tmpdir/name; returns its path (a static buffer). */
static const char *write_file(const char *name, const char *content) {
        static char path[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
        f = fopen(path, "we");
        cr_assert_not_null(f, "%s: %s", path, strerror(errno));
        cr_assert_eq(fputs(content, f) >= 0, true);
        cr_assert_eq(fclose(f), 0);
        return path;
}

static const char *make_dir(const char *name) {
        static char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
        cr_assert_eq(mkdir(path, 0755), 0, "%s: %s", path, strerror(errno));
        return path;
}

static uint64_t pct(const char *s) {
        uint64_t bw = 0;
        cr_assert_eq(hcbs_percent_parse(s, &bw, NULL, 0), 0);
        return bw;
}

static void parse_string_ok(HcbsConf *c, const char *content) {
        char err[ERRLEN] = "";
        hcbs_conf_init(c);
        cr_assert_eq(hcbs_conf_parse_file(c, write_file("t.conf", content), err, sizeof(err)), 0, "%s", err);
}

static void assert_err(const char *err, const char *path, unsigned line, const char *needle) {
        char prefix[PATH_MAX + 32];
        snprintf(prefix, sizeof(prefix), "%s:%u: ", path, line);
        cr_assert(hcbs_startswith(err, prefix), "message '%s' does not start with '%s'", err, prefix);
        cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

/* Parsing content fails with expected at line, and the message contains needle. */
static void parse_fails(const char *content, int expected, unsigned line, const char *needle) {
        char err[ERRLEN] = "";
        const char *path = write_file("t.conf", content);
        HcbsConf c;
        int r;

        hcbs_conf_init(&c);
        r = hcbs_conf_parse_file(&c, path, err, sizeof(err));
        hcbs_conf_done(&c);
        cr_assert_eq(r, expected, "%s: got %d (%s), expected %d", content, r, err, expected);
        assert_err(err, path, line, needle);
}

/* Parsing content succeeds, validation fails with needle in the message. */
static void validate_fails(const char *content, const char *needle) {
        char err[ERRLEN] = "";
        HcbsConf c;

        parse_string_ok(&c, content);
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), -EINVAL, "%s: validated", content);
        cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
        hcbs_conf_done(&c);
}

static void assert_defaults(const HcbsConf *c) {
        cr_assert_str_eq(c->cgroup_root, "auto");
        cr_assert_str_eq(c->interface, "auto");
        cr_assert_eq(c->capacity_bw, pct("90%"));
        cr_assert_eq(c->capacity_period_us, 1000000);
        cr_assert_eq(c->min_period_us, 100);
        cr_assert_eq(c->max_period_us, 4000000);
        cr_assert_eq(c->keep_on_exit, false);
        cr_assert_eq(c->max_groups, 65536);
        cr_assert_eq(c->n_groups, 0);
        cr_assert_null(c->groups);
}

static const HcbsGroupConf *group(const HcbsConf *c, const char *name, uint64_t runtime, uint64_t period) {
        const HcbsGroupConf *g = hcbs_conf_find_group(c, name);
        cr_assert_not_null(g, "no group '%s'", name);
        cr_assert_str_eq(g->name, name);
        cr_assert(g->has_runtime && g->has_period, "%s: incomplete", name);
        cr_assert_eq(g->runtime_us, runtime, "%s: runtime %llu", name, (unsigned long long) g->runtime_us);
        cr_assert_eq(g->period_us, period, "%s: period %llu", name, (unsigned long long) g->period_us);
        return g;
}

Test(conf, defaults) {
        HcbsConf c;
        char err[ERRLEN] = "";

        hcbs_conf_init(&c);
        assert_defaults(&c);
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
        cr_assert_null(hcbs_conf_find_group(&c, "audio"));
        hcbs_conf_done(&c);
        cr_assert_null(c.cgroup_root);
        hcbs_conf_done(&c); /* twice is fine */
        hcbs_conf_done(NULL);
        hcbs_conf_init(&c);
        assert_defaults(&c);
        hcbs_conf_done(&c);
}

Test(conf, every_key) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_parse_file(&c, FIXTURES "/full.conf", err, sizeof(err)), 0, "%s", err);
        cr_assert_str_eq(c.cgroup_root, "/sys/fs/cgroup/hcbs.slice");
        cr_assert_str_eq(c.interface, "rtmax");
        cr_assert_eq(c.capacity_bw, pct("75.5%"));
        cr_assert_eq(c.capacity_period_us, 500000);
        cr_assert_eq(c.min_period_us, 1000);
        cr_assert_eq(c.max_period_us, 2000000);
        cr_assert_eq(c.keep_on_exit, true);
        cr_assert_eq(c.n_groups, 1);
        cr_assert_str_eq(group(&c, "audio", 500, 5000)->source, FIXTURES "/full.conf:11");
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
        hcbs_conf_done(&c);
}

Test(conf, string_values_replace_and_return_to_auto) {
        HcbsConf c;

        parse_string_ok(&c, "[Manager]\nCgroupRoot=/a\nCgroupRoot=/b\nInterface=rfc1\nInterface=legacy-v1\n");
        cr_assert_str_eq(c.cgroup_root, "/b");
        cr_assert_str_eq(c.interface, "legacy-v1");
        cr_assert_eq(hcbs_conf_parse_file(&c, write_file("u.conf", "[Manager]\nCgroupRoot=auto\nInterface=auto\n"),
                                          NULL, 0), 0);
        cr_assert_str_eq(c.cgroup_root, "auto");
        cr_assert_str_eq(c.interface, "auto");
        hcbs_conf_done(&c);
}

Test(conf, booleans) {
        static const char *const yes[] = { "yes", "true", "1", "on", "YES", "True", "On" };
        static const char *const no[] = { "no", "false", "0", "off", "No", "FALSE", "OFF" };
        char buf[64];
        HcbsConf c;

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                snprintf(buf, sizeof(buf), "[Manager]\nKeepOnExit=%s\n", yes[i]);
                parse_string_ok(&c, buf);
                cr_assert_eq(c.keep_on_exit, true, "%s", yes[i]);
                hcbs_conf_done(&c);
                snprintf(buf, sizeof(buf), "[Manager]\nKeepOnExit=yes\nKeepOnExit=%s\n", no[i]);
                parse_string_ok(&c, buf);
                cr_assert_eq(c.keep_on_exit, false, "%s", no[i]);
                hcbs_conf_done(&c);
        }
}

Test(conf, apply_keys_only_in_apply_files) {
        const char *path = write_file("a.conf", "[Group a]\nRuntime=1ms\nPeriod=10ms\nPersistent=yes\n"
                                                "[Group b]\nDelete=yes\n");
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_parse_file(&c, path, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(hcbs_conf_validate_apply(&c, err, sizeof(err)), 0, "%s", err);
        cr_assert(hcbs_conf_find_group(&c, "a")->persistent);
        cr_assert(hcbs_conf_find_group(&c, "b")->delete_group);
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "belongs in files for 'hcbsctl apply'"), "%s", err);
        hcbs_conf_done(&c);
}

Test(conf, max_groups) {
        HcbsConf c;

        parse_string_ok(&c, "[Manager]\nMaxGroups=10\n");
        cr_assert_eq(c.max_groups, 10);
        hcbs_conf_done(&c);
        parse_fails("[Manager]\nMaxGroups=0\n", -EINVAL, 2, "not a count");
        parse_fails("[Manager]\nMaxGroups=-1\n", -EINVAL, 2, "not a count");
        parse_fails("[Manager]\nMaxGroups=4294967296\n", -EINVAL, 2, "not a count");
        parse_fails("[Manager]\nMaxGroups=1k\n", -EINVAL, 2, "not a count");
}

Test(conf, syntax_accepted) {
        HcbsConf c;

        parse_string_ok(&c, "\xef\xbb\xbf# a BOM, comments of both kinds\n"
                            "; a comment\n"
                            "  [ Manager ]   # a comment after the header\n"
                            "Capacity = 50%   ; an inline comment\n"
                            "    MinPeriod=1ms\n" /* indented: a key, not a continuation of Capacity */
                            "MaxPeriod: 2s\r\n"
                            "\n"
                            "[Group audio] ; comment\n"
                            "\tRuntime=1ms\n"
                            "\tPeriod=10ms\n");
        cr_assert_eq(c.capacity_bw, pct("50%"));
        cr_assert_eq(c.min_period_us, 1000);
        cr_assert_eq(c.max_period_us, 2000000);
        group(&c, "audio", 1000, 10000);
        hcbs_conf_done(&c);
}

Test(conf, empty_group_section_is_declared) {
        char err[ERRLEN] = "";
        HcbsConf c;

        parse_string_ok(&c, "[Group audio]\n# nothing yet\n");
        cr_assert_eq(c.n_groups, 1);
        cr_assert_eq(c.groups[0].has_runtime || c.groups[0].has_period, false);
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), -EINVAL);
        assert_err(err, write_file("t.conf", ""), 1, "[Group audio] has no Runtime=");
        hcbs_conf_done(&c);
}

Test(conf, shipped_default_is_the_defaults) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, HCBS_TEST_SRCDIR "/conf.d/hcbsd.conf", NULL, err, sizeof(err)), 0, "%s",
                     err);
        assert_defaults(&c);
        hcbs_conf_done(&c);
}

/* Every commented-out "#Key=value" in the shipped file, uncommented, gives the defaults too. */
Test(conf, shipped_default_comments_are_the_defaults) {
        char line[256], *out = NULL, err[ERRLEN] = "";
        size_t outlen = 0;
        FILE *in = fopen(HCBS_TEST_SRCDIR "/conf.d/hcbsd.conf", "re"), *mem = open_memstream(&out, &outlen);
        HcbsConf c;
        unsigned keys = 0;

        cr_assert(in && mem);
        while (fgets(line, sizeof(line), in)) {
                bool key = line[0] == '#' && line[1] >= 'A' && line[1] <= 'Z' && strchr(line, '=');
                keys += key;
                fputs(key ? line + 1 : line, mem);
        }
        fclose(in);
        fclose(mem);
        cr_assert_eq(keys, 8, "the shipped file should show all 8 [Manager] keys, has %u", keys);
        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_parse_file(&c, write_file("uncommented.conf", out), err, sizeof(err)), 0, "%s", err);
        free(out);
        assert_defaults(&c);
        hcbs_conf_done(&c);
}

Test(conf, shipped_example) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, HCBS_TEST_SRCDIR "/conf.d/50-example.conf.example", NULL, err, sizeof(err)),
                     0, "%s", err);
        cr_assert_eq(c.n_groups, 3);
        group(&c, "audio", 500, 5000);
        group(&c, "media", 20000, 100000);
        group(&c, "media/video", 10000, 100000);
        cr_assert_eq(c.n_pools, 1);
        cr_assert_str_eq(hcbs_conf_find_pool(&c, "podman")->cgroup, "machine.slice");
        hcbs_conf_done(&c);
}

Test(conf, main_then_dropins_in_lexical_order) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, FIXTURES "/main.conf", FIXTURES "/dropins", err, sizeof(err)), 0, "%s", err);
        cr_assert_str_eq(err, "");
        cr_assert_eq(c.capacity_bw, pct("80%"), "9-last.conf sorts last and wins");
        cr_assert_eq(c.min_period_us, 200, "from main.conf");
        cr_assert_eq(c.max_period_us, 3000000, "from 10-first.conf");
        cr_assert_eq(c.keep_on_exit, true);
        cr_assert_eq(c.n_groups, 2);
        /* sorted by name: a parent precedes its children */
        cr_assert_str_eq(c.groups[0].name, "audio");
        cr_assert_str_eq(c.groups[1].name, "audio/mixer");
        cr_assert_str_eq(group(&c, "audio", 2000, 10000)->source, FIXTURES "/main.conf:6");
        cr_assert_str_eq(group(&c, "audio/mixer", 1000, 10000)->source, FIXTURES "/dropins/20-second.conf:4");
        hcbs_conf_done(&c);
}

Test(conf, repeated_group_sections_merge) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, NULL, FIXTURES "/merge.d", err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(c.n_groups, 2);
        group(&c, "media", 20000, 200000);
        cr_assert_str_eq(group(&c, "video", 1000, 10000)->source, FIXTURES "/merge.d/10-a.conf:5");
        hcbs_conf_done(&c);

        /* within one file too */
        parse_string_ok(&c, "[Group a]\nRuntime=1ms\n[Manager]\nCapacity=50%\n[Group a]\nPeriod=10ms\nRuntime=2ms\n");
        cr_assert_eq(c.n_groups, 1);
        cr_assert(hcbs_startswith(group(&c, "a", 2000, 10000)->source, tmpdir));
        cr_assert(strstr(group(&c, "a", 2000, 10000)->source, "/t.conf:1"), "the first header");
        hcbs_conf_done(&c);
}

Test(conf, missing_files_are_fine) {
        char err[ERRLEN] = "stale";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, "/nonexistent/hcbsd.conf", "/nonexistent/conf.d", err, sizeof(err)), 0, "%s",
                     err);
        cr_assert_str_eq(err, "");
        assert_defaults(&c);
        cr_assert_eq(hcbs_conf_load(&c, NULL, NULL, NULL, 0), 0);
        assert_defaults(&c);
        cr_assert_eq(hcbs_conf_load(&c, "/nonexistent/hcbsd.conf", FIXTURES "/merge.d", err, sizeof(err)), 0, "%s",
                     err);
        cr_assert_eq(c.n_groups, 2);
        hcbs_conf_done(&c);
}

Test(conf, parse_file_reports_open_errors) {
        char err[ERRLEN] = "";
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_parse_file(&c, "/nonexistent/hcbsd.conf", err, sizeof(err)), -ENOENT);
        cr_assert_str_eq(err, "/nonexistent/hcbsd.conf: No such file or directory");
        cr_assert_eq(hcbs_conf_parse_file(&c, tmpdir, err, sizeof(err)), -EISDIR, "%s", err);
        cr_assert_eq(hcbs_conf_load(&c, NULL, FIXTURES "/full.conf", err, sizeof(err)), -ENOTDIR, "%s", err);
        cr_assert_eq(hcbs_conf_load(&c, tmpdir, NULL, err, sizeof(err)), -EISDIR, "%s", err);
        hcbs_conf_done(&c);
}

Test(conf, parse_errors) {
        char longline[400];

        parse_fails("[Foo]\n", -EINVAL, 1, "unknown section [Foo] (expected [Manager], [Group NAME] or [Pool NAME])");
        parse_fails("[Manager]\n[manager]\n", -EINVAL, 2, "unknown section [manager]");
        parse_fails("[Groups audio]\n", -EINVAL, 1, "unknown section [Groups audio]");
        parse_fails("# c\n[Manager]\nFoo=1\n", -EINVAL, 3, "unknown key 'Foo' in [Manager]");
        parse_fails("[Group a]\nCapacity=5%\n", -EINVAL, 2, "unknown key 'Capacity' in [Group a]");
        parse_fails("Capacity=50%\n", -EINVAL, 1, "'Capacity=' comes before any [Manager], [Group NAME] or [Pool NAME] section");
        parse_fails("[Group a]\nRuntime=5 parsecs\n", -EINVAL, 2, "Runtime: '5 parsecs' has an unknown unit");
        parse_fails("[Group a]\nPeriod=-5ms\n", -EINVAL, 2, "Period: '-5ms' is negative");
        parse_fails("[Group a]\nPeriod=\n", -EINVAL, 2, "Period: empty duration");
        parse_fails("[Group a]\nPeriod=1.5us\n", -EINVAL, 2, "not a whole number of microseconds");
        parse_fails("[Manager]\nMaxPeriod=99999999999999999s\n", -ERANGE, 2,
                    "MaxPeriod: '99999999999999999s' is too large");
        parse_fails("[Manager]\nCapacity=120%\n", -ERANGE, 2, "Capacity: '120%' is above 100%");
        parse_fails("[Manager]\nCapacity=90\n", -EINVAL, 2, "Capacity: '90' is not a percentage like 90%");
        parse_fails("[Manager]\nCgroupRoot=hcbs.slice\n", -EINVAL, 2,
                    "CgroupRoot: 'hcbs.slice' is neither \"auto\" nor an absolute path");
        parse_fails("[Manager]\nInterface=v3\n", -EINVAL, 2,
                    "Interface: unknown interface 'v3' (use auto, rfc1, rtmax, legacy-v1 or legacy-v2)");
        parse_fails("[Manager]\nKeepOnExit=maybe\n", -EINVAL, 2, "KeepOnExit: 'maybe' is not a boolean");
        parse_fails("[Group]\nRuntime=1ms\n", -EINVAL, 1, "[Group] needs a name: [Group NAME]");
        parse_fails("[Group   ]\n", -EINVAL, 1, "[Group] needs a name");
        parse_fails("[Group a b]\n", -EINVAL, 1, "invalid group name: character 0x20");
        parse_fails("[Group ../etc]\n", -EINVAL, 1, "invalid group name '../etc': '..' is not allowed");
        parse_fails("[Group /abs]\n", -EINVAL, 1, "must be relative");
        parse_fails("[Group media/cpu.max]\n", -EINVAL, 1, "clashes with cgroup files");
        parse_fails("[Manager\nCapacity=1%\n", -EINVAL, 1, "section header lacks ']'");
        parse_fails("[Manager] Capacity=1%\n", -EINVAL, 1, "unexpected text after ']'");
        parse_fails("[Manager]\n\n# comment\nnonsense\n", -EINVAL, 4, "expected KEY=VALUE, a [section] or a comment");

        memset(longline, 'x', sizeof(longline));
        memcpy(longline, "[Manager]\n#", 11);
        strcpy(longline + 300, "\nCapacity=1%\n");
        parse_fails(longline, -EINVAL, 2, "line is longer than");
}

/* content of size bytes (NULs included) fails to parse at line with a NUL byte. */
static void nul_fails(const char *content, size_t size, unsigned line) {
        char err[ERRLEN] = "", path[PATH_MAX];
        HcbsConf c;
        FILE *f;
        int r;

        snprintf(path, sizeof(path), "%s/nul.conf", tmpdir);
        f = fopen(path, "we");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(content, 1, size, f), size);
        cr_assert_eq(fclose(f), 0);
        hcbs_conf_init(&c);
        r = hcbs_conf_parse_file(&c, path, err, sizeof(err));
        hcbs_conf_done(&c);
        cr_assert_eq(r, -EINVAL, "line %u: got %d (%s)", line, r, err);
        assert_err(err, path, line, "line contains a NUL byte");
}

Test(conf, nul_bytes_refused_on_every_line) {
        static const char mid[] = "[Manager]\nCapacity=50%\0junk\n";
        static const char last[] = "[Manager]\nCapacity=50%\0junk";   /* no newline at the end */
        static const char tail[] = "[Manager]\nCapacity=50%\n\0";      /* a lone NUL after the last line */

        nul_fails(mid, sizeof(mid) - 1, 2);
        /* the last line used to lose its tail silently (fuzz-conf) */
        nul_fails(last, sizeof(last) - 1, 2);
        nul_fails(tail, sizeof(tail) - 1, 3);
}

Test(conf, first_error_wins) {
        HcbsConf c;
        char err[ERRLEN] = "";

        /* a syntax error inih finds alone, before a handler error */
        parse_fails("[Manager]\nnonsense\nFoo=1\n", -EINVAL, 2, "expected KEY=VALUE");
        /* a handler error before a syntax error */
        parse_fails("[Manager]\nFoo=1\nnonsense\n", -EINVAL, 2, "unknown key 'Foo'");
        /* a reader error (section) before a handler error */
        parse_fails("[Foo]\n[Manager]\nBar=1\n", -EINVAL, 1, "unknown section [Foo]");

        /* parsing stops at the error: nothing after it is applied */
        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_parse_file(&c, write_file("t.conf", "[Manager]\nCapacity=10%\nFoo=1\nCapacity=20%\n"),
                                          err, sizeof(err)),
                     -EINVAL);
        cr_assert_eq(c.capacity_bw, pct("10%"));
        hcbs_conf_done(&c);
}

Test(conf, errors_in_dropins_name_the_dropin) {
        char err[ERRLEN] = "", path[PATH_MAX + 32];
        const char *dir = make_dir("conf.d");
        HcbsConf c;

        write_file("conf.d/10-ok.conf", "[Manager]\nCapacity=50%\n");
        write_file("conf.d/20-bad.conf", "[Manager]\n\nMinPeriod=soon\n");
        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, FIXTURES "/main.conf", dir, err, sizeof(err)), -EINVAL);
        snprintf(path, sizeof(path), "%s/20-bad.conf", dir);
        assert_err(err, path, 3, "MinPeriod: 'soon' does not start with a number");
        hcbs_conf_done(&c);
}

Test(conf, load_validates) {
        char err[ERRLEN] = "";
        const char *path = write_file("main.conf", "[Group a/b]\nRuntime=1ms\nPeriod=10ms\n");
        HcbsConf c;

        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, path, NULL, err, sizeof(err)), -EINVAL);
        assert_err(err, path, 1, "[Group a/b] needs its parent [Group a] declared too");
        hcbs_conf_done(&c);
}

Test(conf, validate_failures) {
        validate_fails("[Group a]\nPeriod=10ms\n", "t.conf:1: [Group a] has no Runtime=");
        validate_fails("[Group a]\nRuntime=1ms\n", "t.conf:1: [Group a] has no Period=");
        validate_fails("\n[Group a]\nRuntime=20ms\nPeriod=10ms\n",
                       "t.conf:2: [Group a] Runtime=20ms exceeds Period=10ms");
        validate_fails("[Group a]\nRuntime=10us\nPeriod=50us\n", "[Group a] Period=50us is below MinPeriod=100us");
        validate_fails("[Group a]\nRuntime=1s\nPeriod=5s\n", "[Group a] Period=5s is above MaxPeriod=4s");
        validate_fails("[Manager]\nMinPeriod=5s\n", "[Manager] MinPeriod=5s is above MaxPeriod=4s");
        validate_fails("[Manager]\nMinPeriod=0\n", "[Manager] MinPeriod= must be at least 1us");
        validate_fails("[Manager]\nCapacityPeriod=0\n", "[Manager] CapacityPeriod= must be at least 1us");
        validate_fails("[Manager]\nCapacity=50%\n[Group a]\nRuntime=6ms\nPeriod=10ms\n",
                       "t.conf:3: [Group a] needs 60.0% of a CPU, more than Capacity=50.0%");
        validate_fails("[Group a/b]\nRuntime=1ms\nPeriod=10ms\n",
                       "[Group a/b] needs its parent [Group a] declared too");
        validate_fails("[Group a]\nRuntime=1ms\nPeriod=10ms\n[Group a/b/c]\nRuntime=1ms\nPeriod=10ms\n",
                       "t.conf:4: [Group a/b/c] needs its parent [Group a/b] declared too");
        validate_fails("[Group ab]\nRuntime=1ms\nPeriod=10ms\n[Group a/x]\nRuntime=1ms\nPeriod=10ms\n",
                       "[Group a/x] needs its parent [Group a]");
        validate_fails("[Manager]\nCapacity=100%\nMaxPeriod=100000s\n[Group a]\nRuntime=20000s\nPeriod=20000s\n",
                       "[Group a] Runtime=20000s is above the kernel's limit");
}

Test(conf, validate_accepts_children_declared_first) {
        char err[ERRLEN] = "";
        HcbsConf c;

        parse_string_ok(&c, "[Group a/b]\nRuntime=1ms\nPeriod=10ms\n[Group a]\nRuntime=0\nPeriod=10ms\n"
                            "[Group a-b]\nRuntime=1ms\nPeriod=10ms\n");
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
        hcbs_conf_done(&c);
        hcbs_conf_init(&c);
        cr_assert_eq(hcbs_conf_load(&c, write_file("t.conf", "[Group a/b]\nRuntime=1ms\nPeriod=10ms\n[Group a-b]\n"
                                                             "Runtime=1ms\nPeriod=10ms\n[Group a]\nRuntime=0\n"
                                                             "Period=10ms\n"),
                                    NULL, err, sizeof(err)),
                     0, "%s", err);
        cr_assert_str_eq(c.groups[0].name, "a");
        cr_assert_str_eq(c.groups[1].name, "a-b");
        cr_assert_str_eq(c.groups[2].name, "a/b");
        hcbs_conf_done(&c);
}

/* [Pool NAME]: Cgroup= normalized, Capacity=; sections merge like groups; nested or repeated cgroups refused. */
Test(conf, pools) {
        char err[ERRLEN] = "";
        HcbsConf c;
        const HcbsPoolConf *p;

        parse_string_ok(&c, "[Pool machine]\nCgroup=/machine.slice\nCapacity=30%\n"
                            "[Pool docker]\nCgroup=system.slice/docker.service\n"
                            "[Pool docker]\nCapacity=10%\n");
        cr_assert_eq(c.n_pools, 2);
        p = hcbs_conf_find_pool(&c, "machine");
        cr_assert_not_null(p);
        cr_assert_str_eq(p->cgroup, "machine.slice");
        cr_assert_eq(p->capacity_bw, pct("30%"));
        p = hcbs_conf_find_pool(&c, "docker");
        cr_assert_str_eq(p->cgroup, "system.slice/docker.service");
        cr_assert_eq(p->capacity_bw, pct("10%"));
        cr_assert(hcbs_startswith(p->source, tmpdir) && strstr(p->source, "t.conf:4"), "%s", p->source);
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
        cr_assert_null(hcbs_conf_find_pool(&c, "nosuch"));
        hcbs_conf_done(&c);

        parse_fails("[Pool]\nCgroup=a.slice\n", -EINVAL, 1, "[Pool] needs a name");
        parse_fails("[Pool a b]\n", -EINVAL, 1, "pool name 'a b' is not");
        parse_fails("[Pool a]\nRuntime=1ms\n", -EINVAL, 2, "unknown key 'Runtime' in [Pool a]");
        parse_fails("[Pool a]\nCgroup=\n", -EINVAL, 2, "Cgroup: '' is not a cgroup");
        parse_fails("[Pool a]\nCgroup=a.slice/../b\n", -EINVAL, 2, "empty, \".\" or \"..\" segment");
        parse_fails("[Pool a]\nCgroup=a.slice//b\n", -EINVAL, 2, "empty, \".\" or \"..\" segment");
        parse_fails("[Pool a]\nCgroup=a.slice/\n", -EINVAL, 2, "empty, \".\" or \"..\" segment");
        parse_fails("[Pool a]\nCgroup=a\tb\n", -EINVAL, 2, "blank or a control character");
        parse_fails("[Pool a]\nCapacity=150%\n", -ERANGE, 2, "Capacity:");

        validate_fails("[Pool a]\nCgroup=a.slice\n", "t.conf:1: [Pool a] has no Capacity=");
        validate_fails("[Pool a]\nCapacity=10%\n", "t.conf:1: [Pool a] has no Cgroup=");
        validate_fails("[Pool a]\nCgroup=a.slice\nCapacity=10%\n[Pool b]\nCgroup=/a.slice\nCapacity=10%\n",
                       "t.conf:4: [Pool b] Cgroup=a.slice is already [Pool a]'s a.slice");
        validate_fails("[Pool a]\nCgroup=a.slice/x.slice\nCapacity=10%\n[Pool b]\nCgroup=a.slice\nCapacity=10%\n",
                       "[Pool b] Cgroup=a.slice is nested with [Pool a]'s a.slice/x.slice");

        parse_string_ok(&c, "[Pool a]\nCgroup=a.slice\nCapacity=10%\n[Pool b]\nCgroup=a.slicex\nCapacity=10%\n");
        cr_assert_eq(hcbs_conf_validate(&c, err, sizeof(err)), 0, "a.slicex is not below a.slice: %s", err);
        hcbs_conf_done(&c);
}

Test(conf, pools_not_in_apply_files) {
        char err[ERRLEN] = "";
        HcbsConf c;

        parse_string_ok(&c, "[Group a]\nRuntime=1ms\nPeriod=10ms\n[Pool m]\nCgroup=machine.slice\nCapacity=10%\n");
        cr_assert_eq(hcbs_conf_validate_apply(&c, err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "[Pool m] belongs in hcbsd.conf, not in an apply file"), "%s", err);
        hcbs_conf_done(&c);
}
