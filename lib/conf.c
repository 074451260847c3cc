/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * How a line reaches the table.
 *
 * inih does the lexing: comments, KEY=VALUE (or KEY:VALUE), inline "; ..."
 * comments, whitespace around keys and values. Three things it does not do
 * well enough here, so the parser feeds it through its own reader
 * (conf_read_line), which sees every raw line first:
 *
 *  - Line numbers. Distributions build inih without INI_HANDLER_LINENO, so
 *    the reader counts lines itself. It refuses a line longer than inih's
 *    buffer instead of letting inih split it in two (which would shift every
 *    later line number and parse the tail as a line of its own).
 *  - Continuation lines. With INI_ALLOW_MULTILINE (on by default) an indented
 *    "Period=5ms" under "Runtime=1ms" becomes a second *value of Runtime*.
 *    The reader strips leading whitespace, so inih never sees an indented
 *    line: indentation is cosmetic, as in systemd's unit files.
 *  - Section headers. inih only reports sections through their keys, so an
 *    empty "[Group audio]" or a misspelt empty section would pass unseen,
 *    and the header's line is lost. The reader interprets "[...]" lines
 *    itself and the handler uses the parser's section, never inih's string.
 *
 * The first error stops the parse: once one is recorded the reader returns
 * EOF. A line without '=' is an error only inih sees, reported through its
 * return value at the end; the error on the earliest line wins.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "bandwidth.h"
#include "conf.h"
#include "duration.h"
#include "name.h"
#include "profile.h"
#include "strutil.h"

/* The default of the string keys: static, so that init cannot fail. */
static char conf_auto[] = "auto";

typedef enum ConfSection {
        SECTION_NONE,
        SECTION_MANAGER,
        SECTION_GROUP,
} ConfSection;

typedef int (*ConfParseFunc)(const char *value, void *field, char *err, size_t errlen);

typedef struct ConfKey {
        ConfSection section;
        const char *key;
        ConfParseFunc parse;
        size_t offset; /* of the field in HcbsConf or HcbsGroupConf */
        size_t seen;   /* of a bool set once the key is given, or NO_SEEN */
} ConfKey;

#define NO_SEEN SIZE_MAX

typedef struct ConfParser {
        HcbsConf *conf;
        FILE *f;
        const char *path;
        unsigned line;        /* of the line being parsed, from 1 */
        ConfSection section;
        size_t group;         /* index in conf->groups, in SECTION_GROUP */
        int r;                /* the first error, or 0 */
        unsigned error_line;
        char *err;
        size_t errlen;
} ConfParser;

static void conf_string_free(char **s) {
        if (*s != conf_auto)
                free(*s);
        *s = NULL;
}

static int conf_string_set(char **field, const char *value) {
        char *s = conf_auto;

        if (strcmp(value, "auto") != 0) {
                s = strdup(value);
                if (!s)
                        return -ENOMEM;
        }
        conf_string_free(field);
        *field = s;
        return 0;
}

/* ---- value parsers: (value, field) -> 0 or -errno with a reason ---- */

static int parse_duration(const char *value, void *field, char *err, size_t errlen) {
        return hcbs_duration_parse(value, field, err, errlen);
}

static int parse_percent(const char *value, void *field, char *err, size_t errlen) {
        return hcbs_percent_parse(value, field, err, errlen);
}

static int parse_bool(const char *value, void *field, char *err, size_t errlen) {
        static const char *const yes[] = { "yes", "true", "1", "on" }, *const no[] = { "no", "false", "0", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(value, yes[i]) == 0 || strcasecmp(value, no[i]) == 0) {
                        *(bool *) field = strcasecmp(value, yes[i]) == 0;
                        return 0;
                }
        return hcbs_err(err, errlen, -EINVAL, "'%s' is not a boolean (use yes/no, true/false, on/off or 1/0)",
                        value);
}

static int parse_count(const char *value, void *field, char *err, size_t errlen) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 10) : 0;
        if (value[0] < '0' || value[0] > '9' || errno || *end || v == 0 || v > UINT32_MAX)
                return hcbs_err(err, errlen, -EINVAL, "'%s' is not a count from 1 to %u", value, UINT32_MAX);
        *(uint32_t *) field = (uint32_t) v;
        return 0;
}

