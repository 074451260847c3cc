/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-args.h"
#include "duration.h"
#include "hcbsctl.h"

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

#include "config.h"
#include "ctl-help.h"

#define OPTIONS_MAX 32

static const struct option common_options[] = { CTL_COMMON_OPTIONS, {} };

/* common_options followed by options, in buf. */
static const struct option *merge_options(const struct option *options, struct option buf[static OPTIONS_MAX]) {
        size_t n = 0;

        for (size_t i = 0; common_options[i].name && n < OPTIONS_MAX - 1; i++)
                buf[n++] = common_options[i];
        for (size_t i = 0; options && options[i].name && n < OPTIONS_MAX - 1; i++)
                buf[n++] = options[i];
        buf[n] = (struct option) {};
        return buf;
}

static int handle_option(Ctl *ctl, const char *verb, int c, CtlOptionFn fn, void *userdata, CtlParsed *p) {
        switch (c) {
        case 'h':
                p->help = true;
                return CTL_EXIT_OK;
        case CTL_ARG_VERSION:
                printf("hcbsctl %s\n", HCBS_VERSION);
                p->version = true;
                return CTL_EXIT_OK;
        case CTL_ARG_JSON:
                ctl->json = true;
                return CTL_EXIT_OK;
        case CTL_ARG_NO_ASK_PASSWORD:
                ctl->ask_password = false;
                return CTL_EXIT_OK;
        case CTL_ARG_BUS_ADDRESS:
                ctl->bus_address = optarg;
                return CTL_EXIT_OK;
        case '?':
                return CTL_EXIT_USAGE;
        default:
                if (!fn)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: unexpected option", verb);
                return fn(verb, c, optarg, userdata);
        }
}

/* Runs getopt over argv until its end or its first non-option; optind then points there. */
static int parse_options(Ctl *ctl, const char *verb, int argc, char *argv[], const char *shortopts,
                         const struct option *longopts, CtlOptionFn fn, void *userdata, CtlParsed *p) {
        int c, r;

        optind = 0;
        while ((c = ctl_getopt(verb, argc, argv, shortopts, longopts)) != -1) {
                r = handle_option(ctl, verb, c, fn, userdata, p);
                if (r != CTL_EXIT_OK)
                        return r;
        }
        return CTL_EXIT_OK;
}

static int parse_lead(Ctl *ctl, int argc, char *argv[], const struct option *longopts, CtlOptionFn fn,
                      void *userdata, int lead, CtlParsed *p) {
        int base = 0;

        for (;;) {
                int r = parse_options(ctl, argv[0], argc - base, argv + base, "+:h", longopts, fn, userdata, p);
                if (r != CTL_EXIT_OK)
                        return r;
                int idx = base + optind;
                bool dashdash = optind >= 2 && strcmp(argv[idx - 1], "--") == 0;
                if (idx >= argc || dashdash || p->npos >= lead || p->npos >= CTL_LEAD_MAX) {
                        p->rest = argv + idx;
                        p->nrest = argc - idx;
                        return CTL_EXIT_OK;
                }
                p->lead[p->npos++] = argv[idx];
                base = idx;
        }
}

int ctl_parse_verb(Ctl *ctl, int argc, char *argv[], const struct option *options, CtlOptionFn fn,
                   void *userdata, int lead, CtlParsed *ret) {
        struct option buf[OPTIONS_MAX];
        const struct option *longopts = merge_options(options, buf);
        CtlParsed p = {};
        int r;

        if (lead >= 0) {
                r = parse_lead(ctl, argc, argv, longopts, fn, userdata, lead, &p);
                p.pos = p.lead;
        } else {
                r = parse_options(ctl, argv[0], argc, argv, ":h", longopts, fn, userdata, &p);
                p.pos = argv + optind;
                p.npos = argc - optind;
        }
        if (r != CTL_EXIT_OK)
                return r;
        if (p.help && !p.version)
                (void) ctl_help_verb(argv[0]);
        p.help = p.help || p.version;
        *ret = p;
        if (lead >= 0)
                ret->pos = ret->lead;
        return CTL_EXIT_OK;
}
