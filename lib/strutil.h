/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* Writes a formatted one-line reason into err (if non-NULL) and returns r. */
int hcbs_err(char *err, size_t errlen, int r, const char *fmt, ...) _printf_(4, 5);

/* Appends to a buffer that is always NUL-terminated; truncates silently. */
void hcbs_strbuf_append(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

/*
 * s made safe for a terminal or a log line: a byte that is not printable
 * ASCII or part of a well-formed UTF-8 character outside the C1 controls
 * (ESC, newlines, U+0080..U+009F, stray bytes) becomes "\xNN", and a
 * backslash "\\", so nothing a caller wrote can move the cursor, fake
 * a line or change colours. Truncated to size (always NUL-terminated),
 * never inside an escape or a character. Returns buf.
 */
char *hcbs_escape_printable(const char *s, char *buf, size_t size);

bool hcbs_startswith(const char *s, const char *prefix);

/* Whether word is one of the items of list, which any of the characters of seps separate ("cpu" in "cpu,cpuacct"). */
bool hcbs_has_word(const char *list, const char *word, const char *seps);

/* Where suffix starts in s, or NULL if s does not end with it (s == suffix included). */
const char *hcbs_endswith(const char *s, const char *suffix);

/*
 * A decimal field: one or more digits, nothing else (no sign, no space, no
 * "0x"), ending at a ' ' or at the end of the string, at most max. Returns 0
 * with *ret (and with *ret_end at the ' ' or the NUL, if ret_end is not NULL),
 * -EINVAL if s does not start with such a field, -ERANGE above max.
 */
int hcbs_parse_u64(const char *s, uint64_t max, const char **ret_end, uint64_t *ret);
