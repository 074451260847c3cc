/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A test client's own connection to $DBUS_SYSTEM_BUS_ADDRESS (else the system bus): a bus client, started. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

static inline int test_bus_open(sd_bus **ret) {
        const char *addr = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        sd_bus *bus = NULL;
        int r = sd_bus_new(&bus);

        if (r >= 0)
                r = sd_bus_set_address(bus, addr ? addr : "unix:path=/run/dbus/system_bus_socket");
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}
