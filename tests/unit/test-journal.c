/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan journal: its file written in place and emptied; every path hcbsd's plans write is read back, nothing else is. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "name.h"
#include "persist.h"
#include "strutil.h"

static char tmpdir[64];

static void setup(void) {
        strcpy(tmpdir, "/tmp/hcbsd-test-journal.XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        cr_assert_eq(nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

TestSuite(journal, .init = setup, .fini = teardown);

/* Under systemd: hcbsd's root below its unit, in the pool hcbs.slice. */
static const JournalScope systemd_scope = { .root = "hcbs.slice/hcbsd.service/groups", .pool = "hcbs.slice" };
static const JournalScope plain_scope = { .root = "hcbs", .pool = NULL };

static const char *plan_path(void) {
        static char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", tmpdir, JOURNAL_FILE);
        return path;
}

static void write_plan(const char *content) {
        FILE *f = fopen(plan_path(), "we");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(content, 1, strlen(content), f), strlen(content));
        cr_assert_eq(fclose(f), 0);
}

static size_t load_ok(const JournalScope *scope, const char *content, HcbsOp **ret) {
        char err[256] = "";
        size_t n = 0;

        write_plan(content);
        cr_assert_eq(journal_load(tmpdir, scope, ret, &n, err, sizeof(err)), 1, "'%s' refused: %s", content, err);
        return n;
}

static void load_refused(const JournalScope *scope, const char *content, const char *needle) {
        char err[256] = "";
        HcbsOp *ops = (HcbsOp *) 0x1;
        size_t n = 77;

        write_plan(content);
        cr_assert_eq(journal_load(tmpdir, scope, &ops, &n, err, sizeof(err)), -EBADMSG, "'%s' loaded", content);
        cr_assert_eq(ops, (HcbsOp *) 0x1, "output written on failure");
        cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(journal, round_trip_of_every_path_a_plan_writes) {
        static const char *const paths[] = {
                "",                                  /* the kernel's root: the HCBS capacity plan */
                "hcbs.slice",                        /* the pool */
                "hcbs.slice/hcbsd.service",          /* between the pool and hcbsd's root */
                "hcbs.slice/hcbsd.service/groups",   /* hcbsd's root */
                "hcbs.slice/hcbsd.service/groups/media/audio",
                "hcbs.slice/worker@a.service",       /* units' cgroups, as systemd names them */
                "hcbs.slice/foo\\x2dbar.service",
        };
        HcbsOp undo[ELEMENTSOF(paths)];
        HcbsPlan plan = { .ops = undo, .undo = undo, .n_ops = ELEMENTSOF(paths) };
        HcbsOp *ops = NULL;
        size_t n = 0;
        char err[256];

        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                undo[i] = (HcbsOp) { HCBS_OP_WRITE, (char *) paths[i], HCBS_FILE_RUNTIME, (int64_t) i * 1000 - 1,
                                     100000 };
        undo[4].kind = HCBS_OP_RMDIR;
        Journal *j = NULL;
        cr_assert_eq(journal_open(tmpdir, &j), 0);
        cr_assert_eq(journal_begin(j, &plan), 0);
        cr_assert_eq(journal_load(tmpdir, &systemd_scope, &ops, &n, err, sizeof(err)), 1, "%s", err);
        cr_assert_eq(n, ELEMENTSOF(paths));
        for (size_t i = 0; i < n; i++) {
                cr_assert_str_eq(ops[i].path, paths[i]);
                cr_assert_eq(ops[i].kind, undo[i].kind);
                cr_assert_eq(ops[i].runtime_us, undo[i].runtime_us);
                cr_assert_eq(ops[i].period_us, 100000);
        }
        journal_ops_free(ops, n);
        cr_assert_eq(journal_end(j), 0);
        cr_assert_eq(journal_load(tmpdir, &systemd_scope, &ops, &n, err, sizeof(err)), 0, "no plan: nothing to do");

        /* the same file again, for a shorter plan: nothing of the longer one is left */
        plan.n_ops = 1;
        cr_assert_eq(journal_begin(j, &plan), 0);
        cr_assert_eq(journal_load(tmpdir, &systemd_scope, &ops, &n, err, sizeof(err)), 1, "%s", err);
        cr_assert_eq(n, 1);
        journal_ops_free(ops, n);
        /* a clean exit removes the file */
        j = journal_close(j);
        cr_assert_eq(access(plan_path(), F_OK), -1);
}

/* What a crash in the middle of the pwrite() leaves: a prefix, before any of the plan's writes. */
Test(journal, a_torn_plan_is_a_prefix) {
        HcbsOp *ops = NULL;

        cr_assert_eq(load_ok(&plain_scope, "# hcbsd plan v1\nW 1 0 1000000 hcbs\n", &ops), 1,
                     "whole lines: undone, each to the value the kernel holds already");
        journal_ops_free(ops, 1);
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000000 hcbs\nW 1 0 10", "truncated");
        write_plan(""); /* hcbsd stopped between two plans */
        cr_assert_eq(journal_load(tmpdir, &plain_scope, &ops, &(size_t) { 0 }, (char[64]) {}, 64), 0,
                     "an empty file is no plan");
        cr_assert_eq(journal_replay(tmpdir, NULL, &plain_scope), 0);
        cr_assert_eq(access(plan_path(), F_OK), -1, "and is removed at start");
}

Test(journal, cpuset_writes) {
        HcbsOp undo[2] = {
                { HCBS_OP_WRITE, (char *) "hcbs/a", HCBS_FILE_CPUS },
                { HCBS_OP_WRITE, (char *) "hcbs/b", HCBS_FILE_CPUS },
        };
        HcbsPlan plan = { .ops = undo, .undo = undo, .n_ops = 2 };
        HcbsOp *ops = NULL;
        size_t n = 0;
        char err[256], list[64];
        Journal *j = NULL;

        cr_assert_eq(hcbs_cpuset_parse("0-2,7", &undo[1].cpus), 0);
        cr_assert_eq(journal_open(tmpdir, &j), 0);
        cr_assert_eq(journal_begin(j, &plan), 0);
        cr_assert_eq(journal_load(tmpdir, &plain_scope, &ops, &n, err, sizeof(err)), 1, "%s", err);
        cr_assert_eq(n, 2);
        cr_assert_eq(ops[0].file, HCBS_FILE_CPUS);
        cr_assert(hcbs_cpuset_is_empty(&ops[0].cpus));
        cr_assert_str_eq(hcbs_cpuset_format(&ops[1].cpus, list, sizeof(list)), "0-2,7");
        cr_assert_str_eq(ops[1].path, "hcbs/b");
        journal_ops_free(ops, n);
        cr_assert_eq(journal_end(j), 0);
        j = journal_close(j);
        load_refused(&plain_scope, "# hcbsd plan v1\nC 0-x hcbs\n", "CPU list");
        load_refused(&plain_scope, "# hcbsd plan v1\nC  hcbs\n", "CPU list");
        load_refused(&plain_scope, "# hcbsd plan v1\nC 5000 hcbs\n", "CPU list");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 4 0 0 hcbs\n", "file index");
}

Test(journal, tolerates_crlf_and_blank_lines) {
        HcbsOp *ops = NULL;
        size_t n = load_ok(&plain_scope, "# hcbsd plan v1\r\nW 1 0 1000000 hcbs\r\n\nW 0 -1 0 hcbs/a\n\n", &ops);

        cr_assert_eq(n, 2);
        cr_assert_str_eq(ops[0].path, "hcbs");
        cr_assert_eq(ops[1].runtime_us, -1);
        journal_ops_free(ops, n);
}

Test(journal, refuses_what_hcbsd_does_not_write) {
        load_refused(&plain_scope, "# hcbsd plan v2\n", "expected");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs", "truncated");
        load_refused(&plain_scope, "# hcbsd plan v1\nX 1 0 1000 hcbs\n", "expected");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 9 0 1000 hcbs\n", "file index");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 +5 1000 hcbs\n", "runtime");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 5 -1000 hcbs\n", "runtime");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 99999999999999999999 1 hcbs\n", "runtime");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs/../etc\n", "not a cgroup path");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 /hcbs\n", "not a cgroup path");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs//a\n", "not a cgroup path");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs/a\tb\n", "not a cgroup path");
}

