/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strutil.h"

int hcbs_err(char *err, size_t errlen, int r, const char *fmt, ...) {
        va_list ap;

        if (err && errlen > 0) {
                va_start(ap, fmt);
                vsnprintf(err, errlen, fmt, ap);
                va_end(ap);
        }
        return r;
}

void hcbs_strbuf_append(char *buf, size_t size, const char *fmt, ...) {
        size_t len = strnlen(buf, size);
        va_list ap;

        if (len + 1 >= size)
                return;
        va_start(ap, fmt);
        vsnprintf(buf + len, size - len, fmt, ap);
        va_end(ap);
}

bool hcbs_startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool hcbs_has_word(const char *list, const char *word, const char *seps) {
        size_t n = strlen(word);

        for (const char *p = list; *p;) {
                size_t len = strcspn(p, seps);
                if (len == n && strncmp(p, word, n) == 0)
                        return true;
                p += len;
                p += strspn(p, seps);
        }
        return false;
}

const char *hcbs_endswith(const char *s, const char *suffix) {
        size_t len = strlen(s), slen = strlen(suffix);

        if (len < slen || strcmp(s + len - slen, suffix) != 0)
                return NULL;
        return s + len - slen;
}

int hcbs_parse_u64(const char *s, uint64_t max, const char **ret_end, uint64_t *ret) {
        uint64_t v = 0;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                uint64_t d = (uint64_t) (*s - '0');

                if (d > max || v > (max - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (*s != ' ' && *s != '\0')
                return -EINVAL;
        if (ret_end)
                *ret_end = s;
        *ret = v;
        return 0;
}

/* The length of the well-formed UTF-8 character at s (2..4), or 0. */
static size_t utf8_char_len(const unsigned char *s) {
        size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
        uint32_t c = len == 2 ? s[0] & 0x1f : len == 3 ? s[0] & 0x0f : s[0] & 0x07;

        if (len == 0 || s[0] > 0xf4)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        return c >= 0x80 && c <= 0x9f ? 0 : len; /* the C1 controls (CSI is U+009B) */
}

char *hcbs_escape_printable(const char *s, char *buf, size_t size) {
        const unsigned char *p = (const unsigned char *) s;
        size_t out = 0;

        if (size == 0)
                return buf;
        while (*p) {
                char piece[8];
                size_t len = *p >= 0x80 ? utf8_char_len(p) : 0, n;

                if (len > 0) {
                        memcpy(piece, p, len);
                        n = len;
                } else if (*p == '\\') {
                        memcpy(piece, "\\\\", 2);
                        n = 2;
                        len = 1;
                } else if (*p >= 0x20 && *p < 0x7f) {
                        piece[0] = (char) *p;
                        n = len = 1;
                } else {
                        snprintf(piece, sizeof(piece), "\\x%02x", *p);
                        n = 4;
                        len = 1;
                }
                if (out + n >= size)
                        break;
                memcpy(buf + out, piece, n);
                out += n;
                p += len;
        }
        buf[out] = '\0';
        return buf;
}
