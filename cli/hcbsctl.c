/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-errors.h"
#include "config.h"
#include "ctl-cmdline.h"
#include "ctl-getopt.h"
#include "ctl-help.h"
#include "ctl-verbs.h"
#include "macro.h"

static int verb_help(Ctl *ctl, int argc, char *argv[]) {
        if (argc < 2) {
                ctl_help_main();
                return CTL_EXIT_OK;
        }
        if (!ctl_help_verb(argv[1]))
                return ctl_fail(CTL_EXIT_USAGE, "unknown command '%s' (see 'hcbsctl --help')", argv[1]);
        return CTL_EXIT_OK;
}

static const struct {
        const char *name;
        CtlVerb fn;
} verbs[] = {
        { "status", verb_status },
        { "create", verb_create },
        { "set", verb_set },
        { "check", verb_check },
        { "apply", verb_apply },
        { "delete", verb_delete },
        { "attach", verb_attach },
        { "detach", verb_detach },
        { "run", verb_run },
        { "list", verb_list },
        { "tree", verb_tree },
        { "show", verb_show },
        { "stats", verb_stats },
        { "units", verb_units },
        { "containers", verb_containers },
        { "reserve-unit", verb_reserve_unit },
        { "release-unit", verb_release_unit },
        { "size", verb_size },
        { "why", verb_why },
        { "help", verb_help },
};

static int dispatch(Ctl *ctl, int argc, char *argv[]) {
        if (argc < 1)
                return ctl_fail(CTL_EXIT_USAGE, "missing command (see 'hcbsctl --help')");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (strcmp(argv[0], verbs[i].name) == 0)
                        return verbs[i].fn(ctl, argc, argv);
        return ctl_fail(CTL_EXIT_USAGE, "unknown command '%s' (see 'hcbsctl --help')", argv[0]);
}

/* Parses the options before COMMAND; *ret_done when --help or --version answered already. */
static int parse_global(Ctl *ctl, int argc, char *argv[], bool *ret_done) {
        static const struct option options[] = {
                CTL_COMMON_OPTIONS,
                {},
        };
        int c;

        *ret_done = false;
        optind = 0;
        while ((c = ctl_getopt(NULL, argc, argv, "+:h", options)) != -1) {
                switch (c) {
                case 'h':
                        ctl_help_main();
                        *ret_done = true;
                        return CTL_EXIT_OK;
                case CTL_ARG_VERSION:
                        printf("hcbsctl %s\n", HCBS_VERSION);
                        *ret_done = true;
                        return CTL_EXIT_OK;
                case CTL_ARG_JSON:
                        ctl->json = true;
                        break;
                case CTL_ARG_NO_ASK_PASSWORD:
                        ctl->ask_password = false;
                        break;
                case CTL_ARG_BUS_ADDRESS:
                        ctl->bus_address = optarg;
                        break;
                default:
                        return CTL_EXIT_USAGE;
                }
        }
        return CTL_EXIT_OK;
}

int main(int argc, char *argv[]) {
        Ctl ctl = { .ask_password = true };
        bool done;
        int r;

        r = parse_global(&ctl, argc, argv, &done);
        if (r != CTL_EXIT_OK || done)
                return r;
        (void) hcbs_bus_errors_register();
        r = dispatch(&ctl, argc - optind, argv + optind);
        sd_bus_flush_close_unref(ctl.bus);
        return r;
}
