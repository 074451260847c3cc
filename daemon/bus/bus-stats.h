/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

/* org.hcbsd1.Manager.GetStats(s name) -> a{sv}. */
int bus_method_get_stats(sd_bus_message *msg, void *userdata, sd_bus_error *error);
