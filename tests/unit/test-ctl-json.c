/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hcbsctl's JSON writer (cli/ctl-json.c, on json-c): order, types, escaping, UTF-8, errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-json.h"

typedef struct Out {
        char *buf;
        size_t len;
        FILE *f;
        Json j;
} Out;

static void out_open(Out *o) {
        memset(o, 0, sizeof(*o));
        o->f = open_memstream(&o->buf, &o->len);
        cr_assert_not_null(o->f);
        json_init(&o->j, o->f);
}

static void out_expect(Out *o, const char *expected) {
        cr_assert_eq(json_finish(&o->j), 0);
        fclose(o->f);
        cr_assert_str_eq(o->buf, expected);
        free(o->buf);
}

Test(ctl_json, keys_keep_their_order_and_types) {
        Out o;

        out_open(&o);
        json_object_begin(&o.j);
        json_kv_string(&o.j, "zeta", "z");
        json_kv_uint(&o.j, "alpha", UINT64_MAX);
        json_kv_bool(&o.j, "mid", false);
        json_kv_double(&o.j, "ratio", 0.5);
        json_kv_double(&o.j, "whole", 2.0);
        json_kv_string(&o.j, "none", NULL);
        json_key(&o.j, "list");
        json_array_begin(&o.j);
        json_uint(&o.j, 1);
        json_array_begin(&o.j);
        json_array_end(&o.j);
        json_object_begin(&o.j);
        json_object_end(&o.j);
        json_null(&o.j);
        json_array_end(&o.j);
        json_kv_bool(&o.j, "last", true);
        json_object_end(&o.j);
        out_expect(&o, "{\"zeta\":\"z\",\"alpha\":18446744073709551615,\"mid\":false,\"ratio\":0.5,\"whole\":2.0,"
                       "\"none\":null,\"list\":[1,[],{},null],\"last\":true}\n");
}

Test(ctl_json, escaping_is_json_cs) {
        Out o;

        out_open(&o);
        json_array_begin(&o.j);
        json_string(&o.j, "quote\" back\\ slash/ nl\n tab\t bell\x07 del\x7f");
        json_string(&o.j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb5");
        json_array_end(&o.j);
        out_expect(&o, "[\"quote\\\" back\\\\ slash/ nl\\n tab\\t bell\\u0007 del\x7f\","
                       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb5\"]\n");
}

Test(ctl_json, invalid_utf8_becomes_replacement_characters) {
        Out o;

        out_open(&o);
        json_array_begin(&o.j);
        /* a lone continuation byte, a truncated sequence, an overlong '/', a surrogate */
        json_string(&o.j, "a\x80" "b\xc3" "c\xc0\xaf" "d\xed\xa0\x80" "e");
        json_array_end(&o.j);
        out_expect(&o, "[\"a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd"
                       "d\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "e\"]\n");
}

Test(ctl_json, non_finite_doubles_are_null) {
        Out o;

        out_open(&o);
        json_array_begin(&o.j);
        json_double(&o.j, NAN);
        json_double(&o.j, INFINITY);
        json_double(&o.j, -INFINITY);
        json_array_end(&o.j);
        out_expect(&o, "[null,null,null]\n");
}

Test(ctl_json, an_unfinished_document_is_freed_unwritten) {
        Out o;

        out_open(&o);
        json_object_begin(&o.j);
        json_key(&o.j, "plan");
        json_array_begin(&o.j);
        json_string(&o.j, "x");
        json_done(&o.j); /* the error path: nothing written, nothing leaked (ASan, valgrind) */
        fclose(o.f);
        cr_assert_eq(o.len, 0);
        free(o.buf);
}

Test(ctl_json, documents_one_per_line) {
        Out o;

        out_open(&o);
        json_object_begin(&o.j);
        json_kv_uint(&o.j, "n", 1);
        json_object_end(&o.j);
        cr_assert_eq(json_finish(&o.j), 0);
        json_object_begin(&o.j); /* the next tick of --watch */
        json_kv_uint(&o.j, "n", 2);
        json_object_end(&o.j);
        out_expect(&o, "{\"n\":1}\n{\"n\":2}\n");
}
