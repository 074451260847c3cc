/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

/* SizeReservation(a(ttt) tasks, a{sv} opts) → (t runtime, t period, u cpus, a{sv} details): read-only. */
int bus_method_size_reservation(sd_bus_message *msg, void *userdata, sd_bus_error *error);
