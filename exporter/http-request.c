/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "http-request.h"

/* The end of the head: an empty line, CRLF or bare LF (RFC 9112 lets a server accept LF). */
static const char *head_end(const char *buf, size_t len) {
        for (size_t i = 0; i + 1 < len; i++)
                if (buf[i] == '\n' && (buf[i + 1] == '\n' || (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')))
                        return buf + i;
        return NULL;
}

static int token(const char **p, const char *end, char sep, const char **ret, size_t *ret_len) {
        const char *s = *p, *e = memchr(s, sep, (size_t) (end - s));

        if (!e || e == s)
                return -EBADMSG;
        *ret = s;
        *ret_len = (size_t) (e - s);
        *p = e + 1;
        return 0;
}

int http_request_parse(const char *buf, size_t len, HttpRequest *ret) {
        const char *end = head_end(buf, len), *eol, *p = buf, *method, *target, *version;
        size_t n_method, n_target, n_version;
        HttpRequest req = {};

        if (!end)
                return len >= HTTP_REQUEST_MAX ? -E2BIG : 0;
        eol = memchr(buf, '\n', (size_t) (end - buf) + 1); /* the request line's end; end is a '\n' */
        if (token(&p, eol, ' ', &method, &n_method) < 0 || token(&p, eol, ' ', &target, &n_target) < 0)
                return -EBADMSG;
        version = p;
        n_version = (size_t) (eol - p);
        if (n_version > 0 && version[n_version - 1] == '\r')
                n_version--;
        if (n_version != 8 || memcmp(version, "HTTP/1.", 7) != 0 || version[7] < '0' || version[7] > '9')
                return -EBADMSG;
        for (size_t i = 0; i < n_method; i++)
                if (method[i] < 'A' || method[i] > 'Z')
                        return -EBADMSG;
        req.method = n_method == 3 && memcmp(method, "GET", 3) == 0    ? HTTP_GET
                     : n_method == 4 && memcmp(method, "HEAD", 4) == 0 ? HTTP_HEAD
                                                                       : HTTP_OTHER;
        const char *q = memchr(target, '?', n_target);
        if (q)
                n_target = (size_t) (q - target);
        if (n_target == 0 || n_target >= sizeof(req.path) || target[0] != '/')
                return -EBADMSG;
        for (size_t i = 0; i < n_target; i++)
                if ((unsigned char) target[i] <= ' ' || target[i] == 0x7f)
                        return -EBADMSG;
        memcpy(req.path, target, n_target);
        *ret = req;
        return 1;
}
