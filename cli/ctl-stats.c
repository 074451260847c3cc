/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-errors.h"
#include "bus-names.h"
#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-format.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-stats.h"
#include "ctl-units.h"
#include "ctl-verbs.h"
#include "macro.h"

/*
 * stats [GROUP|UNIT] [--watch SECONDS] [--histogram|--per-cpu]: GetStats()
 * of one group or unit's reservation, or of every group and unit. The
 * counters are an open-ended a{sv}: the table shows the documented ones
 * ('-' where the backend has none), --json passes every basic-typed counter
 * through, the latency histogram's buckets (a(ttt): lower, upper, count)
 * and the deadline servers' figures per CPU (a(uttt)).
 */

typedef struct Stat {
        const char *key; /* points into the reply */
        char type;       /* 't', 'u', 'x', 'i', 'd', 'b' or 's' */
        union {
                uint64_t u;
                int64_t i;
                double d;
                const char *s;
        } v;
} Stat;

#define STATS_MAX 48

typedef struct Bucket {
        uint64_t lower, upper, count;
} Bucket;

/* servers: the group's deadline server on one CPU */
typedef struct Server {
        uint32_t cpu;
        uint64_t exhaustions, throttled_ns, replenishments;
} Server;

typedef struct Stats {
        sd_bus_message *reply;
        Stat v[STATS_MAX];
        size_t n;
        Bucket *buckets;
        size_t n_buckets;
        bool have_buckets;
        Server *servers;
        size_t n_servers;
        bool have_servers;
} Stats;

static void stats_done(Stats *s) {
        sd_bus_message_unref(s->reply);
        free(s->buckets);
        free(s->servers);
        *s = (Stats) {};
}

/* Reads one variant value of a basic type into st; returns 0 if the type is not kept. */
static int stat_read_value(sd_bus_message *m, const char *contents, Stat *st) {
        uint32_t u32;
        int32_t i32;
        int b, r;

        if (strlen(contents) != 1 || !strchr("tuxidbs", contents[0]))
                return sd_bus_message_skip(m, "v") < 0 ? -EBADMSG : 0;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        st->type = contents[0];
        switch (contents[0]) {
        case 'u': r = sd_bus_message_read_basic(m, 'u', &u32); st->v.u = u32; break;
        case 'i': r = sd_bus_message_read_basic(m, 'i', &i32); st->v.i = i32; break;
        case 'b': r = sd_bus_message_read_basic(m, 'b', &b); st->v.u = (uint64_t) b; break;
        case 's': r = sd_bus_message_read_basic(m, 's', &st->v.s); break;
        case 'x': r = sd_bus_message_read_basic(m, 'x', &st->v.i); break;
        case 'd': r = sd_bus_message_read_basic(m, 'd', &st->v.d); break;
        default: r = sd_bus_message_read_basic(m, 't', &st->v.u); break;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 1;
}

/* latency_buckets: a(ttt) */
static int buckets_read(sd_bus_message *m, Stats *s) {
        size_t cap = 0;
        uint64_t lo, hi, n;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a(ttt)");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(ttt)");
        while (r >= 0 && (r = sd_bus_message_read(m, "(ttt)", &lo, &hi, &n)) > 0) {
                if (s->n_buckets == cap) {
                        Bucket *v = realloc(s->buckets, (cap = cap ? cap * 2 : 64) * sizeof(Bucket));
                        if (!v)
                                return -ENOMEM;
                        s->buckets = v;
                }
                s->buckets[s->n_buckets++] = (Bucket) { lo, hi, n };
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        s->have_buckets = r >= 0;
        return r;
}

/* servers: a(uttt) */
static int servers_read(sd_bus_message *m, Stats *s) {
        size_t cap = 0;
        Server v;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a(uttt)");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(uttt)");
        while (r >= 0 &&
               (r = sd_bus_message_read(m, "(uttt)", &v.cpu, &v.exhaustions, &v.throttled_ns, &v.replenishments)) > 0) {
                if (s->n_servers == cap) {
                        Server *n = realloc(s->servers, (cap = cap ? cap * 2 : 8) * sizeof(Server));
                        if (!n)
                                return -ENOMEM;
                        s->servers = n;
                }
                s->servers[s->n_servers++] = v;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        s->have_servers = r >= 0;
        return r;
}

static int stats_read(sd_bus_message *reply, Stats *s) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                Stat st = {};
                const char *contents;
                char type;

                r = sd_bus_message_read_basic(reply, 's', &st.key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(reply, &type, &contents);
                if (r >= 0 && strcmp(st.key, "latency_buckets") == 0 && strcmp(contents, "a(ttt)") == 0)
                        r = buckets_read(reply, s);
                else if (r >= 0 && strcmp(st.key, "servers") == 0 && strcmp(contents, "a(uttt)") == 0)
                        r = servers_read(reply, s);
                else if (r >= 0)
                        r = stat_read_value(reply, contents, &st);
                if (r > 0 && st.type && s->n < STATS_MAX)
                        s->v[s->n++] = st;
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        return r < 0 ? r : sd_bus_message_exit_container(reply);
}

/* GetStats(name) into s; sd-bus style. */
static int stats_get(Ctl *ctl, const char *name, Stats *s, sd_bus_error *error) {
        Stats out = {};
        int r;

        r = sd_bus_call_method(ctl->bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "GetStats", error,
                               &out.reply, "s", name);
        if (r < 0)
                return r;
        r = stats_read(out.reply, &out);
        if (r < 0) {
                stats_done(&out);
                return sd_bus_error_set_errno(error, r);
        }
        *s = out;
        return 0;
}

static const Stat *stats_find(const Stats *s, const char *key) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->v[i].key, key) == 0)
                        return &s->v[i];
        return NULL;
}

