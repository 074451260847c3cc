/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The write order, and why.
 *
 * DIR/groups is never edited in place. persist_save() writes the whole list
 * to a new file DIR/.groups.XXXXXX, fsync()s it, renames it over
 * DIR/groups, and fsync()s DIR so the rename itself reaches the disk. A
 * crash at any point leaves either the old file or the new one, each whole;
 * at worst a stray .groups.* file, which persist_load() never reads and a
 * later save never collides with (each save picks a new random name, with
 * O_EXCL). If anything fails before the rename, the temp file is unlinked
 * and the old file is untouched.
 *
 * The temp file is created with openat(dirfd, O_CREAT|O_EXCL|O_CLOEXEC)
 * rather than mkostemp(): mkostemp() takes a path, while every operation
 * here is relative to one dirfd of DIR, so the temp file, the rename and
 * the directory fsync are all sure to concern the same directory. It also
 * lets the file be 0644 like the rest of /var/lib, where mkostemp() forces
 * 0600.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bandwidth.h"
#include "duration.h"
#include "name.h"
#include "persist.h"
#include "strutil.h"

#define PERSIST_TMP_ATTEMPTS 100

static void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}

void persist_groups_free(PersistGroup *g, size_t n) {
        if (!g)
                return;
        for (size_t i = 0; i < n; i++)
                free(g[i].name);
        free(g);
}

/* mkdir -p dir, mode 0755 (an absolute path: --state-dir and --runtime-dir are). */
static int persist_mkdir_p(const char *dir) {
        char path[PATH_MAX];
        size_t len = strlen(dir);

        if (len == 0 || len >= sizeof(path))
                return -ENAMETOOLONG;
        memcpy(path, dir, len + 1);
        for (char *p = path + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* Opens dir as a directory, creating it and its missing parents first if asked
 * (a --runtime-dir below a --state-dir that does not exist yet). */
static int persist_open_dir(const char *dir, bool create, int *ret_fd) {
        int fd, r;

        if (create && (r = persist_mkdir_p(dir)) < 0)
                return r;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}

/* mkostemp() relative to a dirfd: replaces the trailing XXXXXX of name and creates it with O_EXCL. */
static int persist_open_tmp(int dfd, char *name) {
        static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        char *x = name + strlen(name) - 6;
        unsigned char rnd[6];

        for (unsigned attempt = 0; attempt < PERSIST_TMP_ATTEMPTS; attempt++) {
                if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
                        return errno > 0 ? -errno : -EIO;
                for (size_t i = 0; i < sizeof(rnd); i++)
                        x[i] = chars[rnd[i] % (sizeof(chars) - 1)];
                int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644);
                if (fd >= 0 || errno != EEXIST)
                        return fd >= 0 ? fd : -errno;
        }
        return -EEXIST;
}

static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, buf, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                buf += k;
                len -= (size_t) k;
        }
        return 0;
}

static int write_replace(const char *dir, const char *file, const char *data, size_t len, bool durable) {
        _cleanup_close_ int dfd = -1;
        char tmp[strlen(file) + 9];
        int fd, r;

        snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", file);
        r = persist_open_dir(dir, true, &dfd);
        if (r < 0)
                return r;
        fd = persist_open_tmp(dfd, tmp);
        if (fd < 0)
                return fd;
        r = write_all(fd, data, len);
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && renameat(dfd, tmp, dfd, file) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        if (durable && fsync(dfd) < 0)
                return -errno;
        return 0;
}

int persist_write_atomic(const char *dir, const char *file, const char *data, size_t len) {
        return write_replace(dir, file, data, len, true);
}

int persist_replace(const char *dir, const char *file, const char *data, size_t len) {
        return write_replace(dir, file, data, len, false);
}

int persist_save(const char *dir, const PersistGroup *groups, size_t n) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        for (size_t i = 0; i < n; i++)
                if (!hcbs_name_is_valid(groups[i].name))
                        return -EINVAL;
        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", PERSIST_HEADER);
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", groups[i].name, groups[i].runtime_us, groups[i].period_us);
        r = fclose(f) == 0 ? 0 : -ENOMEM;
        if (r < 0)
                return r;
        return persist_write_atomic(dir, PERSIST_FILE, buf, len);
}

/* ---- loading ---- */

typedef struct PersistLoader {
        const char *dir;
        unsigned line;
        PersistGroup *groups;
        size_t n;
        char *err;
        size_t errlen;
} PersistLoader;

_printf_(2, 3) static int load_fail(PersistLoader *l, const char *fmt, ...) {
        char why[HCBS_ERRLEN];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        return hcbs_err(l->err, l->errlen, -EBADMSG, "%s/%s:%u: %s", l->dir, PERSIST_FILE, l->line, why);
}