static int parse_cpus(const char *value, void *field, char *err, size_t errlen) {
        int r = hcbs_cpuset_parse(value, field);

        if (r == -ERANGE)
                return hcbs_err(err, errlen, r, "'%s': CPUs are numbered below %d", value, HCBS_CPUS_MAX);
        if (r < 0)
                return hcbs_err(err, errlen, r, "'%s' is not a CPU list (like 0-3,6)", value);
        return 0;
}

static int parse_cgroup_root(const char *value, void *field, char *err, size_t errlen) {
        if (value[0] != '/' && strcmp(value, "auto") != 0)
                return hcbs_err(err, errlen, -EINVAL, "'%s' is neither \"auto\" nor an absolute path", value);
        if (conf_string_set(field, value) < 0)
                return hcbs_err(err, errlen, -ENOMEM, "out of memory");
        return 0;
}

static int parse_interface(const char *value, void *field, char *err, size_t errlen) {
        if (strcmp(value, "auto") != 0 && hcbs_interface_from_string(value) < 0)
                return hcbs_err(err, errlen, -EINVAL,
                                "unknown interface '%s' (use auto, rfc1, rtmax, legacy-v1 or legacy-v2)", value);
        if (conf_string_set(field, value) < 0)
                return hcbs_err(err, errlen, -ENOMEM, "out of memory");
        return 0;
}

static const ConfKey conf_keys[] = {
        { SECTION_MANAGER, "CgroupRoot", parse_cgroup_root, offsetof(HcbsConf, cgroup_root), NO_SEEN },
        { SECTION_MANAGER, "Interface", parse_interface, offsetof(HcbsConf, interface), NO_SEEN },
        { SECTION_MANAGER, "Capacity", parse_percent, offsetof(HcbsConf, capacity_bw), NO_SEEN },
        { SECTION_MANAGER, "CapacityPeriod", parse_duration, offsetof(HcbsConf, capacity_period_us), NO_SEEN },
        { SECTION_MANAGER, "MinPeriod", parse_duration, offsetof(HcbsConf, min_period_us), NO_SEEN },
        { SECTION_MANAGER, "MaxPeriod", parse_duration, offsetof(HcbsConf, max_period_us), NO_SEEN },
        { SECTION_MANAGER, "KeepOnExit", parse_bool, offsetof(HcbsConf, keep_on_exit), NO_SEEN },
        { SECTION_MANAGER, "MaxGroups", parse_count, offsetof(HcbsConf, max_groups), NO_SEEN },
        { SECTION_GROUP, "Runtime", parse_duration, offsetof(HcbsGroupConf, runtime_us),
          offsetof(HcbsGroupConf, has_runtime) },
        { SECTION_GROUP, "Period", parse_duration, offsetof(HcbsGroupConf, period_us),
          offsetof(HcbsGroupConf, has_period) },
        { SECTION_GROUP, "CPUs", parse_cpus, offsetof(HcbsGroupConf, cpus), offsetof(HcbsGroupConf, has_cpus) },
        { SECTION_GROUP, "Delete", parse_bool, offsetof(HcbsGroupConf, delete_group), NO_SEEN },
        { SECTION_GROUP, "Persistent", parse_bool, offsetof(HcbsGroupConf, persistent), NO_SEEN },
};

void hcbs_conf_init(HcbsConf *c) {
        *c = (HcbsConf) {
                .cgroup_root = conf_auto,
                .interface = conf_auto,
                .capacity_bw = HCBS_BW_UNIT * 90 / 100, /* what hcbs_percent_parse("90%") gives */
                .capacity_period_us = 1000000,
                .min_period_us = 100,
                .max_period_us = 4000000,
                .keep_on_exit = false,
                .max_groups = 65536,
        };
}

void hcbs_conf_done(HcbsConf *c) {
        if (!c)
                return;
        conf_string_free(&c->cgroup_root);
        conf_string_free(&c->interface);
        for (size_t i = 0; i < c->n_groups; i++) {
                free(c->groups[i].name);
                free(c->groups[i].source);
        }
        free(c->groups);
        *c = (HcbsConf) {};
}

