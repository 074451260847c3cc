/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd's names on the bus, for the daemon (to serve them) and hcbsctl (to
 * call them); dbus/org.hcbsd1.xml describes the interfaces, polkit/ the
 * action. Group objects are HCBS_GROUP_PREFIX/<name>, the name escaped by
 * sd_bus_path_encode().
 */

#define HCBS_BUS_NAME "org.hcbsd1"
#define HCBS_MANAGER_PATH "/org/hcbsd1"
#define HCBS_MANAGER_IFACE "org.hcbsd1.Manager"
#define HCBS_GROUP_PREFIX "/org/hcbsd1/group"
#define HCBS_GROUP_IFACE "org.hcbsd1.Group"
#define HCBS_POLKIT_ACTION "org.hcbsd1.manage"
