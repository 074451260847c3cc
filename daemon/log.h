/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Logging to stderr with syslog-style "<N>" prefixes, which journald
 * understands when hcbsd runs as a service. Helpers log at debug level
 * only; the caller that decides logs the real error.
 */

#include <stdbool.h>
#include <syslog.h>

void log_set_max_level(int level);
int log_get_max_level(void);
void log_set_prefix(bool prefix);

/* Logs and returns r (a negative errno, or 0). %m in fmt expands to strerror(-r). */
int log_full_errno(int level, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(r, ...) log_full_errno(LOG_DEBUG, r, __VA_ARGS__)
#define log_warning_errno(r, ...) log_full_errno(LOG_WARNING, r, __VA_ARGS__)
#define log_error_errno(r, ...) log_full_errno(LOG_ERR, r, __VA_ARGS__)
