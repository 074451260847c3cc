/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What every part of hcbsctl shares: the exit codes, the client's state and
 * ctl_fail(). Every verb returns one of the CtlExit codes (never calls
 * exit()), and prints each refusal as exactly one line on stderr,
 * "hcbsctl: ...". The bus is opened lazily by the verbs that need it, so
 * --help works without a daemon.
 */

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef enum CtlExit {
        CTL_EXIT_OK = 0,
        CTL_EXIT_REFUSED = 1,     /* admission, kernel, permission */
        CTL_EXIT_USAGE = 2,       /* bad arguments, here or as judged by the daemon */
        CTL_EXIT_UNREACHABLE = 3, /* no bus, no daemon, no reply */
        CTL_EXIT_NOT_FOUND = 4,   /* no such group or process */
} CtlExit;

typedef struct Ctl {
        sd_bus *bus;
        const char *bus_address; /* NULL: the system bus (honours DBUS_SYSTEM_BUS_ADDRESS) */
        bool json;
        bool ask_password;
} Ctl;

/* A verb: argv[0] is the verb's name. Returns a CtlExit. */
typedef int (*CtlVerb)(Ctl *ctl, int argc, char *argv[]);

/* Prints "hcbsctl: <message>" on one line to stderr; returns code. */
int ctl_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
