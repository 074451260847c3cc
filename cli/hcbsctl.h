/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl: the command-line client of org.hcbsd1.
 *
 * Every verb returns one of the CtlExit codes below (never calls exit()),
 * and prints each refusal as exactly one line on stderr, "hcbsctl: ...".
 * The bus is opened lazily by the verbs that need it, so --help works
 * without a daemon.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define HCBS_BUS_NAME "org.hcbsd1"
#define HCBS_BUS_PATH "/org/hcbsd1"
#define HCBS_BUS_GROUP_PREFIX "/org/hcbsd1/group"
#define HCBS_BUS_MANAGER "org.hcbsd1.Manager"
#define HCBS_BUS_GROUP "org.hcbsd1.Group"

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

/* The verbs (ctl-manage.c, ctl-process.c, ctl-show.c, ctl-tree.c, ctl-units.c). */
int verb_create(Ctl *ctl, int argc, char *argv[]);
int verb_set(Ctl *ctl, int argc, char *argv[]);
int verb_check(Ctl *ctl, int argc, char *argv[]);
int verb_apply(Ctl *ctl, int argc, char *argv[]);
int verb_delete(Ctl *ctl, int argc, char *argv[]);
int verb_attach(Ctl *ctl, int argc, char *argv[]);
int verb_detach(Ctl *ctl, int argc, char *argv[]);
int verb_run(Ctl *ctl, int argc, char *argv[]);
int verb_status(Ctl *ctl, int argc, char *argv[]);
int verb_list(Ctl *ctl, int argc, char *argv[]);
int verb_show(Ctl *ctl, int argc, char *argv[]);
int verb_stats(Ctl *ctl, int argc, char *argv[]);
int verb_tree(Ctl *ctl, int argc, char *argv[]);
int verb_units(Ctl *ctl, int argc, char *argv[]);
int verb_containers(Ctl *ctl, int argc, char *argv[]);
int verb_reserve_unit(Ctl *ctl, int argc, char *argv[]);
int verb_release_unit(Ctl *ctl, int argc, char *argv[]);
int verb_size(Ctl *ctl, int argc, char *argv[]); /* ctl-size.c */
