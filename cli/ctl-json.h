/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsctl --json: documents built with json-c and written compact, one
 * per line. The calls follow the document's order (begin an object, a
 * key, its value, ...); keys keep the order they were written in. json-c
 * escapes the strings; a string that is not valid UTF-8 (bus strings
 * always are, sd-bus checks them) has each invalid byte replaced by
 * U+FFFD first, so the output is always valid JSON.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 64

struct json_object;

typedef struct Json {
        FILE *f;
        struct json_object *root;                   /* the document, once a value is written */
        struct json_object *open[JSON_DEPTH_MAX];   /* the containers being written, outermost first */
        unsigned depth;
        const char *key;                            /* the key waiting for its value (the caller's) */
        bool oom;
} Json;

void json_init(Json *j, FILE *f);
/* Writes the document and a newline, then frees it. Returns 0, or -ENOMEM if building it ran out of memory. */
int json_finish(Json *j);
/* Frees the document unwritten (an error path). NULL-safe for a Json never written to. */
void json_done(Json *j);

void json_object_begin(Json *j);
void json_object_end(Json *j);
void json_array_begin(Json *j);
void json_array_end(Json *j);
/* key must stay valid until its value is written, which is the next call. */
void json_key(Json *j, const char *key);

void json_string(Json *j, const char *s); /* NULL writes null */
void json_uint(Json *j, uint64_t v);
void json_double(Json *j, double v);      /* NaN and infinities write null */
void json_boolean(Json *j, bool b);
void json_null(Json *j);

void json_kv_string(Json *j, const char *key, const char *s);
void json_kv_uint(Json *j, const char *key, uint64_t v);
void json_kv_double(Json *j, const char *key, double v);
void json_kv_bool(Json *j, const char *key, bool b);
