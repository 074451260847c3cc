/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "ctl-args.h"
#include "ctl-bus.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "hcbsctl.h"
#include "macro.h"

/*
 * stats [GROUP]: GetStats() of one or every group. The counters are an
 * open-ended a{sv}: the table shows the documented ones ('-' where the
 * kernel has none), --json passes every basic-typed counter through.
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

#define STATS_MAX 32

typedef struct Stats {
        sd_bus_message *reply;
        Stat v[STATS_MAX];
        size_t n;
} Stats;

static void stats_done(Stats *s) {
        sd_bus_message_unref(s->reply);
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
                if (r >= 0)
                        r = stat_read_value(reply, contents, &st);
                if (r > 0 && s->n < STATS_MAX)
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

        r = sd_bus_call_method(ctl->bus, HCBS_BUS_NAME, HCBS_BUS_PATH, HCBS_BUS_MANAGER, "GetStats", error,
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
        case 'b': json_bool(j, st->v.u != 0); break;
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
        json_object_end(j);
}

/* A counter as text: durations (keys ending in _usec) as seconds, '-' when absent. */
static const char *stat_text(const Stats *s, const char *key, char buf[static 32]) {
        const Stat *st = stats_find(s, key);
        size_t len = strlen(key);

        if (!st || strchr("tux", st->type) == NULL)
                return "-";
        if (len > 5 && strcmp(key + len - 5, "_usec") == 0)
                snprintf(buf, 32, "%" PRIu64 ".%06" PRIu64 "s", st->v.u / 1000000, st->v.u % 1000000);
        else
                snprintf(buf, 32, "%" PRIu64, st->v.u);
        return buf;
}

static int stats_add_row(Table *t, const char *name, const Stats *s) {
        char b[4][32];

        return table_add_row(t, (const char *const[]) {
                name, stat_text(s, "usage_usec", b[0]), stat_text(s, "nr_periods", b[1]),
                stat_text(s, "nr_throttled", b[2]), stat_text(s, "throttled_usec", b[3]),
        });
}

static Table *stats_table_new(void) {
        static const char *const header[] = { "NAME", "USAGE", "PERIODS", "THROTTLED", "THROTTLED-TIME" };
        static const bool right[] = { false, true, true, true, true };

        return table_new(ELEMENTSOF(header), header, right);
}

typedef struct StatsOut {
        Json json;
        Table *table;
} StatsOut;

/* Fetches and emits one group's stats; a group gone meanwhile is skipped if skip_gone. */
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
        if (ctl->json)
                stats_json_object(&out->json, name, &s);
        else if (stats_add_row(out->table, name, &s) < 0)
                r = ctl_fail_errno(-ENOMEM, "cannot build the table");
        stats_done(&s);
        return r;
}

static int stats_all(Ctl *ctl, StatsOut *out) {
        CtlGroupList l;
        int r;

        r = ctl_list_groups(ctl, &l);
        if (r != CTL_EXIT_OK)
                return r;
        if (ctl->json)
                json_array_begin(&out->json);
        for (size_t i = 0; i < l.n && r == CTL_EXIT_OK; i++)
                r = stats_emit(ctl, out, l.v[i].name, true);
        if (ctl->json)
                json_array_end(&out->json);
        ctl_group_list_done(&l);
        return r;
}

int verb_stats(Ctl *ctl, int argc, char *argv[]) {
        StatsOut out = {};
        CtlParsed a;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, NULL, NULL, NULL, -1, &a);
        if (r == CTL_EXIT_OK && !a.help)
                r = ctl_expect_args(argv[0], a.npos, 0, 1);
        if (r == CTL_EXIT_OK && !a.help)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        json_init(&out.json, stdout);
        if (!ctl->json && !(out.table = stats_table_new()))
                return ctl_fail_errno(-ENOMEM, "cannot build the table");
        r = a.npos == 1 ? stats_emit(ctl, &out, a.pos[0], false) : stats_all(ctl, &out);
        if (r == CTL_EXIT_OK && ctl->json)
                json_finish(&out.json);
        else if (r == CTL_EXIT_OK)
                table_print(out.table, stdout);
        table_free(out.table);
        return r;
}