/* Parses a decimal at *p up to the next ' ' or '\n': digits only, at most HCBS_MAX_FILE_USEC. */
static int parse_u64(const char **p, uint64_t *ret) {
        uint64_t v = 0;
        const char *s = *p;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                if (v > (HCBS_MAX_FILE_USEC - (uint64_t) (*s - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *p = s;
        *ret = v;
        return 0;
}

/* Splits "NAME RUNTIME PERIOD\n" (already checked to end in '\n'); name is cut in place. */
static int load_split(PersistLoader *l, char *s, PersistGroup *ret) {
        char *sp = strchr(s, ' ');
        const char *p;

        if (!sp)
                return load_fail(l, "expected \"NAME RUNTIME_US PERIOD_US\"");
        *sp = '\0';
        p = sp + 1;
        if (parse_u64(&p, &ret->runtime_us) < 0 || *p++ != ' ')
                return load_fail(l, "group '%.64s': bad runtime (microseconds, at most %" PRIu64 ")", s,
                                 HCBS_MAX_FILE_USEC);
        if (parse_u64(&p, &ret->period_us) < 0 || *p != '\n')
                return load_fail(l, "group '%.64s': bad period (microseconds, at most %" PRIu64 ")", s,
                                 HCBS_MAX_FILE_USEC);
        ret->name = s;
        return 0;
}

static int load_group(PersistLoader *l, char *s) {
        char why[HCBS_ERRLEN];
        PersistGroup g = {}, *groups;
        int r = load_split(l, s, &g);

        if (r < 0)
                return r;
        if (hcbs_name_validate(g.name, why, sizeof(why)) < 0)
                return load_fail(l, "%s", why);
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->groups[i].name, g.name) == 0)
                        return load_fail(l, "group '%s' appears twice", g.name);
        groups = reallocarray(l->groups, l->n + 1, sizeof(*groups));
        if (!groups)
                return hcbs_err(l->err, l->errlen, -ENOMEM, "out of memory");
        l->groups = groups;
        g.name = strdup(g.name);
        if (!g.name)
                return hcbs_err(l->err, l->errlen, -ENOMEM, "out of memory");
        l->groups[l->n++] = g;
        return 0;
}

static int load_line(PersistLoader *l, char *s, ssize_t len) {
        if (strlen(s) != (size_t) len)
                return load_fail(l, "line contains a NUL byte");
        if (s[len - 1] != '\n')
                return load_fail(l, "truncated line (no newline at the end)");
        if (l->line == 1)
                return strcmp(s, PERSIST_HEADER "\n") == 0 ? 0 : load_fail(l, "expected \"" PERSIST_HEADER "\"");
        return load_group(l, s);
}

int persist_open_file(const char *dir, const char *file, FILE **ret) {
        _cleanup_close_ int dfd = -1;
        int fd, r;
        FILE *f;

        r = persist_open_dir(dir, false, &dfd);
        if (r < 0)
                return r;
        fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "r");
        if (!f) {
                r = -errno;
                (void) close(fd);
                return r;
        }
        *ret = f;
        return 0;
}

int persist_set_aside(const char *dir, const char *file) {
        _cleanup_close_ int dfd = -1;
        char aside[strlen(file) + sizeof(PERSIST_CORRUPT_SUFFIX)];
        int r;

        snprintf(aside, sizeof(aside), "%s" PERSIST_CORRUPT_SUFFIX, file);
        r = persist_open_dir(dir, false, &dfd);
        if (r < 0)
                return r;
        if (renameat(dfd, file, dfd, aside) < 0)
                return -errno;
        return fsync(dfd) < 0 ? -errno : 0;
}

static int persist_read(PersistLoader *l, FILE *f) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        ssize_t len;
        int r;

        for (l->line = 1;; l->line++) {
                errno = 0;
                len = getline(&buf, &size, f);
                if (len < 0)
                        break;
                r = load_line(l, buf, len);
                if (r < 0)
                        return r;
        }
        if (ferror(f)) {
                r = errno > 0 ? -errno : -EIO;
                return hcbs_err(l->err, l->errlen, r, "%s/%s: %s", l->dir, PERSIST_FILE, strerror(-r));
        }
        if (l->line == 1)
                return load_fail(l, "empty file, expected \"" PERSIST_HEADER "\"");
        return 0;
}

int persist_load(const char *dir, PersistGroup **ret, size_t *ret_n, char *err, size_t errlen) {
        _cleanup_(fclosep) FILE *f = NULL;
        PersistLoader l = { .dir = dir, .err = err, .errlen = errlen };
        int r;

        r = persist_open_file(dir, PERSIST_FILE, &f);
        if (r == -ENOENT) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (r < 0)
                return hcbs_err(err, errlen, r, "%s/%s: %s", dir, PERSIST_FILE, strerror(-r));
        r = persist_read(&l, f);
        if (r < 0) {
                persist_groups_free(l.groups, l.n);
                return r;
        }
        *ret = l.groups;
        *ret_n = l.n;
        return 0;
}
