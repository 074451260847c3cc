/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Units' reservations: ListUnits() read into plain structs, and how they are
 * shown by units, status and tree. A unit's reservation lives in the unit's
 * own cgroup (e.g. hcbs.slice/motor.service), beside hcbsd's groups.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "ctl-json.h"
#include "ctl.h"

/* One row of ListUnits(); the strings point into the reply message. */
typedef struct CtlUnit {
        const char *unit;
        const char *cgroup; /* relative to the cgroup mount */
        uint64_t runtime;
        uint64_t period;
        const char *policy; /* fifo, rr, other, keep */
        int32_t priority;
} CtlUnit;

typedef struct CtlUnitList {
        sd_bus_message *reply;
        CtlUnit *v; /* sorted by cgroup, then unit */
        size_t n;
        bool unknown; /* the daemon does not know ListUnits() */
} CtlUnitList;

/*
 * Calls ListUnits(); CtlExit, prints on failure. optional: a daemon that does
 * not know ListUnits() gives an empty list with unknown set, silently.
 */
int ctl_list_units(Ctl *ctl, bool optional, CtlUnitList *ret);
void ctl_unit_list_done(CtlUnitList *l);

/* The kernel's fixed-point bandwidth of u, and the sum over l. */
uint64_t ctl_unit_bw(const CtlUnit *u);
uint64_t ctl_unit_list_bw(const CtlUnitList *l);

#define CTL_POLICY_STRLEN 32
/* "fifo 80", "rr 5", "other", "keep". */
const char *ctl_unit_policy_format(const CtlUnit *u, char buf[static CTL_POLICY_STRLEN]);

/* Writes l as a JSON array of objects (units --json, and "units" of status and tree). */
void ctl_units_json(Json *j, const CtlUnitList *l);
