/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ctl-json.h"

void json_init(Json *j, FILE *f) {
        memset(j, 0, sizeof(*j));
        j->f = f;
}

void json_finish(Json *j) {
        fputc('\n', j->f);
        fflush(j->f);
}

/* Writes the comma a value or key needs before it. */
static void json_prefix(Json *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (j->need_comma[j->depth])
                fputc(',', j->f);
        j->need_comma[j->depth] = true;
}

static void json_open(Json *j, char c) {
        json_prefix(j);
        fputc(c, j->f);
        if (j->depth < JSON_DEPTH_MAX)
                j->depth++;
        j->need_comma[j->depth] = false;
}

static void json_close(Json *j, char c) {
        if (j->depth > 0)
                j->depth--;
        fputc(c, j->f);
}

void json_object_begin(Json *j) {
        json_open(j, '{');
}

void json_object_end(Json *j) {
        json_close(j, '}');
}

void json_array_begin(Json *j) {
        json_open(j, '[');
}

void json_array_end(Json *j) {
        json_close(j, ']');
}

void json_key(Json *j, const char *key) {
        json_prefix(j);
        json_escape(j->f, key);
        fputc(':', j->f);
        j->after_key = true;
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

static void json_escape_ascii(FILE *f, unsigned char c) {
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
                if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\u%04x", c);
                else
                        fputc(c, f);
        }
}

void json_escape(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        fputc('"', f);
        while (*p) {
                size_t n = utf8_valid_len(p);

                if (n == 0) {
                        fputs("\\ufffd", f);
                        p++;
                } else if (n == 1) {
                        json_escape_ascii(f, *p++);
                } else {
                        fwrite(p, 1, n, f);
                        p += n;
                }
        }
        fputc('"', f);
}

void json_string(Json *j, const char *s) {
        if (!s) {
                json_null(j);
                return;
        }
        json_prefix(j);
        json_escape(j->f, s);
}

void json_uint(Json *j, uint64_t v) {
        json_prefix(j);
        fprintf(j->f, "%" PRIu64, v);
}

void json_double(Json *j, double v) {
        if (!isfinite(v)) {
                json_null(j);
                return;
        }
        json_prefix(j);
        fprintf(j->f, "%.17g", v);
}

void json_bool(Json *j, bool b) {
        json_prefix(j);
        fputs(b ? "true" : "false", j->f);
}

void json_null(Json *j) {
        json_prefix(j);
        fputs("null", j->f);
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
        json_bool(j, b);
}
