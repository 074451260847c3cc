/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-getopt.h"
#include "ctl.h"
#include "duration.h"

#define VERB_FMT "%s%s"
#define VERB_ARGS(verb) (verb) ? (verb) : "", (verb) ? ": " : ""

static const char *long_name(const struct option *longopts, int val) {
        for (size_t i = 0; longopts && longopts[i].name; i++)
                if (longopts[i].val == val)
                        return longopts[i].name;
        return NULL;
}

static int getopt_error(const char *verb, int c, char *argv[], const struct option *longopts) {
        const char *bad = argv[optind - 1];
        const char *name = long_name(longopts, optopt);
        const char *help = verb ? verb : "";
        const char *sp = verb ? " " : "";

        if (c == ':' && name && strncmp(bad, "--", 2) == 0)
                return ctl_fail(CTL_EXIT_USAGE, VERB_FMT "option '--%s' needs a value (see 'hcbsctl %s%s--help')",
                                VERB_ARGS(verb), name, help, sp);
        if (c == ':')
                return ctl_fail(CTL_EXIT_USAGE, VERB_FMT "option '-%c' needs a value (see 'hcbsctl %s%s--help')",
                                VERB_ARGS(verb), optopt, help, sp);
        if (optopt >= '0' && optopt <= '9')
                return ctl_fail(CTL_EXIT_USAGE, VERB_FMT "unknown option '-%c': negative numbers are not accepted",
                                VERB_ARGS(verb), optopt);
        if (optopt && strncmp(bad, "--", 2) != 0)
                return ctl_fail(CTL_EXIT_USAGE, VERB_FMT "unknown option '-%c' (see 'hcbsctl %s%s--help')",
                                VERB_ARGS(verb), optopt, help, sp);
        return ctl_fail(CTL_EXIT_USAGE, VERB_FMT "unknown option '%s' (see 'hcbsctl %s%s--help')",
                        VERB_ARGS(verb), bad, help, sp);
}

int ctl_getopt(const char *verb, int argc, char *argv[], const char *shortopts,
               const struct option *longopts) {
        int c;

        opterr = 0;
        c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c == '?' || c == ':') {
                (void) getopt_error(verb, c, argv, longopts);
                return '?';
        }
        return c;
}

int ctl_expect_args(const char *verb, int n, int min, int max) {
        if (n < min)
                return ctl_fail(CTL_EXIT_USAGE, "%s: missing argument (see 'hcbsctl %s --help')", verb, verb);
        if (max >= 0 && n > max)
                return ctl_fail(CTL_EXIT_USAGE, "%s: too many arguments (see 'hcbsctl %s --help')", verb, verb);
        return CTL_EXIT_OK;
}

int ctl_parse_duration(const char *verb, const char *what, const char *s, uint64_t *ret) {
        char err[HCBS_ERRLEN];
        uint64_t us;

        if (hcbs_duration_parse(s, &us, err, sizeof(err)) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid %s: %s", verb, what, err);
        *ret = us;
        return CTL_EXIT_OK;
}

/* Parses a decimal number in [min, max]; no sign, no spaces, no suffix. */
static int parse_ranged(const char *s, long min, long max, long *ret) {
        char *end;
        long v;

        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || *end != '\0' || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int ctl_parse_pid(const char *verb, const char *s, uint32_t *ret) {
        long v;

        if (parse_ranged(s, 1, INT32_MAX, &v) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid process id '%s' (a positive number)", verb, s);
        *ret = (uint32_t) v;
        return CTL_EXIT_OK;
}

int ctl_parse_priority(const char *verb, const char *option, const char *s, int32_t *ret) {
        long v;

        if (parse_ranged(s, 1, 99, &v) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid priority '%s' for %s (1..99)", verb, s, option);
        *ret = (int32_t) v;
        return CTL_EXIT_OK;
}
