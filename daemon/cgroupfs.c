/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "bandwidth.h"
#include "cgroupfs.h"
#include "strutil.h"

#define CGROUP_SUPER_MAGIC_V1 0x27e0eb
#define CGROUP2_SUPER_MAGIC_V2 0x63677270

struct CgroupFs {
        int dirfd;
        char *root_path;
        HcbsInterface iface;
        unsigned revision; /* rtmax: 6 or 7 (cgroupfs_rtmax_revision()) */
        bool v2;
        unsigned busy_retries;
        unsigned crash_after_writes; /* test hook: abort() after this many successful RT writes... */
        bool crash_is_sigterm;       /* ...or send hcbsd SIGTERM ("N:TERM") */
        unsigned writes;
};

int cgroupfs_open(const char *root_path, HcbsInterface iface, CgroupFs **ret) {
        _cleanup_close_ int fd = -1;
        struct statfs sfs;
        CgroupFs *fs;

        fd = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if (sfs.f_type != CGROUP2_SUPER_MAGIC_V2 && sfs.f_type != CGROUP_SUPER_MAGIC_V1)
                return -ENOTDIR;

        fs = calloc(1, sizeof(*fs));
        if (!fs)
                return -ENOMEM;
        fs->root_path = strdup(root_path);
        if (!fs->root_path) {
                free(fs);
                return -ENOMEM;
        }
        fs->dirfd = TAKE_FD(fd);
        fs->iface = iface;
        fs->revision = 6;
        fs->v2 = sfs.f_type == CGROUP2_SUPER_MAGIC_V2;
        fs->busy_retries = 10;
        const char *crash = secure_getenv("HCBS_CRASH_AFTER_WRITES");
        if (crash) {
                char *end;
                fs->crash_after_writes = (unsigned) strtoul(crash, &end, 10);
                fs->crash_is_sigterm = strcmp(end, ":TERM") == 0;
        }
        *ret = fs;
        return 0;
}

CgroupFs *cgroupfs_free(CgroupFs *fs) {
        if (!fs)
                return NULL;
        closep(&fs->dirfd);
        free(fs->root_path);
        free(fs);
        return NULL;
}

void cgroupfs_set_interface(CgroupFs *fs, HcbsInterface iface) {
        fs->iface = iface;
}

void cgroupfs_set_revision(CgroupFs *fs, unsigned revision) {
        fs->revision = revision;
}

HcbsInterface cgroupfs_interface(const CgroupFs *fs) {
        return fs->iface;
}

const char *cgroupfs_root_path(const CgroupFs *fs) {
        return fs->root_path;
}

int cgroupfs_dirfd(const CgroupFs *fs) {
        return fs->dirfd;
}

bool cgroupfs_is_v2(const CgroupFs *fs) {
        return fs->v2;
}

void cgroupfs_set_busy_retries(CgroupFs *fs, unsigned n) {
        fs->busy_retries = n;
}

static bool file_exists_at(int dirfd, const char *name) {
        return faccessat(dirfd, name, F_OK, 0) == 0;
}

/* Looks for the RT files in dir and its ancestors within the same mount. */
static int detect_files(const char *path, HcbsInterface *ret) {
        char buf[PATH_MAX];
        struct stat st0, st;

        if (stat(path, &st0) < 0)
                return -errno;
        snprintf(buf, sizeof(buf), "%s", path);
        for (;;) {
                _cleanup_close_ int fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (st.st_dev != st0.st_dev)
                        return -ENOENT;
                if (file_exists_at(fd, "cpu.rt.max")) {
                        *ret = HCBS_IFACE_RTMAX;
                        return 0;
                }
                if (file_exists_at(fd, "cpu.rt_runtime_us")) {
                        *ret = HCBS_IFACE_RFC1;
                        return 0;
                }
                char *slash = strrchr(buf, '/');
                if (!slash || slash == buf)
                        return -ENOENT;
                *slash = '\0';
        }
}