Test(journal, confined_to_the_paths_plans_reach) {
        HcbsOp *ops = NULL;
        size_t n;

        /* the root's ancestors and the root's own groups */
        n = load_ok(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 \nW 1 0 1000 hcbs\nR 0 0 0 hcbs/a/b\n", &ops);
        cr_assert_eq(n, 3);
        journal_ops_free(ops, n);
        /* not a sibling, nor a name that merely starts like the root */
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 other\n", "outside");
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs2\n", "outside");
        /* the pool's children, not their children, nor the pool's siblings */
        load_refused(&systemd_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs.slice/a.service/sub\n", "outside");
        load_refused(&systemd_scope, "# hcbsd plan v1\nW 1 0 1000 system.slice/a.service\n", "outside");
        /* hcbsd removes only its own groups */
        load_refused(&systemd_scope, "# hcbsd plan v1\nR 0 0 0 hcbs.slice/a.service\n", "only its own");
        load_refused(&plain_scope, "# hcbsd plan v1\nR 0 0 0 \n", "only its own");
        load_refused(&plain_scope, "# hcbsd plan v1\nR 0 0 0 hcbs\n", "only its own");
        load_refused(&plain_scope, "# hcbsd plan v1\nM 1 0 1000 other/x\n", "outside");
        n = load_ok(&plain_scope, "# hcbsd plan v1\nM 1 0 1000 hcbs/x\n", &ops);
        cr_assert_eq(ops[0].kind, HCBS_OP_MKDIR);
        cr_assert_eq(ops[0].period_us, 1000);
        journal_ops_free(ops, n);
}

Test(journal, a_bad_line_anywhere_refuses_the_whole_file) {
        load_refused(&plain_scope, "# hcbsd plan v1\nW 1 0 1000 hcbs/a\nW 1 0 1000 elsewhere\nW 1 0 1000 hcbs/b\n",
                     ":3:");
}

Test(journal, set_aside_keeps_the_file) {
        char path[PATH_MAX];

        write_plan("garbage\n");
        cr_assert_eq(persist_set_aside(tmpdir, JOURNAL_FILE), 0);
        snprintf(path, sizeof(path), "%s/%s", tmpdir, JOURNAL_FILE PERSIST_CORRUPT_SUFFIX);
        cr_assert_eq(access(path, F_OK), 0);
        snprintf(path, sizeof(path), "%s/%s", tmpdir, JOURNAL_FILE);
        cr_assert_neq(access(path, F_OK), 0);
}

Test(name, cgroup_paths) {
        cr_assert(hcbs_cgroup_path_is_valid(""));
        cr_assert(hcbs_cgroup_path_is_valid("hcbs.slice/worker@a.service"));
        cr_assert(hcbs_cgroup_path_is_valid("foo\\x2dbar.service"));
        cr_assert(hcbs_cgroup_path_is_valid("a b/c"));
        cr_assert_not(hcbs_cgroup_path_is_valid("/a"));
        cr_assert_not(hcbs_cgroup_path_is_valid("a/"));
        cr_assert_not(hcbs_cgroup_path_is_valid("a/./b"));
        cr_assert_not(hcbs_cgroup_path_is_valid(".."));
        cr_assert_not(hcbs_cgroup_path_is_valid("a\nb"));
        cr_assert(hcbs_path_is_under("a/b", "a"));
        cr_assert(hcbs_path_is_under("a", "a"));
        cr_assert(hcbs_path_is_under("a", ""));
        cr_assert_not(hcbs_path_is_under("ab", "a"));
        cr_assert_not(hcbs_path_is_under("", "a"));
}
