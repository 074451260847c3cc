/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-format.h"
#include "ctl-getopt.h"
#include "ctl-json.h"
#include "ctl-units.h"
#include "ctl-verbs.h"
#include "macro.h"
#include "name.h"

/* status, list, show, stats: the read-only verbs (tree has its own file). */

static void status_print_json(const CtlManagerProps *p, uint64_t cap, uint64_t alloc, const CtlUnitList *units) {
        Json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "version", p->version);
        json_kv_string(&j, "kernel_interface", p->kernel_interface);
        if (p->kernel_mode) {
                json_kv_string(&j, "mode", p->kernel_mode);
                json_kv_string(&j, "mode_reason", p->kernel_mode_reason ? p->kernel_mode_reason : "");
                json_kv_string(&j, "mode_fix", p->kernel_mode_fix ? p->kernel_mode_fix : "");
        }
        json_kv_string(&j, "cgroup_root", p->cgroup_root);
        json_kv_uint(&j, "capacity_runtime_us", p->capacity_runtime);
        json_kv_uint(&j, "capacity_period_us", p->capacity_period);
        json_kv_double(&j, "capacity", ctl_bw_fraction(cap));
        json_kv_uint(&j, "capacity_fp", cap);
        json_kv_double(&j, "allocated", p->allocated);
        json_kv_uint(&j, "allocated_fp", alloc);
        json_kv_double(&j, "free", ctl_bw_fraction(cap > alloc ? cap - alloc : 0));
        json_kv_uint(&j, "group_count", p->group_count);
        json_kv_string(&j, "stats_backend", p->stats_backend);
        if (p->stats_backend_reason)
                json_kv_string(&j, "stats_backend_reason", p->stats_backend_reason);
        json_key(&j, "units");
        ctl_units_json(&j, units);
        json_object_end(&j);
        json_finish(&j);
}

static const char *str_or_dash(const char *s) {
        return s && *s ? s : "-";
}

/* One brief line per unit below the "Units:" value, columns aligned. */
static void status_print_unit_lines(const CtlUnitList *l) {
        char res[2 * HCBS_DURATION_STRLEN], bw[HCBS_BW_STRLEN], pol[CTL_POLICY_STRLEN];
        int wunit = 0, wres = 0;

        for (size_t i = 0; i < l->n; i++) {
                const CtlUnit *u = &l->v[i];

                wunit = MAX(wunit, (int) strlen(u->unit));
                wres = MAX(wres, (int) strlen(ctl_format_reservation(u->runtime, u->period, res)));
        }
        for (size_t i = 0; i < l->n; i++) {
                const CtlUnit *u = &l->v[i];

                printf("                  %-*s  %*s  %6s  %s\n", wunit, u->unit, wres,
                       ctl_format_reservation(u->runtime, u->period, res), hcbs_bw_format(ctl_unit_bw(u), bw),
                       ctl_unit_policy_format(u, pol));
        }
}

/* "Units:", their count and total; nothing when the daemon does not know units. */
static void status_print_units(const CtlUnitList *l) {
        char bw[HCBS_BW_STRLEN];

        if (l->unknown)
                return;
        if (l->n == 0) {
                printf("Units:            none\n");
                return;
        }
        printf("Units:            %zu (%s per CPU)\n", l->n, hcbs_bw_format(ctl_unit_list_bw(l), bw));
        status_print_unit_lines(l);
}

static void status_print_text(const CtlManagerProps *p, uint64_t cap, uint64_t alloc, const CtlUnitList *units) {
        char res[2 * HCBS_DURATION_STRLEN], b1[HCBS_BW_STRLEN], b2[HCBS_BW_STRLEN];

        printf("Version:          %s\n", str_or_dash(p->version));
        printf("Kernel interface: %s\n", str_or_dash(p->kernel_interface));
        if (p->kernel_mode) {
                printf("Mode:             %s (%s)\n", p->kernel_mode, str_or_dash(p->kernel_mode_reason));
                if (p->kernel_mode_fix && p->kernel_mode_fix[0])
                        printf("Fix:              %s\n", p->kernel_mode_fix);
        }
        printf("Cgroup root:      %s\n", str_or_dash(p->cgroup_root));
        printf("Capacity:         %s (%s per CPU)\n",
               ctl_format_reservation(p->capacity_runtime, p->capacity_period, res), hcbs_bw_format(cap, b1));
        printf("Allocated:        %s per CPU (%s free)\n", hcbs_bw_format(alloc, b1),
               hcbs_bw_format(cap > alloc ? cap - alloc : 0, b2));
        printf("Groups:           %u\n", p->group_count);
        status_print_units(units);
        if (p->stats_backend_reason && p->stats_backend_reason[0])
                printf("Stats backend:    %s (%s)\n", str_or_dash(p->stats_backend), p->stats_backend_reason);
        else
                printf("Stats backend:    %s\n", str_or_dash(p->stats_backend));
}

