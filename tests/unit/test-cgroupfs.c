/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cgroupfs backend's own logic: cpu.stat in one set of names and units
 * (v1 nanoseconds, v2 microseconds), a group's child cgroups without its
 * control files (a leaf from its link count), its processes, and the mount
 * holding a path. The listing reads a real
 * cgroup mount, read-only (no group is made), and is skipped without one.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroupfs.h"
#include "macro.h"

static const CpuStatField *field(const CpuStatField *f, size_t n, const char *key) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(f[i].key, key) == 0)
                        return &f[i];
        return NULL;
}

static void assert_field(const CpuStatField *f, size_t n, const char *key, uint64_t value) {
        const CpuStatField *x = field(f, n, key);
        cr_assert_not_null(x, "no %s", key);
        cr_assert_eq(x->value, value, "%s: %llu, expected %llu", key, (unsigned long long) x->value,
                     (unsigned long long) value);
}

/* cpu_cfs_stat_show() on the v1 cpu controller (6.18: with the burst counters) */
Test(cpu_stat, v1_nanoseconds_as_v2_usec) {
        CpuStatField f[16];
        size_t n = cgroupfs_parse_cpu_stat("nr_periods 12\nnr_throttled 3\nthrottled_time 5000999\n"
                                           "nr_bursts 1\nburst_time 2999\n",
                                           f, ELEMENTSOF(f));

        cr_assert_eq(n, 5);
        assert_field(f, n, "nr_periods", 12);
        assert_field(f, n, "nr_throttled", 3);
        assert_field(f, n, "throttled_usec", 5000);
        assert_field(f, n, "nr_bursts", 1);
        assert_field(f, n, "burst_usec", 2);
        cr_assert_null(field(f, n, "throttled_time"));
        cr_assert_null(field(f, n, "burst_time"));
        cr_assert_str_eq(f[2].key, "throttled_usec", "file order kept");
}

/* cgroup v2's cpu.stat is already in microseconds: served as it is */
Test(cpu_stat, v2_unchanged) {
        CpuStatField f[16];
        size_t n = cgroupfs_parse_cpu_stat("usage_usec 974283861\nuser_usec 778472768\nsystem_usec 195811092\n"
                                           "nr_periods 0\nnr_throttled 0\nthrottled_usec 77\nnr_bursts 0\n"
                                           "burst_usec 0",
                                           f, ELEMENTSOF(f));

        cr_assert_eq(n, 8);
        assert_field(f, n, "usage_usec", 974283861);
        assert_field(f, n, "throttled_usec", 77);
        assert_field(f, n, "burst_usec", 0);
}

Test(cpu_stat, malformed_lines_skipped) {
        CpuStatField f[16];
        size_t n = cgroupfs_parse_cpu_stat("\nlonely\n leading 1\nneg -1\nmixed 12abc\ntwo  3\n"
                                           "a_key_of_more_than_thirty_one_chars 5\nbig 18446744073709551616\n"
                                           "ok 1\r\nfine 18446744073709551615\n",
                                           f, ELEMENTSOF(f));

        cr_assert_eq(n, 1, "%zu fields", n);
        assert_field(f, n, "fine", UINT64_MAX);
}

Test(cpu_stat, at_most_max_fields) {
        CpuStatField f[3];
        size_t n = cgroupfs_parse_cpu_stat("a 1\nb 2\nc 3\nd 4\n", f, 2);

        cr_assert_eq(n, 2);
        cr_assert_str_eq(f[1].key, "b");
        cr_assert_eq(cgroupfs_parse_cpu_stat("", f, ELEMENTSOF(f)), 0);
}

/* The first cgroup mount of the usual ones, opened read-only; NULL if there is none. */
static CgroupFs *open_some_cgroup_mount(void) {
        static const char *const mounts[] = { "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
        CgroupFs *fs = NULL;

        for (size_t i = 0; i < ELEMENTSOF(mounts); i++)
                if (cgroupfs_open(mounts[i], HCBS_IFACE_LEGACY_V1, &fs) >= 0)
                        return fs;
        return NULL;
}

/* Counts the subdirectories of the mount's root by stat(), independently of d_type. */
static size_t count_subdirs(CgroupFs *fs) {
        DIR *d = fdopendir(dup(cgroupfs_dirfd(fs)));
        size_t n = 0;

        cr_assert_not_null(d);
        rewinddir(d);
        for (struct dirent *de; (de = readdir(d));) {
                struct stat st;
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                cr_assert_eq(fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW), 0);
                n += S_ISDIR(st.st_mode);
        }
        closedir(d);
        return n;
}

