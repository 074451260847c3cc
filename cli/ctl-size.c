/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "ctl-bus.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-observe.h"
#include "ctl-size.h"
#include "ctl-verbs.h"
#include "duration.h"
#include "error.h"
#include "macro.h"
#include "observe.h"
#include "tasks.h"

#define TASKS_MAX 100000 /* read at most this many: hcbsd names its own, lower limit */

static int add_task(const char *verb, CtlSizeArgs *a, const HcbsTask *t) {
        HcbsTask *x;

        if (a->n_tasks >= TASKS_MAX)
                return ctl_fail(CTL_EXIT_USAGE, "%s: more than %d tasks", verb, TASKS_MAX);
        x = realloc(a->tasks, (a->n_tasks + 1) * sizeof(*x));
        if (!x)
                return ctl_fail_errno(-ENOMEM, "cannot store the tasks");
        a->tasks = x;
        a->tasks[a->n_tasks++] = *t;
        return CTL_EXIT_OK;
}

static int read_task_file(const char *verb, const char *path, CtlSizeArgs *a) {
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        bool stdin_ = strcmp(path, "-") == 0;
        FILE *f = stdin_ ? stdin : fopen(path, "re");
        ssize_t len;
        int r = CTL_EXIT_OK;

        if (!f)
                return ctl_fail(CTL_EXIT_USAGE, "%s: cannot open %s: %s", verb, path, strerror(errno));
        while (r == CTL_EXIT_OK && (len = getline(&line, &size, f)) >= 0) {
                char err[HCBS_ERRLEN], *hash = strchr(line, '#'), *s = line;
                HcbsTask t;

                lineno++;
                if (hash)
                        *hash = '\0';
                s += strspn(s, " \t\r\n");
                s[strcspn(s, "\r\n")] = '\0';
                for (size_t l = strlen(s); l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t'); l--)
                        s[l - 1] = '\0';
                if (!*s)
                        continue;
                if (hcbs_task_parse(s, &t, err, sizeof(err)) < 0)
                        r = ctl_fail(CTL_EXIT_USAGE, "%s: %s:%u: %s", verb, path, lineno, err);
                else
                        r = add_task(verb, a, &t);
        }
        if (r == CTL_EXIT_OK && ferror(f))
                r = ctl_fail(CTL_EXIT_USAGE, "%s: cannot read %s: %s", verb, path, strerror(errno));
        if (!stdin_)
                fclose(f);
        return r;
}

static int parse_cpus(const char *verb, const char *s, uint32_t *ret) {
        char *end;
        unsigned long v;

        errno = 0;
        v = (s[0] >= '0' && s[0] <= '9') ? strtoul(s, &end, 10) : 0;
        if (errno || v < 1 || v > 1024 || *end)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid --cpus '%s' (1..1024)", verb, s);
        *ret = (uint32_t) v;
        return CTL_EXIT_OK;
}

int ctl_size_option(const char *verb, int c, const char *arg, CtlSizeArgs *a) {
        char err[HCBS_ERRLEN];
        HcbsTask t;
        int r;

        switch (c) {
        case CTL_ARG_SIZE_TASK:
                if (hcbs_task_parse(arg, &t, err, sizeof(err)) < 0)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: %s", verb, err);
                return add_task(verb, a, &t);
        case CTL_ARG_SIZE_TASKS:
                return read_task_file(verb, arg, a);
        case CTL_ARG_SIZE_CPUS:
                return parse_cpus(verb, arg, &a->cpus);
        case CTL_ARG_SIZE_PERIOD:
                if (a->min_period_us || a->max_period_us)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: --period and --period-range exclude each other", verb);
                return ctl_parse_duration(verb, "period", arg, &a->period_us);
        case CTL_ARG_SIZE_PERIOD_RANGE: {
                const char *dots = strstr(arg, "..");
                char lo[64];

                if (a->period_us)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: --period and --period-range exclude each other", verb);
                if (!dots || (size_t) (dots - arg) >= sizeof(lo) || dots == arg || !dots[2])
                        return ctl_fail(CTL_EXIT_USAGE, "%s: invalid --period-range '%s' (expected MIN..MAX, e.g. 1ms..10ms)",
                                        verb, arg);
                memcpy(lo, arg, dots - arg);
                lo[dots - arg] = '\0';
                r = ctl_parse_duration(verb, "minimum period", lo, &a->min_period_us);
                if (r == CTL_EXIT_OK)
                        r = ctl_parse_duration(verb, "maximum period", dots + 2, &a->max_period_us);
                if (r == CTL_EXIT_OK && (a->min_period_us == 0 || a->min_period_us > a->max_period_us))
                        r = ctl_fail(CTL_EXIT_USAGE, "%s: --period-range '%s' is empty", verb, arg);
                return r;
        }
        case CTL_ARG_SIZE_SCHEDULER:
                if (strcmp(arg, "fp") != 0 && strcmp(arg, "edf") != 0)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: invalid --scheduler '%s' (fp or edf)", verb, arg);
                a->scheduler = arg;
                return CTL_EXIT_OK;
        default:
                return ctl_fail(CTL_EXIT_USAGE, "%s: unexpected option", verb);
        }
}

void ctl_size_args_done(CtlSizeArgs *a) {
        free(a->tasks);
        a->tasks = NULL;
        a->n_tasks = 0;
}

void ctl_sizing_done(CtlSizing *s) {
        free(s->rank);
        free(s->response);
        s->rank = NULL;
        s->response = NULL;
}

static int append_request(sd_bus_message *m, const CtlSizeArgs *a) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "(ttt)");
        for (size_t i = 0; i < a->n_tasks && r >= 0; i++)
                r = sd_bus_message_append(m, "(ttt)", a->tasks[i].wcet_us, a->tasks[i].period_us,
                                          a->tasks[i].deadline_us);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && a->cpus)
                r = sd_bus_message_append(m, "{sv}", "cpus", "u", a->cpus);
        if (r >= 0 && a->period_us)
                r = sd_bus_message_append(m, "{sv}", "period", "t", a->period_us);
        if (r >= 0 && a->min_period_us)
                r = sd_bus_message_append(m, "{sv}", "min_period", "t", a->min_period_us);
        if (r >= 0 && a->max_period_us)
                r = sd_bus_message_append(m, "{sv}", "max_period", "t", a->max_period_us);
        if (r >= 0 && a->scheduler)
                r = sd_bus_message_append(m, "{sv}", "scheduler", "s", a->scheduler);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* Reads an array of n u32 (type 'u') or u64 ('t') from the current variant into a new buffer. */
