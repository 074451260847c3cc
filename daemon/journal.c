/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "journal.h"
#include "log.h"
#include "message-ids.h"
#include "name.h"
#include "persist.h"
#include "strutil.h"

#define JOURNAL_HEADER "# hcbsd plan v1"

struct Journal {
        char *dir;
        int fd;
        bool empty; /* known to be empty: a plan can be written at offset 0 as it is */
};

int journal_open(const char *dir, Journal **ret) {
        Journal *j = calloc(1, sizeof(Journal));
        int fd;

        if (!j || !(j->dir = strdup(dir))) {
                free(j);
                return -ENOMEM;
        }
        fd = persist_open_rw(dir, JOURNAL_FILE);
        if (fd < 0) {
                free(j->dir);
                free(j);
                return fd;
        }
        j->fd = fd;
        *ret = j;
        return 0;
}

Journal *journal_close(Journal *j) {
        _cleanup_close_ int dfd = -1;

        if (!j)
                return NULL;
        dfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || (unlinkat(dfd, JOURNAL_FILE, 0) < 0 && errno != ENOENT))
                log_warning_errno(-errno, "Cannot remove %s/%s: %m", j->dir, JOURNAL_FILE);
        closep(&j->fd);
        free(j->dir);
        free(j);
        return NULL;
}

int journal_end(Journal *j) {
        if (ftruncate(j->fd, 0) < 0)
                return -errno;
        j->empty = true;
        return 0;
}

int journal_begin(Journal *j, const HcbsPlan *plan) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ssize_t n;
        int r;

        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", JOURNAL_HEADER);
        for (size_t i = 0; i < plan->n_ops; i++) {
                const HcbsOp *u = &plan->undo[i];
                char cpus[HCBS_CPUSET_STRLEN];

                if (u->kind == HCBS_OP_NONE)
                        continue;
                if (u->kind == HCBS_OP_WRITE && u->file == HCBS_FILE_CPUS) {
                        hcbs_cpuset_format(&u->cpus, cpus, sizeof(cpus));
                        fprintf(f, "C %s %s\n", cpus[0] ? cpus : "-", u->path);
                        continue;
                }
                fprintf(f, "%c %d %" PRId64 " %" PRIu64 " %s\n",
                        u->kind == HCBS_OP_RMDIR ? 'R' : u->kind == HCBS_OP_MKDIR ? 'M' : 'W', (int) u->file,
                        u->runtime_us, u->period_us, u->path);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        if (!j->empty && (r = journal_end(j)) < 0)
                return r;
        j->empty = false;
        n = pwrite(j->fd, buf, len, 0);
        if (n == (ssize_t) len)
                return 0;
        r = n < 0 ? -errno : -EIO;
        (void) journal_end(j); /* a short write: the plan goes unprotected, and no prefix of it is left */
        return r;
}

/* Removes dir/plan, once replayed or set aside. */
static int journal_forget(const char *dir) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return -errno;
        return unlinkat(dfd, JOURNAL_FILE, 0) < 0 && errno != ENOENT ? -errno : 0;
}

void journal_ops_free(HcbsOp *ops, size_t n) {
        for (size_t i = 0; ops && i < n; i++)
                free(ops[i].path);
        free(ops);
}

/* ---- reading ---- */

typedef struct JournalReader {
        const JournalScope *scope;
        HcbsOp *ops;
        size_t n;
} JournalReader;

