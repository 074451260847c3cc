/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* apply: many groups from a file in one step (org.hcbsd1.Manager.Apply). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-verbs.h"
#include "duration.h"
#include "macro.h"

enum {
        ARG_DRY_RUN = CTL_ARG_VERB_FIRST,
        ARG_GROW_PARENTS,
};

typedef struct ApplyArgs {
        bool dry_run;
        bool grow_parents;
} ApplyArgs;

static int apply_option(const char *verb, int c, const char *arg, void *userdata) {
        ApplyArgs *a = userdata;

        if (c == ARG_DRY_RUN)
                a->dry_run = true;
        else if (c == ARG_GROW_PARENTS)
                a->grow_parents = true;
        else
                return ctl_fail(CTL_EXIT_USAGE, "%s: unexpected option", verb);
        return CTL_EXIT_OK;
}

/* The file ("-": standard input), parsed and checked whole before hcbsd hears of it. */
static int read_file(const char *path, HcbsConf *c) {
        char err[512] = "";
        FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
        int r;

        if (!f)
                return ctl_fail(CTL_EXIT_USAGE, "apply: %s: %s", path, strerror(errno));
        r = hcbs_conf_parse_stream(c, f, strcmp(path, "-") == 0 ? "<stdin>" : path, err, sizeof(err));
        if (f != stdin)
                fclose(f);
        if (r >= 0)
                r = hcbs_conf_validate_apply(c, err, sizeof(err));
        return r < 0 ? ctl_fail(CTL_EXIT_USAGE, "apply: %s", err) : CTL_EXIT_OK;
}

static int append_groups(sd_bus_message *m, const HcbsConf *c) {
        int r = sd_bus_message_open_container(m, 'a', "(stta{sv})");

        for (size_t i = 0; r >= 0 && i < c->n_groups; i++) {
                const HcbsGroupConf *g = &c->groups[i];
                r = sd_bus_message_open_container(m, 'r', "stta{sv}");
                if (r >= 0)
                        r = sd_bus_message_append(m, "stt", g->name, g->runtime_us, g->period_us);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'a', "{sv}");
                if (r >= 0 && g->delete_group)
                        r = sd_bus_message_append(m, "{sv}", "delete", "b", 1);
                if (r >= 0 && g->persistent)
                        r = sd_bus_message_append(m, "{sv}", "persistent", "b", 1);
                if (r >= 0 && g->has_cpus) {
                        char cpus[HCBS_CPUSET_STRLEN];
                        r = sd_bus_message_append(m, "{sv}", "cpus", "s",
                                                  hcbs_cpuset_format(&g->cpus, cpus, sizeof(cpus)));
                }
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        return r < 0 ? r : sd_bus_message_close_container(m);
}

static int print_plan(Ctl *ctl, sd_bus_message *reply, const ApplyArgs *a, size_t groups) {
        const char *op, *group, *value;
        unsigned writes = 0;
        Json j;
        int r;

        if (ctl->json) {
                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_bool(&j, "dry_run", a->dry_run);
                json_kv_uint(&j, "groups", groups);
                json_key(&j, "plan");
                json_array_begin(&j);
        }
        r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sss)", &op, &group, &value)) > 0) {
                writes++;
                if (ctl->json) {
                        json_object_begin(&j);
                        json_kv_string(&j, "op", op);
                        json_kv_string(&j, "group", group);
                        json_kv_string(&j, "value", value[0] ? value : NULL);
                        json_object_end(&j);
                } else if (a->dry_run)
                        printf("%-5s %s%s%s\n", op, group[0] ? group : "/", value[0] ? " " : "", value);
        }
        if (r < 0) {
                if (ctl->json)
                        json_done(&j);
                return ctl_fail_errno(r, "cannot read hcbsd's reply");
        }
        if (ctl->json) {
                json_array_end(&j);
                json_object_end(&j);
                json_finish(&j);
        } else
                printf("%s %zu group(s): %u kernel operation(s)%s\n", a->dry_run ? "would apply" : "applied", groups,
                       writes, a->dry_run ? ", nothing written" : "");
        return CTL_EXIT_OK;
}

static const struct option apply_options[] = {
        { "dry-run", no_argument, NULL, ARG_DRY_RUN },
        { "grow-parents", no_argument, NULL, ARG_GROW_PARENTS },
        {},
};

int verb_apply(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(hcbs_conf_done) HcbsConf c = {};
        ApplyArgs a = {};
        CtlParsed p;
        int r;

        hcbs_conf_init(&c);
        r = ctl_parse_verb(ctl, argc, argv, apply_options, apply_option, &a, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_expect_args(argv[0], p.npos, 1, 1);
        if (r == CTL_EXIT_OK)
                r = read_file(p.pos[0], &c);
        if (r == CTL_EXIT_OK)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "Apply", &m);
        if (r >= 0)
                r = append_groups(m, &c);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 2, "grow_parents", "b", a.grow_parents, "dry_run", "b",
                                          a.dry_run);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        r = ctl_call(ctl, m, &reply);
        if (r != CTL_EXIT_OK)
                return r;
        return print_plan(ctl, reply, &a, c.n_groups);
}