int cgroupfs_detect(const char *path, HcbsInterface *ret, char *why, size_t whylen) {
        struct statfs sfs;
        HcbsInterface iface;
        int r;

        if (statfs(path, &sfs) < 0)
                return hcbs_err(why, whylen, -errno, "%s: %s", path, strerror(errno));
        if (sfs.f_type != CGROUP2_SUPER_MAGIC_V2 && sfs.f_type != CGROUP_SUPER_MAGIC_V1)
                return hcbs_err(why, whylen, -ENOTSUP, "%s is not in a cgroup file system", path);
        r = detect_files(path, &iface);
        if (r < 0)
                return hcbs_err(why, whylen, -ENOTSUP,
                                "%s: no cpu.rt_runtime_us or cpu.rt.max: the kernel has no RT group scheduling here",
                                path);
        if (sfs.f_type == CGROUP_SUPER_MAGIC_V1) {
                if (iface != HCBS_IFACE_RFC1)
                        return hcbs_err(why, whylen, -ENOTSUP, "%s: cpu.rt.max on cgroup v1 is unknown", path);
                iface = HCBS_IFACE_LEGACY_V1;
        }
        *ret = iface;
        return 0;
}

static void error_set(CgroupFsError *e, int error, const char *path, const char *file, const char *value) {
        if (!e)
                return;
        e->error = error;
        snprintf(e->file, sizeof(e->file), "%s%s%s", path, path[0] && file[0] ? "/" : "", file);
        snprintf(e->value, sizeof(e->value), "%s", value ? value : "");
}

/* "" is the root itself. */
static const char *at_path(const char *path) {
        return path[0] ? path : ".";
}

/*
 * EBUSY from a write or an rmdir: a process that has just left the group is
 * still accounted for, which the kernel clears within a tick. The retry
 * sleeps (busy_retries times 2 ms, 20 ms a write at most) instead of
 * arming a timer: a timer would let another call run between two writes of
 * a journalled plan, whose intermediate state only that plan's rollback can
 * undo (docs/architecture.md).
 */
static void busy_pause(void) {
        struct timespec ts = { 0, 2 * 1000 * 1000 };
        (void) nanosleep(&ts, NULL);
}

static int read_sysctl(const char *path, int64_t *ret) {
        FILE *f = fopen(path, "re");
        long long v;
        int ok;

        if (!f)
                return -errno;
        ok = fscanf(f, "%lld", &v) == 1;
        fclose(f);
        if (!ok)
                return -EBADMSG;
        *ret = v;
        return 0;
}

/* The CPUs online (their numbers may have holes after a hotplug). */
static int read_online(HcbsCpuSet *ret) {
        _cleanup_(fclosep) FILE *f = fopen("/sys/devices/system/cpu/online", "re");
        char buf[HCBS_CPUSET_STRLEN];

        if (!f)
                return -errno;
        if (!fgets(buf, sizeof(buf), f))
                return -EBADMSG;
        return hcbs_cpuset_parse(buf, ret);
}

int cgroupfs_read_profile(HcbsInterface iface, HcbsProfile *p) {
        HcbsCpuSet online;
        int64_t runtime, period;
        int r;

        hcbs_profile_init(p, iface);
        r = read_sysctl("/proc/sys/kernel/sched_rt_runtime_us", &runtime);
        if (r >= 0)
                r = read_sysctl("/proc/sys/kernel/sched_rt_period_us", &period);
        if (r < 0)
                return r;
        hcbs_profile_set_global(p, runtime, (uint64_t) period);
        /* the server periods' range (rtmax: __checkparam_dl); kernels without SCHED_DEADLINE sysctls keep
         * the defaults */
        if (read_sysctl("/proc/sys/kernel/sched_deadline_period_min_us", &period) >= 0 && period >= 0)
                p->dl_period_min_us = (uint64_t) period;
        if (read_sysctl("/proc/sys/kernel/sched_deadline_period_max_us", &period) >= 0 && period >= 0)
                p->dl_period_max_us = (uint64_t) period;
        if (read_online(&online) >= 0 && !hcbs_cpuset_is_empty(&online))
                hcbs_profile_set_online(p, &online);
        else {
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                hcbs_profile_set_cpus(p, cpus > 0 ? (unsigned) cpus : 1);
        }
        return 0;
}

