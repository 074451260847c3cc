/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Logging: to the journal's native protocol when hcbsd runs under
 * journald, as plain stderr lines with syslog-style "<N>" prefixes
 * otherwise (the format the tests grep).
 *
 * "Under journald" is what systemd itself checks: $JOURNAL_STREAM names
 * the device and inode of the stream journald gave the service, and it
 * is our stderr (not a pipe or file stderr was redirected to since).
 * --log-target= forces either. Under the journal every line carries
 * PRIORITY=, SYSLOG_IDENTIFIER=hcbsd, ERRNO= when an error is passed, and
 * the events an admin looks for (message-ids.h) their MESSAGE_ID= and
 * HCBS_* fields. A journal send that fails falls back to stderr.
 *
 * Helpers log at debug level only; the caller that decides logs the real
 * error.
 */

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

typedef enum LogTarget {
        LOG_TARGET_AUTO,    /* the journal if stderr is $JOURNAL_STREAM, else stderr */
        LOG_TARGET_STDERR,
        LOG_TARGET_JOURNAL,
        _LOG_TARGET_MAX,
} LogTarget;

/* "auto", "stderr" or "journal"; -EINVAL for anything else. */
int log_target_from_string(const char *s);
/* Chooses where lines go (AUTO looks at $JOURNAL_STREAM and stderr now). */
void log_set_target(LogTarget t);

void log_set_max_level(int level);
int log_get_max_level(void);

/*
 * Logs and returns r (a negative errno, or 0). %m in fmt expands to strerror(-r).
 * The journal gets the caller's CODE_FILE=, CODE_LINE= and CODE_FUNC=.
 */
int log_full_errno_at(const char *file, int line, const char *func, int level, int r, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
#define log_full_errno(level, r, ...) log_full_errno_at(__FILE__, __LINE__, __func__, level, r, __VA_ARGS__)

/*
 * The fields of an event with a MESSAGE_ID (journal only; stderr shows the
 * message alone). A NULL string or an unset flag leaves the field out.
 */
typedef struct LogFields {
        const char *group;   /* HCBS_GROUP=, as hcbsctl names it */
        const char *unit;    /* HCBS_UNIT= */
        const char *file;    /* HCBS_FILE=, a kernel file or a state file */
        const char *value;   /* HCBS_VALUE=, what was written */
        const char *error;   /* HCBS_ERROR=org.hcbsd1.Error.<error> (hcbs_error_to_string()) */
        const char *root;    /* HCBS_ROOT=, hcbsd's cgroup root */
        const char *mode;    /* HCBS_MODE=, the kernel's mode (kernel-mode.h) */
        bool bandwidth;      /* HCBS_RUNTIME_US= and HCBS_PERIOD_US= below */
        uint64_t runtime_us;
        uint64_t period_us;
        bool counts;         /* HCBS_GROUPS= and HCBS_UNITS= below */
        uint64_t groups;
        uint64_t units;
        bool writes;         /* HCBS_WRITES= below */
        uint64_t n_writes;
} LogFields;

/* log_full_errno() with MESSAGE_ID=message_id (message-ids.h) and the fields of f (may be NULL). */
int log_struct_errno_at(const char *file, int line, const char *func, int level, int r, const char *message_id,
                        const LogFields *f, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
#define log_struct_errno(level, r, id, f, ...) \
        log_struct_errno_at(__FILE__, __LINE__, __func__, level, r, id, f, __VA_ARGS__)

#define log_struct(level, id, f, ...) log_struct_errno(level, 0, id, f, __VA_ARGS__)

#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(r, ...) log_full_errno(LOG_DEBUG, r, __VA_ARGS__)
#define log_warning_errno(r, ...) log_full_errno(LOG_WARNING, r, __VA_ARGS__)
#define log_error_errno(r, ...) log_full_errno(LOG_ERR, r, __VA_ARGS__)
