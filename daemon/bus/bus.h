/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The bus layer, as main() sees it: hcbsd served on D-Bus. It translates
 * calls into the manager's operations (manager.h) and the manager's record
 * of changes into signals; with a pool it also is the core's systemd
 * client. It decides nothing.
 */

#include "manager.h"

typedef struct BusServer BusServer;

/*
 * Connects (opts.bus_address, else the system bus), serves org.hcbsd1 on
 * m's event loop, listens for m's changes and, with a pool, answers m's
 * questions about units through systemd (learning, synchronously, which
 * unit holds each reservation found at start). Returns 0 or -errno (logged).
 */
int bus_server_new(Manager *m, BusServer **ret);
/*
 * Answers the calls still waiting (for systemd: -ECANCELED; for polkit:
 * nothing, their callers see the connection close), stops listening to m,
 * flushes and closes the connection. NULL-safe.
 */
BusServer *bus_server_free(BusServer *b);
DEFINE_FREE_FUNC(BusServer, bus_server_free)
