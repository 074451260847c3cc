/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "bus-client.h"
#include "bus-errors.h"
#include "exporter.h"
#include "exporter-log.h"
#include "http-request.h"
#include "list.h"
#include "metrics-collect.h"

typedef struct Conn Conn;

typedef struct Listener {
        Exporter *x;
        int fd;
        sd_event_source *io;
        struct Listener *next;
} Listener;

struct Exporter {
        sd_event *event;
        char *bus_address;
        sd_bus *bus;
        bool hcbsd_down; /* said so in the log; said again when it answers */
        Listener *listeners;
        Conn *conns;
        unsigned n_conns;
};

struct Conn {
        Exporter *x;
        int fd;
        sd_event_source *io, *timer;
        char in[HTTP_REQUEST_MAX];
        size_t in_len;
        char *out;
        size_t out_len, out_done;
        bool draining;
        Conn *next;
};

static Conn *conn_free(Conn *c) {
        if (!c)
                return NULL;
        LIST_REMOVE(c->x->conns, c);
        c->x->n_conns--;
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timer);
        if (c->fd >= 0)
                (void) close(c->fd);
        free(c->out);
        free(c);
        return NULL;
}

/* The bus, connected on first use and again after it was lost; sd-bus style. */
static int exporter_bus(Exporter *x, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (x->bus && sd_bus_is_open(x->bus) > 0) {
                *ret = x->bus;
                return 0;
        }
        x->bus = sd_bus_flush_close_unref(x->bus);
        r = hcbs_bus_open_client(x->bus_address, &bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_method_call_timeout(bus, BUS_TIMEOUT_SEC * 1000000ULL);
        *ret = x->bus = bus;
        return 0;
}

/* One reading of hcbsd over the bus, connecting first if needed; sd-bus style. */
static int exporter_collect(Exporter *x, MetricsSnapshot *s, sd_bus_error *error) {
        sd_bus *bus = NULL;
        int r;

        r = exporter_bus(x, &bus);
        if (r < 0)
                return sd_bus_error_set_errno(error, r);
        return metrics_collect(bus, &(MetricsCollectOptions) { .no_auto_start = true }, s, error);
}

/* The text of /metrics, read from hcbsd now. -ENOMEM only: a silent hcbsd is hcbs_up 0. */
static int exporter_metrics(Exporter *x, char **ret, size_t *ret_len) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        MetricsSnapshot s = {};
        bool was_open;
        int r;

        was_open = x->bus && sd_bus_is_open(x->bus) > 0;
        r = exporter_collect(x, &s, &error);
        if (r < 0 && was_open && x->bus && sd_bus_is_open(x->bus) <= 0) {
                /* The connection this scrape found open had died since the last
                 * one (the bus was restarted: the socket is only read when a call
                 * is made): that is not hcbsd being down, so once more on a new one. */
                sd_bus_error_free(&error);
                r = exporter_collect(x, &s, &error);
        }
        if (r < 0 && !x->hcbsd_down)
                exporter_log(LOG_WARNING, "hcbsd does not answer on the bus, serving hcbs_up 0: %s",
                             error.message ? error.message : strerror(-r));
        else if (r >= 0 && x->hcbsd_down)
                exporter_log(LOG_INFO, "hcbsd answers again");
        x->hcbsd_down = r < 0;
        sd_bus_error_free(&error);
        r = hcbs_metrics_format(&s.m, ret, ret_len); /* s.m.up is false after a failure */
        metrics_snapshot_done(&s);
        return r;
}

static int conn_respond(Conn *c, const char *status, const char *type, const char *body, size_t body_len,
                        bool head) {
        FILE *f = open_memstream(&c->out, &c->out_len);

        if (!f)
                return -ENOMEM;
        fprintf(f,
                "HTTP/1.1 %s\r\n"
                "Content-Type: %s\r\n"
                "Content-Length: %zu\r\n"
                "Connection: close\r\n"
                "%s"
                "\r\n",
                status, type, body_len, strncmp(status, "405", 3) == 0 ? "Allow: GET, HEAD\r\n" : "");
        if (!head)
                fwrite(body, 1, body_len, f);
        if (ferror(f) | fclose(f)) {
                c->out = (free(c->out), NULL);
                return -ENOMEM;
        }
        return 0;
}

static int conn_answer(Conn *c, const HttpRequest *req, int parsed) {
        static const char plain[] = "text/plain; charset=utf-8";
        static const char index_text[] = "hcbs-exporter: hcbsd's metrics are at /metrics\n";
        const char *msg;

        if (parsed == -E2BIG)
                msg = "431 Request Header Fields Too Large";
        else if (parsed < 0)
                msg = "400 Bad Request";
        else if (req->method == HTTP_OTHER)
                msg = "405 Method Not Allowed";
        else if (strcmp(req->path, "/metrics") == 0) {
                _cleanup_free_ char *text = NULL;
                size_t len;
                int r = exporter_metrics(c->x, &text, &len);
                if (r < 0)
                        return conn_respond(c, "500 Internal Server Error", plain, "out of memory\n", 14, false);
                return conn_respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", text, len,
                                    req->method == HTTP_HEAD);
        } else if (strcmp(req->path, "/") == 0)
                return conn_respond(c, "200 OK", plain, index_text, sizeof(index_text) - 1, req->method == HTTP_HEAD);
        else
                msg = "404 Not Found";
        char body[64];
        snprintf(body, sizeof(body), "%s\n", msg);
        return conn_respond(c, msg, plain, body, strlen(body), parsed >= 0 && req->method == HTTP_HEAD);
}

