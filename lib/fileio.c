/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <unistd.h>

#include "fileio.h"

int hcbs_write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, buf, len);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                buf += k;
                len -= (size_t) k;
        }
        return 0;
}
