/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Glue shared by the libFuzzer harnesses, and nothing else: a scratch
 * directory for the parsers that read files, and a check that aborts (so
 * libFuzzer reports a crash) when a property of the code under test fails.
 */

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The process's scratch directory (in /dev/shm when it exists), made on first use, removed at exit. */
const char *fuzz_dir(void);

/* Writes data to fuzz_dir()/name (a path relative to it; its directory must exist); aborts on failure. */
void fuzz_write_file(const char *name, const void *data, size_t size);

/* fuzz_dir()/name in a static buffer (valid until the next call). */
const char *fuzz_path(const char *name);

/* Makes fuzz_dir()/name a directory (fine if it exists); aborts on failure. */
void fuzz_mkdir(const char *name);

/* Removes everything below fuzz_dir()/name, and name itself unless it is "" (the scratch directory). */
void fuzz_rm_rf(const char *name);

/* data as a NUL-terminated string (malloc'ed; embedded NULs stay, so strlen() may be shorter). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* A property the code under test promised does not hold: print why and abort. */
#define fuzz_check(cond, ...)                                                        \
        do {                                                                         \
                if (!(cond))                                                         \
                        fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);           \
        } while (0)

_Noreturn void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
