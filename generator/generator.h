/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbs-generator: for every service with a real-time reservation, a drop-in
 * NORMAL_DIR/<unit>.d/zz-hcbs.conf that puts it in hcbs.slice and reserves
 * its bandwidth through hcbsctl before it starts (see gen-settings.c).
 *
 * Templates get foo@.service.d/zz-hcbs.conf, which every instance reads
 * ("%n" is the instance's name). An instance, or any unit, whose own files
 * say something else than what it would read from the generated drop-in of
 * a more generic name (its template, or a dash prefix "a-.service" of
 * "a-b.service") gets its own file of the same name: in v252 it masks the
 * generic one, as gen-unit-file.c explains, so exactly one reserve step runs. A
 * unit that must have no reservation there gets a comment-only file.
 */

#include <stdbool.h>

#include "gen-log.h"
#include "gen-unit-file.h"

/*
 * Writes the drop-ins of the units found in paths into dest, calling hcbsctl.
 * Units with bad values are logged and left without a reservation; the
 * others are still processed. Returns 0, or -errno when something fatal
 * happened (out of memory, dest not writable, the search path unreadable),
 * after writing what it could; every failure is logged.
 */
int gen_run(const GenUnitPaths *paths, const char *dest, const char *hcbsctl, const GenLog *log);

/* Whether we run in an initrd: $SYSTEMD_IN_INITRD when it is a boolean, else whether ROOT/etc/initrd-release exists. */
bool gen_in_initrd(const char *root);

/*
 * The program: hcbs-generator NORMAL_DIR [EARLY_DIR LATE_DIR]. Environment:
 * SYSTEMD_UNIT_PATH, SYSTEMD_IN_INITRD, and for tests HCBS_GENERATOR_ROOT
 * (prefixed to the default search path and /etc/initrd-release),
 * HCBS_GENERATOR_HCBSCTL (the hcbsctl to call) and HCBS_GENERATOR_LOG (a
 * file instead of /dev/kmsg). Returns the exit status.
 */
int gen_main(int argc, char *argv[]);