int cgroupfs_find_mount(const char *path, char **ret) {
        char buf[PATH_MAX], best[PATH_MAX] = "";
        struct stat st, prev = {};
        bool have_prev = false;

        snprintf(buf, sizeof(buf), "%s", path);
        for (;;) {
                if (stat(buf, &st) == 0) {
                        if (have_prev && st.st_dev != prev.st_dev)
                                break;
                        snprintf(best, sizeof(best), "%s", buf);
                        prev = st;
                        have_prev = true;
                }
                char *slash = strrchr(buf, '/');
                if (!slash || slash == buf)
                        break;
                *slash = '\0';
        }
        if (!best[0])
                return -ENOENT;
        *ret = strdup(best);
        return *ret ? 0 : -ENOMEM;
}

int cgroupfs_probe_v2_rules(CgroupFs *fs, const char *parent, HcbsInterface *ret) {
        char probe[PATH_MAX];
        uint64_t period;
        int64_t runtime;
        int r;

        snprintf(probe, sizeof(probe), "%s%shcbs-probe", parent, parent[0] ? "/" : "");
        if (mkdirat(fs->dirfd, probe, 0755) < 0 && errno != EEXIST)
                return -errno;
        r = cgroupfs_read_rt(fs, probe, &period, &runtime);
        if (unlinkat(fs->dirfd, probe, AT_REMOVEDIR) < 0 && r >= 0)
                r = -errno;
        if (r < 0)
                return r;
        *ret = period == 0 ? HCBS_IFACE_RFC1 : HCBS_IFACE_LEGACY_V2;
        return 0;
}

int cgroupfs_mkdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        if (mkdirat(fs->dirfd, path, 0755) < 0) {
                int r = -errno;
                error_set(e, -r, path, "", NULL);
                return r;
        }
        return 0;
}

int cgroupfs_rmdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        /* a process that just left may still be accounted for a moment */
        for (unsigned attempt = 0;; attempt++) {
                if (unlinkat(fs->dirfd, path, AT_REMOVEDIR) == 0)
                        return 0;
                if (errno != EBUSY || attempt >= fs->busy_retries)
                        break;
                busy_pause();
        }
        int r = -errno;
        error_set(e, -r, path, "", NULL);
        return r;
}

bool cgroupfs_exists(CgroupFs *fs, const char *path) {
        struct stat st;
        return fstatat(fs->dirfd, at_path(path), &st, 0) == 0 && S_ISDIR(st.st_mode);
}

int cgroupfs_owner(CgroupFs *fs, const char *path, uid_t *ret) {
        struct stat st;

        if (fstatat(fs->dirfd, at_path(path), &st, 0) < 0)
                return -errno;
        *ret = st.st_uid;
        return 0;
}

static int write_file(CgroupFs *fs, const char *path, const char *file, const char *value, unsigned retries,
                      CgroupFsError *e) {
        char p[PATH_MAX];
        size_t len = strlen(value);

        snprintf(p, sizeof(p), "%s/%s", at_path(path), file);
        for (unsigned attempt = 0;; attempt++) {
                _cleanup_close_ int fd = openat(fs->dirfd, p, O_WRONLY | O_CLOEXEC);
                ssize_t n;

                if (fd < 0)
                        break;
                n = write(fd, value, len);
                if (n == (ssize_t) len)
                        return 0;
                if (n >= 0)
                        errno = EIO;
                if (errno != EBUSY || attempt >= retries)
                        break;
                busy_pause();
        }
        int r = -errno;
        error_set(e, -r, path, file, value);
        return r;
}

/* A plan's write done: tests/integration/test-restart.sh, test-crashstate.sh crash or signal here. */
static void count_write(CgroupFs *fs) {
        if (fs->crash_after_writes && ++fs->writes == fs->crash_after_writes) {
                if (!fs->crash_is_sigterm)
                        abort();
                (void) raise(SIGTERM);
        }
}

