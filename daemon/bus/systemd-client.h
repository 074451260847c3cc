/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd as a client of systemd (org.freedesktop.systemd1 on the system
 * bus), part of the bus layer. It asks and listens, and reports what
 * systemd says through systemd-questions.h; it decides nothing
 * (manager-units.c does). Every question after start-up is asynchronous
 * with a timeout, so hcbsd never blocks on PID 1 while it serves;
 * start-up asks synchronously, while systemd waits for READY=1.
 */

#include <systemd/sd-bus.h>

#include "systemd-questions.h"

typedef struct SystemdClient SystemdClient;

/*
 * Learns which connection is systemd, follows it, matches its signals and
 * subscribes (synchronously). When the bus's event loop exits, the pending
 * questions are answered with -ECANCELED before sd-bus closes the bus (so
 * a caller waiting on one still gets its reply). Returns 0 or -errno (logged).
 */
int systemd_client_new(sd_bus *bus, const SystemdSignals *signals, void *userdata, SystemdClient **ret);
/* Answers every pending question with -ECANCELED, then frees. */
SystemdClient *systemd_client_free(SystemdClient *c);

/* The core's questions (systemd-questions.h), asked through c. */
SystemdQuestions systemd_client_questions(SystemdClient *c);
