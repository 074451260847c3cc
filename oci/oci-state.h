/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What hcbs-oci-hook reads on stdin: the OCI state a runtime gives a hook
 * (runtime-spec runtime.md, "State"), or the config a precreate hook gets.
 * No I/O here.
 */

#include <stddef.h>
#include <sys/types.h>

#include "container.h"

#define OCI_STATE_MAX (1024 * 1024)      /* bytes of a state read from stdin */
#define OCI_CONFIG_MAX (16 * 1024 * 1024) /* bytes of a config */
#define OCI_ID_MAX 128

typedef struct OciState {
        char id[OCI_ID_MAX + 1];
        pid_t pid;                     /* 0 when the state has none (poststop) */
        int asked;                     /* 1: the container carries org.hcbsd1.runtime/period or tasks */
        HcbsContainerRequest request;  /* when asked */
} OciState;

/*
 * Parses the state and checks its org.hcbsd1.* annotations. 0 with *ret
 * filled (free it with oci_state_done()), -ENOMEM, or -EINVAL with a
 * one-line reason in err.
 */
int oci_state_parse(const char *json, size_t len, OciState *ret, char *err, size_t errlen);
void oci_state_done(OciState *s);

/*
 * The OCI config a precreate hook gets on stdin (runtime-spec config.md):
 * what hcbs-oci-hook's check needs of it.
 */
typedef struct OciConfig {
        char id[OCI_ID_MAX + 1];       /* a label: the container's name in linux.cgroupsPath */
        char *cgroup;                  /* when asked: the scope the engine will make (lib/container.h) */
        int asked;
        HcbsContainerRequest request;  /* when asked */
} OciConfig;

/*
 * Parses the config and checks its org.hcbsd1.* annotations and, for a
 * container that asks, its linux.cgroupsPath. 0 with *ret filled (free it
 * with oci_config_done()), -ENOMEM, or -EINVAL with a one-line reason in err.
 */
int oci_config_parse(const char *json, size_t len, OciConfig *ret, char *err, size_t errlen);
void oci_config_done(OciConfig *c);

/*
 * The cgroup v2 path in the text of /proc/PID/cgroup (its "0::" line),
 * without the leading '/'; caller frees. -ENOENT without such a line.
 */
int oci_cgroup_from_proc(const char *text, char **ret);
