/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * Reading a unit's reservation, and the drop-in that applies it.
 *
 * Syntax, as systemd v252 reads unit files (src/shared/conf-parser.c,
 * config_parse and parse_line): a line whose first non-blank character is
 * '#' or ';' is a comment, even inside a continuation; a line ending in an
 * unescaped '\' continues on the next one, the backslash becoming a blank;
 * "[NAME]" starts a section (the name is not trimmed; a header without the
 * closing ']' makes systemd stop reading the file); "KEY=VALUE" has both
 * sides trimmed, and a ';' inside a value is part of it. Assignments apply
 * file after file (unit file, then drop-ins), later ones winning.
 *
 * inih is given only what it can lex as systemd does: conf_read_line-style,
 * our reader assembles systemd's logical lines, tracks the section itself
 * and hands inih "KEY=" for the keys we read and blank lines otherwise. The
 * handler takes the value from the logical line, because inih would strip a
 * " ;..." tail as a comment and cut values at its line buffer (200 bytes in
 * Debian's build), neither of which systemd does.
 *
 * The policy keys are read exactly as v252 does (src/core/load-fragment.c):
 *  - CPUSchedulingPolicy= (config_parse_exec_cpu_sched_policy): empty resets:
 *    cpu_sched_set = false, policy SCHED_OTHER, priority 0. Otherwise a name
 *    (other, batch, idle, fifo, rr) or a number (string table with fallback,
 *    src/basic/process-util.c); anything else is ignored with a warning. A
 *    valid policy clamps the priority into sched_get_priority_min..max() of
 *    the policy (so fifo without a priority runs at 1) and sets cpu_sched_set.
 *  - CPUSchedulingPriority= (config_parse_exec_cpu_sched_prio): an integer in
 *    0..99 sets it and cpu_sched_set; anything else is ignored with a warning,
 *    the empty value included: an empty CPUSchedulingPriority= does NOT reset
 *    in v252, it logs "Failed to parse CPU scheduling priority, ignoring".
 *  - At exec time (src/core/execute.c, exec_child) sched_setattr() runs
 *    whenever cpu_sched_set is true, for every command, "+" (full privilege)
 *    ones included; fifo with priority 0 fails there and the unit fails.
 *
 * So the generated drop-in resets the policy with an empty
 * CPUSchedulingPolicy= alone: that clears cpu_sched_set, and the "+hcbsctl"
 * ExecStartPre= then runs SCHED_OTHER (a SCHED_FIFO task could not even enter
 * the unit's cgroup before hcbsd gives it a runtime). It has no
 * CPUSchedulingPriority= line, which would only add that warning: hcbsd gets
 * the policy and priority through --fifo/--rr instead. The reset is written
 * only when the unit's policy is fifo or rr, so batch and idle survive. A
 * drop-in sorting after zz-hcbs.conf could set the policy again.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ini.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admission.h"
#include "bandwidth.h"
#include "duration.h"
#include "gen-settings.h"
#include "macro.h"
#include "strutil.h"
#include "tasks.h"

#define LONG_LINE_MAX (1024U * 1024U) /* systemd's limit for one line */
#define WHITESPACE " \t\n\r"

typedef enum UnitSection {
        SECTION_NONE, /* before any header: systemd ignores assignments there */
        SECTION_OTHER,
        SECTION_SERVICE,
        SECTION_HCBS,
} UnitSection;

typedef struct UnitParser UnitParser;

typedef struct UnitKey {
        UnitSection section;
        const char *key;
        const char *partner; /* the other half of a runtime/period pair */
        int (*apply)(UnitParser *p, const struct UnitKey *k, const char *value);
        size_t offset; /* of the GenSetting, for durations */
} UnitKey;

struct UnitParser {
        GenSettings *s;
        const GenLog *log;
        const char *path;
        FILE *f;
        char *phys;           /* the physical line, from getline() */
        size_t phys_size;
        char *logical;        /* the logical line being assembled */
        size_t logical_len;
        unsigned line;        /* of the last physical line read, from 1 */
        bool bom_done;
        UnitSection section;
        const char *value;    /* of the assignment handed to inih, inside logical */
        bool stop;            /* a bad section header: systemd stops reading the file */
        int r;                /* -errno: a read error or ENOMEM */
};

static int apply_duration(UnitParser *p, const UnitKey *k, const char *value);
static int apply_policy(UnitParser *p, const UnitKey *k, const char *value);
static int apply_priority(UnitParser *p, const UnitKey *k, const char *value);
static int apply_tasks(UnitParser *p, const UnitKey *k, const char *value);
static int apply_cpus(UnitParser *p, const UnitKey *k, const char *value);

static const UnitKey unit_keys[] = {
        { SECTION_HCBS, "Runtime", "Period", apply_duration, offsetof(GenSettings, runtime) },
        { SECTION_HCBS, "Period", "Runtime", apply_duration, offsetof(GenSettings, period) },
        { SECTION_HCBS, "Tasks", NULL, apply_tasks, 0 },
        { SECTION_HCBS, "CPUs", NULL, apply_cpus, offsetof(GenSettings, cpus) },
        { SECTION_SERVICE, "RTRuntime", "RTPeriod", apply_duration, offsetof(GenSettings, runtime) },
        { SECTION_SERVICE, "RTPeriod", "RTRuntime", apply_duration, offsetof(GenSettings, period) },
        { SECTION_SERVICE, "CPUSchedulingPolicy", NULL, apply_policy, 0 },
        { SECTION_SERVICE, "CPUSchedulingPriority", NULL, apply_priority, 0 },
};

static const UnitKey *unit_key_find(UnitSection section, const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                if (unit_keys[i].section == section && strcmp(unit_keys[i].key, key) == 0)
                        return &unit_keys[i];
        return NULL;
}

void gen_settings_init(GenSettings *s) {
        *s = (GenSettings) { .sched_policy = SCHED_OTHER };
}

void gen_settings_done(GenSettings *s) {
        if (!s)
                return;
        free(s->runtime.where);
        free(s->period.where);
        free(s->sched_where);
        free(s->tasks);
        free(s->tasks_where);
        free(s->cpus.where);
        gen_settings_init(s);
}

/* ---- values ---- */

static int parser_where(UnitParser *p, char **where) {
        char *s;

        if (asprintf(&s, "%s:%u", p->path, p->line) < 0)
                return -ENOMEM;
        free(*where);
        *where = s;
        return 0;
}

/* Logs a bad value of ours at the current line and counts it. */
_printf_(2, 3) static void parser_bad(UnitParser *p, const char *fmt, ...) {
        char why[HCBS_ERRLEN * 2];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        gen_log(p->log, GEN_LOG_ERR, "%s:%u: %s", p->path, p->line, why);
        p->s->n_errors++;
}

static int apply_duration(UnitParser *p, const UnitKey *k, const char *value) {
        GenSetting *set = (GenSetting *) ((char *) p->s + k->offset);
        char why[HCBS_ERRLEN];
        uint64_t us;
        int r;

        if (!*value) {
                set->set = false;
                return 0;
        }
        r = hcbs_duration_parse(value, &us, why, sizeof(why));
        if (r < 0) {
                parser_bad(p, "%s=%s: %s (%s)", k->key, value, r == -ERANGE ? "out of range" : "not a duration", why);
                return 0;
        }
        *set = (GenSetting) { .us = us, .set = true, .key = k->key, .where = set->where };
        return parser_where(p, &set->where);
}

/* v252 sched_policy_from_string(): a name, or a decimal number up to INT_MAX. */
static int sched_policy_parse(const char *s) {
        static const struct {
                const char *name;
                int policy;
        } table[] = {
                { "other", SCHED_OTHER }, { "batch", SCHED_BATCH }, { "idle", SCHED_IDLE },
                { "fifo", SCHED_FIFO },   { "rr", SCHED_RR },
        };
        unsigned long v;
        char *end;

        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (strcmp(s, table[i].name) == 0)
                        return table[i].policy;
        if (s[0] < '0' || s[0] > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || *end != '\0' || v > INT_MAX)
                return -EINVAL;
        return (int) v;
}

static int clamp_int(int x, int lo, int hi) {
        return x > hi ? hi : x < lo ? lo : x; /* systemd's CLAMP(), same order */
}

static int apply_policy(UnitParser *p, const UnitKey *k, const char *value) {
        GenSettings *s = p->s;
        int policy;

        if (!*value) {
                s->sched_set = false;
                s->sched_policy = SCHED_OTHER;
                s->sched_priority = 0;
                return parser_where(p, &s->sched_where);
        }
        policy = sched_policy_parse(value);
        if (policy < 0)
                return 0; /* systemd warns and ignores it */
        s->sched_policy = policy;
        s->sched_priority = clamp_int(s->sched_priority, sched_get_priority_min(policy),
                                      sched_get_priority_max(policy));
        s->sched_set = true;
        return parser_where(p, &s->sched_where);
}

static int apply_priority(UnitParser *p, const UnitKey *k, const char *value) {
        GenSettings *s = p->s;
        char *end;
        long v;

        errno = 0;
        v = strtol(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || v < 0 || v > 99)
                return 0; /* systemd warns and ignores it, the empty value too */
        s->sched_priority = (int) v;
        s->sched_set = true;
        return parser_where(p, &s->sched_where);
}

/* Tasks=2ms:10ms 1ms:20ms:15ms ...: appends; an empty value resets the list. */
static int apply_tasks(UnitParser *p, const UnitKey *k, const char *value) {
        GenSettings *s = p->s;
        char why[HCBS_ERRLEN];
        size_t before = s->n_tasks;
        int r;

        if (!*value) {
                free(s->tasks);
                s->tasks = NULL;
                s->n_tasks = 0;
                return parser_where(p, &s->tasks_where);
        }
        r = hcbs_tasks_parse(value, &s->tasks, &s->n_tasks, why, sizeof(why));
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                parser_bad(p, "Tasks=%s: %s", value, why);
                return 0;
        }
        return s->n_tasks > before ? parser_where(p, &s->tasks_where) : 0;
}

/*
 * CPUs=N: how many CPUs the tasks of Tasks= run on, for sizing. CPUs=LIST (a range or a comma: 0-1, 2,3,
 * 3-3): the unit's CPUs, its AllowedCPUs= and the reservation's (rtmax v7), and as many for sizing.
 */
static int apply_cpus(UnitParser *p, const UnitKey *k, const char *value) {
        GenSetting *set = &p->s->cpus;
        char *end;
        unsigned long v;

        if (!*value) {
                set->set = false;
                p->s->has_cpu_list = false;
                return 0;
        }
        if (strpbrk(value, "-,")) {
                HcbsCpuSet list;
                if (hcbs_cpuset_parse(value, &list) < 0 || hcbs_cpuset_is_empty(&list)) {
                        parser_bad(p, "CPUs=%s: expected a number of CPUs, or a CPU list (0-1, 2,3, 3-3)", value);
                        return 0;
                }
                p->s->cpu_list = list;
                p->s->has_cpu_list = true;
                *set = (GenSetting) { .us = hcbs_cpuset_count(&list), .set = true, .key = k->key, .where = set->where };
                return parser_where(p, &set->where);
        }
        p->s->has_cpu_list = false;
        errno = 0;
        v = (value[0] >= '0' && value[0] <= '9') ? strtoul(value, &end, 10) : 0;
        if (errno != 0 || v < 1 || v > HCBS_SIZING_MAX_CPUS || *end != '\0') {
                parser_bad(p, "CPUs=%s: expected a number of CPUs, 1..%d", value, HCBS_SIZING_MAX_CPUS);
                return 0;
        }
        *set = (GenSetting) { .us = v, .set = true, .key = k->key, .where = set->where };
        return parser_where(p, &set->where);
}

/* ---- lines ---- */

static char *strstrip(char *s) {
        size_t len;

        s += strspn(s, WHITESPACE);
        for (len = strlen(s); len > 0 && strchr(WHITESPACE, s[len - 1]); len--)
                ;
        s[len] = '\0';
        return s;
}

/* Reads a physical line without its end; 1, 0 at EOF, or -errno. */
static int parser_getline(UnitParser *p) {
        ssize_t len;

        errno = 0;
        len = getline(&p->phys, &p->phys_size, p->f);
        if (len < 0)
                return ferror(p->f) ? -(errno ?: EIO) : 0;
        p->line++;
        if ((size_t) len > LONG_LINE_MAX)
                return -ENOBUFS;
        while (len > 0 && (p->phys[len - 1] == '\n' || p->phys[len - 1] == '\r'))
                p->phys[--len] = '\0';
        return 1;
}

static int parser_append(UnitParser *p, const char *s) {
        size_t len = strlen(s);
        char *l;

        if (p->logical_len + len > LONG_LINE_MAX)
                return -ENOBUFS;
        l = realloc(p->logical, p->logical_len + len + 1);
        if (!l)
                return -ENOMEM;
        memcpy(l + p->logical_len, s, len + 1);
        p->logical = l;
        p->logical_len += len;
        return 0;
}

/* Whether s ends in an unescaped backslash, scanning as systemd does. */
static bool ends_escaped(const char *s) {
        bool escaped = false;

        for (; *s; s++)
                escaped = escaped ? false : *s == '\\';
        return escaped;
}

/* Assembles the next logical line into p->logical: 1, 0 at EOF, or -errno. */
static int parser_next(UnitParser *p) {
        bool continued = false;

        p->logical_len = 0;
        for (;;) {
                const char *l;
                int r = parser_getline(p);

                if (r <= 0)
                        return r < 0 ? r : continued;
                l = p->phys + strspn(p->phys, WHITESPACE);
                if (*l == '#' || *l == ';')
                        continue;
                l = p->phys;
                if (!p->bom_done && hcbs_startswith(l, "\xef\xbb\xbf")) {
                        l += 3;
                        p->bom_done = true;
                }
                r = parser_append(p, l);
                if (r < 0)
                        return r;
                if (!ends_escaped(p->logical))
                        return 1;
                p->logical[p->logical_len - 1] = ' ';
                continued = true;
        }
}

static void parser_section(UnitParser *p, const char *l) {
        size_t len = strlen(l);

        if (l[len - 1] != ']') {
                parser_bad(p, "invalid section header '%s': systemd stops reading the file here", l);
                p->stop = true;
                return;
        }
        len -= 2;
        if (strlen("Service") == len && strncmp(l + 1, "Service", len) == 0)
                p->section = SECTION_SERVICE;
        else if (strlen("X-HCBS") == len && strncmp(l + 1, "X-HCBS", len) == 0)
                p->section = SECTION_HCBS;
        else
                p->section = SECTION_OTHER;
}

/* Decides what inih sees of the logical line: "KEY=" for one of our keys, else a blank line. */
static void parser_feed(UnitParser *p, char *buf, size_t size) {
        char *l = strstrip(p->logical), *eq, *key;
        const UnitKey *k;

        buf[0] = '\0';
        if (*l == '[') {
                parser_section(p, l);
                return;
        }
        eq = strchr(l, '=');
        if (p->section == SECTION_NONE || p->section == SECTION_OTHER || !eq || eq == l)
                return;
        *eq = '\0';
        key = strstrip(l);
        p->value = strstrip(eq + 1);
        k = unit_key_find(p->section, key);
        if (!k && p->section == SECTION_HCBS)
                gen_log(p->log, GEN_LOG_WARNING, "%s:%u: unknown key '%s' in [X-HCBS], ignoring", p->path,
                        p->line, key);
        if (k)
                snprintf(buf, size, "%s=", k->key);
}

/* inih's fgets-like reader: one logical line per call. */
static char *unit_read_line(char *buf, int size, void *userdata) {
        UnitParser *p = userdata;
        int r;

        if (p->r < 0 || p->stop)
                return NULL;
        r = parser_next(p);
        if (r < 0)
                p->r = r;
        if (r <= 0)
                return NULL;
        parser_feed(p, buf, (size_t) size);
        return p->stop ? NULL : buf;
}

static int unit_handler(void *userdata, const char *section, const char *key, const char *value) {
        UnitParser *p = userdata;
        const UnitKey *k = unit_key_find(p->section, key);
        int r;

        if (!k || p->r < 0)
                return 1;
        r = k->apply(p, k, p->value);
        if (r < 0)
                p->r = r;
        return 1;
}

/* ---- files ---- */

/* Opens path for reading without blocking on a FIFO; NULL in *ret for anything that is not a regular file. */
static int unit_open(const char *path, FILE **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        *ret = NULL;
        if (fd < 0)
                return errno == ENOENT || errno == ELOOP ? 0 : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 0; /* a mask (/dev/null), a directory, ...: nothing to read */
        *ret = fdopen(fd, "re");
        if (!*ret)
                return -errno;
        TAKE_FD(fd);
        return 0;
}

int gen_settings_parse_file(GenSettings *s, const char *path, const GenLog *log) {
        UnitParser p = { .s = s, .log = log, .path = path };
        _cleanup_fclose_ FILE *f = NULL;
        int r = unit_open(path, &f);

        if (r == 0 && !f)
                return 0;
        if (r == 0) {
                p.f = f;
                if (ini_parse_stream(unit_read_line, &p, unit_handler, &p) < 0 && p.r == 0)
                        p.r = -ENOMEM;
                r = p.r;
        }
        free(p.phys);
        free(p.logical);
        if (r < 0 && r != -ENOMEM) {
                if (r == -ENOBUFS)
                        gen_log(log, GEN_LOG_ERR, "%s:%u: line too long", path, p.line);
                else
                        gen_log(log, GEN_LOG_ERR, "%s: cannot read: %s", path, strerror(-r));
                s->n_errors++;
        }
        return r;
}

/* ---- the reservation ---- */

/* Logs "WHERE: reason (UNIT)": the unit, because a type-wide or prefix drop-in serves many. */
_printf_(4, 5) static int reservation_bad(const GenLog *log, const char *unit, const char *where, const char *fmt,
                                          ...) {
        char why[HCBS_ERRLEN * 2];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        gen_log(log, GEN_LOG_ERR, "%s: %s (%s)", where, why, unit);
        return -EINVAL;
}

static const char *partner_key(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                if (strcmp(unit_keys[i].key, key) == 0)
                        return unit_keys[i].partner;
        return "?";
}

static int reservation_check_pair(const GenSetting *rt, const GenSetting *pe, const char *unit,
                                  const GenLog *log) {
        char a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN];

        if (!pe->set)
                return reservation_bad(log, unit, rt->where, "%s=%s without %s=", rt->key, hcbs_duration_format(rt->us, a),
                                       partner_key(rt->key));
        if (!rt->set)
                return reservation_bad(log, unit, pe->where, "%s=%s without %s=", pe->key, hcbs_duration_format(pe->us, a),
                                       partner_key(pe->key));
        if (pe->us < 1 || pe->us > HCBS_DEFAULT_MAX_PERIOD_US)
                return reservation_bad(log, unit, pe->where, "%s=%s: the period must be between 1us and %s", pe->key,
                                       hcbs_duration_format(pe->us, a),
                                       hcbs_duration_format(HCBS_DEFAULT_MAX_PERIOD_US, b));
        if (rt->us == 0)
                return reservation_bad(log, unit, rt->where, "%s=0: the runtime must be more than 0", rt->key);
        if (rt->us > pe->us)
                return reservation_bad(log, unit, rt->where, "%s=%s exceeds %s=%s", rt->key, hcbs_duration_format(rt->us, a),
                                       pe->key, hcbs_duration_format(pe->us, b));
        return 0;
}

