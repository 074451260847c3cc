/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gen-log.h"

#define GEN_LOG_LINE_MAX 1024 /* what /dev/kmsg takes in one record */

void gen_log_open(GenLog *log, const char *path) {
        int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | (path ? O_CREAT : 0);
        int fd = open(path ?: "/dev/kmsg", flags, 0644);

        *log = fd >= 0 ? (GenLog) { .fd = fd, .owned = true } : (GenLog) { .fd = STDERR_FILENO };
}

void gen_log_close(GenLog *log) {
        if (log && log->owned && log->fd >= 0)
                (void) close(log->fd);
        if (log)
                *log = (GenLog) { .fd = STDERR_FILENO };
}

void gen_log(const GenLog *log, int level, const char *fmt, ...) {
        char buf[GEN_LOG_LINE_MAX];
        int saved = errno, len;
        va_list ap;

        len = snprintf(buf, sizeof(buf), "<%d>hcbs-generator: ", level);
        va_start(ap, fmt);
        vsnprintf(buf + len, sizeof(buf) - (size_t) len - 1, fmt, ap);
        va_end(ap);
        len = (int) strlen(buf);
        buf[len++] = '\n';
        if (write(log->fd, buf, (size_t) len) < 0) {
                /* nowhere left to report it */
        }
        errno = saved;
}
