/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* exporter/http-request.c: the request line of a scrape, and what is refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "http-request.h"

static int parse(const char *s, HttpRequest *req) {
        return http_request_parse(s, strlen(s), req);
}

Test(http_request, a_scrape) {
        HttpRequest req;

        cr_assert_eq(parse("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n", &req), 1);
        cr_assert_eq(req.method, HTTP_GET);
        cr_assert_str_eq(req.path, "/metrics");
        cr_assert_eq(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", &req), 1, "bare LF, a query string");
        cr_assert_eq(req.method, HTTP_HEAD);
        cr_assert_str_eq(req.path, "/metrics");
        cr_assert_eq(parse("DELETE / HTTP/1.1\r\n\r\n", &req), 1);
        cr_assert_eq(req.method, HTTP_OTHER);
}

/* Every prefix of a request is "not yet", never an error. */
Test(http_request, incomplete_heads_wait) {
        static const char full[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        HttpRequest req;

        for (size_t n = 0; n < strlen(full); n++)
                cr_assert_eq(http_request_parse(full, n, &req), 0, "prefix of %zu bytes", n);
        cr_assert_eq(http_request_parse(full, strlen(full), &req), 1);
}

Test(http_request, bad_requests) {
        static const char *const bad[] = {
                "garbage\r\n\r\n",
                "GET /metrics\r\n\r\n",
                "GET /metrics HTTP/2.0\r\n\r\n",
                "GET metrics HTTP/1.1\r\n\r\n",
                "get /metrics HTTP/1.1\r\n\r\n",
                "GET  /metrics HTTP/1.1\r\n\r\n",
                "GET /met\x01rics HTTP/1.1\r\n\r\n",
                "GET /metrics HTTP/1.1 extra\r\n\r\n",
                "\r\n\r\n",
        };
        HttpRequest req;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_assert_eq(parse(bad[i], &req), -EBADMSG, "'%s'", bad[i]);
}

Test(http_request, limits) {
        static char buf[HTTP_REQUEST_MAX + 16];
        HttpRequest req;

        memset(buf, 'a', sizeof(buf));
        cr_assert_eq(http_request_parse(buf, HTTP_REQUEST_MAX - 1, &req), 0);
        cr_assert_eq(http_request_parse(buf, HTTP_REQUEST_MAX, &req), -E2BIG);
        /* a target longer than the path buffer */
        char line[600] = "GET /";
        memset(line + 5, 'x', 300);
        strcpy(line + 305, " HTTP/1.1\r\n\r\n");
        cr_assert_eq(parse(line, &req), -EBADMSG);
}
