/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd's configuration: /etc/hcbsd/hcbsd.conf, then /etc/hcbsd/conf.d/ *.conf
 * in lexical order (a later file overrides an earlier one).
 *
 *   [Manager]            CgroupRoot, Interface, Capacity, CapacityPeriod,
 *                        MinPeriod, MaxPeriod, KeepOnExit
 *   [Group NAME]         Runtime, Period, CPUs
 *
 * Later files override earlier values; a [Group NAME] seen again merges into
 * the first one (later keys win), like systemd drop-ins. Parsing stops at a
 * file's first error and reports it as "FILE:LINE: reason"; every failure
 * of the functions below fills err (which may be NULL). On failure the
 * HcbsConf holds whatever was parsed up to the error: it stays valid to free,
 * but callers should discard it (load into a fresh HcbsConf and swap on
 * success, which is what a reload does).
 *
 * The strings are owned by the HcbsConf and freed only by hcbs_conf_done().
 * The default "auto" strings are static, so hcbs_conf_init() cannot fail.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cpuset.h"

typedef struct HcbsGroupConf {
        char *name;             /* validated group name */
        uint64_t runtime_us, period_us;
        bool has_runtime, has_period;
        HcbsCpuSet cpus;        /* CPUs=LIST (rtmax v7: the group's CPUs; "" all of its parent's) */
        bool has_cpus;
        bool delete_group;      /* Delete=yes: only in hcbsctl apply files */
        bool persistent;        /* Persistent=yes: only in hcbsctl apply files */
        char *source;           /* "file:line" of the first section header, for messages */
} HcbsGroupConf;

typedef struct HcbsConf {
        char *cgroup_root;           /* "auto" (default) or an absolute path */
        char *interface;             /* "auto" (default), "rfc1", "rtmax", "legacy-v1" */
        uint64_t capacity_bw;        /* Capacity=90%, kernel fixed point (hcbs_percent_parse) */
        uint64_t capacity_period_us; /* CapacityPeriod=1s */
        uint64_t min_period_us;      /* MinPeriod=100us */
        uint64_t max_period_us;      /* MaxPeriod=4s */
        bool keep_on_exit;           /* KeepOnExit=no */
        uint32_t max_groups;         /* MaxGroups=65536: groups hcbsd creates at most (adopted ones count) */
        HcbsGroupConf *groups;       /* in declaration order; sorted by name after hcbs_conf_load() */
        size_t n_groups;
} HcbsConf;

/* Sets the defaults; the only place they are written down. Never fails. */
void hcbs_conf_init(HcbsConf *c);

/* Frees everything c owns and zeroes it (NULL-safe); c may be hcbs_conf_init()ed again. */
void hcbs_conf_done(HcbsConf *c);

/*
 * Parses one file on top of c. Returns 0 or -errno (-ENOENT if path is
 * missing, -EINVAL or -ERANGE for a bad line); err gets "FILE:LINE: reason".
 */
int hcbs_conf_parse_file(HcbsConf *c, const char *path, char *err, size_t errlen);
/* The same from an open stream; name stands for the file in messages. */
int hcbs_conf_parse_stream(HcbsConf *c, FILE *f, const char *name, char *err, size_t errlen);

/*
 * An hcbsctl apply file: [Group NAME] sections only, each with Runtime= and
 * Period=, runtime <= period, or Delete=yes (and neither); Persistent=yes
 * keeps a created group across restarts. Parents need not be declared: they
 * may exist in hcbsd already. Returns 0 or -EINVAL with "file:line: reason".
 */
int hcbs_conf_validate_apply(const HcbsConf *c, char *err, size_t errlen);

/*
 * Parses main_path (a missing file is fine), then the regular files
 * dropin_dir/ *.conf in strcmp() order (a missing directory is fine; hidden
 * files are skipped), then validates and sorts the groups by name, so a
 * parent precedes its children. Either path may be NULL. Returns 0 or -errno.
 */
int hcbs_conf_load(HcbsConf *c, const char *main_path, const char *dropin_dir, char *err, size_t errlen);

/*
 * Cross-checks a parsed configuration: 0 < MinPeriod <= MaxPeriod,
 * CapacityPeriod > 0; every group has Runtime= and Period=, runtime <= period,
 * MinPeriod <= period <= MaxPeriod, its own bandwidth fits in Capacity, and
 * the parent of "a/b" is declared. Returns 0 or -EINVAL with the reason
 * (prefixed by the group's "file:line") in err.
 */
int hcbs_conf_validate(const HcbsConf *c, char *err, size_t errlen);

/* The group called name, or NULL. */
const HcbsGroupConf *hcbs_conf_find_group(const HcbsConf *c, const char *name);