int cgroupfs_write_rt(CgroupFs *fs, const char *path, HcbsFile file, int64_t runtime_us, uint64_t period_us,
                      CgroupFsError *e) {
        char value[64];

        switch (file) {
        case HCBS_FILE_RUNTIME:
                snprintf(value, sizeof(value), "%" PRId64, runtime_us);
                break;
        case HCBS_FILE_PERIOD:
                snprintf(value, sizeof(value), "%" PRIu64, period_us);
                break;
        default:
                if (runtime_us < 0)
                        snprintf(value, sizeof(value), "max %" PRIu64, period_us);
                else
                        snprintf(value, sizeof(value), "%" PRId64 " %" PRIu64, runtime_us, period_us);
        }
        int r = write_file(fs, path, hcbs_file_name(NULL, file), value, fs->busy_retries, e);
        if (r >= 0)
                count_write(fs);
        return r;
}

int cgroupfs_release_rt(CgroupFs *fs, const char *path) {
        uint64_t period;
        int64_t runtime;
        int r;

        if (fs->iface != HCBS_IFACE_RTMAX)
                return cgroupfs_write_rt(fs, path, HCBS_FILE_RUNTIME, 0, 0, NULL);
        r = cgroupfs_read_rt(fs, path, &period, &runtime);
        if (r < 0 || runtime < 0)
                return r; /* a "max" group holds no bandwidth of its own */
        return cgroupfs_write_rt(fs, path, HCBS_FILE_MAX, 0, period, NULL);
}

int cgroupfs_read_file(CgroupFs *fs, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = openat(fs->dirfd, path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = '\0';
        return (int) n;
}

static int read_rt_file(CgroupFs *fs, const char *path, const char *file, char *buf, size_t size) {
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/%s", at_path(path), file);
        return cgroupfs_read_file(fs, p, buf, size);
}

int cgroupfs_read_rt(CgroupFs *fs, const char *path, uint64_t *ret_period_us, int64_t *ret_runtime_us) {
        char buf[128];
        uint64_t period, runtime = 0;
        bool inf;
        int r;

        if (fs->iface == HCBS_IFACE_RTMAX) {
                r = read_rt_file(fs, path, "cpu.rt.max", buf, sizeof(buf));
                if (r < 0)
                        return r;
                char *space = strchr(buf, ' ');
                if (!space)
                        return -EBADMSG;
                inf = strncmp(buf, "max ", 4) == 0;
                if ((!inf && hcbs_parse_u64(buf, UINT64_MAX, NULL, &runtime) < 0) ||
                    hcbs_parse_u64(space + 1, UINT64_MAX, NULL, &period) < 0)
                        return -EBADMSG;
        } else {
                r = read_rt_file(fs, path, "cpu.rt_period_us", buf, sizeof(buf));
                if (r < 0)
                        return r;
                if (hcbs_parse_u64(buf, UINT64_MAX, NULL, &period) < 0)
                        return -EBADMSG;
                r = read_rt_file(fs, path, "cpu.rt_runtime_us", buf, sizeof(buf));
                if (r < 0)
                        return r;
                inf = strcmp(buf, "-1") == 0;
                if (!inf && hcbs_parse_u64(buf, UINT64_MAX, NULL, &runtime) < 0)
                        return -EBADMSG;
        }
        if (!inf && runtime > INT64_MAX)
                return -EBADMSG;
        *ret_period_us = period;
        *ret_runtime_us = inf ? -1 : (int64_t) runtime;
        return 0;
}

/* Whether a directory entry is a subdirectory; DT_UNKNOWN (file systems without d_type) asks fstatat(). */
static bool entry_is_dir(int dfd, const struct dirent *de) {
        struct stat st;

        if (de->d_type != DT_UNKNOWN)
                return de->d_type == DT_DIR;
        return fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void cgroupfs_children_done(CgroupFsChildren *c) {
        for (size_t i = 0; c->names && i < c->n; i++)
                free(c->names[i]);
        free(c->names);
        *c = (CgroupFsChildren) {};
}

int cgroupfs_list_children(CgroupFs *fs, const char *path, CgroupFsChildren *ret) {
        _cleanup_close_ int fd = -1;
        CgroupFsChildren c = {};
        struct stat st;
        DIR *d;
        int r = 0;

        /* a directory's link count is 2 + its subdirectories (kernfs keeps it so, as ext4 does): a leaf,
         * most groups, costs one stat instead of an open, two getdents and a close (start-up at 10,000) */
        if (fstatat(fs->dirfd, at_path(path), &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode) && st.st_nlink == 2) {
                *ret = c;
                return 0;
        }
        fd = openat(fs->dirfd, at_path(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d)
                return -errno;
        TAKE_FD(fd);
        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                char **names;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || !entry_is_dir(dirfd(d), de))
                        continue;
                names = reallocarray(c.names, c.n + 1, sizeof(char *));
                if (!names) {
                        r = -ENOMEM;
                        break;
                }
                c.names = names;
                c.names[c.n] = strdup(de->d_name);
                if (!c.names[c.n]) {
                        r = -ENOMEM;
                        break;
                }
                c.n++;
        }
        if (r == 0 && errno != 0)
                r = -errno; /* readdir() failed */
        closedir(d);
        if (r < 0) {
                cgroupfs_children_done(&c);
                return r;
        }
        if (c.n > 1)
                qsort(c.names, c.n, sizeof(char *), compare_names);
        *ret = c;
        return 0;
}

int cgroupfs_read_share(CgroupFs *fs, const char *path, uint64_t *ret_bw) {
        CgroupFsChildren c = {};
        uint64_t period, sum = 0;
        int64_t runtime;
        int r = cgroupfs_read_rt(fs, path, &period, &runtime);

        if (r < 0)
                return r;
        if (fs->iface != HCBS_IFACE_RTMAX || runtime >= 0) {
                *ret_bw = hcbs_bw(period, runtime);
                return 0;
        }
        /* rtmax "max": no bandwidth of its own; its subgroups' reservations count against its context */
        r = cgroupfs_list_children(fs, path, &c);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c.n; i++) {
                char child[PATH_MAX];
                uint64_t bw;

                snprintf(child, sizeof(child), "%s%s%s", path, path[0] ? "/" : "", c.names[i]);
                if (cgroupfs_read_share(fs, child, &bw) >= 0)
                        sum += bw;
        }
        cgroupfs_children_done(&c);
        *ret_bw = sum;
        return 0;
}

