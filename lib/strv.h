/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Lists of strings: NULL-terminated arrays of malloc()ed strings, built with
 * a count beside them (l, n) so that appending does not walk the list.
 */

#include <stdbool.h>
#include <stddef.h>

char **strv_free(char **l);
size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);

/* Appends s (taking ownership, freed on failure). Returns 0 or -ENOMEM (also for s NULL). */
int strv_consume(char ***l, size_t *n, char *s);
/* Appends a copy of s. Returns 0 or -ENOMEM. */
int strv_extend(char ***l, size_t *n, const char *s);

/* Hands l over to *ret, allocating an empty list for NULL: lists returned are never NULL. 0 or -ENOMEM. */
int strv_return(char **l, char ***ret);

/* Sorts l (strcmp order) and removes duplicates in place. */
void strv_sort_uniq(char **l);

static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ __attribute__((cleanup(strv_freep)))
