/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "duration.h"
#include "macro.h"
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

/* The org.hcbsd1.* annotations of a state's or a config's root object: *asked 1 with *ret filled, or 0. */
static int parse_annotations(json_object *root, const char *id, int *asked, HcbsContainerRequest *ret, char *err,
                             size_t errlen) {
        HcbsContainerAnnotations a = {};
        const struct {
                const char *key;
                const char **value;
        } keys[] = {
                { HCBS_ANNOTATION_RUNTIME, &a.runtime },
                { HCBS_ANNOTATION_PERIOD, &a.period },
                { HCBS_ANNOTATION_POLICY, &a.policy },
                { HCBS_ANNOTATION_TASKS, &a.tasks },
        };
        char why[HCBS_ERRLEN + 64];
        json_object *annotations = NULL;
        int r;

        if (json_object_object_get_ex(root, "annotations", &annotations) &&
            !json_object_is_type(annotations, json_type_object))
                return fail(err, errlen, "container %.12s: the annotations are not an object", id);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (annotation(annotations, keys[i].key, keys[i].value) < 0)
                        return fail(err, errlen, "container %.12s: annotation %s is not a string", id, keys[i].key);
        r = hcbs_container_request_parse(&a, ret, why, sizeof(why));
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(err, errlen, "container %.12s: %s", id, why);
        *asked = r;
        return 0;
}

static json_object *parse_object(const char *json, size_t len) {
        json_tokener *tok = json_tokener_new();
        json_object *root;

        if (!tok)
                return NULL;
        root = json_tokener_parse_ex(tok, json, (int) len);
        if (root && (json_tokener_get_error(tok) != json_tokener_success || !json_object_is_type(root, json_type_object))) {
                json_object_put(root);
                root = NULL;
        }
        json_tokener_free(tok);
        return root;
}

int oci_state_parse(const char *json, size_t len, OciState *ret, char *err, size_t errlen) {
        json_object *root = parse_object(json, len), *v;
        OciState s = {};
        int r = -EINVAL;

        if (!root)
                return fail(err, errlen, "the OCI state on stdin is not a JSON object");
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
        r = parse_annotations(root, s.id, &s.asked, &s.request, err, errlen);
        if (r >= 0)
                *ret = s;
out:
        json_object_put(root);
        return r;
}

/* A label for the container in messages: NAME of SLICE:PREFIX:NAME, else the path's last segment. */
static void config_label(const char *cgroups_path, char *buf, size_t size) {
        const char *name = strrchr(cgroups_path, ':');

        if (!name)
                name = strrchr(cgroups_path, '/');
        snprintf(buf, size, "%s", name ? name + 1 : cgroups_path);
}

int oci_config_parse(const char *json, size_t len, OciConfig *ret, char *err, size_t errlen) {
        json_object *root = parse_object(json, len), *linux_ = NULL, *v = NULL;
        const char *cgroups_path = NULL;
        char why[HCBS_ERRLEN];
        OciConfig c = {};
        int r;

        if (!root)
                return fail(err, errlen, "the OCI config on stdin is not a JSON object");
        if (json_object_object_get_ex(root, "linux", &linux_) && json_object_object_get_ex(linux_, "cgroupsPath", &v) &&
            json_object_is_type(v, json_type_string))
                cgroups_path = json_object_get_string(v);
        config_label(cgroups_path ? cgroups_path : "", c.id, sizeof(c.id));
        r = parse_annotations(root, c.id, &c.asked, &c.request, err, errlen);
        if (r >= 0 && c.asked) {
                if (!cgroups_path)
                        r = fail(err, errlen, "container %.12s: the OCI config has no linux.cgroupsPath", c.id);
                else {
                        r = hcbs_container_cgroups_path(cgroups_path, &c.cgroup, why, sizeof(why));
                        if (r == -EINVAL)
                                r = fail(err, errlen, "container %.12s: %s", c.id, why);
                }
                if (r < 0)
                        hcbs_container_request_done(&c.request);
        }
        if (r >= 0)
                *ret = c;
        json_object_put(root);
        return r;
}

void oci_config_done(OciConfig *c) {
        hcbs_container_request_done(&c->request);
        free(c->cgroup);
        c->cgroup = NULL;
}

void oci_state_done(OciState *s) {
        hcbs_container_request_done(&s->request);
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
