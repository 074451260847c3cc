/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-format.h"

uint64_t ctl_bw(uint64_t period, uint64_t runtime) {
        unsigned __int128 ns = (unsigned __int128) runtime * HCBS_NSEC_PER_USEC;

        if (runtime == HCBS_RUNTIME_MAX_US)
                return 0; /* "max": no bandwidth of its own */

        if (ns <= HCBS_MAX_RT_RUNTIME_NS)
                return hcbs_bw(period, (int64_t) runtime);
        if (period == 0)
                return 0;
        /* beyond what the kernel accepts; only for display */
        unsigned __int128 bw = (ns << HCBS_BW_SHIFT) / ((unsigned __int128) period * HCBS_NSEC_PER_USEC);
        return bw > UINT64_MAX ? UINT64_MAX : (uint64_t) bw;
}

uint64_t ctl_bw_from_fraction(double fraction) {
        if (!(fraction > 0))
                return 0;
        return (uint64_t) (fraction * (double) HCBS_BW_UNIT + 0.5); /* > 0: llround() without libm */
}

const char *ctl_format_runtime(uint64_t runtime, char buf[static HCBS_DURATION_STRLEN]) {
        if (runtime == HCBS_RUNTIME_MAX_US) {
                snprintf(buf, HCBS_DURATION_STRLEN, "max");
                return buf;
        }
        return hcbs_duration_format(runtime, buf);
}

const char *ctl_format_reservation(uint64_t runtime, uint64_t period, char buf[static 2 * HCBS_DURATION_STRLEN]) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN];

        if (runtime == HCBS_RUNTIME_MAX_US && period == 0)
                snprintf(buf, 2 * HCBS_DURATION_STRLEN, "max");
        else
                snprintf(buf, 2 * HCBS_DURATION_STRLEN, "%s/%s", ctl_format_runtime(runtime, rb),
                         hcbs_duration_format(period, pb));
        return buf;
}

struct Table {
        size_t ncols;
        const char *const *header;
        const bool *right;
        char **cells; /* nrows * ncols */
        size_t nrows;
        size_t cap;
};

Table *table_new(size_t ncols, const char *const header[], const bool right[]) {
        Table *t = calloc(1, sizeof(*t));

        if (!t)
                return NULL;
        t->ncols = ncols;
        t->header = header;
        t->right = right;
        return t;
}

Table *table_free(Table *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->nrows * t->ncols; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t);
        return NULL;
}

static int table_grow(Table *t) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **cells;

        if (t->nrows < t->cap)
                return 0;
        cells = realloc(t->cells, cap * t->ncols * sizeof(char *));
        if (!cells)
                return -ENOMEM;
        t->cells = cells;
        t->cap = cap;
        return 0;
}

int table_add_row(Table *t, const char *const cells[]) {
        char **row;

        if (table_grow(t) < 0)
                return -ENOMEM;
        row = t->cells + t->nrows * t->ncols;
        for (size_t c = 0; c < t->ncols; c++) {
                row[c] = strdup(cells[c] ? cells[c] : "");
                if (!row[c]) {
                        while (c > 0)
                                free(row[--c]);
                        return -ENOMEM;
                }
        }
        t->nrows++;
        return 0;
}

/* Columns a UTF-8 string takes on a terminal (one per code point, enough for our glyphs). */
static size_t display_width(const char *s) {
        size_t n = 0;

        for (; *s; s++)
                if (((unsigned char) *s & 0xc0) != 0x80)
                        n++;
        return n;
}

static void pad(FILE *f, size_t n) {
        while (n-- > 0)
                fputc(' ', f);
}

static void table_print_row(const Table *t, const char *const row[], const size_t width[], FILE *f) {
        size_t end = t->ncols;

        /* no trailing blanks: stop after the last non-empty cell */
        while (end > 1 && row[end - 1][0] == '\0')
                end--;
        for (size_t c = 0; c < end; c++) {
                bool last = c + 1 == end;
                bool right = t->right && t->right[c];
                size_t w = display_width(row[c]);
                size_t fill = width[c] > w ? width[c] - w : 0;

                if (right)
                        pad(f, fill);
                fputs(row[c], f);
                if (!last && !right)
                        pad(f, fill);
                fputs(last ? "\n" : "  ", f);
        }
}

void table_print(const Table *t, FILE *f) {
        size_t *width = calloc(t->ncols, sizeof(size_t));

        if (!width)
                return;
        for (size_t c = 0; c < t->ncols; c++) {
                width[c] = t->header ? display_width(t->header[c]) : 0;
                for (size_t r = 0; r < t->nrows; r++) {
                        size_t w = display_width(t->cells[r * t->ncols + c]);
                        if (w > width[c])
                                width[c] = w;
                }
        }
        if (t->header)
                table_print_row(t, t->header, width, f);
        for (size_t r = 0; r < t->nrows; r++)
                table_print_row(t, (const char *const *) t->cells + r * t->ncols, width, f);
        free(width);
}
