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
