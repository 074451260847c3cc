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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bandwidth.h"
#include "duration.h"
#include "fileio.h"
#include "name.h"
#include "persist.h"
#include "strutil.h"

#define PERSIST_TMP_ATTEMPTS 100

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
        r = hcbs_write_all(fd, data, len);
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

int persist_open_rw(const char *dir, const char *file) {
        _cleanup_close_ int dfd = -1;
        int fd, r;

        r = persist_open_dir(dir, true, &dfd);
        if (r < 0)
                return r;
        fd = openat(dfd, file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        return fd < 0 ? -errno : fd;
}

/*
 * Whether dir/file holds exactly data; if so, it and dir are fsynced
 * (nothing to write back when they are clean: the cost of a read) so that
 * it is as durable as a rewrite would have made it.
 */
static bool same_and_synced(const char *dir, const char *file, const char *data, size_t len) {
        _cleanup_close_ int dfd = -1, fd = -1;
        _cleanup_free_ char *old = NULL;
        size_t have = 0;
        ssize_t k;

        if (persist_open_dir(dir, false, &dfd) < 0 || (fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
                return false;
        old = malloc(len + 1);
        if (!old)
                return false;
        while (have <= len && (k = read(fd, old + have, len + 1 - have)) > 0)
                have += (size_t) k;
        return have == len && memcmp(old, data, len) == 0 && fsync(fd) == 0 && fsync(dfd) == 0;
}

int persist_write_atomic(const char *dir, const char *file, const char *data, size_t len) {
        /* hcbsd's start saves what it has just restored: most often what the file holds already */
        if (same_and_synced(dir, file, data, len))
                return 0;
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
        for (size_t i = 0; i < n; i++) {
                char cpus[HCBS_CPUSET_STRLEN];

                hcbs_cpuset_format(&groups[i].cpus, cpus, sizeof(cpus));
                if (groups[i].runtime_us == PERSIST_RUNTIME_MAX)
                        fprintf(f, "%s max %" PRIu64 "%s%s\n", groups[i].name, groups[i].period_us, cpus[0] ? " " : "",
                                cpus);
                else
                        fprintf(f, "%s %" PRIu64 " %" PRIu64 "%s%s\n", groups[i].name, groups[i].runtime_us,
                                groups[i].period_us, cpus[0] ? " " : "", cpus);
        }
        r = fclose(f) == 0 ? 0 : -ENOMEM;
        if (r < 0)
                return r;
        return persist_write_atomic(dir, PERSIST_FILE, buf, len);
}

/* ---- loading ---- */

typedef struct PersistLoader {
        PersistGroup *groups;
        size_t n;
} PersistLoader;

/* Splits "NAME RUNTIME PERIOD [CPUS]"; name is cut in place. */
static int load_split(char *s, PersistGroup *ret, char *why, size_t whylen) {
        char *sp = strchr(s, ' ');
        const char *p;

        if (!sp)
                return hcbs_err(why, whylen, -EBADMSG, "expected \"NAME RUNTIME_US PERIOD_US\"");
        *sp = '\0';
        p = sp + 1;
        if (strncmp(p, "max ", 4) == 0) { /* rtmax: no reservation of its own */
                ret->runtime_us = PERSIST_RUNTIME_MAX;
                p += 4;
        } else if (hcbs_parse_u64(p, HCBS_MAX_FILE_USEC, &p, &ret->runtime_us) < 0 || *p++ != ' ')
                return hcbs_err(why, whylen, -EBADMSG,
                                "group '%.64s': bad runtime (microseconds, at most %" PRIu64 ", or max)", s,
                                HCBS_MAX_FILE_USEC);
        if (hcbs_parse_u64(p, HCBS_MAX_FILE_USEC, &p, &ret->period_us) < 0 || (*p != '\0' && *p != ' '))
                return hcbs_err(why, whylen, -EBADMSG,
                                "group '%.64s': bad period (microseconds, at most %" PRIu64 ")", s,
                                HCBS_MAX_FILE_USEC);
        ret->cpus = (HcbsCpuSet) {};
        if (*p == ' ' && (p[1] == '\0' || strchr(p + 1, ' ') || hcbs_cpuset_parse(p + 1, &ret->cpus) < 0))
                return hcbs_err(why, whylen, -EBADMSG, "group '%.64s': bad CPU list '%.64s'", s, p + 1);
        ret->name = s;
        return 0;
}

static int load_group(void *userdata, char *s, char *why, size_t whylen) {
        PersistLoader *l = userdata;
        char bad[HCBS_ERRLEN];
        PersistGroup g = {}, *groups;
        int r = load_split(s, &g, why, whylen);

        if (r < 0)
                return r;
        if (hcbs_name_validate(g.name, bad, sizeof(bad)) < 0)
                return hcbs_err(why, whylen, -EBADMSG, "%s", bad);
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->groups[i].name, g.name) == 0)
                        return hcbs_err(why, whylen, -EBADMSG, "group '%s' appears twice", g.name);
        groups = reallocarray(l->groups, l->n + 1, sizeof(*groups));
        if (!groups)
                return hcbs_err(why, whylen, -ENOMEM, "out of memory");
        l->groups = groups;
        g.name = strdup(g.name);
        if (!g.name)
                return hcbs_err(why, whylen, -ENOMEM, "out of memory");
        l->groups[l->n++] = g;
        return 0;
}

/* Opens dir/file for reading (O_CLOEXEC). Returns 0 or -errno (-ENOENT: no such file). */
static int persist_open_file(const char *dir, const char *file, FILE **ret) {
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

/* One line as getline() read it: the checks every state file shares, then fn. */
static int read_line(char *s, size_t len, unsigned line, const char *header, unsigned flags, PersistLineFn fn,
                     void *userdata, char *why, size_t whylen) {
        if (strlen(s) != len)
                return hcbs_err(why, whylen, -EBADMSG, "line contains a NUL byte");
        if (s[len - 1] != '\n')
                return hcbs_err(why, whylen, -EBADMSG, "truncated line (no newline at the end)");
        s[--len] = '\0';
        if ((flags & PERSIST_LINES_CRLF) && len > 0 && s[len - 1] == '\r')
                s[--len] = '\0';
        if (line == 1)
                return strcmp(s, header) == 0 ? 0 : hcbs_err(why, whylen, -EBADMSG, "expected \"%s\"", header);
        return fn(userdata, s, why, whylen);
}

int persist_read_lines(const char *dir, const char *file, const char *header, unsigned flags, PersistLineFn fn,
                       void *userdata, char *err, size_t errlen) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        char why[HCBS_ERRLEN] = "";
        size_t size = 0;
        unsigned line;
        ssize_t len;
        int r;

        r = persist_open_file(dir, file, &f);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return hcbs_err(err, errlen, r, "%s/%s: %s", dir, file, strerror(-r));
        for (line = 1;; line++) {
                errno = 0;
                len = getline(&buf, &size, f);
                if (len < 0)
                        break;
                r = read_line(buf, (size_t) len, line, header, flags, fn, userdata, why, sizeof(why));
                if (r == -EBADMSG)
                        return hcbs_err(err, errlen, r, "%s/%s:%u: %s", dir, file, line, why);
                if (r < 0)
                        return hcbs_err(err, errlen, r, "%s/%s: %s", dir, file, why);
        }
        if (ferror(f)) {
                r = errno > 0 ? -errno : -EIO;
                return hcbs_err(err, errlen, r, "%s/%s: %s", dir, file, strerror(-r));
        }
        if (line == 1 && (flags & PERSIST_LINES_EMPTY_IS_NONE))
                return 0;
        if (line == 1)
                return hcbs_err(err, errlen, -EBADMSG, "%s/%s:1: empty file, expected \"%s\"", dir, file, header);
        return 1;
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

int persist_load(const char *dir, PersistGroup **ret, size_t *ret_n, char *err, size_t errlen) {
        PersistLoader l = {};
        int r;

        r = persist_read_lines(dir, PERSIST_FILE, PERSIST_HEADER, 0, load_group, &l, err, errlen);
        if (r < 0) {
                persist_groups_free(l.groups, l.n);
                return r;
        }
        *ret = l.groups;
        *ret_n = l.n;
        return 0;
}
