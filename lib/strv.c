/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_free(char **l) {
        for (char **i = l; i && *i; i++)
                free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

int strv_consume(char ***l, size_t *n, char *s) {
        char **m;

        if (!s)
                return -ENOMEM;
        m = reallocarray(*l, *n + 2, sizeof(char *));
        if (!m) {
                free(s);
                return -ENOMEM;
        }
        m[(*n)++] = s;
        m[*n] = NULL;
        *l = m;
        return 0;
}

int strv_return(char **l, char ***ret) {
        if (!l)
                l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        *ret = l;
        return 0;
}

bool strv_contains(char *const *l, const char *s) {
        for (; l && *l; l++)
                if (strcmp(*l, s) == 0)
                        return true;
        return false;
}

int strv_extend(char ***l, size_t *n, const char *s) {
        return strv_consume(l, n, strdup(s));
}

static int strv_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void strv_sort_uniq(char **l) {
        size_t n = strv_length(l), k = 0;

        if (n == 0)
                return;
        qsort(l, n, sizeof(char *), strv_cmp);
        for (size_t i = 1; i < n; i++) {
                if (strcmp(l[k], l[i]) == 0)
                        free(l[i]);
                else
                        l[++k] = l[i];
        }
        l[k + 1] = NULL;
}