const HcbsGroupConf *hcbs_conf_find_group(const HcbsConf *c, const char *name) {
        for (size_t i = 0; i < c->n_groups; i++)
                if (strcmp(c->groups[i].name, name) == 0)
                        return &c->groups[i];
        return NULL;
}

/* Finds the group called name or appends it, remembering where it was declared. */
static int conf_group_get(HcbsConf *c, const char *name, const char *path, unsigned line, size_t *ret) {
        const HcbsGroupConf *found = hcbs_conf_find_group(c, name);
        HcbsGroupConf *groups, g = {};

        if (found) {
                *ret = (size_t) (found - c->groups);
                return 0;
        }
        g.name = strdup(name);
        if (!g.name || asprintf(&g.source, "%s:%u", path, line) < 0) {
                free(g.name);
                return -ENOMEM;
        }
        groups = reallocarray(c->groups, c->n_groups + 1, sizeof(*groups));
        if (!groups) {
                free(g.name);
                free(g.source);
                return -ENOMEM;
        }
        c->groups = groups;
        c->groups[c->n_groups] = g;
        *ret = c->n_groups++;
        return 0;
}

/* Records the first error as "FILE:LINE: reason" and returns 0, inih's "failed". */
_printf_(3, 4) static int conf_fail(ConfParser *p, int r, const char *fmt, ...) {
        char why[HCBS_ERRLEN];
        va_list ap;

        if (p->r < 0)
                return 0;
        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        p->r = hcbs_err(p->err, p->errlen, r, "%s:%u: %s", p->path, p->line, why);
        p->error_line = p->line;
        return 0;
}

static void conf_section_group(ConfParser *p, const char *name) {
        char why[HCBS_ERRLEN];
        int r;

        name += strspn(name, " \t");
        if (!*name) {
                conf_fail(p, -EINVAL, "[Group] needs a name: [Group NAME]");
                return;
        }
        if (hcbs_name_validate(name, why, sizeof(why)) < 0) {
                conf_fail(p, -EINVAL, "%s", why);
                return;
        }
        r = conf_group_get(p->conf, name, p->path, p->line, &p->group);
        if (r < 0) {
                conf_fail(p, r, "out of memory");
                return;
        }
        p->section = SECTION_GROUP;
}

/* "[Manager]" or "[Group NAME]", with blanks inside the brackets and a comment after them allowed. */
static void conf_section_begin(ConfParser *p, const char *line) {
        const char *end = strchr(line, ']'), *after;
        _cleanup_free_ char *s = NULL;
        size_t len;

        if (!end) {
                conf_fail(p, -EINVAL, "section header lacks ']'");
                return;
        }
        after = end + 1 + strspn(end + 1, " \t\r\n");
        if (*after && *after != '#' && *after != ';') {
                conf_fail(p, -EINVAL, "unexpected text after ']': '%.32s'", after);
                return;
        }
        line += 1 + strspn(line + 1, " \t");
        for (len = (size_t) (end - line); len > 0 && strchr(" \t", line[len - 1]); len--)
                ;
        s = strndup(line, len);
        if (!s) {
                conf_fail(p, -ENOMEM, "out of memory");
                return;
        }
        if (strcmp(s, "Manager") == 0)
                p->section = SECTION_MANAGER;
        else if (hcbs_startswith(s, "Group") && strchr(" \t", s[5]))
                conf_section_group(p, s + 5); /* s[5] == '\0' matches too: "[Group]" */
        else
                conf_fail(p, -EINVAL, "unknown section [%s] (expected [Manager] or [Group NAME])", s);
}

/*
 * Accepts a line that ends in '\n' or at EOF; refuses a NUL byte and a line
 * inih would split. nread is what fgets() consumed, from ftell(), or -1 for
 * a stream that cannot tell (a pipe): then a NUL is seen only before a '\n'.
 */
