/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bandwidth.h"
#include "persist.h"
#include "strutil.h"

#define ERRLEN 512

static char tmpdir[64];

static void setup(void) {
        strcpy(tmpdir, "/tmp/hcbsd-test-persist.XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        cr_assert_eq(nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0, "cannot remove %s", tmpdir);
}

TestSuite(persist, .init = setup, .fini = teardown);

static const char *tmp_path(const char *name) {
        static char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
        return path;
}

static void write_groups_file(const char *content) {
        FILE *f = fopen(tmp_path(PERSIST_FILE), "we");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(content, 1, strlen(content), f), strlen(content));
        cr_assert_eq(fclose(f), 0);
}

/* The whole of tmpdir/groups, malloc'd. */
static char *read_groups_file(void) {
        FILE *f = fopen(tmp_path(PERSIST_FILE), "re");
        char *buf = calloc(1, 65536);
        cr_assert(f && buf);
        cr_assert_lt(fread(buf, 1, 65535, f), 65535);
        fclose(f);
        return buf;
}

static unsigned count_entries(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *e;
        unsigned n = 0;

        cr_assert_not_null(d);
        while ((e = readdir(d)))
                n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
        closedir(d);
        return n;
}

static void load_ok(PersistGroup **ret, size_t *ret_n) {
        char err[ERRLEN] = "";
        cr_assert_eq(persist_load(tmpdir, ret, ret_n, err, sizeof(err)), 0, "%s", err);
}