/* An unsigned decimal that ends the line. */
static int stat_value(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || (*end && *end != '\n'))
                return -EINVAL;
        *ret = v;
        return 0;
}

/*
 * The v1 cpu controller's cpu.stat durations count nanoseconds
 * (cpu_cfs_stat_show()); cgroup v2 prints the same counters in
 * microseconds under these names (cpu_extra_stat_show()).
 */
static const struct {
        const char *v1_ns, *v2_usec;
} v1_durations[] = {
        { "throttled_time", "throttled_usec" },
        { "burst_time", "burst_usec" },
};

size_t cgroupfs_parse_cpu_stat(const char *text, CpuStatField *fields, size_t max) {
        size_t n = 0;

        for (const char *line = text, *next; *line && n < max; line = next) {
                size_t len = strcspn(line, "\n"), klen = strcspn(line, " \n");
                CpuStatField *f = &fields[n];
                uint64_t value;

                next = line + len + (line[len] == '\n');
                if (klen == 0 || klen >= sizeof(f->key) || line[klen] != ' ' || stat_value(line + klen + 1, &value) < 0)
                        continue;
                snprintf(f->key, sizeof(f->key), "%.*s", (int) klen, line);
                for (size_t i = 0; i < ELEMENTSOF(v1_durations); i++)
                        if (strcmp(f->key, v1_durations[i].v1_ns) == 0) {
                                snprintf(f->key, sizeof(f->key), "%s", v1_durations[i].v2_usec);
                                value /= 1000;
                        }
                f->value = value;
                n++;
        }
        return n;
}

int cgroupfs_read_cpu_stat(CgroupFs *fs, const char *path, CpuStatField *fields, size_t max, size_t *ret_n) {
        char p[PATH_MAX], buf[4096];
        int r;

        snprintf(p, sizeof(p), "%s/cpu.stat", at_path(path));
        r = cgroupfs_read_file(fs, p, buf, sizeof(buf));
        if (r < 0)
                return r;
        *ret_n = cgroupfs_parse_cpu_stat(buf, fields, max);
        return 0;
}

