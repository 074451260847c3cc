/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl size, and the sizing half of hcbsctl create GROUP --tasks FILE:
 * tasks from --task WCET:PERIOD[:DEADLINE] and --tasks FILE, options
 * --cpus, --period, --period-range, --scheduler; SizeReservation() does the
 * analysis in hcbsd.
 */

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl-cmdline.h"
#include "ctl-json.h"
#include "sizing.h"

enum {
        CTL_ARG_SIZE_TASK = CTL_ARG_VERB_FIRST + 0x40,
        CTL_ARG_SIZE_TASKS,
        CTL_ARG_SIZE_CPUS,
        CTL_ARG_SIZE_PERIOD,
        CTL_ARG_SIZE_PERIOD_RANGE,
        CTL_ARG_SIZE_SCHEDULER,
};

#define CTL_SIZE_OPTIONS                                                        \
        { "task", required_argument, NULL, CTL_ARG_SIZE_TASK },                 \
        { "tasks", required_argument, NULL, CTL_ARG_SIZE_TASKS },               \
        { "cpus", required_argument, NULL, CTL_ARG_SIZE_CPUS },                 \
        { "period", required_argument, NULL, CTL_ARG_SIZE_PERIOD },             \
        { "period-range", required_argument, NULL, CTL_ARG_SIZE_PERIOD_RANGE }, \
        { "scheduler", required_argument, NULL, CTL_ARG_SIZE_SCHEDULER }

typedef struct CtlSizeArgs {
        HcbsTask *tasks;
        size_t n_tasks;
        uint32_t cpus;       /* 0: hcbsd's default (the CPUs online) */
        uint64_t period_us;  /* 0: not given */
        uint64_t min_period_us, max_period_us;
        const char *scheduler; /* NULL: fp */
} CtlSizeArgs;

typedef struct CtlSizing {
        uint64_t runtime_us, period_us;
        uint32_t cpus;
        double bandwidth, utilisation, limit;
        uint64_t budget_us;
        char scheduler[8];
        uint32_t *rank;      /* per task, NULL if hcbsd did not say */
        uint64_t *response;  /* per task, 0: not computed */
} CtlSizing;

/* Handles one of the CTL_ARG_SIZE_* options. CtlExit. */
int ctl_size_option(const char *verb, int c, const char *arg, CtlSizeArgs *a);

/*
 * Calls SizeReservation. CTL_EXIT_OK with *ret filled; otherwise prints the
 * refusal (and, with --json, the {"schedulable": false} object) and returns its exit code.
 */
int ctl_size_call(Ctl *ctl, const CtlSizeArgs *a, CtlSizing *ret);

/* SizeReservation's answer for a's tasks: the table `hcbsctl size` prints, or its JSON object (not finished). */
void ctl_size_print_text(const CtlSizeArgs *a, const CtlSizing *s);
void ctl_size_json(Json *j, const CtlSizeArgs *a, const CtlSizing *s);

void ctl_size_args_done(CtlSizeArgs *a);
void ctl_sizing_done(CtlSizing *s);
