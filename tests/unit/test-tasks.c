/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Task sets as written by people (lib/tasks.c): one task, and lists. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tasks.h"

static char err[256];

Test(tasks, one_task) {
        HcbsTask t;

        cr_assert_eq(hcbs_task_parse("2ms:20ms", &t, err, sizeof(err)), 0, "%s", err);
        cr_assert(t.wcet_us == 2000 && t.period_us == 20000 && t.deadline_us == 0);
        cr_assert_eq(hcbs_task_parse("1ms 10ms 5ms", &t, err, sizeof(err)), 0, "%s", err);
        cr_assert(t.wcet_us == 1000 && t.period_us == 10000 && t.deadline_us == 5000);
        cr_assert_eq(hcbs_task_parse("2ms", &t, err, sizeof(err)), -EINVAL);
        cr_assert_str_eq(err, "task '2ms': expected WCET:PERIOD[:DEADLINE]");
        cr_assert_eq(hcbs_task_parse("1:2:3:4", &t, err, sizeof(err)), -EINVAL);
        cr_assert_eq(hcbs_task_parse("1ms:2xs", &t, err, sizeof(err)), -EINVAL);
        cr_assert(strstr(err, "task '1ms:2xs': invalid period: "), "%s", err);
}

Test(tasks, lists_by_blanks_or_commas) {
        HcbsTask *v = NULL;
        size_t n = 0;

        cr_assert_eq(hcbs_tasks_parse("2ms:20ms,3ms:30ms  1ms:10ms:5ms", &v, &n, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(n, 3);
        cr_assert_eq(v[1].wcet_us, 3000);
        cr_assert_eq(v[2].deadline_us, 5000);
        cr_assert_eq(hcbs_tasks_parse(" , ", &v, &n, err, sizeof(err)), 0);
        cr_assert_eq(n, 3, "an empty list adds nothing");
        /* a bad task anywhere keeps what was there */
        cr_assert_eq(hcbs_tasks_parse("4ms:40ms 2ms", &v, &n, err, sizeof(err)), -EINVAL);
        cr_assert_eq(n, 3);
        cr_assert_str_eq(err, "task '2ms': expected WCET:PERIOD[:DEADLINE]");
        free(v);
}

Test(tasks, at_most_the_sizing_limit) {
        HcbsTask *v = NULL;
        size_t n = 0;
        char *list = malloc((HCBS_SIZING_MAX_TASKS + 1) * 8 + 1), *p = list;

        for (int i = 0; i <= HCBS_SIZING_MAX_TASKS; i++)
                p += sprintf(p, "1:100, ");
        cr_assert_eq(hcbs_tasks_parse(list, &v, &n, err, sizeof(err)), -E2BIG);
        cr_assert_eq(n, 0);
        cr_assert_str_eq(err, "more than 1024 tasks");
        free(list);
        free(v);
}