/* An unsigned counter, or false when absent. */
static bool stat_u(const Stats *s, const char *key, uint64_t *ret) {
        const Stat *st = stats_find(s, key);

        if (!st || !strchr("tu", st->type))
                return false;
        *ret = st->v.u;
        return true;
}

int ctl_stats_summary(Ctl *ctl, const char *name, CtlStatsSummary *ret, sd_bus_error *error) {
        CtlStatsSummary sum = { .reservation_share = -1 };
        const Stat *st;
        Stats s;
        int r;

        r = stats_get(ctl, name, &s, error);
        if (r < 0)
                return r;
        (void) stat_u(&s, "latency_count", &sum.latency_count);
        (void) stat_u(&s, "latency_p99_ns", &sum.latency_p99_ns);
        (void) stat_u(&s, "latency_max_ns", &sum.latency_max_ns);
        (void) stat_u(&s, "window_ns", &sum.window_ns);
        st = stats_find(&s, "reservation_share");
        if (st && st->type == 'd')
                sum.reservation_share = st->v.d;
        sum.have_exhaustions = stat_u(&s, "exhaustions", &sum.exhaustions);
        (void) stat_u(&s, "throttled_ns", &sum.throttled_ns);
        stats_done(&s);
        *ret = sum;
        return 0;
}

static void stat_json_value(Json *j, const Stat *st) {
        switch (st->type) {
        case 'x': case 'i':
                if (st->v.i < 0) {
                        json_double(j, (double) st->v.i);
                        break;
                }
                json_uint(j, (uint64_t) st->v.i);
                break;
        case 'd': json_double(j, st->v.d); break;
        case 'b': json_boolean(j, st->v.u != 0); break;
        case 's': json_string(j, st->v.s); break;
        default: json_uint(j, st->v.u); break;
        }
}

static void stats_json_object(Json *j, const char *name, const Stats *s) {
        json_object_begin(j);
        json_kv_string(j, "name", name);
        for (size_t i = 0; i < s->n; i++) {
                if (strcmp(s->v[i].key, "name") == 0)
                        continue;
                json_key(j, s->v[i].key);
                stat_json_value(j, &s->v[i]);
        }
        if (s->have_buckets) {
                json_key(j, "latency_buckets");
                json_array_begin(j);
                for (size_t i = 0; i < s->n_buckets; i++) {
                        json_array_begin(j);
                        json_uint(j, s->buckets[i].lower);
                        json_uint(j, s->buckets[i].upper);
                        json_uint(j, s->buckets[i].count);
                        json_array_end(j);
                }
                json_array_end(j);
        }
        if (s->have_servers) {
                json_key(j, "servers");
                json_array_begin(j);
                for (size_t i = 0; i < s->n_servers; i++) {
                        json_object_begin(j);
                        json_key(j, "cpu");
                        json_uint(j, s->servers[i].cpu);
                        json_key(j, "exhaustions");
                        json_uint(j, s->servers[i].exhaustions);
                        json_key(j, "throttled_ns");
                        json_uint(j, s->servers[i].throttled_ns);
                        json_key(j, "replenishments");
                        json_uint(j, s->servers[i].replenishments);
                        json_object_end(j);
                }
                json_array_end(j);
        }
        json_object_end(j);
}

