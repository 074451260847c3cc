/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one I/O helper of lib/: lib/ is the pure model, but writing a whole
 * buffer to a file descriptor is a utility with no model in it, which the
 * daemon's state files and the generator's drop-ins both need. (fclosep(),
 * the other one they share, is a cleanup in macro.h next to closep().)
 */

#include <stddef.h>

/* write(2) until all of buf is written, retrying EINTR. Returns 0 or -errno. */
int hcbs_write_all(int fd, const char *buf, size_t len);
