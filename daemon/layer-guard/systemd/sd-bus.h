/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Found first on the daemon core's include path (daemon/meson.build), so
 * that the core cannot reach D-Bus: the core decides, the bus layer
 * (daemon/bus/) translates. See docs/architecture.md.
 */
#error "hcbsd's core must not use sd-bus: D-Bus belongs to daemon/bus/ (docs/architecture.md)"
