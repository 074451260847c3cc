/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The little of HTTP/1.x that a scrape needs: the request line of a request
 * whose head (up to the empty line) has arrived. Headers are not read: the
 * exporter answers every request the same way and closes the connection.
 */

#include <stddef.h>

#define HTTP_REQUEST_MAX 8192 /* a longer head is refused (431) */

typedef enum HttpMethod {
        HTTP_GET,
        HTTP_HEAD,
        HTTP_OTHER,
} HttpMethod;

typedef struct HttpRequest {
        HttpMethod method;
        char path[256]; /* without the query string */
} HttpRequest;

/*
 * buf[0..len): 0 when the head is not complete yet, 1 with *ret when it is,
 * -EBADMSG for a request line that is not "METHOD TARGET HTTP/1.x" (or a
 * target longer than the path buffer), -E2BIG past HTTP_REQUEST_MAX without
 * an end of head.
 */
int http_request_parse(const char *buf, size_t len, HttpRequest *ret);
