/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-format.h"
#include "ctl-getopt.h"
#include "ctl-policy.h"
#include "ctl-units.h"
#include "ctl-verbs.h"
#include "macro.h"
#include "name.h"
#include "strutil.h"

/*
 * reserve-unit, release-unit, units: a systemd service's own reservation.
 * reserve-unit and release-unit are what a service's ExecStartPre= and
 * ExecStopPost= run (hcbs-generator writes them), so their refusals name the
 * unit: the line ends up in the unit's journal.
 */


static int unit_cmp(const void *a, const void *b) {
        const CtlUnit *x = a, *y = b;
        int c = strcmp(x->cgroup, y->cgroup);

        return c != 0 ? c : strcmp(x->unit, y->unit);
}

static int unit_list_append(CtlUnitList *l, const CtlUnit *u, size_t *cap) {
        if (l->n == *cap) {
                size_t ncap = *cap ? *cap * 2 : 8;
                CtlUnit *v = realloc(l->v, ncap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                l->v = v;
                *cap = ncap;
        }
        l->v[l->n++] = *u;
        return 0;
}

static int unit_list_read(sd_bus_message *reply, CtlUnitList *l) {
        size_t cap = 0;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "(ssttsi)");
        if (r < 0)
                return r;
        for (;;) {
                CtlUnit u = {};

                r = sd_bus_message_read(reply, "(ssttsi)", &u.unit, &u.cgroup, &u.runtime, &u.period, &u.policy,
                                        &u.priority);
                if (r <= 0)
                        break;
                r = unit_list_append(l, &u, &cap);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        if (l->n > 1)
                qsort(l->v, l->n, sizeof(CtlUnit), unit_cmp);
        return sd_bus_message_exit_container(reply);
}

/* Calls ListUnits(); *ret_unknown when the daemon does not have it (then nothing is printed). */
static int call_list_units(Ctl *ctl, bool optional, sd_bus_message **ret_reply, bool *ret_unknown) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        *ret_unknown = false;
        r = ctl_new_manager_call(ctl, "ListUnits", &m);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build ListUnits call");
        r = sd_bus_call(ctl->bus, m, 0, &error, ret_reply);
        if (r >= 0) {
                r = ctl_check_reply(m, *ret_reply, NULL);
                if (r != CTL_EXIT_OK)
                        *ret_reply = sd_bus_message_unref(*ret_reply);
                return r;
        }
        if (sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                *ret_unknown = true;
                r = optional ? CTL_EXIT_OK
                             : ctl_fail(CTL_EXIT_REFUSED, "this hcbsd does not know units' reservations "
                                                          "(it has no ListUnits method: it is older than hcbsctl)");
        } else
                r = ctl_bus_fail(&error, r);
        sd_bus_error_free(&error);
        return r;
}

int ctl_list_units(Ctl *ctl, bool optional, CtlUnitList *ret) {
        CtlUnitList l = {};
        int r;

        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = call_list_units(ctl, optional, &l.reply, &l.unknown);
        if (r != CTL_EXIT_OK)
                return r;
        r = l.reply ? unit_list_read(l.reply, &l) : 0;
        if (r < 0) {
                ctl_unit_list_done(&l);
                return ctl_fail_errno(r, "cannot parse ListUnits reply");
        }
        *ret = l;
        return CTL_EXIT_OK;
}

void ctl_unit_list_done(CtlUnitList *l) {
        free(l->v);
        sd_bus_message_unref(l->reply);
        *l = (CtlUnitList) {};
}

uint64_t ctl_unit_bw(const CtlUnit *u) {
        return ctl_bw(u->period, u->runtime);
}

uint64_t ctl_unit_list_bw(const CtlUnitList *l) {
        uint64_t sum = 0;

        for (size_t i = 0; i < l->n; i++)
                sum += ctl_unit_bw(&l->v[i]);
        return sum;
}

const char *ctl_unit_policy_format(const CtlUnit *u, char buf[static CTL_POLICY_STRLEN]) {
        bool rt = strcmp(u->policy, "fifo") == 0 || strcmp(u->policy, "rr") == 0;

        if (rt)
                snprintf(buf, CTL_POLICY_STRLEN, "%.8s %d", u->policy, (int) u->priority);
        else
                snprintf(buf, CTL_POLICY_STRLEN, "%.16s", u->policy);
        return buf;
}

void ctl_units_json(Json *j, const CtlUnitList *l) {
        json_array_begin(j);
        for (size_t i = 0; i < l->n; i++) {
                const CtlUnit *u = &l->v[i];
                uint64_t bw = ctl_unit_bw(u);

                json_object_begin(j);
                json_kv_string(j, "unit", u->unit);
                json_kv_string(j, "cgroup", u->cgroup);
                json_kv_uint(j, "runtime_us", u->runtime);
                json_kv_uint(j, "period_us", u->period);
                json_kv_double(j, "bandwidth", ctl_bw_fraction(bw));
                json_kv_uint(j, "bandwidth_fp", bw);
                json_kv_string(j, "policy", u->policy);
                json_key(j, "priority");
                json_uint(j, u->priority > 0 ? (uint64_t) u->priority : 0);
                json_object_end(j);
        }
        json_array_end(j);
}

/* A service's full name, as systemd's %n gives it; the reason names only what is safe to print. */
static int parse_unit(const char *verb, const char *s) {
        size_t len = strlen(s), slen = strlen(HCBS_SERVICE_SUFFIX);

        if (len > HCBS_UNIT_NAME_MAX)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid unit name: longer than %d characters", verb,
                                HCBS_UNIT_NAME_MAX);
        if (s[strspn(s, HCBS_UNIT_NAME_CHARS)] != '\0')
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid unit name: only A-Z a-z 0-9 and : - _ . \\ @ are allowed",
                                verb);
        if (len <= slen || strcmp(s + len - slen, HCBS_SERVICE_SUFFIX) != 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: invalid unit name '%s': not a service's (e.g. motor.service)",
                                verb, s);
        return CTL_EXIT_OK;
}

