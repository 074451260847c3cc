/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "duration.h"
#include "oci-state.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* An annotation's value: NULL if absent; -EINVAL if not a string. */
static int annotation(json_object *annotations, const char *key, const char **ret) {
        json_object *v;

        *ret = NULL;
        if (!annotations || !json_object_object_get_ex(annotations, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return -EINVAL;
        *ret = json_object_get_string(v);
        return 0;
}

/* Container ids name a file of the hook's state: what engines make ([0-9a-f] for podman and CRI-O) and no more. */
static int id_is_valid(const char *id) {
        size_t len = strlen(id);

        return len > 0 && len <= OCI_ID_MAX && id[0] != '.' && id[0] != '-' &&
               id[strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")] == '\0';
}

int oci_state_parse(const char *json, size_t len, OciState *ret, char *err, size_t errlen) {
        static const char *const keys[] = { HCBS_ANNOTATION_RUNTIME, HCBS_ANNOTATION_PERIOD, HCBS_ANNOTATION_POLICY };
        const char *values[3];
        json_tokener *tok = json_tokener_new();
        json_object *root = NULL, *v, *annotations = NULL;
        OciState s = {};
        int r = -EINVAL;

        if (!tok)
                return -ENOMEM;
        root = json_tokener_parse_ex(tok, json, (int) len);
        if (!root || json_tokener_get_error(tok) != json_tokener_success || !json_object_is_type(root, json_type_object)) {
                r = fail(err, errlen, "the OCI state on stdin is not a JSON object");
                goto out;
        }
        if (!json_object_object_get_ex(root, "id", &v) || !json_object_is_type(v, json_type_string) ||
            !id_is_valid(json_object_get_string(v))) {
                r = fail(err, errlen, "the OCI state has no valid container id");
                goto out;
        }
        snprintf(s.id, sizeof(s.id), "%s", json_object_get_string(v));
        if (json_object_object_get_ex(root, "pid", &v)) {
                int64_t pid = json_object_get_int64(v);
                if (!json_object_is_type(v, json_type_int) || pid < 0 || pid > INT32_MAX) {
                        r = fail(err, errlen, "container %.12s: the OCI state's pid is not a process id", s.id);
                        goto out;
                }
                s.pid = (pid_t) pid;
        }
        if (json_object_object_get_ex(root, "annotations", &annotations) &&
            !json_object_is_type(annotations, json_type_object)) {
                r = fail(err, errlen, "container %.12s: the OCI state's annotations are not an object", s.id);
                goto out;
        }
        for (size_t i = 0; i < 3; i++)
                if (annotation(annotations, keys[i], &values[i]) < 0) {
                        r = fail(err, errlen, "container %.12s: annotation %s is not a string", s.id, keys[i]);
                        goto out;
                }
        {
                char why[HCBS_ERRLEN + 64];
                r = hcbs_container_request_parse(values[0], values[1], values[2], &s.request, why, sizeof(why));
                if (r < 0) {
                        r = fail(err, errlen, "container %.12s: %s", s.id, why);
                        goto out;
                }
                s.asked = r;
        }
        *ret = s;
        r = 0;
out:
        json_object_put(root);
        json_tokener_free(tok);
        return r;
}

int oci_cgroup_from_proc(const char *text, char **ret) {
        for (const char *line = text; line && *line;) {
                const char *end = strchrnul(line, '\n');

                if (strncmp(line, "0::/", 4) == 0) {
                        char *p = strndup(line + 4, (size_t) (end - line - 4));
                        if (!p)
                                return -ENOMEM;
                        *ret = p;
                        return 0;
                }
                line = *end ? end + 1 : NULL;
        }
        return -ENOENT;
}