int cgroupfs_read_rt_internal(CgroupFs *fs, const char *path, uint64_t *ret_period_us, uint64_t *ret_runtime_us) {
        /* HCBS v6 "cpu.rt.internal"; renamed in the author's devel-v7 tree */
        static const char *const names[] = { "cpu.rt.internal", "cpu.rt.max.effective.local" };
        char buf[128];
        uint64_t period, runtime;
        int r = -ENOENT;

        if (fs->iface != HCBS_IFACE_RTMAX)
                return -EOPNOTSUPP;
        for (size_t i = 0; i < ELEMENTSOF(names) && r == -ENOENT; i++)
                r = read_rt_file(fs, path, names[i], buf, sizeof(buf));
        if (r < 0)
                return r;
        char *space = strchr(buf, ' ');
        if (!space || hcbs_parse_u64(buf, UINT64_MAX, NULL, &runtime) < 0 ||
            hcbs_parse_u64(space + 1, UINT64_MAX, NULL, &period) < 0)
                return -EBADMSG;
        *ret_period_us = period;
        *ret_runtime_us = runtime;
        return 0;
}

int cgroupfs_rtmax_revision(CgroupFs *fs, const char *path, unsigned *ret) {
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/cpu.rt.max.effective.local", at_path(path));
        if (faccessat(fs->dirfd, p, F_OK, 0) == 0) {
                *ret = 7;
                return 0;
        }
        snprintf(p, sizeof(p), "%s/cpu.rt.internal", at_path(path));
        if (faccessat(fs->dirfd, p, F_OK, 0) == 0) {
                *ret = 6;
                return 0;
        }
        return -ENOENT;
}

int cgroupfs_read_cpus(CgroupFs *fs, const char *path, HcbsCpuSet *ret) {
        char buf[HCBS_CPUSET_STRLEN];
        int r = read_rt_file(fs, path, "cpuset.cpus", buf, sizeof(buf));

        if (r == -ENOENT) {
                *ret = (HcbsCpuSet) {};
                return 0;
        }
        if (r < 0)
                return r;
        return hcbs_cpuset_parse(buf, ret) < 0 ? -EBADMSG : 0;
}

int cgroupfs_write_cpus(CgroupFs *fs, const char *path, const HcbsCpuSet *cpus, CgroupFsError *e) {
        char value[HCBS_CPUSET_STRLEN + 1], p[PATH_MAX];
        const char *slash = strrchr(path, '/');
        int r;

        /* "\n", not "": a write of no bytes never reaches the kernel */
        hcbs_cpuset_format(cpus, value, sizeof(value) - 1);
        strcat(value, "\n");
        snprintf(p, sizeof(p), "%s/cpuset.cpus", at_path(path));
        if (faccessat(fs->dirfd, p, F_OK, 0) < 0 && errno == ENOENT) {
                char parent[PATH_MAX];

                snprintf(parent, sizeof(parent), "%.*s", slash ? (int) (slash - path) : 0, path);
                r = cgroupfs_enable_cpuset(fs, parent, e);
                if (r < 0)
                        return r;
        }
        r = write_file(fs, path, "cpuset.cpus", value, fs->busy_retries, e);
        if (r >= 0)
                count_write(fs);
        return r;
}

int cgroupfs_parse_rt_cpus(const char *text, CgroupFsCpuRuntime *out, size_t max, size_t *ret_n) {
        size_t n = 0;

        for (const char *line = text; *line;) {
                size_t len = strcspn(line, "\n");
                char buf[128], rt[32];
                unsigned cpu;
                unsigned long long period;
                int used = 0;

                if (len >= sizeof(buf))
                        return -EBADMSG;
                snprintf(buf, sizeof(buf), "%.*s", (int) len, line);
                line += len + (line[len] == '\n');
                if (len == 0)
                        continue;
                if (sscanf(buf, "%u runtime=%31s period=%llu%n", &cpu, rt, &period, &used) != 3 ||
                    (size_t) used != len)
                        return -EBADMSG;
                if (n == max)
                        break;
                out[n] = (CgroupFsCpuRuntime) { .cpu = cpu, .runtime_us = -1, .period_us = period };
                if (strcmp(rt, "max") != 0) {
                        uint64_t v;
                        if (hcbs_parse_u64(rt, INT64_MAX, NULL, &v) < 0)
                                return -EBADMSG;
                        out[n].runtime_us = (int64_t) v;
                }
                n++;
        }
        *ret_n = n;
        return 0;
}

