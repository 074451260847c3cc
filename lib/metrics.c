/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loghist.h"
#include "macro.h"
#include "metrics.h"

const HcbsStatValue *hcbs_stats_find(const HcbsStats *s, const char *key) {
        for (size_t i = 0; i < s->n_values; i++)
                if (strcmp(s->values[i].key, key) == 0)
                        return &s->values[i];
        return NULL;
}

bool hcbs_stats_u(const HcbsStats *s, const char *key, uint64_t *ret) {
        const HcbsStatValue *v = hcbs_stats_find(s, key);

        if (!v || v->type != 't')
                return false;
        *ret = v->v.u;
        return true;
}

const char *hcbs_target_kind_name(HcbsTargetKind k) {
        switch (k) {
        case HCBS_TARGET_UNIT: return "unit";
        case HCBS_TARGET_CONTAINER: return "container";
        default: return "group";
        }
}

/* Two per power of two, 2^10 - 1 ns (about 1 us) to 2^30 - 1 ns (about 1.07 s). */
#define BOUND_FIRST_POW 10
#define BOUND_LAST_POW 30
#define N_BOUNDS (2 * (BOUND_LAST_POW - BOUND_FIRST_POW) + 1)

const uint64_t *hcbs_metrics_latency_bounds(size_t *ret_n) {
        static uint64_t bounds[N_BOUNDS];

        if (bounds[0] == 0)
                for (unsigned h = BOUND_FIRST_POW, i = 0; h <= BOUND_LAST_POW; h++) {
                        /* the upper edges of the buckets holding 2^h - 1 and 3 * 2^(h-1) - 1 */
                        bounds[i++] = loghist_upper(loghist_bucket((1ULL << h) - 1));
                        if (h < BOUND_LAST_POW)
                                bounds[i++] = loghist_upper(loghist_bucket((3ULL << (h - 1)) - 1));
                }
        *ret_n = N_BOUNDS;
        return bounds;
}

typedef enum Scale {
        SCALE_ONE, /* a count */
        SCALE_US,  /* microseconds, written as seconds */
        SCALE_NS,  /* nanoseconds, written as seconds */
} Scale;

/* v in base units: seconds as an exact decimal, trailing zeros dropped. */
static void put_scaled(FILE *f, uint64_t v, Scale scale) {
        uint64_t div = scale == SCALE_US ? 1000000 : 1000000000;
        int digits = scale == SCALE_US ? 6 : 9;
        uint64_t frac;
        char buf[16];

        if (scale == SCALE_ONE) {
                fprintf(f, "%" PRIu64, v);
                return;
        }
        frac = v % div;
        fprintf(f, "%" PRIu64, v / div);
        if (frac == 0)
                return;
        snprintf(buf, sizeof(buf), "%0*" PRIu64, digits, frac);
        for (int i = digits - 1; i > 0 && buf[i] == '0'; i--)
                buf[i] = '\0';
        fprintf(f, ".%s", buf);
}

static void put_double(FILE *f, double v) {
        fprintf(f, "%.9g", v);
}

/* A label value: backslash, double quote and newline escaped, as the format wants. */
static void put_label_value(FILE *f, const char *s) {
        for (; *s; s++) {
                if (*s == '\\' || *s == '"')
                        fprintf(f, "\\%c", *s);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
        }
}