static void conf_check_line_end(ConfParser *p, const char *buf, int size, long nread) {
        size_t len = strlen(buf);
        int c;

        if (nread >= 0 && (size_t) nread != len) {
                conf_fail(p, -EINVAL, "line contains a NUL byte");
                return;
        }
        if (len > 0 && buf[len - 1] == '\n')
                return;
        if (len + 1 < (size_t) size) {
                if (!feof(p->f))
                        conf_fail(p, -EINVAL, "line contains a NUL byte");
                return;
        }
        c = getc(p->f);
        if (c == EOF)
                return;
        (void) ungetc(c, p->f);
        conf_fail(p, -EINVAL, "line is longer than %d characters", size - 2);
}

/* inih's fgets-style reader: counts, checks and normalizes every line first. */
static char *conf_read_line(char *buf, int size, void *userdata) {
        ConfParser *p = userdata;
        long start, end;
        size_t skip;

        if (p->r < 0)
                return NULL;
        start = ftell(p->f);
        errno = 0;
        if (!fgets(buf, size, p->f)) {
                if (ferror(p->f))
                        conf_fail(p, errno > 0 ? -errno : -EIO, "read error: %s", strerror(errno > 0 ? errno : EIO));
                return NULL;
        }
        end = ftell(p->f);
        p->line++;
        conf_check_line_end(p, buf, size, start >= 0 && end >= start ? end - start : -1);
        skip = p->line == 1 && hcbs_startswith(buf, "\xef\xbb\xbf") ? 3 : 0; /* UTF-8 BOM */
        skip += strspn(buf + skip, " \t\v\f");
        memmove(buf, buf + skip, strlen(buf + skip) + 1);
        if (buf[0] == '[')
                conf_section_begin(p, buf);
        return p->r < 0 ? NULL : buf;
}

static const ConfKey *conf_key_find(ConfSection section, const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(conf_keys); i++)
                if (conf_keys[i].section == section && strcmp(conf_keys[i].key, key) == 0)
                        return &conf_keys[i];
        return NULL;
}

static int conf_handler(void *user, const char *inih_section, const char *key, const char *value) {
        ConfParser *p = user;
        const ConfKey *k = conf_key_find(p->section, key);
        char why[HCBS_ERRLEN];
        char *base;
        int r;

        if (p->section == SECTION_NONE)
                return conf_fail(p, -EINVAL, "'%s=' comes before any [Manager] or [Group NAME] section", key);
        if (!k && p->section == SECTION_MANAGER)
                return conf_fail(p, -EINVAL, "unknown key '%s' in [Manager]", key);
        if (!k)
                return conf_fail(p, -EINVAL, "unknown key '%s' in [Group %s]", key,
                                 p->conf->groups[p->group].name);

        base = p->section == SECTION_MANAGER ? (char *) p->conf : (char *) &p->conf->groups[p->group];
        r = k->parse(value, base + k->offset, why, sizeof(why));
        if (r < 0)
                return conf_fail(p, r, "%s: %s", key, why);
        if (k->seen != NO_SEEN)
                *(bool *) (base + k->seen) = true;
        return 1;
}

static int conf_parse_stream(HcbsConf *c, FILE *f, const char *path, char *err, size_t errlen) {
        ConfParser p = { .conf = c, .f = f, .path = path, .err = err, .errlen = errlen };
        int line;

        line = ini_parse_stream(conf_read_line, &p, conf_handler, &p);
        if (line < 0 && p.r == 0)
                return hcbs_err(err, errlen, -ENOMEM, "%s: out of memory", path);
        if (line > 0 && (p.r == 0 || (unsigned) line < p.error_line))
                return hcbs_err(err, errlen, -EINVAL, "%s:%d: expected KEY=VALUE, a [section] or a comment", path,
                                line);
        return p.r;
}

int hcbs_conf_parse_stream(HcbsConf *c, FILE *f, const char *name, char *err, size_t errlen) {
        return conf_parse_stream(c, f, name, err, errlen);
}

int hcbs_conf_parse_file(HcbsConf *c, const char *path, char *err, size_t errlen) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        int r;

        if (!f) {
                r = -errno;
                return hcbs_err(err, errlen, r, "%s: %s", path, strerror(-r));
        }
        return conf_parse_stream(c, f, path, err, errlen);
}

/* ---- drop-ins ---- */

