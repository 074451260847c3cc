/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The journal MESSAGE_IDs of hcbsd's events, made once with
 * `systemd-id128 new` and never changed: admins filter on them
 * (journalctl MESSAGE_ID=...) and catalog/hcbsd.catalog explains each one
 * (journalctl -x). tests/unit/test-catalog.sh keeps the two in step: every
 * id here has a catalog entry and the catalog has no other.
 */

/* A request admission control refused: HCBS_GROUP/HCBS_UNIT, HCBS_RUNTIME_US, HCBS_PERIOD_US, HCBS_ERROR */
#define HCBS_MESSAGE_REFUSED "ab339feee86d4684b415084f9ddca47c"
/* A kernel write hcbsd's model admitted and the kernel refused: ERRNO, HCBS_FILE, HCBS_VALUE */
#define HCBS_MESSAGE_KERNEL_REJECTED "4fb87f1f1f074d2ebbfb092011e643ab"
/* A reservation made or changed: HCBS_GROUP or HCBS_UNIT, HCBS_RUNTIME_US, HCBS_PERIOD_US */
#define HCBS_MESSAGE_GRANTED "b9324b583b564279b8cc0c28a7933920"
/* A reservation given back: HCBS_GROUP or HCBS_UNIT */
#define HCBS_MESSAGE_RELEASED "0816bd0829d245dca2de6d9f45fb5cd7"
/* Start-up adoption of what the kernel holds: HCBS_GROUPS, HCBS_UNITS, HCBS_ROOT */
#define HCBS_MESSAGE_ADOPTED "5e9a19d2bb3d4666b088dcd938ad7940"
/* An interrupted plan undone at start, after a crash: HCBS_WRITES, HCBS_FILE */
#define HCBS_MESSAGE_REPLAYED "6a617382076c4b0d912052b421d8011c"
/* hcbsd cannot work on this kernel, or works without guarantees: HCBS_MODE, HCBS_ROOT */
#define HCBS_MESSAGE_KERNEL_MODE "5c8e82a338824ea1b644e1504ccaa842"
