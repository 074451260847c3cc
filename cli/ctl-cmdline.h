/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A verb's whole command line: the options every verb accepts (--help,
 * --json, --no-ask-password, --bus-address, --version), the verb's own
 * through a callback, and its positional arguments.
 */

#include <getopt.h>
#include <stdbool.h>

#include "ctl.h"

/* Options every verb accepts besides its own, handled by ctl_parse_verb(). */
enum {
        CTL_ARG_JSON = 0x100,
        CTL_ARG_NO_ASK_PASSWORD,
        CTL_ARG_BUS_ADDRESS,
        CTL_ARG_VERSION,
        CTL_ARG_VERB_FIRST = 0x200, /* verbs number their own options from here */
};

#define CTL_COMMON_OPTIONS                                                      \
        { "help", no_argument, NULL, 'h' },                                     \
        { "json", no_argument, NULL, CTL_ARG_JSON },                            \
        { "no-ask-password", no_argument, NULL, CTL_ARG_NO_ASK_PASSWORD },      \
        { "bus-address", required_argument, NULL, CTL_ARG_BUS_ADDRESS },        \
        { "version", no_argument, NULL, CTL_ARG_VERSION }

/* A verb's own option: c is its val, arg its value or NULL. Returns a CtlExit. */
typedef int (*CtlOptionFn)(const char *verb, int c, const char *arg, void *userdata);

#define CTL_LEAD_MAX 4

typedef struct CtlParsed {
        char **pos;  /* positional arguments */
        int npos;
        char **rest; /* after the leading positionals (lead mode) or NULL */
        int nrest;
        bool help;   /* --help or --version was given and answered: the verb is done */
        bool version;
        char *lead[CTL_LEAD_MAX];
} CtlParsed;

/*
 * Parses a verb's argv (argv[0] = verb) with the common options plus
 * options (may be NULL), calling fn for the latter.
 * lead < 0: options and positionals mix freely, "--" ends options.
 * lead = N: at most N positionals mix with options; whatever follows them
 * (or a "--") is left uninterpreted in rest (for "run GROUP -- COMMAND").
 */
int ctl_parse_verb(Ctl *ctl, int argc, char *argv[], const struct option *options, CtlOptionFn fn,
                   void *userdata, int lead, CtlParsed *ret);

/*
 * A verb with the common options only and between min and max positional
 * arguments (max < 0: no limit). After --help or --version ret->help is set
 * and the count is not checked.
 */
int ctl_parse_plain_verb(Ctl *ctl, int argc, char *argv[], int min, int max, CtlParsed *ret);
