/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

/* org.hcbsd1.Manager.ObserveTasks(s target, t duration, a{sv} options) -> (a(uussttttttttttt) threads, a{sv} info). */
int bus_method_observe_tasks(sd_bus_message *msg, void *userdata, sd_bus_error *error);