/* Nanoseconds for a person: 850ns, 15.4us, 1.02ms, 3.10s. */
static const char *fmt_ns(uint64_t ns, char buf[static 32]) {
        static const struct { uint64_t div; const char *unit; } units[] = {
                { 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "us" },
        };
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (ns >= units[i].div) {
                        double v = (double) ns / (double) units[i].div;
                        snprintf(buf, 32, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s", v, units[i].unit);
                        return buf;
                }
        snprintf(buf, 32, "%" PRIu64 "ns", ns);
        return buf;
}

static const char *cell_ns(const Stats *s, const char *key, char buf[static 32]) {
        uint64_t v;
        return stat_u(s, key, &v) ? fmt_ns(v, buf) : "-";
}

static const char *cell_u(const Stats *s, const char *key, char buf[static 32]) {
        uint64_t v;
        if (!stat_u(s, key, &v))
                return "-";
        snprintf(buf, 32, "%" PRIu64, v);
        return buf;
}

/* The previous sample of a name, for --watch: figures over the last interval. */
typedef struct Sample {
        char *name;
        uint64_t rt_time_ns, window_ns;
} Sample;

typedef struct StatsOut {
        Json json;
        Table *table;
        bool histogram;
        bool per_cpu;
        bool watch;
        char *unavailable; /* why budget exhaustion is not counted, said once under --per-cpu */
        Sample *samples;
        size_t n_samples;
} StatsOut;

static Sample *sample_of(StatsOut *out, const char *name) {
        Sample *v;

        for (size_t i = 0; i < out->n_samples; i++)
                if (strcmp(out->samples[i].name, name) == 0)
                        return &out->samples[i];
        v = realloc(out->samples, (out->n_samples + 1) * sizeof(Sample));
        if (!v)
                return NULL;
        out->samples = v;
        v = &out->samples[out->n_samples];
        *v = (Sample) { .name = strdup(name) };
        if (!v->name)
                return NULL;
        out->n_samples++;
        return v;
}

/* SHARE: RT time over what the reservation allows; with --watch over the last interval, else since counting began. */
static const char *cell_share(StatsOut *out, const char *name, const Stats *s, char buf[static 32]) {
        uint64_t rt, window, runtime, period;
        double share;

        if (!stat_u(s, "rt_time_ns", &rt) || !stat_u(s, "window_ns", &window) || !stat_u(s, "runtime_us", &runtime) ||
            !stat_u(s, "period_us", &period) || runtime == 0 || period == 0)
                return "-";
        if (out->watch) {
                Sample *prev = sample_of(out, name);
                if (prev && prev->window_ns && window > prev->window_ns && rt >= prev->rt_time_ns) {
                        uint64_t drt = rt - prev->rt_time_ns, dw = window - prev->window_ns;
                        prev->rt_time_ns = rt, prev->window_ns = window;
                        rt = drt, window = dw;
                } else if (prev)
                        prev->rt_time_ns = rt, prev->window_ns = window;
        }
        if (window == 0)
                return "-";
        share = (double) rt / ((double) window * (double) runtime / (double) period);
        snprintf(buf, 32, "%.1f%%", share * 100.0);
        return buf;
}

/* EXHAUST: budget exhaustions, "n/a" where the kernel has no deadline servers */
static const char *cell_exhaust(const Stats *s, char buf[static 32]) {
        const Stat *st = stats_find(s, "servers_unavailable");

        if (st && st->type == 's')
                return "n/a";
        return cell_u(s, "exhaustions", buf);
}

static int stats_add_row(StatsOut *out, const char *name, const Stats *s) {
        char b[10][32], rbuf[2 * HCBS_DURATION_STRLEN];
        const char *res = "-";
        uint64_t runtime, period;

        if (stat_u(s, "runtime_us", &runtime) && stat_u(s, "period_us", &period))
                res = ctl_format_reservation(runtime, period, rbuf);
        return table_add_row(out->table, (const char *const[]) {
                name, res, cell_ns(s, "rt_time_ns", b[0]), cell_share(out, name, s, b[1]),
                cell_u(s, "wakeups", b[2]), cell_ns(s, "latency_p50_ns", b[3]), cell_ns(s, "latency_p99_ns", b[4]),
                cell_ns(s, "latency_max_ns", b[5]), cell_u(s, "preemptions", b[6]), cell_ns(s, "wait_ns", b[7]),
                cell_exhaust(s, b[9]), cell_u(s, "nr_throttled", b[8]),
        });
}

static Table *stats_table_new(void) {
        static const char *const header[] = { "NAME", "RESERVED", "RT-TIME", "SHARE", "WAKEUPS", "P50", "P99",
                                               "MAX", "PREEMPT", "WAITED", "EXHAUST", "THROTTLED" };
        static const bool right[] = { false, true, true, true, true, true, true, true, true, true, true, true };

        return table_new(ELEMENTSOF(header), header, right);
}

/* --per-cpu: a row per CPU where the group's deadline server did anything */
static Table *servers_table_new(void) {
        static const char *const header[] = { "NAME", "CPU", "EXHAUSTIONS", "THROTTLED-FOR", "REPLENISHMENTS" };
        static const bool right[] = { false, true, true, true, true };

        return table_new(ELEMENTSOF(header), header, right);
}

static int servers_add_rows(StatsOut *out, const char *name, const Stats *s) {
        const Stat *st = stats_find(s, "servers_unavailable");
        char b[4][32];
        int r = 0;

        if (st && st->type == 's') {
                if (!out->unavailable && !(out->unavailable = strdup(st->v.s)))
                        return -ENOMEM;
                return 0;
        }
        for (size_t i = 0; r >= 0 && i < s->n_servers; i++) {
                const Server *v = &s->servers[i];
                snprintf(b[0], sizeof(b[0]), "%" PRIu32, v->cpu);
                snprintf(b[1], sizeof(b[1]), "%" PRIu64, v->exhaustions);
                snprintf(b[3], sizeof(b[3]), "%" PRIu64, v->replenishments);
                r = table_add_row(out->table, (const char *const[]) { name, b[0], b[1], fmt_ns(v->throttled_ns, b[2]), b[3] });
        }
        return r;
}

/* --histogram: one line per non-empty bucket, a bar scaled to the fullest. */
static void histogram_print(const char *name, const Stats *s) {
        uint64_t most = 0, total = 0, v;
        char a[32], b[32];

        if (!s->have_buckets) {
                printf("%s: no latency histogram (the statistics backend is not bpf)\n", name);
                return;
        }
        for (size_t i = 0; i < s->n_buckets; i++) {
                most = MAX(most, s->buckets[i].count);
                total += s->buckets[i].count;
        }
        printf("%s: wakeup-to-run latency, %" PRIu64 " wakeups", name, total);
        static const char *const q[][2] = { { "p50", "latency_p50_ns" }, { "p90", "latency_p90_ns" },
                                            { "p99", "latency_p99_ns" }, { "p99.9", "latency_p999_ns" },
                                            { "max", "latency_max_ns" } };
        for (size_t i = 0; i < ELEMENTSOF(q); i++)
                if (stat_u(s, q[i][1], &v))
                        printf(", %s %s", q[i][0], fmt_ns(v, a));
        printf("\n");
        for (size_t i = 0; i < s->n_buckets; i++) {
                const Bucket *k = &s->buckets[i];
                int width = most ? (int) ((k->count * 50 + most - 1) / most) : 0;
                printf("%9s - %-9s %10" PRIu64 " %5.1f%% |%.*s\n", fmt_ns(k->lower, a), fmt_ns(k->upper, b), k->count,
                       total ? 100.0 * (double) k->count / (double) total : 0.0, width,
                       "##################################################");
        }
}

/* Fetches and emits one target's stats; a target gone meanwhile is skipped if skip_gone. */
static int stats_emit(Ctl *ctl, StatsOut *out, const char *name, bool skip_gone) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        Stats s = {};
        int r;

        r = stats_get(ctl, name, &s, &error);
        if (r < 0) {
                bool gone = hcbs_bus_error_to_hcbs(&error) == HCBS_E_NO_SUCH_GROUP;
                r = skip_gone && gone ? CTL_EXIT_OK : ctl_bus_fail(&error, r);
                sd_bus_error_free(&error);
                return r;
        }
        r = CTL_EXIT_OK;
        if (ctl->json)
                stats_json_object(&out->json, name, &s);
        else if (out->histogram)
                histogram_print(name, &s);
        else if (out->per_cpu ? servers_add_rows(out, name, &s) < 0 : stats_add_row(out, name, &s) < 0)
                r = ctl_fail_errno(-ENOMEM, "cannot build the table");
        stats_done(&s);
        return r;
}

