/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A small open-addressing map from NUL-terminated strings to pointers. Keys are borrowed. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef struct Hashmap Hashmap;

int hashmap_new(Hashmap **ret);
Hashmap *hashmap_free(Hashmap *h);
DEFINE_FREE_FUNC(Hashmap, hashmap_free)

/* Returns 0, -EEXIST if key is present, or -ENOMEM. */
int hashmap_put(Hashmap *h, const char *key, void *value);
void *hashmap_get(const Hashmap *h, const char *key);
/* Removes key and returns its value, or NULL. */
void *hashmap_remove(Hashmap *h, const char *key);
size_t hashmap_size(const Hashmap *h);
/*
 * Every entry once, in no particular order: start with *i = 0; true with
 * the next entry's key and value (either may be NULL), false at the end.
 * The map must not change during the walk.
 */
bool hashmap_iterate(const Hashmap *h, size_t *i, const char **key, void **value);
