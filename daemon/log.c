/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
/* the caller's CODE_FILE=, CODE_LINE= and CODE_FUNC=, not this file's */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"

static int max_level = LOG_INFO;
static bool to_journal = false;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_target_from_string(const char *s) {
        static const char *const names[_LOG_TARGET_MAX] = {
                [LOG_TARGET_AUTO] = "auto",
                [LOG_TARGET_STDERR] = "stderr",
                [LOG_TARGET_JOURNAL] = "journal",
        };
        for (int i = 0; i < _LOG_TARGET_MAX; i++)
                if (strcmp(s, names[i]) == 0)
                        return i;
        return -EINVAL;
}

/* $JOURNAL_STREAM is "DEVICE:INODE" of the stream journald connected; is it still our stderr? */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        char *end;

        if (!e || !*e)
                return false;
        errno = 0;
        dev = strtoull(e, &end, 10);
        if (errno || end == e || *end != ':')
                return false;
        e = end + 1;
        ino = strtoull(e, &end, 10);
        if (errno || end == e || *end)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void log_set_target(LogTarget t) {
        to_journal = t == LOG_TARGET_JOURNAL || (t == LOG_TARGET_AUTO && stderr_is_journal());
}

#define FIELDS_MAX 20

typedef struct Fields {
        struct iovec iov[FIELDS_MAX];
        size_t n;
        bool oom;
} Fields;

static void fields_add(Fields *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fields_add(Fields *fs, const char *fmt, ...) {
        va_list ap;
        char *s;
        int len;

        if (fs->n >= FIELDS_MAX) {
                fs->oom = true;
                return;
        }
        va_start(ap, fmt);
        len = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (len < 0) {
                fs->oom = true;
                return;
        }
        fs->iov[fs->n++] = (struct iovec) { .iov_base = s, .iov_len = (size_t) len };
}

static void fields_done(Fields *fs) {
        for (size_t i = 0; i < fs->n; i++)
                free(fs->iov[i].iov_base);
}

static void fields_add_struct(Fields *fs, const char *message_id, const LogFields *f) {
        if (message_id)
                fields_add(fs, "MESSAGE_ID=%s", message_id);
        if (!f)
                return;
        if (f->group)
                fields_add(fs, "HCBS_GROUP=%s", f->group);
        if (f->unit)
                fields_add(fs, "HCBS_UNIT=%s", f->unit);
        if (f->file)
                fields_add(fs, "HCBS_FILE=%s", f->file);
        if (f->value)
                fields_add(fs, "HCBS_VALUE=%s", f->value);
        if (f->error)
                fields_add(fs, "HCBS_ERROR=org.hcbsd1.Error.%s", f->error);
        if (f->root)
                fields_add(fs, "HCBS_ROOT=%s", f->root);
        if (f->mode)
                fields_add(fs, "HCBS_MODE=%s", f->mode);
        if (f->bandwidth) {
                fields_add(fs, "HCBS_RUNTIME_US=%" PRIu64, f->runtime_us);
                fields_add(fs, "HCBS_PERIOD_US=%" PRIu64, f->period_us);
        }
        if (f->counts) {
                fields_add(fs, "HCBS_GROUPS=%" PRIu64, f->groups);
                fields_add(fs, "HCBS_UNITS=%" PRIu64, f->units);
        }
        if (f->writes)
                fields_add(fs, "HCBS_WRITES=%" PRIu64, f->n_writes);
}

typedef struct Site {
        const char *file;
        int line;
        const char *func;
} Site;

/* Returns 0 once the journal has the line, < 0 to fall back to stderr. */
static int journal_send(const Site *at, int level, int r, const char *message_id, const LogFields *f, const char *fmt,
                        va_list ap) {
        Fields fs = {};
        char *msg;
        int k;

        /* glibc's vasprintf() expands %m from errno, which the caller set to -r */
        if (vasprintf(&msg, fmt, ap) < 0)
                return -ENOMEM;
        fields_add(&fs, "MESSAGE=%s", msg);
        free(msg);
        fields_add(&fs, "PRIORITY=%d", level);
        fields_add(&fs, "SYSLOG_IDENTIFIER=hcbsd");
        if (r < 0)
                fields_add(&fs, "ERRNO=%d", -r);
        /* meson compiles in the build directory: "../daemon/x.c" is the source's daemon/x.c */
        fields_add(&fs, "CODE_FILE=%s", strncmp(at->file, "../", 3) == 0 ? at->file + 3 : at->file);
        fields_add(&fs, "CODE_LINE=%d", at->line);
        fields_add(&fs, "CODE_FUNC=%s", at->func);
        fields_add_struct(&fs, message_id, f);
        k = fs.oom ? -ENOMEM : sd_journal_sendv(fs.iov, (int) fs.n);
        fields_done(&fs);
        return k;
}

static int log_internal(const Site *at, int level, int r, const char *message_id, const LogFields *f, const char *fmt,
                        va_list ap) {
        int saved = errno;
        va_list aq;

        if (level > max_level)
                return r;
        /* %m means the error passed in, not whatever errno happens to be */
        errno = r < 0 ? -r : r;
        if (to_journal) {
                va_copy(aq, ap);
                int k = journal_send(at, level, r, message_id, f, fmt, aq);
                va_end(aq);
                if (k >= 0) {
                        errno = saved;
                        return r;
                }
                errno = r < 0 ? -r : r;
        }
        /* one line, one write(): the journal's stdout stream reads the priority, and lines of two
         * processes sharing the stream do not interleave */
        char *msg = NULL;
        if (vasprintf(&msg, fmt, ap) >= 0)
                fprintf(stderr, "<%d>%s\n", level, msg);
        else
                fprintf(stderr, "<%d>(out of memory formatting a message)\n", level);
        free(msg);
        errno = saved;
        return r;
}

int log_full_errno_at(const char *file, int line, const char *func, int level, int r, const char *fmt, ...) {
        Site at = { file, line, func };
        va_list ap;

        va_start(ap, fmt);
        r = log_internal(&at, level, r, NULL, NULL, fmt, ap);
        va_end(ap);
        return r;
}

int log_struct_errno_at(const char *file, int line, const char *func, int level, int r, const char *message_id,
                        const LogFields *f, const char *fmt, ...) {
        Site at = { file, line, func };
        va_list ap;

        va_start(ap, fmt);
        r = log_internal(&at, level, r, message_id, f, fmt, ap);
        va_end(ap);
        return r;
}
