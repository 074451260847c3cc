/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand a pointer over to someone else: returns it and clears the variable. */
#define TAKE_PTR(p)                          \
        ({                                   \
                __typeof__(p) _p_ = (p);     \
                (p) = NULL;                  \
                _p_;                         \
        })

#define TAKE_FD(fd)                          \
        ({                                   \
                int _fd_ = (fd);             \
                (fd) = -1;                   \
                _fd_;                        \
        })

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                (void) close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Declares foo_freep() for a NULL-safe foo_free() that returns NULL. */
#define DEFINE_FREE_FUNC(type, func)                 \
        static inline void func##p(type **p) {      \
                if (*p)                              \
                        func(*p);                    \
        }

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
