/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"
#include "ctl-size.h"

typedef struct CtlObserveArgs {
        const char *target;   /* GROUP, UNIT or PID */
        uint64_t duration_us; /* --for, default 10 s */
        uint32_t margin;      /* --margin, percent */
        bool apply;
} CtlObserveArgs;

/*
 * hcbsctl size --observe: the observation, its task set, the reservation
 * SizeReservation computes for it (with a's --cpus, --period, ...), and
 * with apply that reservation set. A CtlExit; a's tasks are the derived ones.
 */
int ctl_size_observed(Ctl *ctl, CtlSizeArgs *a, const CtlObserveArgs *o);
