/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A row of `make bench`'s table from a C bench: appended to
 * $HCBS_BENCH_TABLE as tests/bench/table.sh describes (FIGURE, TARGET,
 * NOW, "ok", "miss" or "n/a", separated by tabs). Nothing without the
 * variable (a bench run on its own).
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline void bench_table_row(const char *figure, const char *target, const char *verdict, const char *now_fmt,
                                   ...) __attribute__((format(printf, 4, 5)));
static inline void bench_table_row(const char *figure, const char *target, const char *verdict, const char *now_fmt,
                                   ...) {
        const char *path = getenv("HCBS_BENCH_TABLE");
        va_list ap;
        FILE *f;

        if (!path || !path[0] || !(f = fopen(path, "ae")))
                return;
        fprintf(f, "%s\t%s\t", figure, target);
        va_start(ap, now_fmt);
        vfprintf(f, now_fmt, ap);
        va_end(ap);
        fprintf(f, "\t%s\n", verdict);
        fclose(f);
}
