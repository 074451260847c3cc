/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
