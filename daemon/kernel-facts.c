/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel-facts.h"
#include "macro.h"
#include "strutil.h"

const char *kernel_facts_prefix(void) {
        const char *p = secure_getenv("HCBS_KERNEL_ROOT");
        return p ? p : "";
}

static FILE *open_at(const char *prefix, const char *path) {
        char buf[PATH_MAX];

        if (snprintf(buf, sizeof(buf), "%s%s", prefix, path) >= (int) sizeof(buf))
                return NULL;
        return fopen(buf, "re");
}

static bool exists_at(const char *prefix, const char *dir, const char *name) {
        char buf[PATH_MAX];

        if (snprintf(buf, sizeof(buf), "%s%s/%s", prefix, dir, name) >= (int) sizeof(buf))
                return false;
        return access(buf, F_OK) == 0;
}

/* The first line of a file, without its newline; false when it cannot be read. */
static bool read_line_at(const char *prefix, const char *path, char *buf, size_t len) {
        _cleanup_fclose_ FILE *f = open_at(prefix, path);

        if (!f || !fgets(buf, (int) len, f))
                return false;
        buf[strcspn(buf, "\n")] = '\0';
        return true;
}

static bool has_cpu_controller(const char *prefix, const char *cgroup) {
        char path[PATH_MAX], line[512];

        snprintf(path, sizeof(path), "%s/cgroup.controllers", cgroup);
        return read_line_at(prefix, path, line, sizeof(line)) && hcbs_has_word(line, "cpu", " ");
}

/* mountinfo escapes blanks and backslashes as \ooo */
static void unescape(char *s) {
        char *w = s;

        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = '\0';
}

typedef struct Mount {
        char point[HCBS_FACTS_PATH_MAX];
        bool v2, cpu;
} Mount;

#define MOUNTS_MAX 64

/* The cgroup mounts of /proc/self/mountinfo. */
static size_t read_mounts(const char *prefix, Mount *m, size_t max) {
        _cleanup_fclose_ FILE *f = open_at(prefix, "/proc/self/mountinfo");
        char line[4096];
        size_t n = 0;

        while (f && n < max && fgets(line, sizeof(line), f)) {
                char point[HCBS_FACTS_PATH_MAX], fstype[32], source[256], opts[1024];
                const char *sep = strstr(line, " - ");

                if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", point) != 1 ||
                    sscanf(sep + 3, "%31s %255s %1023s", fstype, source, opts) != 3)
                        continue;
                if (strcmp(fstype, "cgroup2") != 0 && strcmp(fstype, "cgroup") != 0)
                        continue;
                unescape(point);
                m[n] = (Mount) { .v2 = fstype[6] == '2', .cpu = hcbs_has_word(opts, "cpu", ",") };
                snprintf(m[n].point, sizeof(m[n].point), "%s", point);
                n++;
        }
        return n;
}

static void read_mount_facts(const char *prefix, const Mount *m, size_t n, HcbsKernelFacts *f) {
        for (size_t i = 0; i < n; i++) {
                if (m[i].v2 && (!f->v2_mount[0] || strcmp(m[i].point, "/sys/fs/cgroup") == 0))
                        snprintf(f->v2_mount, sizeof(f->v2_mount), "%s", m[i].point);
                if (!m[i].v2 && m[i].cpu && !f->v1_cpu_mount[0])
                        snprintf(f->v1_cpu_mount, sizeof(f->v1_cpu_mount), "%s", m[i].point);
        }
        if (f->v2_mount[0]) {
                f->v2_has_cpu = has_cpu_controller(prefix, f->v2_mount);
                f->v2_rt_runtime = exists_at(prefix, f->v2_mount, "cpu.rt_runtime_us");
                f->v2_rt_max = exists_at(prefix, f->v2_mount, "cpu.rt.max");
        }
        if (f->v1_cpu_mount[0])
                f->v1_rt_runtime = exists_at(prefix, f->v1_cpu_mount, "cpu.rt_runtime_us");
}

