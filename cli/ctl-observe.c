/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbsctl size --observe TARGET [--for DURATION] [--margin PCT] [--apply]:
 * ObserveTasks() watches the target's RT threads for DURATION; their jobs
 * make a task set (the --tasks FILE format, printed so that it can be
 * edited and used again), SizeReservation() sizes it as `hcbsctl size`
 * does, and --apply gives the group (SetBandwidth) or the unit
 * (ReserveUnit) that reservation, through hcbsd's admission and plan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-bus.h"
#include "ctl-json.h"
#include "ctl-observe.h"
#include "duration.h"
#include "macro.h"
#include "observe.h"

typedef struct Observed {
        uint32_t tid, tgid;
        const char *comm, *shape; /* point into the reply */
        uint64_t jobs, exec_mean_ns, exec_p50_ns, exec_p999_ns, exec_max_ns, period_ns, jitter_ns, interval_min_ns,
                interval_max_ns;
        uint64_t wcet_us, task_period_us;
} Observed;

typedef struct Observation {
        sd_bus_message *reply;
        Observed *v;
        size_t n;
        const char *group; /* "": a process outside hcbsd's groups */
        int unit;          /* group is a unit's name */
        uint32_t pid, margin;
        uint64_t duration_us, jobs_lost, jobs_dropped;
} Observation;

static void observation_done(Observation *o) {
        sd_bus_message_unref(o->reply);
        free(o->v);
        *o = (Observation) {};
}

static int read_threads(sd_bus_message *m, Observation *o) {
        size_t cap = 0;
        Observed t;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(uussttttttttttt)");
        while (r >= 0 && (r = sd_bus_message_read(m, "(uussttttttttttt)", &t.tid, &t.tgid, &t.comm, &t.shape, &t.jobs,
                                                  &t.exec_mean_ns, &t.exec_p50_ns, &t.exec_p999_ns, &t.exec_max_ns, &t.period_ns,
                                                  &t.jitter_ns, &t.interval_min_ns, &t.interval_max_ns, &t.wcet_us,
                                                  &t.task_period_us)) > 0) {
                if (o->n == cap) {
                        Observed *v = realloc(o->v, (cap = cap ? 2 * cap : 16) * sizeof(Observed));
                        if (!v)
                                return -ENOMEM;
                        o->v = v;
                }
                o->v[o->n++] = t;
        }
        return r < 0 ? r : sd_bus_message_exit_container(m);
}

static int read_info(sd_bus_message *m, Observation *o) {
        const char *key, *contents;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(m, NULL, &contents);
                if (r < 0)
                        break;
                if (strcmp(key, "group") == 0 && strcmp(contents, "s") == 0)
                        r = sd_bus_message_read(m, "v", "s", &o->group);
                else if (strcmp(key, "unit") == 0 && strcmp(contents, "b") == 0)
                        r = sd_bus_message_read(m, "v", "b", &o->unit);
                else if (strcmp(key, "pid") == 0 && strcmp(contents, "u") == 0)
                        r = sd_bus_message_read(m, "v", "u", &o->pid);
                else if (strcmp(key, "margin") == 0 && strcmp(contents, "u") == 0)
                        r = sd_bus_message_read(m, "v", "u", &o->margin);
                else if (strcmp(key, "duration_us") == 0 && strcmp(contents, "t") == 0)
                        r = sd_bus_message_read(m, "v", "t", &o->duration_us);
                else if (strcmp(key, "jobs_lost") == 0 && strcmp(contents, "t") == 0)
                        r = sd_bus_message_read(m, "v", "t", &o->jobs_lost);
                else if (strcmp(key, "jobs_dropped") == 0 && strcmp(contents, "t") == 0)
                        r = sd_bus_message_read(m, "v", "t", &o->jobs_dropped);
                else
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        return r < 0 ? r : sd_bus_message_exit_container(m);
}

