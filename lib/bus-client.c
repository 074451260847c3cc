/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-client.h"

int hcbs_bus_open_client(const char *address, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}
