/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A cgroupfs backend that touches nothing, for fuzz-journal: every function
 * of daemon/cgroupfs.h, linked instead of daemon/cgroupfs.c. Writes and
 * directory operations succeed and are counted; reads find nothing. Each
 * path the code under test hands over is checked to stay below the root:
 * relative, no empty, "." or ".." segment (the kernel root itself is "").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroupfs.h"
#include "fake-cgroupfs.h"
#include "fuzz-util.h"

struct CgroupFs {
        HcbsInterface iface;
        unsigned ops;
};

static void check_path(const char *path) {
        fuzz_check(path, "NULL path");
        fuzz_check(strlen(path) < 4096, "path of %zu characters", strlen(path));
        if (!*path)
                return;
        fuzz_check(path[0] != '/', "absolute path '%s'", path);
        for (const char *seg = path;;) {
                size_t len = strcspn(seg, "/");

                fuzz_check(len > 0, "empty segment in '%s'", path);
                fuzz_check(!(len == 1 && seg[0] == '.') && !(len == 2 && seg[0] == '.' && seg[1] == '.'),
                           "'%s' leaves the root", path);
                if (!seg[len])
                        return;
                seg += len + 1;
        }
}

static void fill_error(CgroupFsError *e, const char *path) {
        if (e) {
                *e = (CgroupFsError) {};
                snprintf(e->file, sizeof(e->file), "%s", path);
        }
}

int fake_cgroupfs_new(HcbsInterface iface, CgroupFs **ret) {
        CgroupFs *fs = calloc(1, sizeof(*fs));

        if (!fs)
                return -ENOMEM;
        fs->iface = iface;
        *ret = fs;
        return 0;
}

unsigned fake_cgroupfs_ops(const CgroupFs *fs) {
        return fs->ops;
}

int cgroupfs_open(const char *root_path, HcbsInterface iface, CgroupFs **ret) {
        return fake_cgroupfs_new(iface, ret);
}

CgroupFs *cgroupfs_free(CgroupFs *fs) {
        free(fs);
        return NULL;
}

HcbsInterface cgroupfs_interface(const CgroupFs *fs) {
        return fs->iface;
}

void cgroupfs_set_interface(CgroupFs *fs, HcbsInterface iface) {
        fs->iface = iface;
}

const char *cgroupfs_root_path(const CgroupFs *fs) {
        return "/nonexistent/fake-cgroupfs";
}

int cgroupfs_dirfd(const CgroupFs *fs) {
        return -EBADF;
}

bool cgroupfs_is_v2(const CgroupFs *fs) {
        return fs->iface != HCBS_IFACE_LEGACY_V1;
}

int cgroupfs_detect(const char *path, HcbsInterface *ret, char *why, size_t whylen) {
        if (why && whylen)
                snprintf(why, whylen, "fake cgroupfs");
        return -ENOTSUP;
}

int cgroupfs_probe_v2_rules(CgroupFs *fs, const char *parent, HcbsInterface *ret) {
        check_path(parent);
        return -ENOTSUP;
}

int cgroupfs_read_profile(HcbsInterface iface, HcbsProfile *p) {
        return -ENOTSUP;
}

int cgroupfs_mkdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        check_path(path);
        fill_error(e, path);
        fs->ops++;
        return 0;
}

int cgroupfs_rmdir(CgroupFs *fs, const char *path, CgroupFsError *e) {
        check_path(path);
        fuzz_check(*path, "rmdir of the root");
        fill_error(e, path);
        fs->ops++;
        return 0;
}

bool cgroupfs_exists(CgroupFs *fs, const char *path) {
        check_path(path);
        return false;
}

void cgroupfs_set_busy_retries(CgroupFs *fs, unsigned n) {
}

int cgroupfs_write_rt(CgroupFs *fs, const char *path, HcbsFile file, int64_t runtime_us, uint64_t period_us,
                      CgroupFsError *e) {
        check_path(path);
        fuzz_check((int) file >= 0 && (int) file < _HCBS_FILE_COUNT, "file %d", (int) file);
        fill_error(e, path);
        fs->ops++;
        return 0;
}

int cgroupfs_release_rt(CgroupFs *fs, const char *path) {
        return cgroupfs_write_rt(fs, path, HCBS_FILE_RUNTIME, 0, 0, NULL);
}

int cgroupfs_read_rt(CgroupFs *fs, const char *path, uint64_t *ret_period_us, int64_t *ret_runtime_us) {
        check_path(path);
        return -ENOENT;
}

int cgroupfs_apply_op(CgroupFs *fs, const HcbsOp *op, CgroupFsError *e) {
        switch (op->kind) {
        case HCBS_OP_NONE:
                return 0;
        case HCBS_OP_MKDIR: /* with a period: a removed group brought back (daemon/cgroupfs.c) */
                return cgroupfs_mkdir(fs, op->path, e) ?:
                       (op->period_us ? cgroupfs_write_rt(fs, op->path, HCBS_FILE_PERIOD, 0, op->period_us, e) : 0);
        case HCBS_OP_RMDIR:
                return cgroupfs_rmdir(fs, op->path, e);
        default:
                return cgroupfs_write_rt(fs, op->path, op->file, op->runtime_us, op->period_us, e);
        }
}

int cgroupfs_apply_plan(CgroupFs *fs, const HcbsPlan *plan, size_t *ret_failed, unsigned *ret_rollback_failed,
                        CgroupFsError *e) {
        for (size_t i = 0; i < plan->n_ops; i++)
                (void) cgroupfs_apply_op(fs, &plan->ops[i], e);
        if (ret_rollback_failed)
                *ret_rollback_failed = 0;
        return 0;
}

int cgroupfs_attach(CgroupFs *fs, const char *path, pid_t pid, CgroupFsError *e) {
        check_path(path);
        fill_error(e, path);
        return -ESRCH;
}

int cgroupfs_set_cpu_controller(CgroupFs *fs, const char *path, bool enable, CgroupFsError *e) {
        check_path(path);
        return 0;
}

int cgroupfs_read_procs(CgroupFs *fs, const char *path, pid_t **ret, size_t *ret_n) {
        check_path(path);
        return -ENOENT;
}

int cgroupfs_read_file(CgroupFs *fs, const char *path, char *buf, size_t size) {
        check_path(path);
        return -ENOENT;
}

int cgroupfs_find_mount(const char *path, char **ret) {
        return -ENOENT;
}

int cgroupfs_list_children(CgroupFs *fs, const char *path, CgroupFsChildren *ret) {
        check_path(path);
        *ret = (CgroupFsChildren) {};
        return 0;
}

void cgroupfs_children_done(CgroupFsChildren *c) {
        *c = (CgroupFsChildren) {};
}

size_t cgroupfs_parse_cpu_stat(const char *text, CpuStatField *fields, size_t max) {
        return 0;
}

int cgroupfs_read_cpu_stat(CgroupFs *fs, const char *path, CpuStatField *fields, size_t max, size_t *ret_n) {
        check_path(path);
        return -ENOENT;
}