static int stats_all(Ctl *ctl, StatsOut *out) {
        CtlGroupList l;
        CtlUnitList u = {};
        int r;

        r = ctl_list_groups(ctl, &l);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_list_units(ctl, true, &u);
        if (r != CTL_EXIT_OK) {
                ctl_group_list_done(&l);
                return r;
        }
        if (ctl->json)
                json_array_begin(&out->json);
        for (size_t i = 0; i < l.n && r == CTL_EXIT_OK; i++)
                r = stats_emit(ctl, out, l.v[i].name, true);
        for (size_t i = 0; i < u.n && r == CTL_EXIT_OK; i++)
                r = stats_emit(ctl, out, u.v[i].unit, true);
        if (ctl->json)
                json_array_end(&out->json);
        ctl_unit_list_done(&u);
        ctl_group_list_done(&l);
        return r;
}

enum { ARG_WATCH = CTL_ARG_VERB_FIRST, ARG_HISTOGRAM, ARG_PER_CPU };

typedef struct StatsArgs {
        double watch; /* seconds; 0: once */
        bool histogram;
        bool per_cpu;
} StatsArgs;

static int stats_option(const char *verb, int c, const char *arg, void *userdata) {
        StatsArgs *a = userdata;
        char *end;

        if (c == ARG_HISTOGRAM) {
                a->histogram = true;
                return CTL_EXIT_OK;
        }
        if (c == ARG_PER_CPU) {
                a->per_cpu = true;
                return CTL_EXIT_OK;
        }
        errno = 0;
        a->watch = strtod(arg, &end);
        if (errno || end == arg || *end || !(a->watch >= 0.1 && a->watch <= 86400))
                return ctl_fail(CTL_EXIT_USAGE, "%s: --watch needs a number of seconds, 0.1 to 86400: '%s'", verb, arg);
        return CTL_EXIT_OK;
}

