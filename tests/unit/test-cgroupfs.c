/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cgroupfs backend's own logic: a group's child cgroups without its
 * control files, and the mount holding a path. The listing reads a real
 * cgroup mount, read-only (no group is made), and is skipped without one.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroupfs.h"
#include "macro.h"

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
