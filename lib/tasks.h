/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Task sets as people write them, for hcbsctl (--task, --tasks FILE), the
 * generator ([X-HCBS] Tasks=) and hcbs-oci-hook (org.hcbsd1.tasks): a task
 * is WCET:PERIOD[:DEADLINE], each a duration (lib/duration.h); a list
 * separates its tasks by blanks or commas. No I/O.
 */

#include <stddef.h>

#include "sizing.h"

/* One task; its fields are separated by ':' or blanks. 0, or -EINVAL with a reason in err. */
int hcbs_task_parse(const char *s, HcbsTask *ret, char *err, size_t errlen);

/*
 * Appends the tasks of list (separated by blanks or commas) to *tasks
 * (*n of them, realloc'ed; the caller frees). 0 (an empty list adds
 * nothing); -EINVAL with a reason in err, naming the task; -E2BIG past
 * HCBS_SIZING_MAX_TASKS in all; -ENOMEM. On failure *tasks and *n keep
 * what they had.
 */
int hcbs_tasks_parse(const char *list, HcbsTask **tasks, size_t *n, char *err, size_t errlen);