Test(children, only_child_cgroups_sorted) {
        _cleanup_(cgroupfs_freep) CgroupFs *fs = open_some_cgroup_mount();
        CgroupFsChildren c = { .names = (char **) 1, .n = 99 };
        struct stat st;

        if (!fs)
                cr_skip_test("no cgroup mount under /sys/fs/cgroup");
        cr_assert_eq(cgroupfs_list_children(fs, "", &c), 0);
        /* a cgroup directory always holds control files: none of them is listed */
        cr_assert_eq(fstatat(cgroupfs_dirfd(fs), "cgroup.procs", &st, 0), 0);
        cr_assert_eq(c.n, count_subdirs(fs));
        for (size_t i = 0; i < c.n; i++) {
                cr_assert_eq(fstatat(cgroupfs_dirfd(fs), c.names[i], &st, AT_SYMLINK_NOFOLLOW), 0);
                cr_assert(S_ISDIR(st.st_mode), "%s is not a directory", c.names[i]);
                cr_assert_str_neq(c.names[i], ".");
                cr_assert_str_neq(c.names[i], "..");
                if (i > 0)
                        cr_assert_lt(strcmp(c.names[i - 1], c.names[i]), 0, "not sorted at %s", c.names[i]);
        }
        cgroupfs_children_done(&c);
        cr_assert_null(c.names);
        cr_assert_eq(c.n, 0);
        cgroupfs_children_done(&c); /* twice is harmless */
}

Test(children, errors_fill_nothing) {
        _cleanup_(cgroupfs_freep) CgroupFs *fs = open_some_cgroup_mount();
        CgroupFsChildren c = {};

        if (!fs)
                cr_skip_test("no cgroup mount under /sys/fs/cgroup");
        cr_assert_eq(cgroupfs_list_children(fs, "hcbs-test-cgroupfs-no-such-group", &c), -ENOENT);
        cr_assert_eq(cgroupfs_list_children(fs, "cgroup.procs", &c), -ENOTDIR);
        cr_assert_null(c.names);
        cr_assert_eq(c.n, 0);
}

/* cgroupfs_list_children() answers a leaf from its link count alone: kernfs keeps it at 2 + subdirectories. */
Test(children, a_cgroups_link_count_is_two_plus_its_children) {
        _cleanup_(cgroupfs_freep) CgroupFs *fs = open_some_cgroup_mount();
        CgroupFsChildren c = {}, leaf = { .names = (char **) 1, .n = 99 };
        struct stat st;

        if (!fs)
                cr_skip_test("no cgroup mount under /sys/fs/cgroup");
        cr_assert_eq(fstatat(cgroupfs_dirfd(fs), ".", &st, 0), 0);
        cr_assert_eq(st.st_nlink, 2 + count_subdirs(fs), "the root: %ju links", (uintmax_t) st.st_nlink);
        cr_assert_eq(cgroupfs_list_children(fs, "", &c), 0);
        for (size_t i = 0; i < c.n; i++) {
                CgroupFsChildren g = {};
                cr_assert_eq(fstatat(cgroupfs_dirfd(fs), c.names[i], &st, AT_SYMLINK_NOFOLLOW), 0);
                cr_assert_eq(cgroupfs_list_children(fs, c.names[i], &g), 0);
                cr_assert_eq(st.st_nlink, 2 + g.n, "%s: %ju links, %zu children", c.names[i], (uintmax_t) st.st_nlink,
                             g.n);
                uint64_t id;
                bool has_children;
                cr_assert_eq(cgroupfs_stat(fs, c.names[i], &id, &has_children), 0);
                cr_assert_eq(id, (uint64_t) st.st_ino);
                cr_assert_eq(has_children, g.n > 0, "%s", c.names[i]);
                if (g.n == 0 && leaf.n == 99)
                        cr_assert_eq(cgroupfs_list_children(fs, c.names[i], &leaf), 0);
                cgroupfs_children_done(&g);
        }
        if (leaf.n != 99) {
                cr_assert_eq(leaf.n, 0, "a leaf has no children");
                cr_assert_null(leaf.names);
        }
        cgroupfs_children_done(&c);
}

