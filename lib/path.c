/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *path_join(const char *a, const char *b) {
        char *s;

        if (asprintf(&s, "%s/%s", a, b) < 0)
                return NULL;
        return s;
}

char *path_simplify(const char *path) {
        char *out = malloc(strlen(path) + 2), *o;
        const char *p = path;

        if (!out)
                return NULL;
        o = out;
        while (*p) {
                size_t len;

                p += strspn(p, "/");
                len = strcspn(p, "/");
                if (len == 0 || (len == 1 && p[0] == '.')) {
                        p += len;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        while (o > out && *--o != '/')
                                ;
                        p += len;
                        continue;
                }
                *o++ = '/';
                memcpy(o, p, len);
                o += len;
                p += len;
        }
        if (o == out)
                *o++ = '/';
        *o = '\0';
        return out;
}