int verb_status(Ctl *ctl, int argc, char *argv[]) {
        CtlManagerProps p = {};
        CtlUnitList units = {};
        uint64_t cap, alloc;
        CtlParsed a;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 0, 0, &a);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        r = ctl_get_manager_props(ctl, &p);
        if (r == CTL_EXIT_OK)
                r = ctl_list_units(ctl, true, &units);
        cap = ctl_bw(p.capacity_period, p.capacity_runtime);
        alloc = ctl_bw_from_fraction(p.allocated);
        if (r == CTL_EXIT_OK && ctl->json)
                status_print_json(&p, cap, alloc, &units);
        else if (r == CTL_EXIT_OK)
                status_print_text(&p, cap, alloc, &units);
        ctl_unit_list_done(&units);
        ctl_props_free(ctl_manager_props, &p);
        return r;
}

static void list_print_json(const CtlGroupList *l) {
        Json j;

        json_init(&j, stdout);
        json_array_begin(&j);
        for (size_t i = 0; i < l->n; i++) {
                const CtlGroup *g = &l->v[i];
                uint64_t bw = ctl_bw(g->period, g->runtime);

                json_object_begin(&j);
                json_kv_string(&j, "name", g->name);
                json_kv_uint(&j, "runtime_us", g->runtime);
                json_kv_uint(&j, "period_us", g->period);
                json_kv_double(&j, "bandwidth", ctl_bw_fraction(bw));
                json_kv_uint(&j, "bandwidth_fp", bw);
                json_kv_bool(&j, "leaf", g->leaf);
                json_kv_uint(&j, "processes", g->processes);
                json_kv_uint(&j, "rt_tasks", g->rt_tasks);
                if (g->effective_cpus) {
                        json_kv_string(&j, "cpus", g->cpus);
                        json_kv_string(&j, "effective_cpus", g->effective_cpus);
                }
                json_object_end(&j);
        }
        json_array_end(&j);
        json_finish(&j);
}

static int list_add_row(Table *t, const CtlGroup *g) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN], bb[HCBS_BW_STRLEN];
        char procs[16], rt[16];

        snprintf(procs, sizeof(procs), "%u", g->processes);
        snprintf(rt, sizeof(rt), "%u", g->rt_tasks);
        return table_add_row(t, (const char *const[]) {
                g->name, ctl_format_runtime(g->runtime, rb), hcbs_duration_format(g->period, pb),
                hcbs_bw_format(ctl_bw(g->period, g->runtime), bb), g->leaf ? "yes" : "no", procs, rt,
                g->effective_cpus ? g->effective_cpus : "-",
        });
}

/* Whether some group was given CPUs of its own (rtmax v7): the list then shows a CPUS column. */
static bool any_cpus(const CtlGroupList *l) {
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].cpus && l->v[i].cpus[0])
                        return true;
        return false;
}

static int list_print_text(const CtlGroupList *l) {
        static const char *const header[] = { "NAME", "RUNTIME", "PERIOD", "BANDWIDTH", "LEAF", "PROCS", "RT", "CPUS" };
        static const bool right[] = { false, true, true, true, false, true, true, false };
        Table *t = table_new(ELEMENTSOF(header) - !any_cpus(l), header, right);
        int r = 0;

        if (!t)
                return ctl_fail_errno(-ENOMEM, "cannot build the table");
        for (size_t i = 0; i < l->n && r >= 0; i++)
                r = list_add_row(t, &l->v[i]);
        if (r >= 0)
                table_print(t, stdout);
        table_free(t);
        return r < 0 ? ctl_fail_errno(r, "cannot build the table") : CTL_EXIT_OK;
}

int verb_list(Ctl *ctl, int argc, char *argv[]) {
        CtlGroupList l;
        CtlParsed a;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 0, 0, &a);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        r = ctl_list_groups(ctl, &l);
        if (r != CTL_EXIT_OK)
                return r;
        if (ctl->json)
                list_print_json(&l);
        else
                r = list_print_text(&l);
        ctl_group_list_done(&l);
        return r;
}

typedef struct GroupProps {
        char *name;
        uint64_t runtime;
        uint64_t period;
        double bandwidth;
        double children_bandwidth;
        bool leaf;
        bool persistent;
        CtlU32Array processes;
        uint32_t rt_tasks;
        char *cpus;           /* NULL from an hcbsd without them */
        char *effective_cpus;
} GroupProps;

