/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <syslog.h>

#include "macro.h"

/*
 * One line on stderr, "hcbs-exporter: ...". Under systemd (stderr is
 * $JOURNAL_STREAM) with the "<N>" prefix, so the journal records LEVEL.
 */
void exporter_log(int level, const char *fmt, ...) _printf_(2, 3);
