/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "cpuset.h"
#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-size.h"
#include "ctl-verbs.h"
#include "duration.h"
#include "macro.h"

/* create, set, check, delete: the verbs that shape the tree. */

enum {
        ARG_PERSISTENT = CTL_ARG_VERB_FIRST,
        ARG_GROW_PARENTS,
        ARG_MOVE_PROCESSES,
        ARG_MIGRATE_TO,
        ARG_CPUS,
};

typedef struct ManageArgs {
        bool persistent;
        bool grow_parents;
        bool move_processes;
        const char *migrate_to; /* NULL: not given */
        CtlSizeArgs size;       /* create GROUP --tasks FILE: sized first */
        bool sized;
        const char *cpus;       /* --cpus as given: a CPU list (with --tasks, a bare number N only sizes) */
} ManageArgs;

typedef struct Reservation {
        const char *name;
        uint64_t runtime;
        uint64_t period;
} Reservation;

static int manage_option(const char *verb, int c, const char *arg, void *userdata) {
        ManageArgs *a = userdata;

        if (c == CTL_ARG_SIZE_CPUS || c == ARG_CPUS) {
                a->cpus = arg; /* a list or a count: told apart once the other options are read */
                return CTL_EXIT_OK;
        }
        if (c >= CTL_ARG_SIZE_TASK && c <= CTL_ARG_SIZE_SCHEDULER) {
                a->sized = true;
                return ctl_size_option(verb, c, arg, &a->size);
        }
        switch (c) {
        case ARG_PERSISTENT:
                a->persistent = true;
                break;
        case ARG_GROW_PARENTS:
                a->grow_parents = true;
                break;
        case ARG_MOVE_PROCESSES:
                a->move_processes = true;
                break;
        case ARG_MIGRATE_TO:
                /* "/" is a friendlier spelling of hcbsd's root */
                a->migrate_to = strcmp(arg, "/") == 0 ? "" : arg;
                break;
        default:
                return ctl_fail(CTL_EXIT_USAGE, "%s: unexpected option", verb);
        }
        return CTL_EXIT_OK;
}

/* GROUP RUNTIME PERIOD from exactly three positionals. */
static int parse_reservation(const char *verb, const CtlParsed *p, Reservation *ret) {
        Reservation res = {};
        int r;

        r = ctl_expect_args(verb, p->npos, 2, 3);
        if (r != CTL_EXIT_OK)
                return r;
        res.name = p->pos[0];
        /* "max": no reservation (rtmax kernels); the period is optional then */
        if (strcmp(p->pos[1], "max") == 0) {
                res.runtime = HCBS_RUNTIME_MAX_US;
                r = p->npos == 3 ? ctl_parse_duration(verb, "period", p->pos[2], &res.period) : CTL_EXIT_OK;
                if (r == CTL_EXIT_OK)
                        *ret = res;
                return r;
        }
        r = ctl_expect_args(verb, p->npos, 3, 3);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_parse_duration(verb, "runtime", p->pos[1], &res.runtime);
        if (r == CTL_EXIT_OK)
                r = ctl_parse_duration(verb, "period", p->pos[2], &res.period);
        if (r == CTL_EXIT_OK)
                *ret = res;
        return r;
}

static int append_options(sd_bus_message *m, const ManageArgs *a, const char *group) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && a->persistent)
                r = sd_bus_message_append(m, "{sv}", "persistent", "b", 1);
        if (r >= 0 && a->grow_parents)
                r = sd_bus_message_append(m, "{sv}", "grow_parents", "b", 1);
        if (r >= 0 && a->move_processes)
                r = sd_bus_message_append(m, "{sv}", "move_processes_to", "s", group);
        if (r >= 0 && a->migrate_to)
                r = sd_bus_message_append(m, "{sv}", "migrate_to", "s", a->migrate_to);
        if (r >= 0 && a->cpus)
                r = sd_bus_message_append(m, "{sv}", "cpus", "s", a->cpus);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* CreateGroup or SetBandwidth with res and a's options. */
static int call_reservation(Ctl *ctl, const char *method, const Reservation *res, const ManageArgs *a) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, method, &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "stt", res->name, res->runtime, res->period);
        if (r >= 0)
                r = append_options(m, a, res->name);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        return ctl_call(ctl, m, NULL);
}

static const struct option create_options[] = {
        { "persistent", no_argument, NULL, ARG_PERSISTENT },
        { "grow-parents", no_argument, NULL, ARG_GROW_PARENTS },
        { "move-processes", no_argument, NULL, ARG_MOVE_PROCESSES },
        CTL_SIZE_OPTIONS,
        {},
};

/* create GROUP --tasks FILE: SizeReservation, then CreateGroup with its answer. */
static int create_sized(Ctl *ctl, const char *verb, const CtlParsed *p, const ManageArgs *a) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN];
        Reservation res = {};
        CtlSizing s;
        int r;

        r = ctl_expect_args(verb, p->npos, 1, 1);
        if (r != CTL_EXIT_OK)
                return r;
        if (a->size.n_tasks == 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: no tasks: give --tasks FILE or --task WCET:PERIOD[:DEADLINE]", verb);
        r = ctl_size_call(ctl, &a->size, &s);
        if (r != CTL_EXIT_OK)
                return r;
        res = (Reservation) { p->pos[0], s.runtime_us, s.period_us };
        ctl_sizing_done(&s);
        r = call_reservation(ctl, "CreateGroup", &res, a);
        if (r == CTL_EXIT_OK && !ctl->json)
                printf("created %s: %s every %s on each CPU (sized for %zu task%s)\n", res.name,
                       hcbs_duration_format(res.runtime, rb), hcbs_duration_format(res.period, pb),
                       a->size.n_tasks, a->size.n_tasks == 1 ? "" : "s");
        else if (r == CTL_EXIT_OK) {
                Json j;
                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "name", res.name);
                json_kv_uint(&j, "runtime_us", res.runtime);
                json_kv_uint(&j, "period_us", res.period);
                json_kv_double(&j, "bandwidth", (double) hcbs_bw(res.period, (int64_t) res.runtime) / HCBS_BW_UNIT);
                json_object_end(&j);
                json_finish(&j);
        }
        return r;
}

