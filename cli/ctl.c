/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "ctl.h"

int ctl_fail(int code, const char *fmt, ...) {
        va_list ap;

        fflush(stdout);
        fputs("hcbsctl: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return code;
}
