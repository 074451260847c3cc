/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "macro.h"
#include "strutil.h"

bool hcbs_cpuset_is_empty(const HcbsCpuSet *s) {
        for (size_t i = 0; i < ELEMENTSOF(s->w); i++)
                if (s->w[i])
                        return false;
        return true;
}

bool hcbs_cpuset_equal(const HcbsCpuSet *a, const HcbsCpuSet *b) {
        return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool hcbs_cpuset_is_subset(const HcbsCpuSet *a, const HcbsCpuSet *b) {
        for (size_t i = 0; i < ELEMENTSOF(a->w); i++)
                if (a->w[i] & ~b->w[i])
                        return false;
        return true;
}

unsigned hcbs_cpuset_count(const HcbsCpuSet *s) {
        unsigned n = 0;

        for (size_t i = 0; i < ELEMENTSOF(s->w); i++)
                n += (unsigned) __builtin_popcountll(s->w[i]);
        return n;
}

void hcbs_cpuset_and(HcbsCpuSet *ret, const HcbsCpuSet *a, const HcbsCpuSet *b) {
        for (size_t i = 0; i < ELEMENTSOF(ret->w); i++)
                ret->w[i] = a->w[i] & b->w[i];
}

int hcbs_cpuset_next(const HcbsCpuSet *s, int after) {
        unsigned cpu = (unsigned) (after + 1);

        while (cpu < HCBS_CPUS_MAX) {
                uint64_t word = s->w[cpu / 64] >> (cpu % 64);
                if (word)
                        return (int) (cpu + (unsigned) __builtin_ctzll(word));
                cpu = (cpu / 64 + 1) * 64;
        }
        return -1;
}

int hcbs_cpuset_last(const HcbsCpuSet *s) {
        for (size_t i = ELEMENTSOF(s->w); i > 0; i--)
                if (s->w[i - 1])
                        return (int) ((i - 1) * 64 + 63 - (unsigned) __builtin_clzll(s->w[i - 1]));
        return -1;
}

void hcbs_cpuset_effective(HcbsCpuSet *ret, const HcbsCpuSet *cpus, const HcbsCpuSet *parent_effective) {
        HcbsCpuSet both;

        hcbs_cpuset_and(&both, cpus, parent_effective);
        *ret = hcbs_cpuset_is_empty(&both) ? *parent_effective : both;
}

/* A decimal CPU number at *p; moves *p past it. */
static int parse_cpu(const char **p, unsigned *ret) {
        unsigned long v;
        char *end;

        if (!isdigit((unsigned char) **p))
                return -EINVAL;
        errno = 0;
        v = strtoul(*p, &end, 10);
        if (errno == ERANGE || v >= HCBS_CPUS_MAX)
                return -ERANGE;
        *p = end;
        *ret = (unsigned) v;
        return 0;
}

static const char *skip_blanks(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

int hcbs_cpuset_parse(const char *s, HcbsCpuSet *ret) {
        HcbsCpuSet set = {};
        const char *p = skip_blanks(s);
        int r;

        if (*p == '\0' || (p[0] == '\n' && p[1] == '\0')) {
                *ret = set;
                return 0;
        }
        for (;;) {
                unsigned lo, hi;

                p = skip_blanks(p);
                r = parse_cpu(&p, &lo);
                if (r < 0)
                        return r;
                hi = lo;
                if (*p == '-') {
                        p++;
                        r = parse_cpu(&p, &hi);
                        if (r < 0)
                                return r;
                        if (hi < lo)
                                return -EINVAL;
                }
                for (unsigned c = lo; c <= hi; c++)
                        hcbs_cpuset_add(&set, c);
                p = skip_blanks(p);
                if (*p == ',') {
                        p++;
                        continue;
                }
                if (*p == '\n')
                        p++;
                if (*p != '\0')
                        return -EINVAL;
                break;
        }
        *ret = set;
        return 0;
}

const char *hcbs_cpuset_format(const HcbsCpuSet *s, char *buf, size_t size) {
        if (size == 0)
                return buf;
        buf[0] = '\0';
        for (int c = hcbs_cpuset_next(s, -1); c >= 0;) {
                int end = c;

                while (end + 1 < HCBS_CPUS_MAX && hcbs_cpuset_has(s, (unsigned) end + 1))
                        end++;
                if (end == c)
                        hcbs_strbuf_append(buf, size, "%s%d", buf[0] ? "," : "", c);
                else
                        hcbs_strbuf_append(buf, size, "%s%d-%d", buf[0] ? "," : "", c, end);
                c = hcbs_cpuset_next(s, end);
        }
        return buf;
}
