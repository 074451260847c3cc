/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Persistent runtime groups: the groups created with "persistent" over
 * D-Bus, stored in STATEDIR/groups (/var/lib/hcbsd/groups) so that a
 * restart recreates them. Config-file groups are not stored here.
 *
 * The file is text, one group a line, after a version header:
 *
 *   # hcbsd groups v1
 *   audio 500 5000
 *   media/video 10000 100000
 *
 * i.e. "NAME RUNTIME_US PERIOD_US\n", RUNTIME_US "max" for a group with no
 * reservation of its own (KernelInterface rtmax: its RT tasks run on its
 * nearest ancestor's). It is only ever replaced whole (see persist.c), so
 * a reader sees the old list or the new one, never a mix.
 */

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cpuset.h"

#define PERSIST_FILE "groups"
#define PERSIST_HEADER "# hcbsd groups v1"

typedef struct PersistGroup {
        char *name;
        uint64_t runtime_us, period_us; /* runtime PERSIST_RUNTIME_MAX: "max" */
        HcbsCpuSet cpus; /* the CPUs it was given (rtmax v7); empty: none, and no fourth field */
} PersistGroup;

#define PERSIST_RUNTIME_MAX UINT64_MAX /* what CreateGroup takes for "max" (HCBS_RUNTIME_MAX_US) */

/*
 * Replaces dir/groups with groups[0..n) atomically and durably (temp file,
 * fsync, rename, fsync of dir). Creates dir (0755, not its parents) if
 * missing. Every name must be valid (-EINVAL otherwise, nothing written).
 * Returns 0 or -errno; on failure dir/groups is untouched.
 */
int persist_save(const char *dir, const PersistGroup *groups, size_t n);

/*
 * Replaces dir/file with data the same way: a temp file ".FILE.XXXXXX",
 * fsync, rename, fsync of dir. Creates dir (one level) if missing. A file
 * that holds data already is left in place, only fsynced (with dir).
 */
int persist_write_atomic(const char *dir, const char *file, const char *data, size_t len);
/*
 * The same without the fsyncs: a reader sees the old file or the new one,
 * whole, after a crash of hcbsd; after a crash of the machine either may
 * be empty. For state that matters only until the next reboot.
 */
int persist_replace(const char *dir, const char *file, const char *data, size_t len);
/*
 * Opens dir/file for reading and writing in place, creating it (0644, not
 * truncated) and dir with its parents if missing. Returns an fd or -errno.
 */
int persist_open_rw(const char *dir, const char *file);

/*
 * Reads dir/groups; a missing file or dir is an empty list (*ret = NULL).
 * A file that is not exactly the format above is -EBADMSG, with
 * "DIR/groups:LINE: reason" in err (every failure fills err). Returns 0 or
 * -errno; *ret and *ret_n are written only on success. Free the array with
 * persist_groups_free().
 */
int persist_load(const char *dir, PersistGroup **ret, size_t *ret_n, char *err, size_t errlen);

/*
 * Reads the state file dir/file, whose first line must be header and whose
 * every line ends in '\n' and holds no NUL byte (PERSIST_LINES_CRLF: a '\r'
 * before the '\n' is dropped too). Each later line goes to fn without its line
 * end; fn returns 0, -EBADMSG with why (whylen bytes) saying what is wrong with
 * the line, or another -errno with why. Returns 1 when the file was read, 0
 * when there is none, -EBADMSG with err "DIR/FILE:LINE: why" for a file hcbsd
 * did not write, or another -errno with err "DIR/FILE: why".
 */
typedef int (*PersistLineFn)(void *userdata, char *line, char *why, size_t whylen);
#define PERSIST_LINES_CRLF 1u
#define PERSIST_LINES_EMPTY_IS_NONE 2u /* an empty file reads as no file (0), not as one hcbsd did not write */
int persist_read_lines(const char *dir, const char *file, const char *header, unsigned flags, PersistLineFn fn,
                       void *userdata, char *err, size_t errlen);

/*
 * A state file hcbsd cannot trust is kept for a person to read, not
 * deleted and never read again: dir/file becomes dir/file.corrupt (an
 * older one is replaced). Returns 0 or -errno.
 */
#define PERSIST_CORRUPT_SUFFIX ".corrupt"
int persist_set_aside(const char *dir, const char *file);

/* Frees an array from persist_load() (NULL-safe). */
void persist_groups_free(PersistGroup *g, size_t n);
