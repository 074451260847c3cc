/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The OCI state a runtime gives a hook on stdin (runtime-spec config.md,
 * "State"): what hcbs-oci-hook needs of it. No I/O here.
 */

#include <stddef.h>
#include <sys/types.h>

#include "container.h"

#define OCI_STATE_MAX (1024 * 1024) /* bytes of JSON read from stdin */
#define OCI_ID_MAX 128

typedef struct OciState {
        char id[OCI_ID_MAX + 1];
        pid_t pid;                     /* 0 when the state has none (poststop) */
        int asked;                     /* 1: the container carries org.hcbsd1.runtime/period */
        HcbsContainerRequest request;  /* when asked */
} OciState;

/*
 * Parses the state and checks its org.hcbsd1.* annotations. 0 with *ret
 * filled, or -EINVAL with a one-line reason in err.
 */
int oci_state_parse(const char *json, size_t len, OciState *ret, char *err, size_t errlen);

/*
 * The cgroup v2 path in the text of /proc/PID/cgroup (its "0::" line),
 * without the leading '/'; caller frees. -ENOENT without such a line.
 */
int oci_cgroup_from_proc(const char *text, char **ret);