static int observe_call(Ctl *ctl, const CtlObserveArgs *a, Observation *ret) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Observation o = { .group = "" };
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "ObserveTasks", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "st", a->target, a->duration_us);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 1, "margin", "u", a->margin);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        if (isatty(STDERR_FILENO)) /* for a person waiting; scripts get stdout and one line of error */
                fprintf(stderr, "observing %s for %s...\n", a->target,
                        hcbs_duration_format(a->duration_us, (char[HCBS_DURATION_STRLEN]) {}));
        /* answered when the observation is over: wait for it, and a minute more */
        r = sd_bus_call(ctl->bus, m, a->duration_us + 60 * 1000000ULL, &error, &o.reply);
        if (r < 0) {
                r = ctl_bus_fail_about("size --observe", &error, r);
                sd_bus_error_free(&error);
                return r;
        }
        r = ctl_check_reply(m, o.reply, "size --observe");
        if (r != CTL_EXIT_OK) {
                observation_done(&o);
                return r;
        }
        r = read_threads(o.reply, &o);
        if (r >= 0)
                r = read_info(o.reply, &o);
        if (r < 0) {
                observation_done(&o);
                return ctl_fail_errno(r, "cannot parse the ObserveTasks reply");
        }
        *ret = o;
        return CTL_EXIT_OK;
}

/* Nanoseconds for a table: 2.01ms, 45us. */
static const char *ns(uint64_t v, char buf[static HCBS_DURATION_STRLEN]) {
        if (v >= 1000000)
                snprintf(buf, HCBS_DURATION_STRLEN, "%.3fms", (double) v / 1e6);
        else
                snprintf(buf, HCBS_DURATION_STRLEN, "%.1fus", (double) v / 1e3);
        return buf;
}

/* Why a thread gives no task, for a person; NULL when it gives one. */
static const char *no_task_why(const Observed *t, const Observation *o, char buf[static 160]) {
        char b[HCBS_DURATION_STRLEN];

        if (strcmp(t->shape, "unbounded") == 0)
                snprintf(buf, 160, "it ran half of the %s observed without a sleep: its jobs have no end, so no "
                         "runtime can hold them", hcbs_duration_format(o->duration_us, b));
        else if (strcmp(t->shape, "aperiodic") == 0)
                snprintf(buf, 160, "its releases come in bursts (%" PRIu64 " jobs, as close as %s): no minimum "
                         "interval to size it with", t->jobs, ns(t->interval_min_ns, b));
        else if (strcmp(t->shape, "periodic") != 0 && strcmp(t->shape, "sporadic") != 0)
                snprintf(buf, 160, "%" PRIu64 " jobs in %s are too few to tell its period: observe longer (--for)",
                         t->jobs, hcbs_duration_format(o->duration_us, b));
        else
                return NULL;
        return buf;
}

/* The task set in the --tasks FILE format, with what each line comes from. */
static void print_tasks(FILE *f, const Observation *o) {
        char b1[HCBS_DURATION_STRLEN], b2[HCBS_DURATION_STRLEN], why[160];

        fprintf(f, "# the task set (hcbsctl size --tasks FILE): WCET is the largest execution time seen plus "
                   "%" PRIu32 "%% (--margin),\n# as the largest of a few hundred jobs is a sample, not a bound\n",
                o->margin);
        for (size_t i = 0; i < o->n; i++) {
                const Observed *t = &o->v[i];
                if (no_task_why(t, o, why)) {
                        fprintf(f, "# tid %" PRIu32 " (%s): %s: %s\n", t->tid, t->comm, t->shape, why);
                        continue;
                }
                fprintf(f, "%" PRIu64 "us:%" PRIu64 "us  # tid %" PRIu32 " (%s): %s, %" PRIu64 " jobs, %s %s, "
                           "largest execution %s\n",
                        t->wcet_us, t->task_period_us, t->tid, t->comm, t->shape, t->jobs,
                        strcmp(t->shape, "periodic") == 0 ? "period" : "least interval", ns(t->period_ns, b1),
                        ns(t->exec_max_ns, b2));
        }
}