int cgroupfs_read_rt_cpus(CgroupFs *fs, const char *path, CgroupFsCpuRuntime *out, size_t max, size_t *ret_n) {
        char p[PATH_MAX], buf[64 * 1024];
        int r;

        if (fs->iface != HCBS_IFACE_RTMAX || fs->revision < 7)
                return -EOPNOTSUPP;
        snprintf(p, sizeof(p), "%s/cpu.rt.max.effective.local", at_path(path));
        r = cgroupfs_read_file(fs, p, buf, sizeof(buf));
        if (r < 0)
                return r;
        return cgroupfs_parse_rt_cpus(buf, out, max, ret_n);
}

/*
 * A group made by a plan: on v2 its RT files exist only once its parent
 * passes the cpu controller on. An mkdir with a period is the undo of a
 * removal (plan.h): the group comes back with that period and runtime 0,
 * and the undo of the removal's first write gives the runtime back.
 */
static int make_group(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e) {
        const char *slash = strrchr(op->path, '/');
        char parent[PATH_MAX];
        int r;

        snprintf(parent, sizeof(parent), "%.*s", slash ? (int) (slash - op->path) : 0, op->path);
        r = cgroupfs_set_cpu_controller(fs, parent, true, e);
        if (r >= 0)
                r = cgroupfs_mkdir(fs, op->path, e);
        /* rtmax: runtime -1 brings a "max" group back as max */
        if (r >= 0 && op->period_us)
                r = fs->iface == HCBS_IFACE_RTMAX
                            ? cgroupfs_write_rt(fs, op->path, HCBS_FILE_MAX, op->runtime_us < 0 ? -1 : 0, op->period_us, e)
                            : cgroupfs_write_rt(fs, op->path, HCBS_FILE_PERIOD, 0, op->period_us, e);
        return r;
}

int cgroupfs_apply_op(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e) {
        switch (op->kind) {
        case HCBS_OP_NONE:
                return 0;
        case HCBS_OP_MKDIR:
                return make_group(fs, op, e);
        case HCBS_OP_RMDIR:
                return cgroupfs_rmdir(fs, op->path, e);
        default:
                if (op->file == HCBS_FILE_CPUS)
                        return cgroupfs_write_cpus(fs, op->path, &op->cpus, e);
                return cgroupfs_write_rt(fs, op->path, op->file, op->runtime_us, op->period_us, e);
        }
}

int cgroupfs_apply_plan(CgroupFs *fs, const HcbsPlan *plan, size_t *ret_failed, unsigned *ret_rollback_failed,
                        CgroupFsError *e) {
        unsigned rollback_failed = 0;
        size_t i;
        int r = 0;

        for (i = 0; i < plan->n_ops; i++) {
                r = cgroupfs_apply_op(fs, &plan->ops[i], e);
                if (r < 0)
                        break;
        }
        if (r < 0) {
                for (size_t j = i; j > 0; j--) {
                        CgroupFsError ignored;
                        if (cgroupfs_apply_op(fs, &plan->undo[j - 1], &ignored) < 0)
                                rollback_failed++;
                }
                if (ret_failed)
                        *ret_failed = i;
        }
        if (ret_rollback_failed)
                *ret_rollback_failed = rollback_failed;
        return r;
}

int cgroupfs_attach(CgroupFs *fs, const char *path, pid_t pid, CgroupFsError *e) {
        char value[32];
        snprintf(value, sizeof(value), "%d", (int) pid);
        return write_file(fs, path, "cgroup.procs", value, 0, e);
}

int cgroupfs_enable_cpuset(CgroupFs *fs, const char *path, CgroupFsError *e) {
        return fs->v2 ? write_file(fs, path, "cgroup.subtree_control", "+cpuset", 0, e) : 0;
}

