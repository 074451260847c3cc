/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "macro.h"
#include "tasks.h"

#define FIELD_SEPARATORS ": \t"
#define TASK_SEPARATORS ", \t\n"

int hcbs_task_parse(const char *s, HcbsTask *ret, char *err, size_t errlen) {
        static const char *const what[] = { "WCET", "period", "deadline" };
        uint64_t v[3] = {};
        char buf[256], why[HCBS_ERRLEN], *save = NULL;
        unsigned n = 0;

        if (strlen(s) >= sizeof(buf)) {
                snprintf(err, errlen, "task '%.32s...' is too long", s);
                return -EINVAL;
        }
        strcpy(buf, s);
        for (char *tok = strtok_r(buf, FIELD_SEPARATORS, &save); tok; tok = strtok_r(NULL, FIELD_SEPARATORS, &save)) {
                if (n == 3) {
                        snprintf(err, errlen, "task '%s': expected WCET:PERIOD[:DEADLINE]", s);
                        return -EINVAL;
                }
                if (hcbs_duration_parse(tok, &v[n], why, sizeof(why)) < 0) {
                        snprintf(err, errlen, "task '%s': invalid %s: %s", s, what[n], why);
                        return -EINVAL;
                }
                n++;
        }
        if (n < 2) {
                snprintf(err, errlen, "task '%s': expected WCET:PERIOD[:DEADLINE]", s);
                return -EINVAL;
        }
        *ret = (HcbsTask) { v[0], v[1], v[2] };
        return 0;
}

int hcbs_tasks_parse(const char *list, HcbsTask **tasks, size_t *n, char *err, size_t errlen) {
        _cleanup_free_ char *copy = strdup(list);
        size_t added = 0;
        char *save = NULL;
        HcbsTask *v;
        int r;

        if (!copy)
                return -ENOMEM;
        for (char *tok = strtok_r(copy, TASK_SEPARATORS, &save); tok; tok = strtok_r(NULL, TASK_SEPARATORS, &save)) {
                HcbsTask t;

                /* on failure the array may have grown, but its first *n entries are as they were */
                r = hcbs_task_parse(tok, &t, err, errlen);
                if (r < 0)
                        return r;
                if (*n + added >= HCBS_SIZING_MAX_TASKS) {
                        snprintf(err, errlen, "more than %d tasks", HCBS_SIZING_MAX_TASKS);
                        return -E2BIG;
                }
                v = reallocarray(*tasks, *n + added + 1, sizeof(HcbsTask));
                if (!v)
                        return -ENOMEM;
                *tasks = v;
                v[*n + added++] = t;
        }
        *n += added;
        return 0;
}
