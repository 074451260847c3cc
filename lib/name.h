/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Group names are relative paths below hcbsd's root: "media/audio".
 * Segments use [A-Za-z0-9_.-], are not "." or "..", hold at most
 * HCBS_NAME_SEGMENT_MAX characters, and may not start like a cgroup
 * interface file ("cgroup.", "cpu.", ...), which mkdir would refuse.
 * A name has at most HCBS_NAME_DEPTH_MAX segments.
 */

#include <stdbool.h>
#include <stddef.h>

#define HCBS_NAME_SEGMENT_MAX 64
#define HCBS_NAME_DEPTH_MAX 8
#define HCBS_NAME_MAX (HCBS_NAME_DEPTH_MAX * (HCBS_NAME_SEGMENT_MAX + 1))

/* Returns 0 if name is valid, else -EINVAL with the reason in err (may be NULL). */
int hcbs_name_validate(const char *name, char *err, size_t errlen);

static inline bool hcbs_name_is_valid(const char *name) {
        return hcbs_name_validate(name, NULL, 0) == 0;
}

/* Number of segments of a valid name. */
unsigned hcbs_name_depth(const char *name);

/* Length of the parent part of a valid name ("a/b/c" -> 3), 0 for a top-level name. */
size_t hcbs_name_parent_len(const char *name);

/* The last segment of a valid name. */
const char *hcbs_name_last(const char *name);

/*
 * A systemd service's full name, as its %n gives it: characters of
 * HCBS_UNIT_NAME_CHARS, at most HCBS_UNIT_NAME_MAX, ending in ".service"
 * after at least one more character.
 */
#define HCBS_UNIT_NAME_MAX 255
#define HCBS_UNIT_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@"
#define HCBS_SERVICE_SUFFIX ".service"

bool hcbs_service_name_is_valid(const char *name);

/*
 * A cgroup's path relative to its hierarchy's mount, as hcbsd records it in
 * its own files: "" (the root) or segments joined by '/', none empty, "."
 * or "..", each at most HCBS_CGROUP_SEGMENT_MAX bytes, without control
 * characters (so a record stays one line). Units' cgroups qualify
 * ("hcbs.slice/worker@a.service", "foo\x2dbar.service"); group names are a
 * stricter subset.
 */
#define HCBS_CGROUP_SEGMENT_MAX 255
#define HCBS_CGROUP_PATH_MAX 4095
bool hcbs_cgroup_path_is_valid(const char *path);

/* Whether path is base or below it (every path is below ""). */
bool hcbs_path_is_under(const char *path, const char *base);