static void manage_args_done(ManageArgs *a) {
        ctl_size_args_done(&a->size);
}

/*
 * --cpus: the group's CPUs, a list as cpuset.cpus takes it (rtmax v7). With --task/--tasks it also gives
 * sizing its number of CPUs, and a bare number N there (as in hcbsctl size) only sizes for N CPUs.
 */
static int resolve_cpus(const char *verb, ManageArgs *a) {
        HcbsCpuSet set;
        char sized[16];

        if (!a->cpus)
                return CTL_EXIT_OK;
        if (a->sized && a->cpus[strspn(a->cpus, "0123456789")] == '\0') {
                int r = ctl_size_option(verb, CTL_ARG_SIZE_CPUS, a->cpus, &a->size);
                a->cpus = NULL;
                return r;
        }
        if (hcbs_cpuset_parse(a->cpus, &set) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: --cpus '%s' is not a CPU list (like 0-1 or 2,3)", verb, a->cpus);
        if (!a->sized || hcbs_cpuset_is_empty(&set))
                return CTL_EXIT_OK;
        snprintf(sized, sizeof(sized), "%u", hcbs_cpuset_count(&set));
        return ctl_size_option(verb, CTL_ARG_SIZE_CPUS, sized, &a->size);
}

int verb_create(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_(manage_args_done) ManageArgs a = {};
        Reservation res;
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, create_options, manage_option, &a, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = resolve_cpus(argv[0], &a);
        if (r != CTL_EXIT_OK)
                return r;
        if (a.sized)
                return create_sized(ctl, argv[0], &p, &a);
        r = parse_reservation(argv[0], &p, &res);
        if (r != CTL_EXIT_OK)
                return r;
        return call_reservation(ctl, "CreateGroup", &res, &a);
}

static const struct option set_options[] = {
        { "grow-parents", no_argument, NULL, ARG_GROW_PARENTS },
        { "cpus", required_argument, NULL, ARG_CPUS },
        {},
};

int verb_set(Ctl *ctl, int argc, char *argv[]) {
        ManageArgs a = {};
        Reservation res;
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, set_options, manage_option, &a, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = resolve_cpus(argv[0], &a);
        if (r != CTL_EXIT_OK)
                return r;
        r = parse_reservation(argv[0], &p, &res);
        if (r != CTL_EXIT_OK)
                return r;
        return call_reservation(ctl, "SetBandwidth", &res, &a);
}

static void check_print_json(const Reservation *res, bool ok, const char *error, const char *message) {
        Json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "name", res->name);
        json_kv_uint(&j, "runtime_us", res->runtime);
        json_kv_uint(&j, "period_us", res->period);
        json_kv_double(&j, "bandwidth", (double) hcbs_bw(res->period, (int64_t) res->runtime) / HCBS_BW_UNIT);
        json_kv_bool(&j, "admitted", ok);
        json_kv_string(&j, "error", ok ? NULL : error);
        json_kv_string(&j, "message", ok ? NULL : message);
        json_object_end(&j);
        json_finish(&j);
}

static void check_print_text(const Reservation *res) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN], bb[HCBS_BW_STRLEN];

        printf("admitted: %s %s/%s (%s per CPU)\n", res->name, hcbs_duration_format(res->runtime, rb),
               hcbs_duration_format(res->period, pb), hcbs_bw_format(hcbs_bw(res->period, (int64_t) res->runtime), bb));
}

/* Prints CheckBandwidth's answer and returns the exit code the real operation would give. */
static int check_report(Ctl *ctl, const Reservation *res, bool ok, const char *error, const char *message) {
        if (ctl->json)
                check_print_json(res, ok, error, message);
        else if (ok)
                check_print_text(res);
        if (ok)
                return CTL_EXIT_OK;
        return ctl_fail(ctl_exit_for_error_name(error), "%s", *message ? message : error);
}

int verb_check(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL, *reply = NULL;
        const char *error, *message;
        Reservation res;
        CtlParsed p;
        int ok, r;

        r = ctl_parse_verb(ctl, argc, argv, NULL, NULL, NULL, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = parse_reservation(argv[0], &p, &res);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "CheckBandwidth", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "stt", res.name, res.runtime, res.period);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        r = ctl_call(ctl, m, &reply);
        if (r != CTL_EXIT_OK)
                return r;
        r = sd_bus_message_read(reply, "bss", &ok, &error, &message);
        if (r < 0)
                return ctl_fail_errno(r, "cannot parse the CheckBandwidth reply");
        return check_report(ctl, &res, ok, error, message);
}

static const struct option delete_options[] = {
        { "migrate-to", required_argument, NULL, ARG_MIGRATE_TO },
        {},
};

int verb_delete(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        ManageArgs a = {};
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, delete_options, manage_option, &a, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_expect_args(argv[0], p.npos, 1, 1);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "DeleteGroup", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", p.pos[0]);
        if (r >= 0)
                r = append_options(m, &a, p.pos[0]);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        return ctl_call(ctl, m, NULL);
}
