/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "name.h"
#include "persist.h"

#define JOURNAL_HEADER "# hcbsd plan v1"

int journal_begin(const char *dir, const HcbsPlan *plan) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", JOURNAL_HEADER);
        for (size_t i = 0; i < plan->n_ops; i++) {
                const HcbsOp *u = &plan->undo[i];
                if (u->kind == HCBS_OP_NONE)
                        continue;
                fprintf(f, "%c %d %" PRId64 " %" PRIu64 " %s\n", u->kind == HCBS_OP_RMDIR ? 'R' : 'W', (int) u->file,
                        u->runtime_us, u->period_us, u->path);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        return persist_write_atomic(dir, JOURNAL_FILE, buf, len);
}

int journal_end(const char *dir) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return -errno;
        if (unlinkat(dfd, JOURNAL_FILE, 0) < 0 && errno != ENOENT)
                return -errno;
        return fsync(dfd) < 0 ? -errno : 0;
}

static int parse_line(const char *line, HcbsOp *op, char *path, size_t size) {
        char kind;
        int file;
        long long runtime;
        unsigned long long period;
        int n = 0;

        if (sscanf(line, "%c %d %lld %llu %n", &kind, &file, &runtime, &period, &n) != 4 || n == 0)
                return -EBADMSG;
        snprintf(path, size, "%s", line + n);
        path[strcspn(path, "\n")] = '\0';
        if ((kind != 'R' && kind != 'W') || file < 0 || file >= _HCBS_FILE_COUNT || !hcbs_name_is_valid(path))
                return -EBADMSG;
        *op = (HcbsOp) { kind == 'R' ? HCBS_OP_RMDIR : HCBS_OP_WRITE, path, (HcbsFile) file, runtime, period };
        return 0;
}

/* A group made by the plan drops its runtime before it goes, so its bandwidth returns at once. */
static void undo_one(CgroupFs *fs, const HcbsOp *op) {
        CgroupFsError e = {};
        int r;

        if (op->kind == HCBS_OP_RMDIR)
                (void) cgroupfs_write_rt(fs, op->path, cgroupfs_interface(fs) == HCBS_IFACE_RTMAX ? HCBS_FILE_MAX
                                                                                                 : HCBS_FILE_RUNTIME,
                                         0, 1000000, NULL);
        r = cgroupfs_apply_op(fs, op, &e);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Journal: cannot undo %s: %m", e.file[0] ? e.file : op->path);
}

int journal_replay(const char *dir, CgroupFs *fs) {
        char path[4096];
        FILE *f;
        char **lines = NULL, *line = NULL;
        size_t n = 0, cap = 0;
        int r = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, JOURNAL_FILE);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (getline(&line, &cap, f) > 0) {
                char **l = realloc(lines, (n + 1) * sizeof(char *));
                if (!l) {
                        r = -ENOMEM;
                        break;
                }
                lines = l;
                lines[n++] = line;
                line = NULL;
                cap = 0;
        }
        free(line);
        fclose(f);
        if (r >= 0 && (n == 0 || strncmp(lines[0], JOURNAL_HEADER, strlen(JOURNAL_HEADER)) != 0))
                r = -EBADMSG;
        log_warning("Found an interrupted plan in %s: undoing %zu write(s)", path, n ? n - 1 : 0);
        for (size_t i = n; r >= 0 && i > 1; i--) {
                char opath[4096];
                HcbsOp op;
                if (parse_line(lines[i - 1], &op, opath, sizeof(opath)) < 0) {
                        r = log_error_errno(-EBADMSG, "%s:%zu: not a journal line", path, i);
                        break;
                }
                undo_one(fs, &op);
        }
        for (size_t i = 0; i < n; i++)
                free(lines[i]);
        free(lines);
        if (r < 0)
                return r;
        r = journal_end(dir);
        return r < 0 ? r : (int) (n - 1);
}