/* A decimal, optionally negative, then one space. */
static int parse_number(const char **p, bool negative_ok, int64_t *ret) {
        const char *s = *p;
        bool neg = negative_ok && *s == '-';
        uint64_t v = 0;

        s += neg;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                if (v > ((uint64_t) INT64_MAX - (uint64_t) (*s - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        if (*s != ' ')
                return -EINVAL;
        *p = s + 1;
        *ret = neg ? -(int64_t) v : (int64_t) v;
        return 0;
}

/*
 * The paths a plan of hcbsd writes: the kernel's root and hcbsd's other
 * ancestors (the capacity plan), hcbsd's root and its groups, and the
 * pool's children (units' cgroups). Nothing else is undone.
 */
static bool in_scope(const JournalScope *scope, const char *path) {
        if (hcbs_path_is_under(scope->root, path) || hcbs_path_is_under(path, scope->root))
                return true;
        if (!scope->pool || !hcbs_path_is_under(path, scope->pool) || strcmp(path, scope->pool) == 0)
                return false;
        return !strchr(path + strlen(scope->pool) + (scope->pool[0] ? 1 : 0), '/');
}

/* "C LIST": a cpuset.cpus write of LIST ("-": none), then one space. */
static int parse_cpus(const char **p, HcbsCpuSet *ret) {
        const char *s = *p, *end = strchr(s, ' ');
        char list[HCBS_CPUSET_STRLEN];

        if (!end || (size_t) (end - s) >= sizeof(list) || end == s)
                return -EINVAL;
        snprintf(list, sizeof(list), "%.*s", (int) (end - s), s);
        if (strcmp(list, "-") == 0)
                *ret = (HcbsCpuSet) {};
        else if (strcmp(list, "") == 0 || hcbs_cpuset_parse(list, ret) < 0)
                return -EINVAL;
        *p = end + 1;
        return 0;
}

/*
 * "K FILE RUNTIME PERIOD PATH": K is W (a write), R (an rmdir) or M (an
 * mkdir, with a period: a removed group brought back); PATH may be empty
 * (the root). "C LIST PATH": a cpuset.cpus write (LIST "-" for none).
 */
static int parse_op(void *userdata, char *line, char *why, size_t whylen) {
        JournalReader *j = userdata;
        const char *s = line;
        int64_t file = HCBS_FILE_CPUS, runtime = 0, period = 0;
        HcbsCpuSet cpus = {};
        char kind = s[0];
        HcbsOp *ops;

        if ((kind != 'W' && kind != 'R' && kind != 'M' && kind != 'C') || s[1] != ' ')
                return hcbs_err(why, whylen, -EBADMSG,
                                "expected \"W|R|M FILE RUNTIME_US PERIOD_US PATH\" or \"C CPUS PATH\"");
        s += 2;
        if (kind == 'C') {
                if (parse_cpus(&s, &cpus) < 0)
                        return hcbs_err(why, whylen, -EBADMSG, "bad CPU list");
        } else if (parse_number(&s, false, &file) < 0 || file >= _HCBS_FILE_COUNT || file == HCBS_FILE_CPUS)
                return hcbs_err(why, whylen, -EBADMSG, "bad file index");
        else if (parse_number(&s, true, &runtime) < 0 || parse_number(&s, false, &period) < 0)
                return hcbs_err(why, whylen, -EBADMSG, "bad runtime or period");
        if (!hcbs_cgroup_path_is_valid(s))
                return hcbs_err(why, whylen, -EBADMSG, "'%.64s' is not a cgroup path", s);
        if (!in_scope(j->scope, s))
                return hcbs_err(why, whylen, -EBADMSG, "'%.64s' is outside what hcbsd writes", s);
        if (kind != 'W' && (!hcbs_path_is_under(s, j->scope->root) || strcmp(s, j->scope->root) == 0))
                return hcbs_err(why, whylen, -EBADMSG, "'%.64s': hcbsd makes and removes only its own groups", s);
        ops = reallocarray(j->ops, j->n + 1, sizeof(HcbsOp));
        if (!ops)
                return hcbs_err(why, whylen, -ENOMEM, "out of memory");
        j->ops = ops;
        ops[j->n] = (HcbsOp) { kind == 'R' ? HCBS_OP_RMDIR : kind == 'M' ? HCBS_OP_MKDIR : HCBS_OP_WRITE, strdup(s),
                               (HcbsFile) file, runtime, (uint64_t) period, cpus };
        if (!ops[j->n].path)
                return hcbs_err(why, whylen, -ENOMEM, "out of memory");
        j->n++;
        return 0;
}

/* Blank lines and CRLF line ends are tolerated: a plan is a person's to read and fix. */
static int journal_line(void *userdata, char *line, char *why, size_t whylen) {
        return line[0] ? parse_op(userdata, line, why, whylen) : 0;
}

int journal_load(const char *dir, const JournalScope *scope, HcbsOp **ret_ops, size_t *ret_n, char *err,
                 size_t errlen) {
        JournalReader j = { .scope = scope };
        int r;

        r = persist_read_lines(dir, JOURNAL_FILE, JOURNAL_HEADER, PERSIST_LINES_CRLF | PERSIST_LINES_EMPTY_IS_NONE,
                               journal_line, &j, err, errlen);
        if (r < 0) {
                journal_ops_free(j.ops, j.n);
                return r;
        }
        *ret_ops = j.ops;
        *ret_n = j.n;
        return r; /* 0: no plan (and no ops) */
}

/* ---- undoing ---- */

/* A group made by the plan drops its runtime before it goes, so its bandwidth returns at once. */
static void undo_one(CgroupFs *fs, const HcbsOp *op) {
        CgroupFsError e = {};
        int r;

        if (op->kind == HCBS_OP_RMDIR)
                (void) cgroupfs_release_rt(fs, op->path);
        r = cgroupfs_apply_op(fs, op, &e);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Journal: cannot undo %s: %m", e.file[0] ? e.file : op->path);
}

int journal_replay(const char *dir, CgroupFs *fs, const JournalScope *scope) {
        HcbsOp *ops = NULL;
        size_t n = 0;
        char err[HCBS_ERRLEN];
        int r;

        r = journal_load(dir, scope, &ops, &n, err, sizeof(err));
        if (r == 0) {
                (void) journal_forget(dir); /* an empty one: hcbsd stopped between two plans */
                return 0;
        }
        if (r < 0) {
                /* undoing part of a plan, or another's, is worse than adopting the tree as the kernel has it */
                log_error("Not undoing the interrupted plan: %s; adopting the kernel's values as they are", err);
                r = persist_set_aside(dir, JOURNAL_FILE);
                if (r < 0)
                        log_error_errno(r, "Cannot move %s/%s aside, removing it: %m", dir, JOURNAL_FILE);
                else
                        log_error("Kept it as %s/%s" PERSIST_CORRUPT_SUFFIX, dir, JOURNAL_FILE);
                return r < 0 ? journal_forget(dir) : 0;
        }
        {
                char file[PATH_MAX];
                snprintf(file, sizeof(file), "%s/%s", dir, JOURNAL_FILE);
                log_struct(LOG_WARNING, HCBS_MESSAGE_REPLAYED,
                           &(LogFields) { .file = file, .writes = true, .n_writes = n },
                           "Found an interrupted plan in %s: undoing %zu write(s)", file, n);
        }
        for (size_t i = n; i > 0; i--)
                undo_one(fs, &ops[i - 1]);
        journal_ops_free(ops, n);
        r = journal_forget(dir);
        return r < 0 ? r : (int) n;
}
