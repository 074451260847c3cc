/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

/*
 * A started bus client: on address when given (--bus-address, a private
 * bus), else the system bus. 0 and *ret, or sd-bus' -errno. For hcbsctl,
 * hcbs-oci-hook and hcbs-exporter.
 */
int hcbs_bus_open_client(const char *address, sd_bus **ret);