#define GPROP(n, sig, field) { n, sig, offsetof(GroupProps, field) }
static const CtlProp group_props[] = {
        GPROP("Name", "s", name),
        GPROP("Runtime", "t", runtime),
        GPROP("Period", "t", period),
        GPROP("Bandwidth", "d", bandwidth),
        GPROP("ChildrenBandwidth", "d", children_bandwidth),
        GPROP("Leaf", "b", leaf),
        GPROP("Persistent", "b", persistent),
        GPROP("Processes", "au", processes),
        GPROP("RTTasks", "u", rt_tasks),
        GPROP("CPUs", "s", cpus),
        GPROP("EffectiveCPUs", "s", effective_cpus),
        {},
};

static void show_print_json(const GroupProps *g) {
        Json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "name", g->name);
        json_kv_uint(&j, "runtime_us", g->runtime);
        json_kv_uint(&j, "period_us", g->period);
        json_kv_double(&j, "bandwidth", g->bandwidth);
        json_kv_double(&j, "children_bandwidth", g->children_bandwidth);
        json_kv_bool(&j, "leaf", g->leaf);
        json_kv_bool(&j, "persistent", g->persistent);
        json_key(&j, "processes");
        json_array_begin(&j);
        for (size_t i = 0; i < g->processes.n; i++)
                json_uint(&j, g->processes.v[i]);
        json_array_end(&j);
        json_kv_uint(&j, "rt_tasks", g->rt_tasks);
        if (g->effective_cpus) {
                json_kv_string(&j, "cpus", g->cpus ? g->cpus : "");
                json_kv_string(&j, "effective_cpus", g->effective_cpus);
        }
        json_object_end(&j);
        json_finish(&j);
}

static void show_print_text(const GroupProps *g) {
        char rb[HCBS_DURATION_STRLEN], pb[HCBS_DURATION_STRLEN], b1[HCBS_BW_STRLEN], b2[HCBS_BW_STRLEN];
        uint64_t own = ctl_bw_from_fraction(g->bandwidth), kids = ctl_bw_from_fraction(g->children_bandwidth);

        printf("Name:               %s\n", g->name ? g->name : "");
        printf("Runtime:            %s\n", ctl_format_runtime(g->runtime, rb));
        printf("Period:             %s\n", hcbs_duration_format(g->period, pb));
        printf("Bandwidth:          %s per CPU\n", hcbs_bw_format(own, b1));
        printf("Children bandwidth: %s per CPU (%s free)\n", hcbs_bw_format(kids, b1),
               hcbs_bw_format(own > kids ? own - kids : 0, b2));
        printf("Leaf:               %s\n", g->leaf ? "yes" : "no");
        printf("Persistent:         %s\n", g->persistent ? "yes" : "no");
        printf("Processes:         ");
        for (size_t i = 0; i < g->processes.n; i++)
                printf(" %u", g->processes.v[i]);
        printf("%s\n", g->processes.n ? "" : " -");
        printf("RT tasks:           %u\n", g->rt_tasks);
        if (g->effective_cpus && g->cpus && g->cpus[0])
                printf("CPUs:               %s (effective %s)\n", g->cpus, g->effective_cpus);
        else if (g->effective_cpus)
                printf("CPUs:               all of its parent's (%s)\n", g->effective_cpus);
}

/* GetAll on the group's object; an unknown object means no such group. */
static int show_get(Ctl *ctl, const char *name, GroupProps *g) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = ctl_group_path(name, &path);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the object path");
        r = ctl_get_all(ctl, path, HCBS_GROUP_IFACE, group_props, g, &error);
        if (r >= 0)
                r = CTL_EXIT_OK;
        else if (sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_OBJECT, SD_BUS_ERROR_UNKNOWN_INTERFACE))
                r = ctl_fail(CTL_EXIT_NOT_FOUND, "no such group '%s'", name);
        else
                r = ctl_bus_fail(&error, r);
        sd_bus_error_free(&error);
        return r;
}

int verb_show(Ctl *ctl, int argc, char *argv[]) {
        char err[HCBS_ERRLEN];
        GroupProps g = {};
        CtlParsed a;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 1, 1, &a);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        if (hcbs_name_validate(a.pos[0], err, sizeof(err)) < 0)
                return ctl_fail(CTL_EXIT_USAGE, "show: invalid group name: %s", err);
        r = ctl_connect(ctl);
        if (r == CTL_EXIT_OK)
                r = show_get(ctl, a.pos[0], &g);
        if (r == CTL_EXIT_OK && ctl->json)
                show_print_json(&g);
        else if (r == CTL_EXIT_OK)
                show_print_text(&g);
        ctl_props_free(group_props, &g);
        return r;
}
