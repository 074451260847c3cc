/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "ctl-cmdline.h"
#include "ctl-getopt.h"
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

int ctl_parse_plain_verb(Ctl *ctl, int argc, char *argv[], int min, int max, CtlParsed *ret) {
        int r = ctl_parse_verb(ctl, argc, argv, NULL, NULL, NULL, -1, ret);

        if (r != CTL_EXIT_OK || ret->help)
                return r;
        return ctl_expect_args(argv[0], ret->npos, min, max);
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
