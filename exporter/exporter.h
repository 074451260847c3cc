/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbs-exporter's server: HTTP/1.x on the listening sockets systemd passes
 * (socket activation), one request per connection. GET /metrics reads
 * hcbsd over the bus (exporter/metrics-collect.c, read-only calls that
 * never start hcbsd) and answers in the text exposition format
 * (lib/metrics.c); hcbs_up is 0 while hcbsd does not answer.
 *
 * Nothing a client does can stall the others: sockets are non-blocking, a
 * connection gets CONN_TIMEOUT_SEC to send its request and take the answer,
 * a request head is at most HTTP_REQUEST_MAX bytes, and at most CONN_MAX
 * connections are open (more are closed at once). The bus calls of a
 * scrape are the one wait in the loop, each bounded by BUS_TIMEOUT_SEC.
 */

#include <systemd/sd-event.h>

#include "macro.h"

#define CONN_MAX 32
#define CONN_TIMEOUT_SEC 10
#define BUS_TIMEOUT_SEC 5

typedef struct Exporter Exporter;

/* bus_address: NULL for the system bus ($DBUS_SYSTEM_BUS_ADDRESS or its socket). */
int exporter_new(sd_event *event, const char *bus_address, Exporter **ret);
Exporter *exporter_free(Exporter *x);
DEFINE_FREE_FUNC(Exporter, exporter_free)

/* Serves the listening socket fd (taken over: closed with the exporter). */
int exporter_listen(Exporter *x, int fd);
