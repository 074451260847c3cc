/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Text output helpers: bandwidth in percent, durations, aligned tables. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bandwidth.h"
#include "duration.h"

/* The kernel's fixed-point bandwidth of runtime/period (microseconds), without overflow. */
uint64_t ctl_bw(uint64_t period, uint64_t runtime);

/* bw as a fraction of one CPU (what the D-Bus API uses). */
static inline double ctl_bw_fraction(uint64_t bw) {
        return (double) bw / (double) HCBS_BW_UNIT;
}

/* A D-Bus fraction of one CPU back in the kernel's fixed point. */
uint64_t ctl_bw_from_fraction(double fraction);

/* "RUNTIME/PERIOD", e.g. "500us/5ms". */
/* A runtime for people: a duration, or "max" (HCBS_RUNTIME_MAX_US: no reservation, rtmax). */
const char *ctl_format_runtime(uint64_t runtime, char buf[static HCBS_DURATION_STRLEN]);
const char *ctl_format_reservation(uint64_t runtime, uint64_t period, char buf[static 2 * HCBS_DURATION_STRLEN]);

typedef struct Table Table;

/* A table with ncols columns named by header (NULL: no header line); right[i] right-aligns column i (may be NULL). */
Table *table_new(size_t ncols, const char *const header[], const bool right[]);
Table *table_free(Table *t);
/* Adds a row of ncols strings (copied); returns 0 or -ENOMEM. */
int table_add_row(Table *t, const char *const cells[]);
/* Prints the header and rows, columns separated by two spaces, aligned by display width. */
void table_print(const Table *t, FILE *f);
