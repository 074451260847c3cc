/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbs-generator's log. Generators run before journald, so messages go to
 * /dev/kmsg as "<LEVEL>hcbs-generator: message", one write() per record,
 * or to stderr when /dev/kmsg cannot be opened. Tests point it at a file.
 */

#include <stdbool.h>

#include "macro.h"

#define GEN_LOG_ERR 3
#define GEN_LOG_WARNING 4

typedef struct GenLog {
        int fd;
        bool owned;
} GenLog;

/*
 * Opens path for appending (created if missing), or /dev/kmsg when path is
 * NULL; falls back to stderr. Never fails.
 */
void gen_log_open(GenLog *log, const char *path);

/* Closes what gen_log_open() opened (NULL-safe). */
void gen_log_close(GenLog *log);

/* Writes one record; a message longer than a kmsg record is truncated. Errors are ignored. */
void gen_log(const GenLog *log, int level, const char *fmt, ...) _printf_(3, 4);