/* Tasks=: the designer's runtime and period, as hcbsctl size would find them with hcbsd's defaults. */
static int reservation_from_tasks(const GenSettings *s, const char *unit, const GenLog *log,
                                  GenReservation *ret) {
        char a[HCBS_DURATION_STRLEN];
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        HcbsSizingRequest req = {
                .tasks = s->tasks,
                .n_tasks = s->n_tasks,
                .cpus = s->cpus.set ? (unsigned) s->cpus.us : online > 0 ? (unsigned) online : 1,
                .scheduler = HCBS_SCHED_FP,
                .period_us = s->period.set ? s->period.us : 0,
                .limit_min_period_us = HCBS_DEFAULT_MIN_PERIOD_US,
                .limit_max_period_us = HCBS_DEFAULT_MAX_PERIOD_US,
                .limit_bw = hcbs_bw(1000000, 950000),
        };
        HcbsSizing z;
        HcbsVerdict v;
        int r;

        if (s->runtime.set)
                return reservation_bad(log, unit, s->runtime.where, "%s=%s and Tasks= exclude each other", s->runtime.key,
                                       hcbs_duration_format(s->runtime.us, a));
        r = hcbs_size(&req, &z, NULL, &v);
        if (r < 0)
                return r;
        if (v.error != HCBS_OK)
                return reservation_bad(log, unit, s->tasks_where, "Tasks=: %s", v.message);
        *ret = (GenReservation) {
                .runtime_us = z.runtime_us,
                .period_us = z.period_us,
                .sized_tasks = s->n_tasks,
                .sized_cpus = req.cpus,
        };
        return 0;
}