/* Writes what the socket takes; 1 when all is written. */
static int conn_write(Conn *c) {
        while (c->out_done < c->out_len) {
                ssize_t n = send(c->fd, c->out + c->out_done, c->out_len - c->out_done, MSG_NOSIGNAL);
                if (n < 0)
                        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
                c->out_done += (size_t) n;
        }
        return 1;
}

/*
 * The answer is out: our side is closed, and what the client still sends is
 * read and dropped until it closes too (or the connection's time is up),
 * since closing a socket with unread data resets the connection, which can
 * throw away the answer before the client has read it.
 */
static int conn_drain_start(Conn *c) {
        c->draining = true;
        if (shutdown(c->fd, SHUT_WR) < 0)
                return -errno;
        return sd_event_source_set_io_events(c->io, EPOLLIN);
}

/* After a write: more to write (wait for EPOLLOUT), all written (drain), or the client is gone. */
static void conn_wrote(Conn *c, int r) {
        if (r == 0)
                r = sd_event_source_set_io_events(c->io, EPOLLOUT);
        else if (r > 0)
                r = conn_drain_start(c);
        if (r < 0)
                conn_free(c);
}

static int conn_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Conn *c = userdata;
        HttpRequest req = {};
        char scratch[4096];
        ssize_t n;
        int r;

        if (c->draining) {
                while ((n = recv(fd, scratch, sizeof(scratch), 0)) > 0)
                        ;
                if (n == 0 || (errno != EAGAIN && errno != EINTR))
                        conn_free(c);
                return 0;
        }
        if (c->out) { /* answering */
                conn_wrote(c, conn_write(c));
                return 0;
        }
        for (;;) {
                n = recv(fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        return 0;
                if (n <= 0) { /* an error, or the client closed before a whole request */
                        conn_free(c);
                        return 0;
                }
                c->in_len += (size_t) n;
                r = http_request_parse(c->in, c->in_len, &req);
                if (r != 0)
                        break;
        }
        if (conn_answer(c, &req, r) < 0) {
                exporter_log(LOG_ERR, "out of memory for an answer");
                conn_free(c);
                return 0;
        }
        conn_wrote(c, conn_write(c));
        return 0;
}

static int conn_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        conn_free(userdata);
        return 0;
}

static int conn_new(Exporter *x, int fd) {
        Conn *c = calloc(1, sizeof(Conn));
        int r;

        if (!c) {
                (void) close(fd);
                return -ENOMEM;
        }
        c->x = x;
        c->fd = fd;
        LIST_PREPEND(x->conns, c);
        x->n_conns++;
        r = sd_event_add_io(x->event, &c->io, fd, EPOLLIN, conn_io, c);
        if (r >= 0)
                r = sd_event_add_time_relative(x->event, &c->timer, CLOCK_MONOTONIC, CONN_TIMEOUT_SEC * 1000000ULL, 0,
                                               conn_timeout, c);
        if (r >= 0) {
                (void) sd_event_source_set_description(c->io, "http-connection");
                (void) sd_event_source_set_description(c->timer, "http-connection-timeout");
        }
        if (r < 0)
                conn_free(c);
        return r;
}

static int listener_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Listener *l = userdata;
        int c;

        for (;;) {
                c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (c < 0) {
                        if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                                return 0;
                        exporter_log(LOG_WARNING, "accept() failed, ignoring: %s", strerror(errno));
                        return 0;
                }
                if (l->x->n_conns >= CONN_MAX) {
                        (void) close(c); /* the client retries; the ones already here finish first */
                        continue;
                }
                if (conn_new(l->x, c) < 0)
                        exporter_log(LOG_WARNING, "cannot serve a connection, ignoring: out of memory or fds");
        }
}

int exporter_listen(Exporter *x, int fd) {
        Listener *l = calloc(1, sizeof(Listener));
        int flags, r;

        /* systemd passes it blocking: accept() until EAGAIN must not wait */
        flags = fcntl(fd, F_GETFL);
        if (!l || flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                r = !l ? -ENOMEM : -errno;
                (void) close(fd);
                free(l);
                return r;
        }
        l->x = x;
        l->fd = fd;
        LIST_PREPEND(x->listeners, l);
        r = sd_event_add_io(x->event, &l->io, fd, EPOLLIN, listener_io, l);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(l->io, "http-listener");
        return 0;
}

int exporter_new(sd_event *event, const char *bus_address, Exporter **ret) {
        Exporter *x = calloc(1, sizeof(Exporter));

        if (!x)
                return -ENOMEM;
        x->event = sd_event_ref(event);
        if (bus_address && !(x->bus_address = strdup(bus_address))) {
                exporter_free(x);
                return -ENOMEM;
        }
        *ret = x;
        return 0;
}

Exporter *exporter_free(Exporter *x) {
        if (!x)
                return NULL;
        while (x->conns)
                conn_free(x->conns);
        while (x->listeners) {
                Listener *l = x->listeners;
                x->listeners = l->next;
                sd_event_source_disable_unref(l->io);
                (void) close(l->fd);
                free(l);
        }
        sd_bus_flush_close_unref(x->bus);
        sd_event_unref(x->event);
        free(x->bus_address);
        free(x);
        return NULL;
}