static int stats_once(Ctl *ctl, StatsOut *out, const char *target) {
        int r;

        json_init(&out->json, stdout);
        if (!ctl->json && !out->histogram && !(out->table = out->per_cpu ? servers_table_new() : stats_table_new()))
                return ctl_fail_errno(-ENOMEM, "cannot build the table");
        r = target ? stats_emit(ctl, out, target, false) : stats_all(ctl, out);
        if (r == CTL_EXIT_OK && ctl->json)
                json_finish(&out->json);
        else if (ctl->json)
                json_done(&out->json);
        if (r == CTL_EXIT_OK && out->table)
                table_print(out->table, stdout);
        if (r == CTL_EXIT_OK && out->unavailable)
                printf("Budget exhaustion: %s\n", out->unavailable);
        out->table = table_free(out->table);
        free(out->unavailable);
        out->unavailable = NULL;
        fflush(stdout);
        return r;
}

int verb_stats(Ctl *ctl, int argc, char *argv[]) {
        static const struct option options[] = {
                { "watch", required_argument, NULL, ARG_WATCH },
                { "histogram", no_argument, NULL, ARG_HISTOGRAM },
                { "per-cpu", no_argument, NULL, ARG_PER_CPU },
                {}
        };
        StatsArgs args = {};
        StatsOut out = {};
        CtlParsed a;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, options, stats_option, &args, -1, &a);
        if (r == CTL_EXIT_OK && !a.help)
                r = ctl_expect_args(argv[0], a.npos, 0, 1);
        if (r == CTL_EXIT_OK && !a.help && args.histogram && a.npos != 1)
                r = ctl_fail(CTL_EXIT_USAGE, "%s: --histogram needs one GROUP or UNIT", argv[0]);
        if (r == CTL_EXIT_OK && !a.help && args.histogram && args.per_cpu)
                r = ctl_fail(CTL_EXIT_USAGE, "%s: --histogram and --per-cpu are two different views: choose one", argv[0]);
        if (r == CTL_EXIT_OK && !a.help)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        out.histogram = args.histogram;
        out.per_cpu = args.per_cpu;
        out.watch = args.watch > 0;
        for (;;) {
                r = stats_once(ctl, &out, a.npos == 1 ? a.pos[0] : NULL);
                if (r != CTL_EXIT_OK || !out.watch)
                        break;
                time_t whole = (time_t) args.watch; /* >= 0.1: the floor, without libm */
                struct timespec ts = { whole, (long) ((args.watch - (double) whole) * 1e9) };
                (void) nanosleep(&ts, NULL);
                if (!ctl->json)
                        printf("\n");
        }
        for (size_t i = 0; i < out.n_samples; i++)
                free(out.samples[i].name);
        free(out.samples);
        return r;
}