int gen_settings_reservation(const GenSettings *s, const char *unit, const GenLog *log, GenReservation *ret) {
        bool rt_policy = s->sched_set && (s->sched_policy == SCHED_FIFO || s->sched_policy == SCHED_RR);
        GenReservation sized = {};
        int r;

        if (s->n_errors > 0)
                return -EINVAL;
        if (s->n_tasks > 0) {
                r = reservation_from_tasks(s, unit, log, &sized);
                if (r < 0)
                        return r;
        } else if (!s->runtime.set && !s->period.set)
                return 0;
        else {
                r = reservation_check_pair(&s->runtime, &s->period, unit, log);
                if (r < 0)
                        return r;
                sized = (GenReservation) { .runtime_us = s->runtime.us, .period_us = s->period.us };
        }
        if (rt_policy && s->sched_priority < 1)
                return reservation_bad(log, unit, s->sched_where,
                                       "CPUSchedulingPriority=%d is not valid for CPUSchedulingPolicy=%s (use 1..99)",
                                       s->sched_priority, s->sched_policy == SCHED_FIFO ? "fifo" : "rr");
        sized.policy = rt_policy ? s->sched_policy : -1;
        sized.priority = rt_policy ? s->sched_priority : 0;
        sized.has_cpus = s->has_cpu_list;
        sized.cpus = s->cpu_list;
        *ret = sized;
        return 1;
}

