/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One option or argument at a time: getopt_long() with hcbsctl's messages,
 * the count of positional arguments, and the values (a duration, a process
 * id, a priority). Each returns a CtlExit and prints the reason
 * ("hcbsctl VERB: ...") on a usage error; output parameters are written only
 * on success. ctl-cmdline.h parses a verb's whole command line with them.
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