static int read_array(sd_bus_message *reply, char type, size_t n, void **ret) {
        const void *p;
        size_t size, elem = type == 'u' ? 4 : 8;
        int r;

        r = sd_bus_message_read_array(reply, type, &p, &size);
        if (r < 0)
                return r;
        if (size != n * elem)
                return -EBADMSG;
        *ret = malloc(size ? size : 1);
        if (!*ret)
                return -ENOMEM;
        memcpy(*ret, p, size);
        return 0;
}

static int read_details(sd_bus_message *reply, size_t n, CtlSizing *s) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key, *contents;

                r = sd_bus_message_read(reply, "s", &key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(reply, NULL, &contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(reply, 'v', contents);
                if (r < 0)
                        return r;
                if (strcmp(key, "bandwidth") == 0 && strcmp(contents, "d") == 0)
                        r = sd_bus_message_read(reply, "d", &s->bandwidth);
                else if (strcmp(key, "utilisation") == 0 && strcmp(contents, "d") == 0)
                        r = sd_bus_message_read(reply, "d", &s->utilisation);
                else if (strcmp(key, "limit") == 0 && strcmp(contents, "d") == 0)
                        r = sd_bus_message_read(reply, "d", &s->limit);
                else if (strcmp(key, "budget") == 0 && strcmp(contents, "t") == 0)
                        r = sd_bus_message_read(reply, "t", &s->budget_us);
                else if (strcmp(key, "scheduler") == 0 && strcmp(contents, "s") == 0) {
                        const char *x;
                        r = sd_bus_message_read(reply, "s", &x);
                        if (r >= 0)
                                snprintf(s->scheduler, sizeof(s->scheduler), "%s", x);
                } else if (strcmp(key, "rank") == 0 && strcmp(contents, "au") == 0 && !s->rank)
                        r = read_array(reply, 'u', n, (void **) &s->rank);
                else if (strcmp(key, "response") == 0 && strcmp(contents, "at") == 0 && !s->response)
                        r = read_array(reply, 't', n, (void **) &s->response);
                else
                        r = sd_bus_message_skip(reply, contents);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

int ctl_size_call(Ctl *ctl, const CtlSizeArgs *a, CtlSizing *ret) {
        _cleanup_msg_ sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        CtlSizing s = { .scheduler = "fp" };
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "SizeReservation", &m);
        if (r >= 0)
                r = append_request(m, a);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        r = sd_bus_call(ctl->bus, m, 0, &error, &reply);
        if (r < 0) {
                const char *name = error.name;
                bool verdict = name && strncmp(name, HCBS_ERROR_PREFIX, strlen(HCBS_ERROR_PREFIX)) == 0;

                if (ctl->json && verdict) {
                        Json j;
                        json_init(&j, stdout);
                        json_object_begin(&j);
                        json_kv_bool(&j, "schedulable", false);
                        json_kv_string(&j, "error", name + strlen(HCBS_ERROR_PREFIX));
                        json_kv_string(&j, "reason", error.message);
                        json_object_end(&j);
                        json_finish(&j);
                }
                r = ctl_bus_fail(&error, r);
                sd_bus_error_free(&error);
                return r;
        }
        r = sd_bus_message_read(reply, "ttu", &s.runtime_us, &s.period_us, &s.cpus);
        if (r >= 0)
                r = read_details(reply, a->n_tasks, &s);
        if (r < 0) {
                ctl_sizing_done(&s);
                return ctl_fail_errno(r, "cannot parse the SizeReservation reply");
        }
        *ret = s;
        return CTL_EXIT_OK;
}

/* ---- hcbsctl size --------------------------------------------------------------------------- */

static uint64_t deadline_of(const HcbsTask *t) {
        return t->deadline_us ? t->deadline_us : t->period_us;
}

void ctl_size_json(Json *j, const CtlSizeArgs *a, const CtlSizing *s) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN], cmd[128];

        snprintf(cmd, sizeof(cmd), "hcbsctl create GROUP %s %s", hcbs_duration_format(s->runtime_us, rb),
                 hcbs_duration_format(s->period_us, pb));
        json_object_begin(j);
        json_kv_uint(j, "runtime_us", s->runtime_us);
        json_kv_uint(j, "period_us", s->period_us);
        json_kv_uint(j, "cpus", s->cpus);
        json_kv_double(j, "bandwidth", s->bandwidth);
        json_kv_bool(j, "schedulable", true);
        json_kv_uint(j, "budget_us", s->budget_us);
        json_kv_double(j, "bandwidth_total", s->bandwidth * s->cpus);
        json_kv_double(j, "utilisation", s->utilisation);
        json_kv_double(j, "limit", s->limit);
        json_kv_string(j, "scheduler", s->scheduler);
        json_key(j, "tasks");
        json_array_begin(j);
        for (size_t i = 0; i < a->n_tasks; i++) {
                const HcbsTask *t = &a->tasks[i];
                uint64_t resp = s->response ? s->response[i] : 0;

                json_object_begin(j);
                json_kv_uint(j, "wcet_us", t->wcet_us);
                json_kv_uint(j, "period_us", t->period_us);
                json_kv_uint(j, "deadline_us", deadline_of(t));
                if (s->rank)
                        json_kv_uint(j, "rank", s->rank[i]);
                json_key(j, "response_us");
                if (resp)
                        json_uint(j, resp);
                else
                        json_null(j);
                json_key(j, "slack_us");
                if (resp && resp <= deadline_of(t))
                        json_uint(j, deadline_of(t) - resp);
                else
                        json_null(j);
                json_object_end(j);
        }
        json_array_end(j);
        json_kv_string(j, "create", cmd);
        json_object_end(j);
}

