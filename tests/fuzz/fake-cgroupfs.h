/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * fake-cgroupfs.c: a CgroupFs that writes nothing (see there). It defines
 * every function of daemon/cgroupfs.h: one added there needs one here.
 */

#include "cgroupfs.h"

int fake_cgroupfs_new(HcbsInterface iface, CgroupFs **ret);
/* How many mkdir, rmdir and RT writes it was asked for. */
unsigned fake_cgroupfs_ops(const CgroupFs *fs);