static int dropin_filter(const struct dirent *d) {
        size_t len = strlen(d->d_name);
        return d->d_name[0] != '.' && len > 5 && strcmp(d->d_name + len - 5, ".conf") == 0;
}

static int dropin_compare(const struct dirent **a, const struct dirent **b) {
        return strcmp((*a)->d_name, (*b)->d_name);
}

/* Parses dir/name; anything but a regular file (a directory, a FIFO, a dangling link) is skipped. */
static int dropin_parse(HcbsConf *c, int dfd, const char *dir, const char *name, char *err, size_t errlen) {
        _cleanup_close_ int fd = -1;
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return hcbs_err(err, errlen, -ENOMEM, "%s: out of memory", dir);
        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0 || fstat(fd, &st) < 0) {
                r = -errno;
                return hcbs_err(err, errlen, r, "%s: %s", path, strerror(-r));
        }
        if (!S_ISREG(st.st_mode))
                return 0;
        f = fdopen(fd, "r");
        if (!f) {
                r = -errno;
                return hcbs_err(err, errlen, r, "%s: %s", path, strerror(-r));
        }
        fd = -1; /* owned by f now */
        return conf_parse_stream(c, f, path, err, errlen);
}

static int conf_parse_dropins(HcbsConf *c, const char *dir, char *err, size_t errlen) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent **list = NULL;
        int n, r = 0;

        if (dfd < 0 && errno == ENOENT)
                return 0;
        if (dfd < 0 || (n = scandirat(dfd, ".", &list, dropin_filter, dropin_compare)) < 0) {
                r = -errno;
                return hcbs_err(err, errlen, r, "%s: %s", dir, strerror(-r));
        }
        for (int i = 0; i < n; i++) {
                if (r == 0)
                        r = dropin_parse(c, dfd, dir, list[i]->d_name, err, errlen);
                free(list[i]);
        }
        free(list);
        return r;
}

static int group_compare(const void *a, const void *b) {
        return strcmp(((const HcbsGroupConf *) a)->name, ((const HcbsGroupConf *) b)->name);
}

int hcbs_conf_load(HcbsConf *c, const char *main_path, const char *dropin_dir, char *err, size_t errlen) {
        int r;

        if (main_path) {
                r = hcbs_conf_parse_file(c, main_path, err, errlen);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        if (dropin_dir) {
                r = conf_parse_dropins(c, dropin_dir, err, errlen);
                if (r < 0)
                        return r;
        }
        r = hcbs_conf_validate(c, err, errlen);
        if (r < 0)
                return r;
        if (c->n_groups > 1)
                qsort(c->groups, c->n_groups, sizeof(*c->groups), group_compare);
        if (err && errlen > 0)
                err[0] = '\0'; /* no stale message from a missing main file */
        return 0;
}

/* ---- validation ---- */

static int conf_validate_manager(const HcbsConf *c, char *err, size_t errlen) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN];

        if (c->min_period_us == 0)
                return hcbs_err(err, errlen, -EINVAL, "[Manager] MinPeriod= must be at least 1us");
        if (c->min_period_us > c->max_period_us)
                return hcbs_err(err, errlen, -EINVAL, "[Manager] MinPeriod=%s is above MaxPeriod=%s",
                                hcbs_duration_format(c->min_period_us, a), hcbs_duration_format(c->max_period_us, b));
        if (c->capacity_period_us == 0)
                return hcbs_err(err, errlen, -EINVAL, "[Manager] CapacityPeriod= must be at least 1us");
        return 0;
}

static int conf_validate_period(const HcbsConf *c, const HcbsGroupConf *g, char *err, size_t errlen) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN];

        /* the kernel refuses more (MAX_BW), and the fixed point below would overflow */
        if (g->runtime_us > HCBS_MAX_RT_RUNTIME_NS / HCBS_NSEC_PER_USEC)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Runtime=%s is above the kernel's limit %s",
                                g->source, g->name, hcbs_duration_format(g->runtime_us, a),
                                hcbs_duration_format(HCBS_MAX_RT_RUNTIME_NS / HCBS_NSEC_PER_USEC, b));
        if (g->runtime_us > g->period_us)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Runtime=%s exceeds Period=%s", g->source,
                                g->name, hcbs_duration_format(g->runtime_us, a), hcbs_duration_format(g->period_us, b));
        if (g->period_us < c->min_period_us)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Period=%s is below MinPeriod=%s", g->source,
                                g->name, hcbs_duration_format(g->period_us, a),
                                hcbs_duration_format(c->min_period_us, b));
        if (g->period_us > c->max_period_us)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Period=%s is above MaxPeriod=%s", g->source,
                                g->name, hcbs_duration_format(g->period_us, a),
                                hcbs_duration_format(c->max_period_us, b));
        return 0;
}