/* Loading content fails with -EBADMSG at line, and the message contains needle. */
static void load_fails(const char *content, unsigned line, const char *needle) {
        char err[ERRLEN] = "", prefix[PATH_MAX + 32];
        PersistGroup *g = (PersistGroup *) 0x1;
        size_t n = 77;

        write_groups_file(content);
        cr_assert_eq(persist_load(tmpdir, &g, &n, err, sizeof(err)), -EBADMSG, "'%s' loaded", content);
        cr_assert_eq(g, (PersistGroup *) 0x1, "output written on failure");
        cr_assert_eq(n, 77);
        snprintf(prefix, sizeof(prefix), "%s/groups:%u: ", tmpdir, line);
        cr_assert(hcbs_startswith(err, prefix), "message '%s' does not start with '%s'", err, prefix);
        cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

static const PersistGroup three[] = {
        { "audio", 500, 5000 },
        { "media", 20000, 100000 },
        { "media/video", 10000, 100000 },
};

Test(persist, round_trip) {
        PersistGroup *g = NULL;
        size_t n = 0;
        struct stat st;
        char *text;

        cr_assert_eq(persist_save(tmpdir, three, ELEMENTSOF(three)), 0);
        load_ok(&g, &n);
        cr_assert_eq(n, ELEMENTSOF(three));
        for (size_t i = 0; i < n; i++) {
                cr_assert_str_eq(g[i].name, three[i].name);
                cr_assert_eq(g[i].runtime_us, three[i].runtime_us);
                cr_assert_eq(g[i].period_us, three[i].period_us);
        }
        persist_groups_free(g, n);

        text = read_groups_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\naudio 500 5000\nmedia 20000 100000\nmedia/video 10000 100000\n");
        free(text);
        cr_assert_eq(stat(tmp_path(PERSIST_FILE), &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0644, "mode %o", st.st_mode & 07777);
        cr_assert_eq(count_entries(tmpdir), 1, "a temp file was left behind");
}

/* rtmax v7: a group's CPUs, a fourth field only when it has some */
Test(persist, cpus_round_trip) {
        PersistGroup two[] = { { "a", 500, 5000 }, { "b", 1000, 10000 } };
        PersistGroup *g = NULL;
        size_t n = 0;
        char *text, list[32];

        cr_assert_eq(hcbs_cpuset_parse("1-2,5", &two[1].cpus), 0);
        cr_assert_eq(persist_save(tmpdir, two, 2), 0);
        text = read_groups_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\na 500 5000\nb 1000 10000 1-2,5\n");
        free(text);
        load_ok(&g, &n);
        cr_assert_eq(n, 2);
        cr_assert(hcbs_cpuset_is_empty(&g[0].cpus));
        cr_assert_str_eq(hcbs_cpuset_format(&g[1].cpus, list, sizeof(list)), "1-2,5");
        persist_groups_free(g, n);
}

Test(persist, extremes_round_trip) {
        const PersistGroup big[] = { { "x", 0, 1 }, { "y", HCBS_MAX_FILE_USEC, HCBS_MAX_FILE_USEC } };
        PersistGroup *g = NULL;
        size_t n = 0;

        cr_assert_eq(persist_save(tmpdir, big, ELEMENTSOF(big)), 0);
        load_ok(&g, &n);
        cr_assert_eq(n, 2);
        cr_assert_eq(g[0].runtime_us, 0);
        cr_assert_eq(g[1].runtime_us, HCBS_MAX_FILE_USEC);
        cr_assert_eq(g[1].period_us, HCBS_MAX_FILE_USEC);
        persist_groups_free(g, n);
}

/* rtmax: a group with no reservation of its own is "max", and comes back so (it came back as runtime 0), with its CPUs. */
Test(persist, max_round_trip) {
        PersistGroup max[] = { { "box", PERSIST_RUNTIME_MAX, 100000 }, { "box/rt", 500, 100000 } };
        PersistGroup *g = NULL;
        size_t n = 0;
        char *text, list[32];

        cr_assert_eq(hcbs_cpuset_parse("0-1", &max[0].cpus), 0);
        cr_assert_eq(persist_save(tmpdir, max, ELEMENTSOF(max)), 0);
        text = read_groups_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\nbox max 100000 0-1\nbox/rt 500 100000\n");
        free(text);
        load_ok(&g, &n);
        cr_assert_eq(n, 2);
        cr_assert_eq(g[0].runtime_us, PERSIST_RUNTIME_MAX);
        cr_assert_eq(g[0].period_us, 100000);
        cr_assert_str_eq(hcbs_cpuset_format(&g[0].cpus, list, sizeof(list)), "0-1");
        cr_assert_eq(g[1].runtime_us, 500);
        persist_groups_free(g, n);
}

Test(persist, empty_list) {
        PersistGroup *g = (PersistGroup *) 0x1;
        size_t n = 77;
        char *text;

        cr_assert_eq(persist_save(tmpdir, NULL, 0), 0);
        text = read_groups_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\n");
        free(text);
        load_ok(&g, &n);
        cr_assert_null(g);
        cr_assert_eq(n, 0);
        persist_groups_free(NULL, 0);
}

Test(persist, missing_file_or_dir_is_empty) {
        PersistGroup *g = (PersistGroup *) 0x1;
        size_t n = 77;

        load_ok(&g, &n);
        cr_assert_null(g);
        cr_assert_eq(n, 0);
        g = (PersistGroup *) 0x1;
        cr_assert_eq(persist_load(tmp_path("nope"), &g, &n, NULL, 0), 0);
        cr_assert_null(g);
}

Test(persist, creates_the_directory) {
        const char *dir = tmp_path("state");
        struct stat st;
        PersistGroup *g = NULL;
        size_t n = 0;

        cr_assert_eq(persist_save(dir, three, 1), 0);
        cr_assert_eq(stat(dir, &st), 0);
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert_eq(persist_load(dir, &g, &n, NULL, 0), 0);
        cr_assert_eq(n, 1);
        persist_groups_free(g, n);
        cr_assert_eq(persist_save(tmp_path("a/b"), three, 1), 0, "missing parents are created");
        cr_assert_eq(stat(tmp_path("a/b/" PERSIST_FILE), &st), 0);
}

Test(persist, replaces_whole_and_ignores_stray_temp_files) {
        const char *stray = tmp_path(".groups.AbC123");
        PersistGroup *g = NULL;
        size_t n = 0;
        char *text;
        FILE *f;

        /* what a crash between mkostemp and rename leaves: a half-written temp file */
        f = fopen(stray, "we");
        cr_assert_not_null(f);
        fputs("# hcbsd groups v1\nhalf 1", f);
        fclose(f);

        cr_assert_eq(persist_save(tmpdir, three, ELEMENTSOF(three)), 0);
        cr_assert_eq(persist_save(tmpdir, &three[1], 1), 0);
        load_ok(&g, &n);
        cr_assert_eq(n, 1, "the file is replaced, not appended to");
        cr_assert_str_eq(g[0].name, "media");
        persist_groups_free(g, n);
        text = read_groups_file();
        cr_assert_str_eq(text, "# hcbsd groups v1\nmedia 20000 100000\n");
        free(text);
        cr_assert_eq(access(stray, F_OK), 0, "save must not touch other files");
        cr_assert_eq(count_entries(tmpdir), 2, "groups and the stray file only");
}

/* hcbsd's start saves what it has just restored: a file that holds it already is not rewritten */
Test(persist, same_content_is_left_in_place) {
        struct stat a, b;
        char *text;

        cr_assert_eq(persist_save(tmpdir, three, ELEMENTSOF(three)), 0);
        cr_assert_eq(stat(tmp_path(PERSIST_FILE), &a), 0);
        cr_assert_eq(persist_save(tmpdir, three, ELEMENTSOF(three)), 0);
        cr_assert_eq(stat(tmp_path(PERSIST_FILE), &b), 0);
        cr_assert_eq(a.st_ino, b.st_ino, "the same content: no new file renamed over it");
        cr_assert_eq(count_entries(tmpdir), 1);

        cr_assert_eq(persist_save(tmpdir, three, 2), 0); /* a prefix of the old content: not the same */
        cr_assert_eq(stat(tmp_path(PERSIST_FILE), &b), 0);
        cr_assert_neq(a.st_ino, b.st_ino, "other content: replaced");
        text = read_groups_file();
        cr_assert_eq(strstr(text, three[2].name), NULL, "the third group is gone");
        free(text);
}

Test(persist, failed_save_keeps_the_old_file) {
        PersistGroup many[2000];
        struct rlimit rl = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
        const PersistGroup bad[] = { { "ok", 1, 2 }, { "../escape", 1, 2 } };
        PersistGroup *g = NULL;
        size_t n = 0;

        cr_assert_eq(persist_save(tmpdir, three, ELEMENTSOF(three)), 0);

        /* an invalid name: nothing is written at all */
        cr_assert_eq(persist_save(tmpdir, bad, ELEMENTSOF(bad)), -EINVAL);

        /* a write that fails halfway (EFBIG past RLIMIT_FSIZE, as for a full disk) */
        for (size_t i = 0; i < ELEMENTSOF(many); i++)
                many[i] = (PersistGroup) { "a-rather-long-group-name-to-fill-the-file", 1000, 10000 };
        cr_assert_neq(signal(SIGXFSZ, SIG_IGN), SIG_ERR);
        cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
        cr_assert_eq(persist_save(tmpdir, many, ELEMENTSOF(many)), -EFBIG);

        load_ok(&g, &n);
        cr_assert_eq(n, ELEMENTSOF(three), "the old file is intact");
        cr_assert_str_eq(g[2].name, "media/video");
        persist_groups_free(g, n);
        cr_assert_eq(count_entries(tmpdir), 1, "the temp file was not removed");
}

Test(persist, save_errors) {
        write_groups_file("");
        cr_assert_eq(persist_save(tmp_path(PERSIST_FILE), three, 1), -ENOTDIR);
        cr_assert_eq(persist_save(tmp_path(PERSIST_FILE "/below"), three, 1), -ENOTDIR, "a parent is a file");
}

Test(persist, corrupt_files) {
        load_fails("", 1, "empty file, expected \"# hcbsd groups v1\"");
        load_fails("# hcbsd groups v2\naudio 1 2\n", 1, "expected \"# hcbsd groups v1\"");
        load_fails("audio 1 2\n", 1, "expected \"# hcbsd groups v1\"");
        load_fails("# hcbsd groups v1", 1, "truncated line");
        load_fails("# hcbsd groups v1\naudio 500 5000\nmedia 1 2", 3, "truncated line (no newline at the end)");
        load_fails("# hcbsd groups v1\naudio 500 5000\nmedia 1\n", 3, "group 'media': bad runtime");
        load_fails("# hcbsd groups v1\naudio\n", 2, "expected \"NAME RUNTIME_US PERIOD_US\"");
        load_fails("# hcbsd groups v1\n\n", 2, "expected \"NAME RUNTIME_US PERIOD_US\"");
        load_fails("# hcbsd groups v1\naudio -1 5000\n", 2, "bad runtime");
        load_fails("# hcbsd groups v1\naudio 1 5000x\n", 2, "bad period");
        load_fails("# hcbsd groups v1\naudio 1 5000 x\n", 2, "bad CPU list 'x'");
        load_fails("# hcbsd groups v1\naudio 1 5000 \n", 2, "bad CPU list");
        load_fails("# hcbsd groups v1\naudio 1 5000 0 1\n", 2, "bad CPU list");
        load_fails("# hcbsd groups v1\naudio 1 5ms\n", 2, "bad period");
        load_fails("# hcbsd groups v1\naudio 1  5\n", 2, "bad period");
        load_fails("# hcbsd groups v1\naudio max\n", 2, "bad runtime");
        load_fails("# hcbsd groups v1\naudio maxi 5000\n", 2, "bad runtime");
        load_fails("# hcbsd groups v1\naudio max 5000x\n", 2, "bad period");
        load_fails("# hcbsd groups v1\naudio max 5000 1 2\n", 2, "bad CPU list");
        load_fails("# hcbsd groups v1\naudio 18446744073709552 1\n", 2, "bad runtime (microseconds, at most");
        load_fails("# hcbsd groups v1\naudio 99999999999999999999999 1\n", 2, "bad runtime");
        load_fails("# hcbsd groups v1\n../x 1 2\n", 2, "invalid group name '../x': '..' is not allowed");
        load_fails("# hcbsd groups v1\ncgroup.procs 1 2\n", 2, "clashes with cgroup files");
        load_fails("# hcbsd groups v1\na 1 2\nb 1 2\na 3 4\n", 4, "group 'a' appears twice");
}

Test(persist, nul_byte) {
        char err[ERRLEN] = "";
        static const char content[] = "# hcbsd groups v1\na\0 1 2\n";
        PersistGroup *g = NULL;
        size_t n = 0;
        FILE *f = fopen(tmp_path(PERSIST_FILE), "we");

        cr_assert_not_null(f);
        cr_assert_eq(fwrite(content, 1, sizeof(content) - 1, f), sizeof(content) - 1);
        fclose(f);
        cr_assert_eq(persist_load(tmpdir, &g, &n, err, sizeof(err)), -EBADMSG);
        cr_assert_not_null(strstr(err, "groups:2: line contains a NUL byte"), "%s", err);
}

Test(persist, read_errors_fill_err) {
        char err[ERRLEN] = "", expected[PATH_MAX + 64];
        PersistGroup *g = NULL;
        size_t n = 0;

        cr_assert_eq(mkdir(tmp_path(PERSIST_FILE), 0755), 0);
        cr_assert_eq(persist_load(tmpdir, &g, &n, err, sizeof(err)), -EISDIR);
        snprintf(expected, sizeof(expected), "%s/groups: Is a directory", tmpdir);
        cr_assert_str_eq(err, expected);
        cr_assert_eq(persist_save(tmpdir, three, 1), -EISDIR, "rename over a directory");
        cr_assert_eq(count_entries(tmpdir), 1, "the temp file was not removed");
}
