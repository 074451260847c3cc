/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one table between HcbsError and org.hcbsd1.Error.* names, for the
 * daemon (to reply) and hcbsctl (to map replies back to exit codes).
 */

#include <systemd/sd-bus.h>

#include "error.h"

extern const sd_bus_error_map hcbs_bus_error_map[];

/* Registers the map with sd-bus (idempotent). */
int hcbs_bus_errors_register(void);

/* Fills e with org.hcbsd1.Error.<name of v->error> and v->message; returns a negative errno for sd-bus. */
int hcbs_bus_error_set_verdict(sd_bus_error *e, const HcbsVerdict *v);

/* The HcbsError of a D-Bus error name, or HCBS_OK if it is not one of ours. */
HcbsError hcbs_bus_error_to_hcbs(const sd_bus_error *e);
