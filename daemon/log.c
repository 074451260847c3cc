/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static int max_level = LOG_INFO;
static bool with_prefix = true;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_prefix(bool prefix) {
        with_prefix = prefix;
}

int log_full_errno(int level, int r, const char *fmt, ...) {
        va_list ap;
        int saved = errno;

        if (level > max_level)
                return r;
        /* %m means the error passed in, not whatever errno happens to be */
        errno = r < 0 ? -r : r;
        if (with_prefix)
                fprintf(stderr, "<%d>", level);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        errno = saved;
        return r;
}
