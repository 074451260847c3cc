/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "exporter-log.h"

/* Whether stderr is the journal stream systemd gave us ($JOURNAL_STREAM is "DEVICE:INODE"). */
static bool stderr_is_journal(void) {
        static int cached = -1;
        unsigned long long dev, ino;
        struct stat st;
        const char *e;

        if (cached >= 0)
                return cached;
        e = getenv("JOURNAL_STREAM");
        cached = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
                 (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
        return cached;
}

void exporter_log(int level, const char *fmt, ...) {
        va_list ap;

        if (stderr_is_journal())
                fprintf(stderr, "<%d>", level);
        fputs("hcbs-exporter: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}
