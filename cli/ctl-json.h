/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A minimal streaming JSON writer for hcbsctl --json: enough to emit
 * objects, arrays, strings, integers, doubles and booleans, with commas
 * placed by the writer. Output is compact, one document per line.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 64

typedef struct Json {
        FILE *f;
        unsigned depth;
        bool after_key;
        bool need_comma[JSON_DEPTH_MAX + 1];
} Json;

void json_init(Json *j, FILE *f);
/* Ends the document with a newline. */
void json_finish(Json *j);

void json_object_begin(Json *j);
void json_object_end(Json *j);
void json_array_begin(Json *j);
void json_array_end(Json *j);
void json_key(Json *j, const char *key);

void json_string(Json *j, const char *s); /* NULL writes null */
void json_uint(Json *j, uint64_t v);
void json_double(Json *j, double v);      /* NaN and infinities write null */
void json_bool(Json *j, bool b);
void json_null(Json *j);

void json_kv_string(Json *j, const char *key, const char *s);
void json_kv_uint(Json *j, const char *key, uint64_t v);
void json_kv_double(Json *j, const char *key, double v);
void json_kv_bool(Json *j, const char *key, bool b);

/* Writes s as a quoted JSON string; invalid UTF-8 bytes become U+FFFD. */
void json_escape(FILE *f, const char *s);
