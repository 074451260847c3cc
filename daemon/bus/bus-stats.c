/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GetStats: one group's figures (manager-stats.c) as a{sv}; the keys are documented in dbus/org.hcbsd1.xml. */
#include <errno.h>

#include "bus-errors.h"
#include "bus-stats.h"
#include "bus-util.h"
#include "loghist.h"
#include "macro.h"
#include "manager-stats.h"

static int append_t(sd_bus_message *reply, const char *key, uint64_t v) {
        return sd_bus_message_append(reply, "{sv}", key, "t", v);
}

/*
 * The appends of one reply below stay chained: each can only fail as
 * "cannot build the reply" (ENOMEM), reported once by the handler.
 */

/* The non-empty buckets as (lower, upper, count), values in ns. */
static int append_buckets(sd_bus_message *reply, const uint64_t *counts) {
        int r;

        r = bus_open_dict_array(reply, "latency_buckets", "a(ttt)");
        for (unsigned b = 0; r >= 0 && b < LOGHIST_BUCKETS; b++)
                if (counts[b])
                        r = sd_bus_message_append(reply, "(ttt)", loghist_lower(b), loghist_upper(b), counts[b]);
        return r < 0 ? r : bus_close_dict_array(reply);
}

/*
 * Budget exhaustion (HCBS kernels): the totals, and each CPU where the
 * group's server did anything as (cpu, exhaustions, throttled_ns,
 * replenishments); elsewhere the reason it is not counted.
 */
static int append_servers(sd_bus_message *reply, const ManagerStats *s, const char *unavailable) {
        const struct hcbs_slot *c = &s->bpf.c;
        int r;

        if (!s->servers)
                return unavailable ? sd_bus_message_append(reply, "{sv}", "servers_unavailable", "s", unavailable) : 0;
        r = append_t(reply, "exhaustions", c->exhaustions);
        if (r >= 0)
                r = append_t(reply, "throttled_ns", c->throttled_ns);
        if (r >= 0)
                r = append_t(reply, "replenishments", c->replenishments);
        if (r >= 0)
                r = bus_open_dict_array(reply, "servers", "a(uttt)");
        for (unsigned i = 0; r >= 0 && i < s->n_servers; i++) {
                const struct hcbs_server_cpu *v = &s->servers[i];
                if (v->exhaustions || v->throttled_ns || v->replenishments)
                        r = sd_bus_message_append(reply, "(uttt)", i, v->exhaustions, v->throttled_ns,
                                                  v->replenishments);
        }
        return r < 0 ? r : bus_close_dict_array(reply);
}

static int append_bpf(sd_bus_message *reply, const ManagerStats *s) {
        const struct hcbs_slot *c = &s->bpf.c;
        uint64_t n = loghist_total(c->latency);
        static const struct { const char *key; double q; } quantiles[] = {
                { "latency_p50_ns", 0.50 }, { "latency_p90_ns", 0.90 },
                { "latency_p99_ns", 0.99 }, { "latency_p999_ns", 0.999 },
        };
        int r;

        r = append_t(reply, "window_ns", s->bpf.window_ns);
        if (r >= 0)
                r = append_t(reply, "rt_time_ns", c->rt_time_ns);
        if (r >= 0)
                r = append_t(reply, "cpu_time_ns", c->cpu_time_ns);
        if (r >= 0 && s->share >= 0)
                r = sd_bus_message_append(reply, "{sv}", "reservation_share", "d", s->share);
        if (r >= 0)
                r = append_t(reply, "wakeups", c->wakeups);
        if (r >= 0)
                r = append_t(reply, "preemptions", c->preemptions);
        if (r >= 0)
                r = append_t(reply, "wait_ns", c->wait_ns);
        if (r >= 0)
                r = append_t(reply, "latency_count", n);
        if (r >= 0)
                r = append_t(reply, "latency_sum_ns", c->latency_sum_ns);
        if (r >= 0)
                r = append_t(reply, "latency_mean_ns", n ? c->latency_sum_ns / n : 0);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(quantiles); i++)
                r = append_t(reply, quantiles[i].key, loghist_quantile(c->latency, quantiles[i].q, c->latency_max_ns));
        if (r >= 0)
                r = append_t(reply, "latency_max_ns", c->latency_max_ns);
        if (r >= 0)
                r = append_t(reply, "task_drops", c->task_drops);
        if (r >= 0)
                r = append_buckets(reply, c->latency);
        return r;
}

typedef struct StatsReply {
        ManagerStats s;
        const char *servers_unavailable;
} StatsReply;

static int append_stats(sd_bus_message *reply, void *userdata) {
        const StatsReply *sr = userdata;
        const ManagerStats *s = &sr->s;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r >= 0 && s->node->runtime_us >= 0) { /* the reservation the share is of */
                r = append_t(reply, "runtime_us", (uint64_t) s->node->runtime_us);
                if (r >= 0)
                        r = append_t(reply, "period_us", s->node->period_us);
        }
        for (size_t i = 0; r >= 0 && i < s->n_cpu_stat; i++)
                r = append_t(reply, s->cpu_stat[i].key, s->cpu_stat[i].value);
        if (r >= 0 && s->have_bpf)
                r = append_bpf(reply, s);
        if (r >= 0 && s->have_bpf)
                r = append_servers(reply, s, sr->servers_unavailable);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

int bus_method_get_stats(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = bus_manager(userdata);
        _cleanup_free_ StatsReply *s = NULL;
        const char *name;
        HcbsVerdict v;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        s = calloc(1, sizeof(StatsReply)); /* the histogram makes it a few kB */
        if (!s)
                return -ENOMEM;
        hcbs_verdict_ok(&v);
        r = manager_get_stats(m, name, &s->s);
        if (r == -ENOENT)
                r = hcbs_verdict_set(&v, HCBS_E_NO_SUCH_GROUP, 0, "no group or unit '%s'", name);
        s->servers_unavailable = manager_stats_servers_unavailable(m);
        r = bus_reply_operation(msg, r, &v, append_stats, s, error);
        manager_stats_done(&s->s);
        return r;
}
