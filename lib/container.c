/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "duration.h"
#include "name.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) {
        va_list ap;

        if (err && errlen) {
                va_start(ap, fmt);
                vsnprintf(err, errlen, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

int hcbs_container_cgroup_split(const char *cgroup, const char *pool, char **ret, size_t *ret_scope_len, char *err,
                                size_t errlen) {
        const char *p = cgroup + strspn(cgroup, "/"), *scope, *end;
        size_t plen = strlen(pool), slen = strlen(HCBS_SCOPE_SUFFIX), len;
        unsigned depth = 0;
        char *copy;

        if (!hcbs_cgroup_path_is_valid(p) || !p[0])
                return fail(err, errlen, "'%s' is not a cgroup path", cgroup);
        if (!plen || strncmp(p, pool, plen) != 0 || p[plen] != '/')
                return fail(err, errlen, "/%s is not in the pool %s: start the container with --cgroup-parent=%s", p,
                            pool, hcbs_name_last(pool));
        scope = p + plen + 1;
        end = strchrnul(scope, '/');
        len = (size_t) (end - scope);
        if (len <= slen || strncmp(end - slen, HCBS_SCOPE_SUFFIX, slen) != 0 || scope[0] == '_' ||
            scope[strspn(scope, HCBS_UNIT_NAME_CHARS)] != (*end ? '/' : '\0') ||
            memchr(scope, '\\', len))
                return fail(err, errlen, "/%.*s is not a scope's cgroup (a container engine's *.scope)",
                            (int) (end - p), p);
        for (const char *s = end; *s; s = strchrnul(s + 1, '/'))
                depth++;
        if (depth > HCBS_CONTAINER_DEPTH_MAX)
                return fail(err, errlen, "/%s is deeper than %d levels below its scope", p,
                            HCBS_CONTAINER_DEPTH_MAX);
        copy = strdup(p);
        if (!copy)
                return -ENOMEM;
        *ret = copy;
        *ret_scope_len = (size_t) (end - p);
        return 0;
}

static int parse_priority(const char *s, int *ret) {
        char *end;
        long v;

        if (!s[0] || s[0] == '+' || s[0] == '-' || s[0] == ' ')
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || *end || v < 1 || v > 99)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

int hcbs_container_request_parse(const char *runtime, const char *period, const char *policy,
                                 HcbsContainerRequest *ret, char *err, size_t errlen) {
        HcbsContainerRequest q = { .priority = 0 };
        char why[HCBS_ERRLEN];
        const char *colon;

        if (!runtime && !period)
                return 0;
        if (!runtime || !period)
                return fail(err, errlen, "%s is given without %s", runtime ? HCBS_ANNOTATION_RUNTIME : HCBS_ANNOTATION_PERIOD,
                            runtime ? HCBS_ANNOTATION_PERIOD : HCBS_ANNOTATION_RUNTIME);
        if (hcbs_duration_parse(runtime, &q.runtime_us, why, sizeof(why)) < 0)
                return fail(err, errlen, "%s=%s: %s", HCBS_ANNOTATION_RUNTIME, runtime, why);
        if (hcbs_duration_parse(period, &q.period_us, why, sizeof(why)) < 0)
                return fail(err, errlen, "%s=%s: %s", HCBS_ANNOTATION_PERIOD, period, why);
        if (q.period_us == 0)
                return fail(err, errlen, "%s=%s: the period must not be 0", HCBS_ANNOTATION_PERIOD, period);
        if (q.runtime_us == 0)
                return fail(err, errlen, "%s=%s: the runtime must not be 0", HCBS_ANNOTATION_RUNTIME, runtime);
        if (q.runtime_us > q.period_us)
                return fail(err, errlen, "%s=%s is longer than %s=%s", HCBS_ANNOTATION_RUNTIME, runtime,
                            HCBS_ANNOTATION_PERIOD, period);
        if (!policy || strcmp(policy, "keep") == 0 || strcmp(policy, "other") == 0) {
                snprintf(q.policy, sizeof(q.policy), "%s", policy ? policy : "keep");
        } else if ((colon = strchr(policy, ':')) &&
                   ((colon - policy == 4 && strncmp(policy, "fifo", 4) == 0) ||
                    (colon - policy == 2 && strncmp(policy, "rr", 2) == 0))) {
                snprintf(q.policy, sizeof(q.policy), "%.*s", (int) (colon - policy), policy);
                if (parse_priority(colon + 1, &q.priority) < 0)
                        return fail(err, errlen, "%s=%s: the priority must be a number from 1 to 99",
                                    HCBS_ANNOTATION_POLICY, policy);
        } else
                return fail(err, errlen, "%s=%s: expected fifo:PRIO, rr:PRIO, other or keep", HCBS_ANNOTATION_POLICY,
                            policy);
        *ret = q;
        return 1;
}