void ctl_size_print_text(const CtlSizeArgs *a, const CtlSizing *s) {
        char b1[HCBS_DURATION_STRLEN], b2[HCBS_DURATION_STRLEN], b3[HCBS_DURATION_STRLEN], b4[HCBS_DURATION_STRLEN],
                b5[HCBS_DURATION_STRLEN];
        bool edf = strcmp(s->scheduler, "edf") == 0;

        printf("interface:  %s every %s on each of %u CPU%s (%s per period in all)\n",
               hcbs_duration_format(s->runtime_us, b1), hcbs_duration_format(s->period_us, b2), s->cpus,
               s->cpus == 1 ? "" : "s", hcbs_duration_format(s->budget_us, b3));
        printf("bandwidth:  %.1f%% per CPU, %.1f%% in all (the tasks use %.1f%%; limit %.1f%% per CPU)\n",
               s->bandwidth * 100, s->bandwidth * 100 * s->cpus, s->utilisation * 100, s->limit * 100);
        if (edf)
                printf("scheduler:  edf\n");
        else
                printf("scheduler:  fp on %s; give the tasks distinct SCHED_FIFO priorities, rank 1 highest\n",
                       s->cpus == 1 ? "one CPU" : "the CPUs (global)");
        printf("\n%5s %5s %10s %10s %10s %10s %10s\n", "rank", "task", "wcet", "period", "deadline", "response",
               "slack");
        for (size_t i = 0; i < a->n_tasks; i++) {
                const HcbsTask *t = &a->tasks[i];
                uint64_t resp = s->response ? s->response[i] : 0, d = deadline_of(t);
                char rank[16];

                snprintf(rank, sizeof(rank), "%u", s->rank ? s->rank[i] : 0);
                printf("%5s %5zu %10s %10s %10s %10s %10s\n", s->rank ? rank : "-", i + 1,
                       hcbs_duration_format(t->wcet_us, b1), hcbs_duration_format(t->period_us, b2),
                       hcbs_duration_format(d, b3), resp ? hcbs_duration_format(resp, b4) : "-",
                       resp && resp <= d ? hcbs_duration_format(d - resp, b5) : "-");
        }
        printf("\nreserve it: hcbsctl create GROUP %s %s\n", hcbs_duration_format(s->runtime_us, b1),
               hcbs_duration_format(s->period_us, b2));
}

