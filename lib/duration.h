/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Durations as people write them: "500us", "10ms", "1.5s", or a bare
 * number of microseconds (the unit of the kernel's cpu.rt_* files).
 * Values must be whole microseconds and at most what the kernel files
 * accept (U64_MAX / 1000).
 */

#include <stddef.h>
#include <stdint.h>

#define HCBS_DURATION_STRLEN 32
#define HCBS_ERRLEN 256

/*
 * Parses s. Returns 0 and stores microseconds in *ret_us, or -EINVAL/-ERANGE
 * with a one-line reason in err (which may be NULL).
 */
int hcbs_duration_parse(const char *s, uint64_t *ret_us, char *err, size_t errlen);

/* Formats us in the largest unit that keeps it exact: "1.5s", "250ms", "7us". */
const char *hcbs_duration_format(uint64_t us, char buf[static HCBS_DURATION_STRLEN]);

/* Parses "90%" or "90.5%" into the kernel's fixed-point bandwidth. */
int hcbs_percent_parse(const char *s, uint64_t *ret_bw, char *err, size_t errlen);