/* cgroupfs_read_procs() reads cgroup.procs with read(2), lines cut across reads: the same as stdio's reading. */
Test(procs, the_roots_processes_as_stdio_reads_them) {
        _cleanup_(cgroupfs_freep) CgroupFs *fs = open_some_cgroup_mount();
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, k = 0;
        int fd, pid;
        FILE *f;

        if (!fs)
                cr_skip_test("no cgroup mount under /sys/fs/cgroup");
        cr_assert_eq(cgroupfs_read_procs(fs, "", &pids, &n), 0);
        fd = openat(cgroupfs_dirfd(fs), "cgroup.procs", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0);
        f = fdopen(fd, "r");
        cr_assert_not_null(f);
        /* processes come and go between the two reads: the ones both saw are in the same order */
        for (size_t i = 0; fscanf(f, "%d", &pid) == 1;) {
                while (i < n && pids[i] != pid)
                        i++;
                k += i < n;
        }
        fclose(f);
        cr_assert_gt(n, 1, "the root holds more than one process");
        cr_assert_geq(k + 16, n, "%zu of %zu pids read the same way", k, n);
        cr_assert_eq(cgroupfs_read_procs(fs, "hcbs-test-cgroupfs-no-such-group", &pids, &n), -ENOENT);
}

Test(find_mount, topmost_ancestor_on_the_device) {
        char *m = NULL;

        cr_assert_eq(cgroupfs_find_mount("/proc/self/fd", &m), 0);
        cr_assert_str_eq(m, "/proc");
        free(m);
        /* parts that do not exist yet (a CgroupRoot hcbsd will create) are skipped */
        cr_assert_eq(cgroupfs_find_mount("/proc/hcbs-no-such-dir/deeper", &m), 0);
        cr_assert_str_eq(m, "/proc");
        free(m);
        cr_assert_eq(cgroupfs_find_mount("/", &m), 0);
        cr_assert_str_eq(m, "/");
        free(m);
}

/* cpu.rt.max.effective.local (rtmax v7): "CPU runtime=US|max period=US", one line a CPU */
Test(rt_cpus, per_cpu_lines) {
        CgroupFsCpuRuntime c[4];
        size_t n = 0;

        cr_assert_eq(cgroupfs_parse_rt_cpus("0 runtime=30000 period=100000\n1 runtime=max period=0\n", c, 4, &n), 0);
        cr_assert_eq(n, 2);
        cr_assert_eq(c[0].cpu, 0);
        cr_assert_eq(c[0].runtime_us, 30000);
        cr_assert_eq(c[0].period_us, 100000);
        cr_assert_eq(c[1].cpu, 1);
        cr_assert_eq(c[1].runtime_us, -1);
        cr_assert_eq(cgroupfs_parse_rt_cpus("0 runtime=1 period=2\n1 runtime=3 period=4\n", c, 1, &n), 0);
        cr_assert_eq(n, 1, "at most max entries");
        cr_assert_eq(cgroupfs_parse_rt_cpus("", c, 4, &n), 0);
        cr_assert_eq(n, 0);
}

Test(rt_cpus, other_shapes_refused) {
        CgroupFsCpuRuntime c[4];
        size_t n = 0;
        static const char *const bad[] = {
                "30000 100000\n",                      /* v6's cpu.rt.internal */
                "0 runtime=-5 period=100\n",
                "0 runtime=5 period=100 extra\n",
                "x runtime=5 period=100\n",
                "0 runtime=maxi period=100\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(cgroupfs_parse_rt_cpus(bad[i], c, 4, &n), -EBADMSG, "'%s'", bad[i]);
}
