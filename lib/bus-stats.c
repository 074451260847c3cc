/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-stats.h"

/*
 * Makes room for one more element in *v (*n elements of size sz, capacity
 * the next power of two), zeroes it and counts it; NULL without memory.
 */
static void *grow(void *v, size_t *n, size_t sz) {
        char *p = v;

        if ((*n & (*n - 1)) == 0) { /* 0 or a power of two: full */
                p = realloc(v, (*n ? 2 * *n : 1) * sz);
                if (!p)
                        return NULL;
        }
        memset(p + *n * sz, 0, sz);
        (*n)++;
        return p;
}

/* One variant of a basic type into s->values; 0 and skipped when not basic. */
static int read_value(sd_bus_message *m, const char *key, const char *contents, HcbsStats *s) {
        HcbsStatValue st = { .key = key, .type = contents[0] };
        uint32_t u32;
        int32_t i32;
        int b, r;

        if (strlen(contents) != 1 || !strchr("tuxidbs", contents[0]))
                return sd_bus_message_skip(m, "v");
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        switch (contents[0]) {
        case 'u': r = sd_bus_message_read_basic(m, 'u', &u32); st.v.u = u32; st.type = 't'; break;
        case 'b': r = sd_bus_message_read_basic(m, 'b', &b); st.v.u = (uint64_t) b; st.type = 'b'; break;
        case 'i': r = sd_bus_message_read_basic(m, 'i', &i32); st.v.i = i32; st.type = 'x'; break;
        case 'x': r = sd_bus_message_read_basic(m, 'x', &st.v.i); break;
        case 'd': r = sd_bus_message_read_basic(m, 'd', &st.v.d); break;
        case 's': r = sd_bus_message_read_basic(m, 's', &st.v.s); break;
        default: r = sd_bus_message_read_basic(m, 't', &st.v.u); break;
        }
        if (r < 0)
                return r;
        HcbsStatValue *v = grow(s->values, &s->n_values, sizeof(*v));
        if (!v)
                return -ENOMEM;
        s->values = v;
        s->values[s->n_values - 1] = st;
        return sd_bus_message_exit_container(m);
}

/* latency_buckets: a(ttt) */
static int read_buckets(sd_bus_message *m, HcbsStats *s) {
        uint64_t lo, hi, n;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a(ttt)");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(ttt)");
        while (r >= 0 && (r = sd_bus_message_read(m, "(ttt)", &lo, &hi, &n)) > 0) {
                HcbsStatBucket *v = grow(s->buckets, &s->n_buckets, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                s->buckets = v;
                s->buckets[s->n_buckets - 1] = (HcbsStatBucket) { lo, hi, n };
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        s->have_buckets = r >= 0;
        return r;
}

/* servers: a(uttt) */
static int read_servers(sd_bus_message *m, HcbsStats *s) {
        HcbsStatServer sv;
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a(uttt)");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(uttt)");
        while (r >= 0 &&
               (r = sd_bus_message_read(m, "(uttt)", &sv.cpu, &sv.exhaustions, &sv.throttled_ns, &sv.replenishments)) > 0) {
                HcbsStatServer *v = grow(s->servers, &s->n_servers, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                s->servers = v;
                s->servers[s->n_servers - 1] = sv;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        s->have_servers = r >= 0;
        return r;
}

static int read_dict(sd_bus_message *reply, HcbsStats *s) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key, *contents;
                char type;

                r = sd_bus_message_read_basic(reply, 's', &key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(reply, &type, &contents);
                if (r >= 0 && strcmp(key, "latency_buckets") == 0 && strcmp(contents, "a(ttt)") == 0)
                        r = read_buckets(reply, s);
                else if (r >= 0 && strcmp(key, "servers") == 0 && strcmp(contents, "a(uttt)") == 0)
                        r = read_servers(reply, s);
                else if (r >= 0)
                        r = read_value(reply, key, contents, s);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        return r < 0 ? r : sd_bus_message_exit_container(reply);
}

int hcbs_stats_reply_read(sd_bus_message *reply, HcbsStatsReply *ret) {
        HcbsStatsReply out = { .reply = sd_bus_message_ref(reply) };
        int r;

        r = read_dict(reply, &out.s);
        if (r < 0) {
                hcbs_stats_reply_done(&out);
                return r;
        }
        *ret = out;
        return 0;
}

void hcbs_stats_reply_done(HcbsStatsReply *r) {
        free(r->s.servers);
        free(r->s.values);
        free(r->s.buckets);
        sd_bus_message_unref(r->reply);
        *r = (HcbsStatsReply) {};
}
