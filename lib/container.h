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
 * are durations (lib/duration.h); policy is fifo:PRIO or rr:PRIO (1..99)
 * or "other"/"keep".
 */

#include <stddef.h>
#include <stdint.h>

#define HCBS_SCOPE_SUFFIX ".scope"
#define HCBS_CONTAINER_DEPTH_MAX 4 /* segments below the scope */

#define HCBS_ANNOTATION_RUNTIME "org.hcbsd1.runtime"
#define HCBS_ANNOTATION_PERIOD "org.hcbsd1.period"
#define HCBS_ANNOTATION_POLICY "org.hcbsd1.policy"

/*
 * Splits cgroup (relative to the v2 mount; leading '/' allowed) below
 * pool: *ret_scope_len is the length of "POOL/SCOPE" in the returned
 * normalized path *ret (the whole path without its leading '/'). 0, or
 * -EINVAL with the reason in err.
 */
int hcbs_container_cgroup_split(const char *cgroup, const char *pool, char **ret, size_t *ret_scope_len, char *err,
                                size_t errlen);

typedef struct HcbsContainerRequest {
        uint64_t runtime_us, period_us;
        char policy[8]; /* "keep", "other", "fifo", "rr" */
        int priority;
} HcbsContainerRequest;

/*
 * Checks the annotations' values (NULL: absent). 1 with *ret filled; 0 if
 * neither runtime nor period is there (the container did not ask); or
 * -EINVAL with a one-line reason in err: one of the two without the other,
 * a bad duration, runtime 0 or above period, an unknown policy, a priority
 * out of 1..99.
 */
int hcbs_container_request_parse(const char *runtime, const char *period, const char *policy,
                                 HcbsContainerRequest *ret, char *err, size_t errlen);
