/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Paths as strings: no file system access. Each returns a malloc()ed string, or NULL for ENOMEM. */

/* "a/b" (a and b as they are: no '/' is added or removed besides the one between). */
char *path_join(const char *a, const char *b);

/*
 * Lexically simplifies an absolute path: no "//", "/./", "/../", or trailing
 * '/' ("/.." is "/"). Symlinks are not looked at: "/a/link/.." is "/a".
 */
char *path_simplify(const char *path);
