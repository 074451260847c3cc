/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd as a client of systemd (org.freedesktop.systemd1 on the system
 * bus): which cgroup a unit has, and the Manager signals that tell when a
 * unit holding a reservation stopped without giving it back (a crash, a
 * kill -9, a daemon-reload that dropped its declaration).
 */

#include "manager.h"

/*
 * The cgroup of a loaded unit relative to the v2 mount
 * ("hcbs.slice/motor.service"). 1 with *ret set; 0 with v set when the
 * name is not a service's or systemd has no such unit; or -errno.
 */
int systemd_unit_cgroup(Manager *m, const char *unit, char **ret, HcbsVerdict *v);