enum { ARG_OBSERVE = CTL_ARG_VERB_FIRST, ARG_FOR, ARG_MARGIN, ARG_APPLY };

typedef struct SizeVerbArgs {
        CtlSizeArgs size;
        CtlObserveArgs observe;
        bool for_given, margin_given;
} SizeVerbArgs;

static int size_option(const char *verb, int c, const char *arg, void *userdata) {
        SizeVerbArgs *a = userdata;
        char *end;
        unsigned long v;

        switch (c) {
        case ARG_OBSERVE:
                a->observe.target = arg;
                return CTL_EXIT_OK;
        case ARG_FOR:
                a->for_given = true;
                return ctl_parse_duration(verb, "observation", arg, &a->observe.duration_us);
        case ARG_MARGIN:
                errno = 0;
                v = arg[0] >= '0' && arg[0] <= '9' ? strtoul(arg, &end, 10) : ULONG_MAX;
                if (errno || v > HCBS_OBSERVE_MARGIN_MAX || (*end && strcmp(end, "%") != 0))
                        return ctl_fail(CTL_EXIT_USAGE, "%s: invalid --margin '%s' (0 to %d percent)", verb, arg,
                                        HCBS_OBSERVE_MARGIN_MAX);
                a->observe.margin = (uint32_t) v;
                a->margin_given = true;
                return CTL_EXIT_OK;
        case ARG_APPLY:
                a->observe.apply = true;
                return CTL_EXIT_OK;
        default:
                return ctl_size_option(verb, c, arg, &a->size);
        }
}

static const struct option size_options[] = {
        CTL_SIZE_OPTIONS,
        { "observe", required_argument, NULL, ARG_OBSERVE },
        { "for", required_argument, NULL, ARG_FOR },
        { "margin", required_argument, NULL, ARG_MARGIN },
        { "apply", no_argument, NULL, ARG_APPLY },
        {},
};

int verb_size(Ctl *ctl, int argc, char *argv[]) {
        SizeVerbArgs sa = { .observe = { .duration_us = 10 * 1000000ULL, .margin = HCBS_OBSERVE_MARGIN_DEFAULT } };
        _cleanup_(ctl_size_args_done) CtlSizeArgs a = {};
        CtlSizing s;
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, size_options, size_option, &sa, -1, &p);
        a = sa.size;
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_expect_args(argv[0], p.npos, 0, 0);
        if (r != CTL_EXIT_OK)
                return r;
        if (sa.observe.target) {
                if (a.n_tasks > 0)
                        return ctl_fail(CTL_EXIT_USAGE, "%s: --observe derives the tasks: no --task or --tasks with it",
                                        argv[0]);
                return ctl_size_observed(ctl, &a, &sa.observe);
        }
        if (sa.for_given || sa.margin_given || sa.observe.apply)
                return ctl_fail(CTL_EXIT_USAGE, "%s: --for, --margin and --apply go with --observe", argv[0]);
        if (a.n_tasks == 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: no tasks: give --task WCET:PERIOD[:DEADLINE] or --tasks FILE",
                                argv[0]);
        r = ctl_size_call(ctl, &a, &s);
        if (r != CTL_EXIT_OK)
                return r;
        if (ctl->json) {
                Json j;
                json_init(&j, stdout);
                ctl_size_json(&j, &a, &s);
                json_finish(&j);
        } else
                ctl_size_print_text(&a, &s);
        ctl_sizing_done(&s);
        return CTL_EXIT_OK;
}
