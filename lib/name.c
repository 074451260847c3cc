/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "name.h"
#include "strutil.h"

/* Prefixes of files that controllers create in every cgroup directory. */
static const char *const reserved_prefixes[] = {
        "cgroup.", "cpu.", "cpuacct.", "cpuset.", "memory.", "io.", "pids.",
        "rdma.", "hugetlb.", "misc.", "blkio.", "freezer.", "devices.", "net_",
        "notify_on_release", "release_agent", "tasks",
};

static bool segment_char_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '-';
}

static int segment_validate(const char *name, const char *seg, size_t len, char *err, size_t errlen) {
        if (len == 0)
                return hcbs_err(err, errlen, -EINVAL, "invalid group name '%s': empty path segment", name);
        if (len > HCBS_NAME_SEGMENT_MAX)
                return hcbs_err(err, errlen, -EINVAL,
                                "invalid group name '%s': segment '%.*s...' is longer than %d characters", name,
                                16, seg, HCBS_NAME_SEGMENT_MAX);
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
                return hcbs_err(err, errlen, -EINVAL, "invalid group name '%s': '%.*s' is not allowed", name,
                                (int) len, seg);
        for (size_t i = 0; i < len; i++)
                if (!segment_char_ok(seg[i]))
                        return hcbs_err(err, errlen, -EINVAL,
                                        "invalid group name: character 0x%02x at offset %zu is not one of "
                                        "[A-Za-z0-9_.-]",
                                        (unsigned char) seg[i], (size_t) (seg - name) + i);
        for (size_t i = 0; i < ELEMENTSOF(reserved_prefixes); i++) {
                size_t plen = strlen(reserved_prefixes[i]);
                if (len >= plen && strncmp(seg, reserved_prefixes[i], plen) == 0)
                        return hcbs_err(err, errlen, -EINVAL,
                                        "invalid group name '%s': segment '%.*s' clashes with cgroup files '%s*'",
                                        name, (int) len, seg, reserved_prefixes[i]);
        }
        return 0;
}

int hcbs_name_validate(const char *name, char *err, size_t errlen) {
        unsigned depth = 0;
        const char *seg;
        int r;

        if (!name || !*name)
                return hcbs_err(err, errlen, -EINVAL, "invalid group name: empty");
        if (strnlen(name, HCBS_NAME_MAX + 1) > HCBS_NAME_MAX)
                return hcbs_err(err, errlen, -EINVAL, "invalid group name: longer than %d characters",
                                HCBS_NAME_MAX);
        if (name[0] == '/')
                return hcbs_err(err, errlen, -EINVAL, "invalid group name '%s': must be relative (no leading '/')",
                                name);

        for (seg = name;; ) {
                const char *end = strchrnul(seg, '/');

                r = segment_validate(name, seg, (size_t) (end - seg), err, errlen);
                if (r < 0)
                        return r;
                if (++depth > HCBS_NAME_DEPTH_MAX)
                        return hcbs_err(err, errlen, -EINVAL, "invalid group name '%s': deeper than %d levels",
                                        name, HCBS_NAME_DEPTH_MAX);
                if (*end == '\0')
                        return 0;
                seg = end + 1;
        }
}

unsigned hcbs_name_depth(const char *name) {
        unsigned n = 1;
        for (; *name; name++)
                n += *name == '/';
        return n;
}

size_t hcbs_name_parent_len(const char *name) {
        const char *slash = strrchr(name, '/');
        return slash ? (size_t) (slash - name) : 0;
}

const char *hcbs_name_last(const char *name) {
        const char *slash = strrchr(name, '/');
        return slash ? slash + 1 : name;
}

bool hcbs_service_name_is_valid(const char *name) {
        size_t len = strlen(name), slen = strlen(HCBS_SERVICE_SUFFIX);

        return len > slen && len <= HCBS_UNIT_NAME_MAX && name[strspn(name, HCBS_UNIT_NAME_CHARS)] == '\0' &&
               strcmp(name + len - slen, HCBS_SERVICE_SUFFIX) == 0;
}

bool hcbs_cgroup_path_is_valid(const char *path) {
        size_t total = strnlen(path, HCBS_CGROUP_PATH_MAX + 1);

        if (total > HCBS_CGROUP_PATH_MAX)
                return false;
        if (total == 0)
                return true; /* the hierarchy's root */
        for (const char *seg = path;;) {
                const char *end = strchrnul(seg, '/');
                size_t len = (size_t) (end - seg);

                if (len == 0 || len > HCBS_CGROUP_SEGMENT_MAX || (len == 1 && seg[0] == '.') ||
                    (len == 2 && seg[0] == '.' && seg[1] == '.'))
                        return false;
                for (const char *c = seg; c < end; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                return false;
                if (*end == '\0')
                        return true;
                seg = end + 1;
        }
}

bool hcbs_path_is_under(const char *path, const char *base) {
        size_t len = strlen(base);

        if (len == 0)
                return true;
        return strncmp(path, base, len) == 0 && (path[len] == '\0' || path[len] == '/');
}
