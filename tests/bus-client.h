/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A test client's own connection to $DBUS_SYSTEM_BUS_ADDRESS (else the system bus): a bus client, started. */

#include <stdlib.h>

#include "../lib/bus-client.h"

static inline int test_bus_open(sd_bus **ret) {
        return hcbs_bus_open_client(getenv("DBUS_SYSTEM_BUS_ADDRESS"), ret);
}