static void put_header(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* NAME{name="...",kind="..." then the caller's labels and "} " */
static void put_target(FILE *f, const char *metric, const char *suffix, const HcbsMetricsTarget *t) {
        fprintf(f, "%s%s{name=\"", metric, suffix);
        put_label_value(f, t->name);
        fprintf(f, "\",kind=\"%s\"", hcbs_target_kind_name(t->kind));
}

/* Which figure of GetStats' servers (one per CPU) a per-CPU family exports. */
typedef enum ServerField {
        SERVER_NONE, /* not per CPU: the family is key's value */
        SERVER_EXHAUSTIONS,
        SERVER_THROTTLED_NS,
        SERVER_REPLENISHMENTS,
} ServerField;

/* The per-reservation metrics read straight from one GetStats key. */
typedef struct Family {
        const char *metric, *type, *help;
        const char *key;
        Scale scale;
        ServerField server; /* a figure of key "servers", one sample per CPU */
} Family;

static const Family families[] = {
        { "hcbs_reservation_runtime_seconds", "gauge", "Runtime of the reservation, every period, on every CPU.",
          "runtime_us", SCALE_US, SERVER_NONE },
        { "hcbs_reservation_period_seconds", "gauge", "Period of the reservation.", "period_us", SCALE_US, SERVER_NONE },
        { "hcbs_rt_cpu_seconds_total", "counter",
          "CPU time of the SCHED_FIFO/SCHED_RR tasks in the group itself since hcbsd began counting it.",
          "rt_time_ns", SCALE_NS, SERVER_NONE },
        { "hcbs_cpu_seconds_total", "counter",
          "CPU time of the tasks of any policy in the group itself since hcbsd began counting it.", "cpu_time_ns",
          SCALE_NS, SERVER_NONE },
        { "hcbs_wakeups_total", "counter", "Wakeups of the group's tasks.", "wakeups", SCALE_ONE, SERVER_NONE },
        { "hcbs_preemptions_total", "counter", "Switch-outs of the group's tasks while still runnable.",
          "preemptions", SCALE_ONE, SERVER_NONE },
        { "hcbs_runnable_wait_seconds_total", "counter", "Time the group's tasks spent runnable but not running.",
          "wait_ns", SCALE_NS, SERVER_NONE },
        { "hcbs_cgroup_usage_seconds_total", "counter",
          "CPU time of the cgroup and its descendants, from the kernel's cpu.stat.", "usage_usec", SCALE_US, SERVER_NONE },
        { "hcbs_collector_task_drops_total", "counter",
          "Events of the group's tasks lost because the kernel could not allocate a task's storage.", "task_drops",
          SCALE_ONE, SERVER_NONE },
        { "hcbs_budget_exhaustions_total", "counter",
          "Times a task of the group was switched out because the group's deadline server ran out of runtime on "
          "that CPU (HCBS kernels).",
          "servers", SCALE_ONE, SERVER_EXHAUSTIONS },
        { "hcbs_budget_throttled_seconds_total", "counter",
          "Time from each budget exhaustion until the group ran again on that CPU (HCBS kernels).", "servers", SCALE_NS,
          SERVER_THROTTLED_NS },
        { "hcbs_budget_replenishments_total", "counter",
          "Deadline server budgets the group started on that CPU (HCBS kernels).", "servers", SCALE_ONE,
          SERVER_REPLENISHMENTS },
};

static uint64_t server_value(const HcbsStatServer *sv, ServerField field) {
        switch (field) {
        case SERVER_EXHAUSTIONS: return sv->exhaustions;
        case SERVER_THROTTLED_NS: return sv->throttled_ns;
        default: return sv->replenishments;
        }
}

static bool family_has(const Family *fam, const HcbsMetricsTarget *t) {
        uint64_t v;

        if (!t->stats)
                return false;
        return fam->server != SERVER_NONE ? t->stats->have_servers : hcbs_stats_u(t->stats, fam->key, &v);
}

static void put_family(FILE *f, const HcbsMetrics *m, const Family *fam) {
        bool any = false;

        for (size_t i = 0; i < m->n_targets && !any; i++)
                any = family_has(fam, &m->targets[i]);
        if (!any)
                return;
        put_header(f, fam->metric, fam->type, fam->help);
        for (size_t i = 0; i < m->n_targets; i++) {
                const HcbsMetricsTarget *t = &m->targets[i];
                uint64_t v;

                if (!family_has(fam, t))
                        continue;
                if (fam->server == SERVER_NONE) {
                        (void) hcbs_stats_u(t->stats, fam->key, &v);
                        put_target(f, fam->metric, "", t);
                        fputs("} ", f);
                        put_scaled(f, v, fam->scale);
                        fputc('\n', f);
                        continue;
                }
                for (size_t k = 0; k < t->stats->n_servers; k++) {
                        const HcbsStatServer *sv = &t->stats->servers[k];
                        put_target(f, fam->metric, "", t);
                        fprintf(f, ",cpu=\"%" PRIu32 "\"} ", sv->cpu);
                        put_scaled(f, server_value(sv, fam->server), fam->scale);
                        fputc('\n', f);
                }
        }
}

static bool has_reservation(const HcbsMetricsTarget *t, uint64_t *runtime, uint64_t *period) {
        return t->stats && hcbs_stats_u(t->stats, "runtime_us", runtime) &&
               hcbs_stats_u(t->stats, "period_us", period) && *period > 0;
}

static void put_bandwidth(FILE *f, const HcbsMetrics *m) {
        const char *metric = "hcbs_reservation_bandwidth_ratio";
        uint64_t runtime, period;
        bool any = false;

        for (size_t i = 0; i < m->n_targets && !any; i++)
                any = has_reservation(&m->targets[i], &runtime, &period);
        if (!any)
                return;
        put_header(f, metric, "gauge", "Runtime over period of the reservation: the fraction of each CPU it holds.");
        for (size_t i = 0; i < m->n_targets; i++)
                if (has_reservation(&m->targets[i], &runtime, &period)) {
                        put_target(f, metric, "", &m->targets[i]);
                        fputs("} ", f);
                        put_double(f, (double) runtime / (double) period);
                        fputc('\n', f);
                }
}

static void put_histogram(FILE *f, const HcbsMetrics *m) {
        const char *metric = "hcbs_wakeup_latency_seconds";
        const uint64_t *bounds;
        size_t n_bounds;
        bool any = false;

        for (size_t i = 0; i < m->n_targets && !any; i++)
                any = m->targets[i].stats && m->targets[i].stats->have_buckets;
        if (!any)
                return;
        bounds = hcbs_metrics_latency_bounds(&n_bounds);
        put_header(f, metric, "histogram",
                   "Wakeup-to-run latency of the group's tasks; each bound is the upper edge of a bucket of hcbsd's "
                   "log-linear histogram, so the counts are exact.");
        for (size_t i = 0; i < m->n_targets; i++) {
                const HcbsMetricsTarget *t = &m->targets[i];
                const HcbsStats *s = t->stats;
                uint64_t total = 0, sum_ns, mean, seen = 0;
                size_t k = 0;

                if (!s || !s->have_buckets)
                        continue;
                for (size_t b = 0; b < s->n_buckets; b++)
                        total += s->buckets[b].count;
                for (size_t j = 0; j < n_bounds; j++) {
                        /* the buckets are ascending and disjoint: add those ending at or below the bound */
                        for (; k < s->n_buckets && s->buckets[k].upper <= bounds[j]; k++)
                                seen += s->buckets[k].count;
                        put_target(f, metric, "_bucket", t);
                        fputs(",le=\"", f);
                        put_scaled(f, bounds[j], SCALE_NS);
                        fprintf(f, "\"} %" PRIu64 "\n", seen);
                }
                put_target(f, metric, "_bucket", t);
                fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", total);
                if (!hcbs_stats_u(s, "latency_sum_ns", &sum_ns))
                        sum_ns = hcbs_stats_u(s, "latency_mean_ns", &mean) ? mean * total : 0;
                put_target(f, metric, "_sum", t);
                fputs("} ", f);
                put_scaled(f, sum_ns, SCALE_NS);
                fputc('\n', f);
                put_target(f, metric, "_count", t);
                fprintf(f, "} %" PRIu64 "\n", total);
        }
}

static void put_manager(FILE *f, const HcbsMetrics *m) {
        put_header(f, "hcbs_info", "gauge", "hcbsd's version, kernel interface and statistics backend (always 1).");
        fputs("hcbs_info{version=\"", f);
        put_label_value(f, m->version ? m->version : "");
        fputs("\",kernel_interface=\"", f);
        put_label_value(f, m->kernel_interface ? m->kernel_interface : "");
        fputs("\",stats_backend=\"", f);
        put_label_value(f, m->stats_backend ? m->stats_backend : "");
        fputs("\"} 1\n", f);
        if (m->capacity_period_us > 0) {
                put_header(f, "hcbs_capacity_ratio", "gauge",
                           "RT bandwidth hcbsd may hand out on each CPU, a fraction of one CPU.");
                fputs("hcbs_capacity_ratio ", f);
                put_double(f, (double) m->capacity_runtime_us / (double) m->capacity_period_us);
                fputc('\n', f);
        }
        put_header(f, "hcbs_allocated_ratio", "gauge",
                   "RT bandwidth held by hcbsd's groups and reservations on each CPU, a fraction of one CPU.");
        fputs("hcbs_allocated_ratio ", f);
        put_double(f, m->allocated);
        fputc('\n', f);
        put_header(f, "hcbs_reservations", "gauge", "Reservations hcbsd holds, by kind.");
        fprintf(f, "hcbs_reservations{kind=\"group\"} %" PRIu32 "\n", m->groups);
        fprintf(f, "hcbs_reservations{kind=\"unit\"} %zu\n", m->units);
        fprintf(f, "hcbs_reservations{kind=\"container\"} %zu\n", m->containers);
}

int hcbs_metrics_format(const HcbsMetrics *m, char **ret, size_t *ret_len) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        put_header(f, "hcbs_up", "gauge", "1 when hcbsd answered on the bus, else 0.");
        fprintf(f, "hcbs_up %d\n", m->up ? 1 : 0);
        if (m->up) {
                put_manager(f, m);
                for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                        put_family(f, m, &families[i]);
                        if (strcmp(families[i].key, "period_us") == 0)
                                put_bandwidth(f, m);
                }
                put_histogram(f, m);
        }
        r = ferror(f) ? -ENOMEM : 0;
        if (fclose(f) != 0 || r < 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}
