/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "duration.h"
#include "name.h"
#include "tasks.h"

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

/* The cgroup of a slice: "a-b.slice" is "a.slice/a-b.slice", "-.slice" the root (""). */
static int slice_cgroup(const char *slice, size_t len, char *buf, size_t size) {
        const char *suffix = ".slice";
        size_t slen = strlen(suffix), k = 0;

        if (len == 0 || (len == 7 && strncmp(slice, "-.slice", 7) == 0)) {
                buf[0] = '\0';
                return 0;
        }
        if (len <= slen || strncmp(slice + len - slen, suffix, slen) != 0 || slice[0] == '-' ||
            slice[len - slen - 1] == '-' || memchr(slice, '/', len))
                return -EINVAL;
        for (size_t i = 0; i < len - slen; i++) {
                if (slice[i] != '-')
                        continue;
                if (slice[i + 1] == '-')
                        return -EINVAL;
                k += (size_t) snprintf(buf + k, size > k ? size - k : 0, "%.*s.slice/", (int) i, slice);
        }
        k += (size_t) snprintf(buf + k, size > k ? size - k : 0, "%.*s", (int) len, slice);
        return k < size ? 0 : -EINVAL;
}

int hcbs_container_cgroups_path(const char *cgroups_path, char **ret, char *err, size_t errlen) {
        const char *c1 = strchr(cgroups_path, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        char slice[4096], *p;

        if (!c1) {
                p = strdup(cgroups_path + strspn(cgroups_path, "/"));
                if (!p)
                        return -ENOMEM;
                if (!hcbs_cgroup_path_is_valid(p) || !p[0]) {
                        free(p);
                        return fail(err, errlen, "linux.cgroupsPath '%s' is not a cgroup path", cgroups_path);
                }
                *ret = p;
                return 0;
        }
        if (!c2 || strchr(c2 + 1, ':') || strchr(c1, '/') || c2 == c1 + 1 || !c2[1] ||
            slice_cgroup(cgroups_path, (size_t) (c1 - cgroups_path), slice, sizeof(slice)) < 0)
                return fail(err, errlen, "linux.cgroupsPath '%s' is neither a path nor SLICE:PREFIX:NAME", cgroups_path);
        if (asprintf(&p, "%s%s%.*s-%s" HCBS_SCOPE_SUFFIX, slice, slice[0] ? "/" : "", (int) (c2 - c1 - 1), c1 + 1,
                     c2 + 1) < 0)
                return -ENOMEM;
        if (!hcbs_cgroup_path_is_valid(p)) {
                free(p);
                return fail(err, errlen, "linux.cgroupsPath '%s' names no valid cgroup", cgroups_path);
        }
        *ret = p;
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

static int parse_bandwidth(const HcbsContainerAnnotations *a, HcbsContainerRequest *q, char *err, size_t errlen) {
        char why[HCBS_ERRLEN];

        if (!a->runtime || !a->period)
                return fail(err, errlen, "%s is given without %s", a->runtime ? HCBS_ANNOTATION_RUNTIME : HCBS_ANNOTATION_PERIOD,
                            a->runtime ? HCBS_ANNOTATION_PERIOD : HCBS_ANNOTATION_RUNTIME);
        if (hcbs_duration_parse(a->runtime, &q->runtime_us, why, sizeof(why)) < 0)
                return fail(err, errlen, "%s=%s: %s", HCBS_ANNOTATION_RUNTIME, a->runtime, why);
        if (hcbs_duration_parse(a->period, &q->period_us, why, sizeof(why)) < 0)
                return fail(err, errlen, "%s=%s: %s", HCBS_ANNOTATION_PERIOD, a->period, why);
        if (q->period_us == 0)
                return fail(err, errlen, "%s=%s: the period must not be 0", HCBS_ANNOTATION_PERIOD, a->period);
        if (q->runtime_us == 0)
                return fail(err, errlen, "%s=%s: the runtime must not be 0", HCBS_ANNOTATION_RUNTIME, a->runtime);
        if (q->runtime_us > q->period_us)
                return fail(err, errlen, "%s=%s is longer than %s=%s", HCBS_ANNOTATION_RUNTIME, a->runtime,
                            HCBS_ANNOTATION_PERIOD, a->period);
        return 0;
}

static int parse_tasks(const HcbsContainerAnnotations *a, HcbsContainerRequest *q, char *err, size_t errlen) {
        char why[HCBS_ERRLEN];
        int r;

        if (a->runtime || a->period)
                return fail(err, errlen, "%s excludes %s and %s: give the tasks, or the reservation", HCBS_ANNOTATION_TASKS,
                            HCBS_ANNOTATION_RUNTIME, HCBS_ANNOTATION_PERIOD);
        r = hcbs_tasks_parse(a->tasks, &q->tasks, &q->n_tasks, why, sizeof(why));
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(err, errlen, "%s=%s: %s", HCBS_ANNOTATION_TASKS, a->tasks, why);
        if (q->n_tasks == 0)
                return fail(err, errlen, "%s is empty: give at least one task, WCET:PERIOD[:DEADLINE]",
                            HCBS_ANNOTATION_TASKS);
        return 0;
}

static int parse_policy(const char *policy, HcbsContainerRequest *q, char *err, size_t errlen) {
        const char *colon;

        if (!policy || strcmp(policy, "keep") == 0 || strcmp(policy, "other") == 0) {
                snprintf(q->policy, sizeof(q->policy), "%s", policy ? policy : "keep");
                return 0;
        }
        colon = strchr(policy, ':');
        if (!colon || !((colon - policy == 4 && strncmp(policy, "fifo", 4) == 0) ||
                        (colon - policy == 2 && strncmp(policy, "rr", 2) == 0)))
                return fail(err, errlen, "%s=%s: expected fifo:PRIO, rr:PRIO, other or keep", HCBS_ANNOTATION_POLICY,
                            policy);
        snprintf(q->policy, sizeof(q->policy), "%.*s", (int) (colon - policy), policy);
        if (parse_priority(colon + 1, &q->priority) < 0)
                return fail(err, errlen, "%s=%s: the priority must be a number from 1 to 99", HCBS_ANNOTATION_POLICY,
                            policy);
        return 0;
}

int hcbs_container_request_parse(const HcbsContainerAnnotations *a, HcbsContainerRequest *ret, char *err,
                                 size_t errlen) {
        HcbsContainerRequest q = {};
        int r;

        if (!a->runtime && !a->period && !a->tasks)
                return 0;
        r = a->tasks ? parse_tasks(a, &q, err, errlen) : parse_bandwidth(a, &q, err, errlen);
        if (r >= 0)
                r = parse_policy(a->policy, &q, err, errlen);
        if (r < 0) {
                hcbs_container_request_done(&q);
                return r;
        }
        *ret = q;
        return 1;
}

void hcbs_container_request_done(HcbsContainerRequest *q) {
        free(q->tasks);
        q->tasks = NULL;
        q->n_tasks = 0;
}
