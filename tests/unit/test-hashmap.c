/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "hashmap.h"

Test(hashmap, put_get_remove) {
        enum { N = 5000 };
        static char keys[N][16];
        Hashmap *h;

        cr_assert_eq(hashmap_new(&h), 0);
        for (int i = 0; i < N; i++) {
                snprintf(keys[i], sizeof(keys[i]), "k%d", i);
                cr_assert_eq(hashmap_put(h, keys[i], keys[i]), 0);
        }
        cr_assert_eq(hashmap_put(h, "k7", NULL), -EEXIST);
        cr_assert_eq(hashmap_size(h), N);
        /* remove every third, then everything must still be found or gone */
        for (int i = 0; i < N; i += 3)
                cr_assert_eq(hashmap_remove(h, keys[i]), keys[i]);
        for (int i = 0; i < N; i++)
                cr_assert_eq(hashmap_get(h, keys[i]), i % 3 ? keys[i] : NULL, "%s", keys[i]);
        cr_assert_null(hashmap_remove(h, "absent"));
        cr_assert_eq(hashmap_size(h), N - (N + 2) / 3);
        hashmap_free(h);
}

Test(hashmap, iterate_visits_each_entry_once) {
        enum { N = 300 };
        static char keys[N][16];
        bool seen[N] = { false };
        const char *key;
        void *value;
        size_t n = 0, start = 0;
        Hashmap *h;

        cr_assert_eq(hashmap_new(&h), 0);
        cr_assert(!hashmap_iterate(h, &start, NULL, NULL), "an empty map has nothing to visit");
        for (int i = 0; i < N; i++) {
                snprintf(keys[i], sizeof(keys[i]), "k%d", i);
                cr_assert_eq(hashmap_put(h, keys[i], &seen[i]), 0);
        }
        for (int i = 0; i < N; i += 2)
                hashmap_remove(h, keys[i]);
        for (size_t i = 0; hashmap_iterate(h, &i, &key, &value); n++) {
                bool *s = value;
                cr_assert_eq(s - seen, atoi(key + 1), "%s", key);
                cr_assert(!*s, "%s visited twice", key);
                *s = true;
        }
        cr_assert_eq(n, N / 2);
        for (int i = 0; i < N; i++)
                cr_assert_eq(seen[i], i % 2 == 1, "%s", keys[i]);
        hashmap_free(h);
}