/* ---- drop-in text ---- */

int gen_dropin_text(const GenReservation *r, const char *source, const char *hcbsctl, char **ret) {
        const char *name = r->policy == SCHED_FIFO ? "fifo" : "rr";
        char bw[HCBS_BW_STRLEN], policy[64] = "no real-time policy", flag[32 + HCBS_CPUSET_STRLEN] = "", sized[96] = "";
        char list[HCBS_CPUSET_STRLEN] = "", allowed[HCBS_CPUSET_STRLEN + 16] = "";

        if (r->policy >= 0) {
                snprintf(policy, sizeof(policy), "policy %s %d", name, r->priority);
                snprintf(flag, sizeof(flag), " --%s %d", name, r->priority);
        }
        if (r->has_cpus) {
                /* systemd writes the cpuset (and enables the controller on the path) before ExecStartPre= */
                hcbs_cpuset_format(&r->cpus, list, sizeof(list));
                snprintf(allowed, sizeof(allowed), "AllowedCPUs=%s\n", list);
                hcbs_strbuf_append(flag, sizeof(flag), " --cpus %s", list);
        }
        if (r->sized_tasks > 0)
                snprintf(sized, sizeof(sized), "# Sized for its Tasks= (%zu task%s on %u CPU%s).\n", r->sized_tasks,
                         r->sized_tasks == 1 ? "" : "s", r->sized_cpus, r->sized_cpus == 1 ? "" : "s");
        if (asprintf(ret,
                     "# Generated by hcbs-generator from %s: a real-time\n"
                     "# reservation of %" PRIu64 "us every %" PRIu64 "us (%s of one CPU), %s.\n"
                     "%s"
                     "[Unit]\n"
                     "Wants=hcbsd.service\n"
                     "After=hcbsd.service\n"
                     "\n"
                     "[Service]\n"
                     "Slice=hcbs.slice\n"
                     "CPUWeight=100\n"
                     "%s"
                     "%s"
                     "ExecStartPre=+%s --no-ask-password reserve-unit %%n %" PRIu64 "us %" PRIu64 "us%s\n"
                     "ExecStopPost=-+%s --no-ask-password release-unit %%n\n",
                     source, r->runtime_us, r->period_us,
                     hcbs_bw_format(hcbs_bw(r->period_us, (int64_t) r->runtime_us), bw), policy, sized,
                     allowed, r->policy >= 0 ? "CPUSchedulingPolicy=\n" : "", hcbsctl, r->runtime_us, r->period_us,
                     flag, hcbsctl) < 0)
                return -ENOMEM;
        return 0;
}

int gen_dropin_mask_text(const char *unit, const char *masked_name, char **ret) {
        if (asprintf(ret,
                     "# Generated by hcbs-generator: %s has no real-time reservation of its own,\n"
                     "# so this empty drop-in masks the zz-hcbs.conf generated for %s.\n",
                     unit, masked_name) < 0)
                return -ENOMEM;
        return 0;
}