static void print_observation(const Observation *o) {
        char b[7][HCBS_DURATION_STRLEN];
        uint64_t jobs = 0;

        for (size_t i = 0; i < o->n; i++)
                jobs += o->v[i].jobs;
        if (o->pid)
                printf("observed process %" PRIu32 "%s%s", o->pid, o->group[0] ? " in " : "", o->group);
        else
                printf("observed %s", o->group);
        printf(" for %s: %zu RT thread%s, %" PRIu64 " jobs\n", hcbs_duration_format(o->duration_us, b[0]), o->n,
               o->n == 1 ? "" : "s", jobs);
        if (o->jobs_lost)
                printf("warning: the collector lost %" PRIu64 " job records meanwhile (ring buffer full)\n", o->jobs_lost);
        if (o->jobs_dropped)
                printf("warning: %" PRIu64 " job records were not kept (threads past the 256 hcbsd keeps, or no memory)\n",
                       o->jobs_dropped);
        printf("\n%8s %-16s %-12s %7s %10s %10s %10s %10s %10s %10s\n", "TID", "COMM", "SHAPE", "JOBS", "EXEC-MEAN",
               "EXEC-P50", "EXEC-P99.9", "EXEC-MAX", "PERIOD", "JITTER");
        for (size_t i = 0; i < o->n; i++) {
                const Observed *t = &o->v[i];
                printf("%8" PRIu32 " %-16s %-12s %7" PRIu64 " %10s %10s %10s %10s %10s %10s\n", t->tid, t->comm,
                       t->shape, t->jobs, ns(t->exec_mean_ns, b[6]), ns(t->exec_p50_ns, b[1]), ns(t->exec_p999_ns, b[2]),
                       ns(t->exec_max_ns, b[3]),
                       t->period_ns ? ns(t->period_ns, b[4]) : "-",
                       strcmp(t->shape, "periodic") == 0 ? ns(t->jitter_ns, b[5]) : "-");
        }
        printf("\n");
        print_tasks(stdout, o);
}

static void json_observation(Json *j, const Observation *o) {
        char why[160];

        json_kv_string(j, "group", o->group);
        json_kv_bool(j, "unit", o->unit);
        if (o->pid)
                json_kv_uint(j, "pid", o->pid);
        json_kv_uint(j, "duration_us", o->duration_us);
        json_kv_uint(j, "margin", o->margin);
        json_kv_uint(j, "jobs_lost", o->jobs_lost);
        json_kv_uint(j, "jobs_dropped", o->jobs_dropped);
        json_key(j, "threads");
        json_array_begin(j);
        for (size_t i = 0; i < o->n; i++) {
                const Observed *t = &o->v[i];
                json_object_begin(j);
                json_kv_uint(j, "tid", t->tid);
                json_kv_uint(j, "tgid", t->tgid);
                json_kv_string(j, "comm", t->comm);
                json_kv_string(j, "shape", t->shape);
                json_kv_uint(j, "jobs", t->jobs);
                json_kv_uint(j, "exec_mean_ns", t->exec_mean_ns);
                json_kv_uint(j, "exec_p50_ns", t->exec_p50_ns);
                json_kv_uint(j, "exec_p999_ns", t->exec_p999_ns);
                json_kv_uint(j, "exec_max_ns", t->exec_max_ns);
                json_kv_uint(j, "period_ns", t->period_ns);
                json_kv_uint(j, "jitter_ns", t->jitter_ns);
                json_kv_uint(j, "interval_min_ns", t->interval_min_ns);
                json_kv_uint(j, "interval_max_ns", t->interval_max_ns);
                if (no_task_why(t, o, why))
                        json_kv_string(j, "no_task", why);
                else {
                        json_kv_uint(j, "wcet_us", t->wcet_us);
                        json_kv_uint(j, "task_period_us", t->task_period_us);
                }
                json_object_end(j);
        }
        json_array_end(j);
}