/* /proc/cgroups: "cpu HIERARCHY NUM_CGROUPS ENABLED" */
static void read_proc_cgroups(const char *prefix, HcbsKernelFacts *f) {
        _cleanup_fclose_ FILE *in = open_at(prefix, "/proc/cgroups");
        char line[256], name[64];
        int enabled;

        while (in && fgets(line, sizeof(line), in))
                if (sscanf(line, "%63s %*d %*d %d", name, &enabled) == 2 && strcmp(name, "cpu") == 0)
                        f->cpu_enabled = enabled ? HCBS_TRI_YES : HCBS_TRI_NO;
}

static void read_cmdline(const char *prefix, HcbsKernelFacts *f) {
        _cleanup_fclose_ FILE *in = open_at(prefix, "/proc/cmdline");
        char word[1024];

        while (in && fscanf(in, "%1023s", word) == 1) {
                if (strcmp(word, "--") == 0)
                        break; /* the rest is init's */
                if (hcbs_startswith(word, "rt_group_sched=")) {
                        const char *v = word + strlen("rt_group_sched=");
                        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)
                                f->cmdline_switch = v[0] - '0';
                } else if (hcbs_startswith(word, "cgroup_disable="))
                        f->cmdline_cpu_disabled |= hcbs_has_word(word + strlen("cgroup_disable="), "cpu", ",");
        }
}

void kernel_facts_read_sysctls(const char *prefix, HcbsKernelFacts *f) {
        char rt[32], period[32];
        char *end1, *end2;
        long long runtime;
        unsigned long long per;

        f->have_sysctls = false;
        if (!read_line_at(prefix, "/proc/sys/kernel/sched_rt_runtime_us", rt, sizeof(rt)) ||
            !read_line_at(prefix, "/proc/sys/kernel/sched_rt_period_us", period, sizeof(period)))
                return;
        runtime = strtoll(rt, &end1, 10);
        per = strtoull(period, &end2, 10);
        if (end1 == rt || end2 == period)
                return;
        f->have_sysctls = true;
        f->rt_runtime_us = runtime;
        f->rt_period_us = per;
}