int cgroupfs_set_cpu_controller(CgroupFs *fs, const char *path, bool enable, CgroupFsError *e) {
        if (!fs->v2)
                return 0;
        return write_file(fs, path, "cgroup.subtree_control", enable ? "+cpu" : "-cpu", 0, e);
}

/* Appends the pids of the decimal lines in buf[0..len) to *pids; a number cut at the end stays in buf. */
static int parse_pids(char *buf, size_t *len, pid_t **pids, size_t *n, size_t *cap) {
        size_t start = 0;

        for (size_t i = 0; i < *len; i++) {
                pid_t pid = 0;

                if (buf[i] != '\n')
                        continue;
                for (size_t k = start; k < i; k++) {
                        if (buf[k] < '0' || buf[k] > '9' || pid > (INT32_MAX - 9) / 10)
                                return -EBADMSG;
                        pid = pid * 10 + (buf[k] - '0');
                }
                start = i + 1;
                if (*n == *cap) {
                        pid_t *np = reallocarray(*pids, *cap = *cap ? *cap * 2 : 16, sizeof(pid_t));
                        if (!np)
                                return -ENOMEM;
                        *pids = np;
                }
                (*pids)[(*n)++] = pid;
        }
        memmove(buf, buf + start, *len - start);
        *len -= start;
        return 0;
}

/* cgroup.procs with read(2) and no stdio: an empty group (most, at start-up) costs open, read, close. */
int cgroupfs_read_procs(CgroupFs *fs, const char *path, pid_t **ret, size_t *ret_n) {
        char p[PATH_MAX], buf[4096];
        _cleanup_free_ pid_t *pids = NULL;
        _cleanup_close_ int fd = -1;
        size_t n = 0, cap = 0, len = 0;
        ssize_t k;
        int r;

        snprintf(p, sizeof(p), "%s/cgroup.procs", at_path(path));
        fd = openat(fs->dirfd, p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        while ((k = read(fd, buf + len, sizeof(buf) - len)) > 0) {
                len += (size_t) k;
                r = parse_pids(buf, &len, &pids, &n, &cap);
                if (r < 0)
                        return r;
                if (len == sizeof(buf))
                        return -EBADMSG; /* a line of 4 KiB is no pid */
        }
        if (k < 0)
                return -errno;
        if (len > 0)
                return -EBADMSG; /* the kernel ends every line */
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

int cgroupfs_stat(CgroupFs *fs, const char *path, uint64_t *ret_id, bool *ret_has_children) {
        struct stat st;

        if (fstatat(fs->dirfd, at_path(path), &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        *ret_id = (uint64_t) st.st_ino;
        if (ret_has_children)
                *ret_has_children = st.st_nlink != 2; /* any other count (btrfs's 1): maybe, list them */
        return 0;
}

int cgroupfs_cgroup_id(CgroupFs *fs, const char *path, uint64_t *ret) {
        return cgroupfs_stat(fs, path, ret, NULL);
}

typedef struct ChildWatch {
        CgroupFsChildFn fn;
        void *userdata;
} ChildWatch;

static int on_child_event(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        ChildWatch *w = userdata;

        if ((ev->mask & IN_ISDIR) && ev->len > 0 && (ev->mask & (IN_CREATE | IN_DELETE)))
                w->fn(ev->name, ev->mask & IN_CREATE, w->userdata);
        return 0;
}

int cgroupfs_watch_children(CgroupFs *fs, sd_event *event, const char *path, CgroupFsChildFn fn, void *userdata,
                            sd_event_source **ret) {
        char full[PATH_MAX];
        ChildWatch *w;
        int r;

        w = malloc(sizeof(*w));
        if (!w)
                return -ENOMEM;
        *w = (ChildWatch) { fn, userdata };
        snprintf(full, sizeof(full), "%s%s%s", fs->root_path, path[0] ? "/" : "", path);
        r = sd_event_add_inotify(event, ret, full, IN_CREATE | IN_DELETE | IN_ONLYDIR, on_child_event, w);
        if (r < 0) {
                free(w);
                return r;
        }
        (void) sd_event_source_set_destroy_callback(*ret, free);
        (void) sd_event_source_set_description(*ret, "cgroup-children");
        return 0;
}
