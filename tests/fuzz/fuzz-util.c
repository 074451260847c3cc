/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-util.h"

static char scratch[256];

_Noreturn void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "%s:%d: check failed: %s: ", file, line, cond);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        abort();
}

static void rm_rf_at(int dfd, const char *name, int keep) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd >= 0) {
                DIR *d = fdopendir(fd);
                struct dirent *de;

                if (!d) {
                        close(fd);
                        return;
                }
                while ((de = readdir(d)))
                        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                                rm_rf_at(dirfd(d), de->d_name, 0);
                closedir(d);
                if (!keep)
                        (void) unlinkat(dfd, name, AT_REMOVEDIR);
                return;
        }
        if (!keep)
                (void) unlinkat(dfd, name, 0);
}

static void scratch_remove(void) {
        if (scratch[0])
                rm_rf_at(AT_FDCWD, scratch, 0);
}

const char *fuzz_dir(void) {
        if (!scratch[0]) {
                const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

                snprintf(scratch, sizeof(scratch), "%s/hcbs-fuzz-XXXXXX", base);
                if (!mkdtemp(scratch)) {
                        perror("mkdtemp");
                        abort();
                }
                atexit(scratch_remove);
        }
        return scratch;
}

const char *fuzz_path(const char *name) {
        static char buf[512];

        snprintf(buf, sizeof(buf), "%s/%s", fuzz_dir(), name);
        return buf;
}

void fuzz_write_file(const char *name, const void *data, size_t size) {
        int fd = open(fuzz_path(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const char *p = data;

        if (fd < 0) {
                perror(fuzz_path(name));
                abort();
        }
        while (size > 0) {
                ssize_t k = write(fd, p, size);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        perror("write");
                        abort();
                }
                p += k;
                size -= (size_t) k;
        }
        close(fd);
}

void fuzz_mkdir(const char *name) {
        if (mkdir(fuzz_path(name), 0755) < 0 && errno != EEXIST) {
                perror(fuzz_path(name));
                abort();
        }
}

void fuzz_rm_rf(const char *name) {
        int dfd = open(fuzz_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                abort();
        rm_rf_at(dfd, *name ? name : ".", !*name);
        close(dfd);
}

char *fuzz_strndup(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);

        if (!s)
                abort();
        if (size)
                memcpy(s, data, size);
        s[size] = '\0';
        return s;
}
