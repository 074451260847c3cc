/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Containers' reservations: the pure part shared by hcbsd and
 * hcbs-oci-hook (no I/O).
 *
 * A container engine with the systemd cgroup manager (podman, CRI-O with
 * crun or runc) runs each container in a transient scope, placed in the
 * slice it is given (`--cgroup-parent=hcbs.slice`): the scope's cgroup is
 * a child of the pool ("hcbs.slice/libpod-ID.scope"), and crun puts the
 * container's processes one level lower, in the scope's "container"
 * subgroup. A container cgroup is therefore POOL/SCOPE[/SUB...]: SCOPE a
 * systemd scope's name, which is its cgroup directory's name (systemd
 * escapes only names starting with '_' or like a cgroup file, which no
 * engine makes, and which are refused here).
 *
 * The annotations (org.hcbsd1.*, hcbs-oci-hook(1)): runtime and period
 * are durations (lib/duration.h), or tasks is a task set (lib/tasks.h)
 * that hcbsd sizes; policy is fifo:PRIO or rr:PRIO (1..99) or
 * "other"/"keep".
 */

#include <stddef.h>
#include <stdint.h>

#include "sizing.h"

#define HCBS_SCOPE_SUFFIX ".scope"
#define HCBS_CONTAINER_DEPTH_MAX 4 /* segments below the scope */

#define HCBS_ANNOTATION_RUNTIME "org.hcbsd1.runtime"
#define HCBS_ANNOTATION_PERIOD "org.hcbsd1.period"
#define HCBS_ANNOTATION_POLICY "org.hcbsd1.policy"
#define HCBS_ANNOTATION_TASKS "org.hcbsd1.tasks"

/*
 * Splits cgroup (relative to the v2 mount; leading '/' allowed) below
 * pool: *ret_scope_len is the length of "POOL/SCOPE" in the returned
 * normalized path *ret (the whole path without its leading '/'). 0, or
 * -EINVAL with the reason in err.
 */
int hcbs_container_cgroup_split(const char *cgroup, const char *pool, char **ret, size_t *ret_scope_len, char *err,
                                size_t errlen);

/* The org.hcbsd1.* annotations' values, NULL when absent. */
typedef struct HcbsContainerAnnotations {
        const char *runtime, *period, *policy, *tasks;
} HcbsContainerAnnotations;

/*
 * The cgroup an OCI config's linux.cgroupsPath names, relative to the v2
 * mount without a leading '/' (caller frees): the systemd cgroup manager's
 * "SLICE:PREFIX:NAME" is the scope PREFIX-NAME.scope in SLICE's cgroup
 * ("hcbs.slice:libpod:ID" is "hcbs.slice/libpod-ID.scope"; a slice "a-b.slice"
 * is "a.slice/a-b.slice"), a path is itself. The engine makes it after the
 * precreate hooks ran. 0, -ENOMEM, or -EINVAL with the reason in err.
 */
int hcbs_container_cgroups_path(const char *cgroups_path, char **ret, char *err, size_t errlen);

typedef struct HcbsContainerRequest {
        uint64_t runtime_us, period_us; /* 0 with tasks: hcbsd sizes them */
        HcbsTask *tasks;
        size_t n_tasks;
        char policy[8]; /* "keep", "other", "fifo", "rr" */
        int priority;
} HcbsContainerRequest;

/*
 * Checks the annotations. 1 with *ret filled (free it with
 * hcbs_container_request_done()); 0 if none of runtime, period and tasks
 * is there (the container did not ask); -ENOMEM; or -EINVAL with a
 * one-line reason in err: one of runtime and period without the other, or
 * tasks beside them, a bad duration, runtime 0 or above period, a bad or
 * empty task list, an unknown policy, a priority out of 1..99.
 */
int hcbs_container_request_parse(const HcbsContainerAnnotations *a, HcbsContainerRequest *ret, char *err,
                                 size_t errlen);
void hcbs_container_request_done(HcbsContainerRequest *q);
