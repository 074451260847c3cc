/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-json.h"

void json_init(Json *j, FILE *f) {
        memset(j, 0, sizeof(*j));
        j->f = f;
}

void json_done(Json *j) {
        json_object_put(j->root);
        json_init(j, j->f);
}

int json_finish(Json *j) {
        bool oom = j->oom;

        if (j->root && !oom) {
                const char *s = json_object_to_json_string_ext(j->root, JSON_C_TO_STRING_PLAIN |
                                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
                if (s)
                        fputs(s, j->f);
                else
                        oom = true;
        }
        if (oom)
                fputs("hcbsctl: out of memory building the JSON output\n", stderr);
        else
                fputc('\n', j->f);
        fflush(j->f);
        json_done(j);
        return oom ? -ENOMEM : 0;
}

/* Puts v (NULL: null) where the document is: the root, the next element of an array, or the pending key's value. */
static void json_add(Json *j, struct json_object *v, bool is_null) {
        struct json_object *c;

        if (j->oom || (!v && !is_null)) { /* a document short of memory is not written: nothing more to build */
                json_object_put(v);
                j->oom = true;
                return;
        }
        if (j->depth == 0) {
                json_object_put(j->root);
                j->root = v;
                return;
        }
        c = j->open[j->depth - 1];
        if (json_object_is_type(c, json_type_array)) {
                if (json_object_array_add(c, v) < 0) {
                        json_object_put(v);
                        j->oom = true;
                }
                return;
        }
        /* the writer never repeats a key in an object: no look-up for one to replace (json-c copies the key) */
        if (!j->key || json_object_object_add_ex(c, j->key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW) < 0) {
                json_object_put(v);
                j->oom = true;
        }
        j->key = NULL;
}

static void json_open(Json *j, struct json_object *c) {
        if (j->oom || !c) {
                json_object_put(c);
                j->oom = true;
                return;
        }
        if (j->depth >= JSON_DEPTH_MAX) {
                json_object_put(c);
                j->oom = true;
                return;
        }
        json_add(j, c, false);
        j->open[j->depth++] = c; /* owned by its parent (or the root) */
}

static void json_close(Json *j) {
        if (j->depth > 0)
                j->depth--;
}

void json_object_begin(Json *j) {
        json_open(j, json_object_new_object());
}

void json_object_end(Json *j) {
        json_close(j);
}

void json_array_begin(Json *j) {
        json_open(j, json_object_new_array());
}

void json_array_end(Json *j) {
        json_close(j);
}

void json_key(Json *j, const char *key) {
        j->key = key;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one. */
static size_t utf8_valid_len(const unsigned char *p) {
        size_t n;
        uint32_t cp;

        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                n = 2, cp = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                n = 3, cp = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                n = 4, cp = p[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

/* s with each byte that does not start a valid UTF-8 sequence replaced by U+FFFD; NULL if out of memory. */
static char *utf8_sanitize(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        char *out = malloc(strlen(s) * 3 + 1), *o = out;

        if (!out)
                return NULL;
        while (*p) {
                size_t n = utf8_valid_len(p);
                if (n == 0) {
                        memcpy(o, "\xef\xbf\xbd", 3);
                        o += 3;
                        p++;
                } else {
                        memcpy(o, p, n);
                        o += n;
                        p += n;
                }
        }
        *o = '\0';
        return out;
}

static bool utf8_is_valid(const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                size_t n = utf8_valid_len(p);
                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}

void json_string(Json *j, const char *s) {
        char *clean;

        if (!s) {
                json_null(j);
                return;
        }
        if (utf8_is_valid(s)) {
                json_add(j, json_object_new_string(s), false);
                return;
        }
        clean = utf8_sanitize(s);
        json_add(j, clean ? json_object_new_string(clean) : NULL, false);
        free(clean);
}

void json_uint(Json *j, uint64_t v) {
        json_add(j, json_object_new_uint64(v), false);
}

void json_double(Json *j, double v) {
        if (!isfinite(v)) {
                json_null(j);
                return;
        }
        json_add(j, json_object_new_double(v), false);
}

void json_boolean(Json *j, bool b) {
        json_add(j, json_object_new_boolean(b), false);
}

void json_null(Json *j) {
        json_add(j, NULL, true);
}

void json_kv_string(Json *j, const char *key, const char *s) {
        json_key(j, key);
        json_string(j, s);
}

void json_kv_uint(Json *j, const char *key, uint64_t v) {
        json_key(j, key);
        json_uint(j, v);
}

void json_kv_double(Json *j, const char *key, double v) {
        json_key(j, key);
        json_double(j, v);
}

void json_kv_bool(Json *j, const char *key, bool b) {
        json_key(j, key);
        json_boolean(j, b);
}
