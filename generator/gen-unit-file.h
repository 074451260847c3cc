/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Where systemd v252 finds a service's unit file and its drop-ins, so that
 * hcbs-generator sees each unit the way PID 1 will load it. gen-unit-file.c
 * says which v252 sources each rule comes from, and what is simplified.
 *
 * Only service units are handled: every name here ends in ".service".
 * Lists of strings are NULL-terminated arrays, never NULL themselves, owned
 * by the caller and freed with strv_free() (lib/strv.h).
 */

#include <stdbool.h>
#include <stddef.h>

#include "strv.h"

#define GEN_UNIT_NAME_MAX 256 /* v252 unit-name.h: names are shorter than this */

typedef enum GenUnitNameKind {
        GEN_UNIT_NAME_PLAIN,    /* motor.service */
        GEN_UNIT_NAME_TEMPLATE, /* motor@.service */
        GEN_UNIT_NAME_INSTANCE, /* motor@left.service */
} GenUnitNameKind;

/* The kind of a valid service unit name, or -EINVAL. */
int gen_unit_name_kind(const char *name);

/* "foo@bar.service" -> "foo@.service". -EINVAL unless name is an instance, -ENOMEM. */
int gen_unit_name_template(const char *name, char **ret);

/*
 * The names whose NAME.d/ directories systemd reads for name, in its order
 * within one search directory: the name, its template, then the dash-prefix
 * hierarchy ("a-b-c.service": "a-b-.service", "a-.service"). The type-wide
 * "service" comes last and is not included. Returns 0 or -ENOMEM.
 */
int gen_unit_dropin_names(const char *name, char ***ret);

typedef struct GenUnitPaths {
        char **dirs;     /* the search path, highest priority first */
        char **expanded; /* dirs plus their canonical paths: "inside the search path" for aliases */
} GenUnitPaths;

/*
 * The search path: unit_path ($SYSTEMD_UNIT_PATH, colon-separated, a trailing
 * ':' appends the defaults) or, if NULL, v252's system defaults with root
 * (NULL or "" for "/") prefixed to each. Directories listed in skip (may be
 * NULL) are left out, and so are the defaults' generator and transient
 * directories. Returns 0 or -errno (-ENOMEM, or getcwd()'s for a relative path).
 */
int gen_unit_paths_init(GenUnitPaths *ret, const char *unit_path, const char *root, char *const *skip);

/* Frees what p owns (NULL-safe) and zeroes it. */
void gen_unit_paths_done(GenUnitPaths *p);

typedef enum GenUnitState {
        GEN_UNIT_NOT_FOUND, /* no file, or one that cannot be opened */
        GEN_UNIT_ALIAS,     /* the name is an alias of another unit: left to that unit */
        GEN_UNIT_MASKED,    /* an empty file or a symlink to /dev/null */
        GEN_UNIT_FOUND,
} GenUnitState;

/*
 * Finds the file systemd loads for name (for an instance without its own
 * file, its template's). On GEN_UNIT_FOUND, *ret_path is the path to read
 * (caller frees); otherwise it is NULL. Returns 0 or -ENOMEM.
 */
int gen_unit_fragment_find(const GenUnitPaths *p, const char *name, GenUnitState *ret_state, char **ret_path);

/* The existing drop-in directories of name, in systemd's order (all NAME.d/ dirs, then service.d/). */
int gen_unit_dropin_dirs(const GenUnitPaths *p, const char *name, char ***ret);

/*
 * The *.conf entries of dirs: hidden names skipped, a file name found in an
 * earlier directory masks the same name in later ones, sorted by file name.
 * Missing directories are skipped. Returns 0 or -errno.
 */
int gen_unit_dropin_files(char *const *dirs, char ***ret);

/*
 * Every service name the generator should look at, sorted and unique: unit
 * files and symlinks in the search path, and the instances named by
 * "foo@x.service.d/" directories and by entries of "*.wants/", "*.requires/"
 * and "*.upholds/" directories. Returns 0 or -errno.
 */
int gen_unit_paths_list_services(const GenUnitPaths *p, char ***ret);
