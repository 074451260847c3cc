/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Command-line parsing helpers. Each returns a CtlExit and prints the
 * reason ("hcbsctl VERB: ...") on a usage error; output parameters are
 * written only on success.
 */

#include <getopt.h>
#include <stdint.h>

/*
 * getopt_long() with one-line messages of our own. shortopts must start
 * with ':' (after an optional '+'). verb names the command in messages
 * (NULL for the global options). Returns the option, -1 at the end, or
 * '?' after printing the reason.
 */
int ctl_getopt(const char *verb, int argc, char *argv[], const char *shortopts,
               const struct option *longopts);

/* Checks that a verb got between min and max positional arguments (max < 0: no limit). */
int ctl_expect_args(const char *verb, int n, int min, int max);

/* A duration ("500us", "10ms", "1.5s", bare = microseconds); what = "runtime"/"period". */
int ctl_parse_duration(const char *verb, const char *what, const char *s, uint64_t *ret);

/* A process id: a positive decimal number. */
int ctl_parse_pid(const char *verb, const char *s, uint32_t *ret);

/* A real-time priority, 1..99, given to option. */
int ctl_parse_priority(const char *verb, const char *option, const char *s, int32_t *ret);

#include <stdbool.h>

#include "hcbsctl.h"

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