static int conf_validate_group(const HcbsConf *c, const HcbsGroupConf *g, char *err, size_t errlen) {
        char a[HCBS_BW_STRLEN], b[HCBS_BW_STRLEN];
        size_t plen = hcbs_name_parent_len(g->name);
        int r;

        if (g->delete_group || g->persistent)
                return hcbs_err(err, errlen, -EINVAL,
                                "%s: [Group %s] %s= belongs in files for 'hcbsctl apply', not in hcbsd's configuration",
                                g->source, g->name, g->delete_group ? "Delete" : "Persistent");
        if (!g->has_runtime || !g->has_period)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] has no %s=", g->source, g->name,
                                g->has_runtime ? "Period" : "Runtime");
        r = conf_validate_period(c, g, err, errlen);
        if (r < 0)
                return r;
        if (hcbs_bw(g->period_us, (int64_t) g->runtime_us) > c->capacity_bw)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] needs %s of a CPU, more than Capacity=%s",
                                g->source, g->name, hcbs_bw_format(hcbs_bw(g->period_us, (int64_t) g->runtime_us), a),
                                hcbs_bw_format(c->capacity_bw, b));
        for (size_t i = 0; plen > 0 && i < c->n_groups; i++)
                if (strlen(c->groups[i].name) == plen && strncmp(c->groups[i].name, g->name, plen) == 0)
                        return 0;
        if (plen > 0)
                return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] needs its parent [Group %.*s] declared too",
                                g->source, g->name, (int) plen, g->name);
        return 0;
}

int hcbs_conf_validate(const HcbsConf *c, char *err, size_t errlen) {
        int r = conf_validate_manager(c, err, errlen);

        for (size_t i = 0; r == 0 && i < c->n_groups; i++)
                r = conf_validate_group(c, &c->groups[i], err, errlen);
        return r;
}

int hcbs_conf_validate_apply(const HcbsConf *c, char *err, size_t errlen) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN];
        HcbsConf defaults;

        hcbs_conf_init(&defaults);
        if (strcmp(c->cgroup_root, defaults.cgroup_root) != 0 || strcmp(c->interface, defaults.interface) != 0 ||
            c->capacity_bw != defaults.capacity_bw || c->capacity_period_us != defaults.capacity_period_us ||
            c->min_period_us != defaults.min_period_us || c->max_period_us != defaults.max_period_us ||
            c->keep_on_exit != defaults.keep_on_exit || c->max_groups != defaults.max_groups)
                return hcbs_err(err, errlen, -EINVAL, "[Manager] settings belong in hcbsd.conf, not in an apply file");
        if (c->n_groups == 0)
                return hcbs_err(err, errlen, -EINVAL, "no [Group NAME] section: nothing to apply");
        for (size_t i = 0; i < c->n_groups; i++) {
                const HcbsGroupConf *g = &c->groups[i];
                if (g->delete_group && (g->has_runtime || g->has_period || g->persistent || g->has_cpus))
                        return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Delete=yes takes no other key",
                                        g->source, g->name);
                if (g->delete_group)
                        continue;
                if (!g->has_runtime || !g->has_period)
                        return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] has no %s= (or Delete=yes)", g->source,
                                        g->name, g->has_runtime ? "Period" : "Runtime");
                if (g->runtime_us > g->period_us)
                        return hcbs_err(err, errlen, -EINVAL, "%s: [Group %s] Runtime=%s exceeds Period=%s",
                                        g->source, g->name, hcbs_duration_format(g->runtime_us, a),
                                        hcbs_duration_format(g->period_us, b));
        }
        return 0;
}
