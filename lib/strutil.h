/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

#define ELEMENTS(x) ELEMENTSOF(x)

/* Writes a formatted one-line reason into err (if non-NULL) and returns r. */
int hcbs_err(char *err, size_t errlen, int r, const char *fmt, ...) _printf_(4, 5);

/* Appends to a buffer that is always NUL-terminated; truncates silently. */
void hcbs_strbuf_append(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

bool hcbs_startswith(const char *s, const char *prefix);