/* The tasks of the sizable threads into a; *ret_blocker: the first thread without one, or NULL. */
static int derive(const Observation *o, CtlSizeArgs *a, const Observed **ret_blocker) {
        char why[160];

        *ret_blocker = NULL;
        for (size_t i = 0; i < o->n; i++) {
                const Observed *t = &o->v[i];
                HcbsTask *x;

                if (no_task_why(t, o, why)) {
                        if (!*ret_blocker)
                                *ret_blocker = t;
                        continue;
                }
                x = realloc(a->tasks, (a->n_tasks + 1) * sizeof(HcbsTask));
                if (!x)
                        return -ENOMEM;
                a->tasks = x;
                a->tasks[a->n_tasks++] = (HcbsTask) { .wcet_us = t->wcet_us, .period_us = t->task_period_us };
        }
        return 0;
}

/* SetBandwidth for a group, ReserveUnit for a unit: the normal admission and plan. */
static int apply(Ctl *ctl, const Observation *o, const CtlSizing *s) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        int r;

        r = ctl_new_manager_call(ctl, o->unit ? "ReserveUnit" : "SetBandwidth", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "stt", o->group, s->runtime_us, s->period_us);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 0);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        return ctl_call_about(ctl, m, o->group, NULL);
}

int ctl_size_observed(Ctl *ctl, CtlSizeArgs *a, const CtlObserveArgs *oa) {
        char b1[HCBS_DURATION_STRLEN], b2[HCBS_DURATION_STRLEN], why[160];
        Observation o = {};
        const Observed *blocker;
        CtlSizing s = {};
        bool sized = false, applied = false;
        Json j;
        int r;

        r = observe_call(ctl, oa, &o);
        if (r != CTL_EXIT_OK)
                return r;
        r = derive(&o, a, &blocker);
        if (r < 0) {
                observation_done(&o);
                return ctl_fail_errno(r, "cannot keep the tasks");
        }
        if (!ctl->json)
                print_observation(&o);
        if (blocker) {
                r = ctl_fail(CTL_EXIT_REFUSED, "size --observe: no reservation: thread %" PRIu32 " (%s) is %s: %s%s",
                             blocker->tid, blocker->comm, blocker->shape, no_task_why(blocker, &o, why),
                             oa->apply ? "; nothing applied" : "");
        } else if (a->n_tasks == 0)
                r = ctl_fail(CTL_EXIT_REFUSED, "size --observe: no RT thread of %s had a job in %s", oa->target,
                             hcbs_duration_format(o.duration_us, b1));
        else {
                if (!ctl->json)
                        printf("\n");
                r = ctl_size_call(ctl, a, &s);
                sized = r == CTL_EXIT_OK;
                if (sized && !ctl->json)
                        ctl_size_print_text(a, &s);
        }
        if (sized && oa->apply) {
                if (!o.group[0])
                        r = ctl_fail(CTL_EXIT_REFUSED,
                                     "size --observe: --apply: process %" PRIu32 " is not in a group or unit of hcbsd's",
                                     o.pid);
                else {
                        r = apply(ctl, &o, &s);
                        applied = r == CTL_EXIT_OK;
                        if (applied && !ctl->json)
                                printf("applied: %s now reserves %s every %s\n", o.group,
                                       hcbs_duration_format(s.runtime_us, b1), hcbs_duration_format(s.period_us, b2));
                }
        }
        if (ctl->json) {
                json_init(&j, stdout);
                json_object_begin(&j);
                json_observation(&j, &o);
                json_key(&j, "sizing");
                if (sized)
                        ctl_size_json(&j, a, &s);
                else
                        json_null(&j);
                json_kv_bool(&j, "applied", applied);
                json_object_end(&j);
                json_finish(&j);
        }
        if (sized)
                ctl_sizing_done(&s);
        observation_done(&o);
        return r;
}