enum {
        ARG_CPUS = CTL_ARG_OTHER + 1,
};

static const struct option reserve_options[] = {
        { "fifo", required_argument, NULL, CTL_ARG_FIFO },
        { "rr", required_argument, NULL, CTL_ARG_RR },
        { "cpus", required_argument, NULL, ARG_CPUS },
        {},
};

typedef struct UnitRequest {
        const char *unit;
        uint64_t runtime;
        uint64_t period;
        CtlPolicy policy;
        const char *cpus; /* --cpus LIST: the unit's CPUs (rtmax v7), as its AllowedCPUs= */
} UnitRequest;

static int reserve_option(const char *verb, int c, const char *arg, void *userdata) {
        UnitRequest *req = userdata;
        HcbsCpuSet cpus;

        if (c != ARG_CPUS)
                return ctl_policy_option(verb, c, arg, &req->policy);
        if (hcbs_cpuset_parse(arg, &cpus) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "%s: --cpus '%s' is not a CPU list (like 0-1 or 2,3)", verb, arg);
        req->cpus = arg;
        return CTL_EXIT_OK;
}

/* UNIT RUNTIME PERIOD [--fifo PRIO | --rr PRIO] [--cpus LIST]. */
static int parse_reserve(Ctl *ctl, int argc, char *argv[], UnitRequest *req, bool *ret_help) {
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, reserve_options, reserve_option, req, -1, &p);
        *ret_help = r == CTL_EXIT_OK && p.help;
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_expect_args(argv[0], p.npos, 3, 3);
        if (r == CTL_EXIT_OK)
                r = parse_unit(argv[0], p.pos[0]);
        if (r == CTL_EXIT_OK)
                r = ctl_parse_duration(argv[0], "runtime", p.pos[1], &req->runtime);
        if (r == CTL_EXIT_OK)
                r = ctl_parse_duration(argv[0], "period", p.pos[2], &req->period);
        req->unit = p.npos > 0 ? p.pos[0] : NULL;
        return r;
}

int verb_reserve_unit(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        char about[HCBS_UNIT_NAME_MAX + 32];
        UnitRequest req = {};
        bool help;
        int r;

        r = parse_reserve(ctl, argc, argv, &req, &help);
        if (r != CTL_EXIT_OK || help)
                return r;
        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "ReserveUnit", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "stt", req.unit, req.runtime, req.period);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = ctl_policy_append_entries(m, &req.policy);
        if (r >= 0 && req.cpus)
                r = sd_bus_message_append(m, "{sv}", "cpus", "s", req.cpus);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        snprintf(about, sizeof(about), "%s: no reservation", req.unit);
        return ctl_call_about(ctl, m, about, NULL);
}

int verb_release_unit(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        char about[HCBS_UNIT_NAME_MAX + 48];
        CtlParsed p;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 1, 1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = parse_unit(argv[0], p.pos[0]);
        if (r == CTL_EXIT_OK)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "ReleaseUnit", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "sa{sv}", p.pos[0], 0);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        snprintf(about, sizeof(about), "%s: reservation not given back", p.pos[0]);
        return ctl_call_about(ctl, m, about, NULL);
}

static void units_print_json(const CtlUnitList *l) {
        Json j;

        json_init(&j, stdout);
        ctl_units_json(&j, l);
        json_finish(&j);
}

static int units_add_row(Table *t, const CtlUnit *u) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN], bb[HCBS_BW_STRLEN], pol[CTL_POLICY_STRLEN];

        return table_add_row(t, (const char *const[]) {
                u->unit, u->cgroup, hcbs_duration_format(u->runtime, rb), hcbs_duration_format(u->period, pb),
                hcbs_bw_format(ctl_unit_bw(u), bb), ctl_unit_policy_format(u, pol),
        });
}

static int units_print_text(const CtlUnitList *l) {
        static const char *const header[] = { "UNIT", "CGROUP", "RUNTIME", "PERIOD", "BANDWIDTH", "POLICY" };
        static const bool right[] = { false, false, true, true, true, false };
        Table *t = table_new(ELEMENTSOF(header), header, right);
        int r = 0;

        if (!t)
                return ctl_fail_errno(-ENOMEM, "cannot build the table");
        for (size_t i = 0; i < l->n && r >= 0; i++)
                r = units_add_row(t, &l->v[i]);
        if (r >= 0)
                table_print(t, stdout);
        table_free(t);
        return r < 0 ? ctl_fail_errno(r, "cannot build the table") : CTL_EXIT_OK;
}

/* units and containers: the reservations held by units, or only those of containers' scopes (hcbs-oci-hook). */
static int list_reservations(Ctl *ctl, int argc, char *argv[], bool scopes_only) {
        CtlUnitList l;
        CtlParsed p;
        size_t k = 0;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 0, 0, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_list_units(ctl, false, &l);
        if (r != CTL_EXIT_OK)
                return r;
        for (size_t i = 0; i < l.n; i++)
                if (!scopes_only || hcbs_endswith(l.v[i].unit, ".scope"))
                        l.v[k++] = l.v[i]; /* strings borrowed from the reply */
        l.n = k;
        if (ctl->json)
                units_print_json(&l);
        else
                r = units_print_text(&l);
        ctl_unit_list_done(&l);
        return r;
}

int verb_units(Ctl *ctl, int argc, char *argv[]) {
        return list_reservations(ctl, argc, argv, false);
}

int verb_containers(Ctl *ctl, int argc, char *argv[]) {
        return list_reservations(ctl, argc, argv, true);
}