/* /boot/config-RELEASE: true when it exists. */
static bool read_boot_config(const char *prefix, HcbsKernelFacts *f) {
        char path[128], line[256];
        _cleanup_fclose_ FILE *in = NULL;

        if (!f->release[0])
                return false;
        snprintf(path, sizeof(path), "/boot/config-%s", f->release);
        in = open_at(prefix, path);
        if (!in)
                return false;
        f->config_rt_group_sched = HCBS_TRI_NO;
        f->has_switch = HCBS_TRI_NO;
        while (fgets(line, sizeof(line), in)) {
                line[strcspn(line, "\n")] = '\0';
                if (strcmp(line, "CONFIG_RT_GROUP_SCHED=y") == 0)
                        f->config_rt_group_sched = HCBS_TRI_YES;
                else if (strcmp(line, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED=y") == 0)
                        f->has_switch = HCBS_TRI_YES, f->default_disabled = true;
                else if (strcmp(line, "# CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED is not set") == 0)
                        f->has_switch = HCBS_TRI_YES; /* the option exists: 6.16 or later */
        }
        snprintf(f->config_source, sizeof(f->config_source), "%s", path);
        return true;
}

/*
 * /proc/kallsyms: sched_group_set_rt_runtime() and sched_rt_can_attach() are
 * global functions of CONFIG_RT_GROUP_SCHED (kernel/sched/rt.c);
 * setup_rt_group_sched() parses the rt_group_sched= switch (6.16+). Any user
 * may read the names. Only read when no RT files exist (about 5 MB).
 */
static void read_kallsyms(const char *prefix, HcbsKernelFacts *f) {
        _cleanup_fclose_ FILE *in = open_at(prefix, "/proc/kallsyms");
        char line[512], name[256];
        bool any = false, rt = false, sw = false;

        while (in && fgets(line, sizeof(line), in)) {
                if (sscanf(line, "%*s %*s %255s", name) != 1)
                        continue;
                any = true;
                rt |= strcmp(name, "sched_group_set_rt_runtime") == 0 || strcmp(name, "sched_rt_can_attach") == 0;
                sw |= strcmp(name, "setup_rt_group_sched") == 0;
        }
        if (!any)
                return;
        f->config_rt_group_sched = rt ? HCBS_TRI_YES : HCBS_TRI_NO;
        f->has_switch = sw ? HCBS_TRI_YES : HCBS_TRI_NO;
        snprintf(f->config_source, sizeof(f->config_source), "/proc/kallsyms");
}

/* The mount holding path (the longest mount point that is path or one of its ancestors). */
static const Mount *mount_of(const Mount *m, size_t n, const char *path) {
        const Mount *best = NULL;

        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(m[i].point);
                bool under = strcmp(m[i].point, "/") == 0 ||
                             (strncmp(path, m[i].point, len) == 0 && (path[len] == '/' || path[len] == '\0'));
                if (under && (!best || len > strlen(best->point)))
                        best = &m[i];
        }
        return best;
}

/* The deepest existing directory of root, symbolic links resolved, without the prefix. */
static bool find_anchor(const char *prefix, const char *root, char *ret, size_t len) {
        char path[PATH_MAX], real[PATH_MAX], pre[PATH_MAX] = "";
        size_t plen = 0;
        struct stat st;

        if (prefix[0]) {
                if (!realpath(prefix, pre))
                        return false;
                plen = strlen(pre);
        }
        snprintf(path, sizeof(path), "%s%s", prefix, root);
        for (;;) {
                if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                        break;
                char *slash = strrchr(path, '/');
                if (!slash || slash == path)
                        return false;
                *slash = '\0';
        }
        if (!realpath(path, real) || strncmp(real, pre, plen) != 0)
                return false;
        snprintf(ret, len, "%s", real[plen] ? real + plen : "/");
        return true;
}

static void read_root_facts(const char *prefix, const Mount *m, size_t n, HcbsKernelFacts *f) {
        const Mount *mnt;

        if (!find_anchor(prefix, f->root, f->root_anchor, sizeof(f->root_anchor)))
                return;
        mnt = mount_of(m, n, f->root_anchor);
        if (!mnt)
                return;
        snprintf(f->root_mount, sizeof(f->root_mount), "%s", mnt->point);
        f->root_mount_v2 = mnt->v2;
        f->root_mount_has_cpu = mnt->cpu;
        if (mnt->v2)
                f->anchor_has_cpu = has_cpu_controller(prefix, f->root_anchor);
}

int kernel_facts_read(const char *prefix, const char *root, HcbsKernelFacts *ret) {
        Mount *mounts = calloc(MOUNTS_MAX, sizeof(Mount));
        HcbsKernelFacts f;
        size_t n;

        if (!mounts)
                return -ENOMEM;
        hcbs_kernel_facts_init(&f);
        n = read_mounts(prefix, mounts, MOUNTS_MAX);
        read_mount_facts(prefix, mounts, n, &f);
        read_proc_cgroups(prefix, &f);
        read_cmdline(prefix, &f);
        (void) read_line_at(prefix, "/proc/sys/kernel/osrelease", f.release, sizeof(f.release));
        kernel_facts_read_sysctls(prefix, &f);
        if (!f.v2_rt_runtime && !f.v2_rt_max && !f.v1_rt_runtime && !read_boot_config(prefix, &f))
                read_kallsyms(prefix, &f);
        if (root && root[0]) {
                snprintf(f.root, sizeof(f.root), "%s", root);
                read_root_facts(prefix, mounts, n, &f);
        }
        free(mounts);
        *ret = f;
        return 0;
}
