/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
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
