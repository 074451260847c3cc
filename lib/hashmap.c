/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

/* Linear probing with backward-shift deletion: no tombstones, lookups stay short. */
typedef struct Entry {
        const char *key;
        void *value;
} Entry;

struct Hashmap {
        Entry *entries;
        size_t capacity; /* power of two */
        size_t size;
};

static uint64_t hash(const char *s) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * UINT64_C(0x100000001b3);
        return h ^ (h >> 29);
}

int hashmap_new(Hashmap **ret) {
        Hashmap *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->capacity = 16;
        h->entries = calloc(h->capacity, sizeof(Entry));
        if (!h->entries) {
                free(h);
                return -ENOMEM;
        }
        *ret = h;
        return 0;
}

Hashmap *hashmap_free(Hashmap *h) {
        if (h) {
                free(h->entries);
                free(h);
        }
        return NULL;
}

static size_t slot_of(const Hashmap *h, const char *key) {
        size_t mask = h->capacity - 1, i = hash(key) & mask;
        while (h->entries[i].key && strcmp(h->entries[i].key, key) != 0)
                i = (i + 1) & mask;
        return i;
}

static int grow(Hashmap *h) {
        Entry *old = h->entries;
        size_t old_cap = h->capacity;

        h->entries = calloc(old_cap * 2, sizeof(Entry));
        if (!h->entries) {
                h->entries = old;
                return -ENOMEM;
        }
        h->capacity = old_cap * 2;
        for (size_t i = 0; i < old_cap; i++)
                if (old[i].key)
                        h->entries[slot_of(h, old[i].key)] = old[i];
        free(old);
        return 0;
}

int hashmap_put(Hashmap *h, const char *key, void *value) {
        size_t i;

        if ((h->size + 1) * 4 > h->capacity * 3) {
                int r = grow(h);
                if (r < 0)
                        return r;
        }
        i = slot_of(h, key);
        if (h->entries[i].key)
                return -EEXIST;
        h->entries[i] = (Entry) { key, value };
        h->size++;
        return 0;
}

void *hashmap_get(const Hashmap *h, const char *key) {
        size_t i = slot_of(h, key);
        return h->entries[i].key ? h->entries[i].value : NULL;
}

void *hashmap_remove(Hashmap *h, const char *key) {
        size_t mask = h->capacity - 1, i = slot_of(h, key), j = i;
        void *value;

        if (!h->entries[i].key)
                return NULL;
        value = h->entries[i].value;
        /* shift back later members of the cluster that may fill the hole */
        for (;;) {
                j = (j + 1) & mask;
                if (!h->entries[j].key)
                        break;
                size_t home = hash(h->entries[j].key) & mask;
                if (((j - home) & mask) >= ((j - i) & mask)) {
                        h->entries[i] = h->entries[j];
                        i = j;
                }
        }
        h->entries[i] = (Entry) {};
        h->size--;
        return value;
}

size_t hashmap_size(const Hashmap *h) {
        return h->size;
}

bool hashmap_iterate(const Hashmap *h, size_t *i, const char **key, void **value) {
        for (; *i < h->capacity; (*i)++) {
                const Entry *e = &h->entries[*i];
                if (!e->key)
                        continue;
                if (key)
                        *key = e->key;
                if (value)
                        *value = e->value;
                (*i)++;
                return true;
        }
        return false;
}
