/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "generator.h"
#include "gen-settings.h"
#include "macro.h"

#ifndef HCBS_HCBSCTL_PATH
#define HCBS_HCBSCTL_PATH "/usr/bin/hcbsctl"
#endif

#define DROPIN_NAME "zz-hcbs.conf"

typedef struct GenUnit {
        char *name;
        GenUnitState state;
        char *fragment;
        char *text;    /* the drop-in this unit needs in force; NULL: it must have no reservation */
        char *write;   /* what goes into NAME.d/zz-hcbs.conf; NULL: nothing */
        bool reserves; /* write holds a reservation, not a mask */
        bool decided;
} GenUnit;

typedef struct Gen {
        const GenUnitPaths *paths;
        const char *hcbsctl;
        const GenLog *log;
        GenUnit *units; /* sorted by name */
        size_t n_units;
} Gen;

static void gen_done(Gen *g) {
        for (size_t i = 0; i < g->n_units; i++) {
                free(g->units[i].name);
                free(g->units[i].fragment);
                free(g->units[i].text);
                free(g->units[i].write);
        }
        free(g->units);
        g->units = NULL;
        g->n_units = 0;
}

static int gen_unit_cmp(const void *key, const void *elem) {
        return strcmp(key, ((const GenUnit *) elem)->name);
}

static GenUnit *gen_find(const Gen *g, const char *name) {
        return bsearch(name, g->units, g->n_units, sizeof(GenUnit), gen_unit_cmp);
}

/* ---- reading ---- */

/* Applies the unit file, then its drop-ins. Only -ENOMEM is returned; other failures are logged and counted. */
static int gen_read_settings(const Gen *g, const GenUnit *u, GenSettings *s) {
        _cleanup_strv_free_ char **dirs = NULL, **files = NULL;
        int r = gen_settings_parse_file(s, u->fragment, g->log);

        if (r == -ENOMEM)
                return r;
        r = gen_unit_dropin_dirs(g->paths, u->name, &dirs);
        if (r == 0)
                r = gen_unit_dropin_files(dirs, &files);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                gen_log(g->log, GEN_LOG_ERR, "%s: cannot list its drop-ins: %s", u->name, strerror(-r));
                s->n_errors++;
                return 0;
        }
        for (char **f = files; *f; f++)
                if (gen_settings_parse_file(s, *f, g->log) == -ENOMEM)
                        return -ENOMEM;
        return 0;
}

static int gen_load_unit(const Gen *g, GenUnit *u) {
        GenSettings s;
        GenReservation res;
        int r = gen_unit_fragment_find(g->paths, u->name, &u->state, &u->fragment);

        if (r < 0 || u->state != GEN_UNIT_FOUND)
                return r;
        gen_settings_init(&s);
        r = gen_read_settings(g, u, &s);
        if (r == 0 && gen_settings_reservation(&s, u->name, g->log, &res) > 0)
                r = gen_dropin_text(&res, u->fragment, g->hcbsctl, &u->text);
        gen_settings_done(&s);
        return r;
}

static int gen_load(Gen *g) {
        _cleanup_strv_free_ char **names = NULL;
        int r = gen_unit_paths_list_services(g->paths, &names);

        if (r < 0 && r != -ENOMEM)
                gen_log(g->log, GEN_LOG_ERR, "cannot list units: %s", strerror(-r));
        if (r < 0)
                return r;
        g->n_units = strv_length(names);
        g->units = calloc(g->n_units ?: 1, sizeof(GenUnit));
        if (!g->units)
                return -ENOMEM;
        for (size_t i = 0; i < g->n_units; i++)
                g->units[i].name = TAKE_PTR(names[i]);
        for (size_t i = 0; i < g->n_units; i++) {
                r = gen_load_unit(g, &g->units[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- deciding what to write ---- */

static int gen_decide(Gen *g, GenUnit *u);

/* The generated file u reads from a more generic name (its template or a dash prefix), or NULL. */
static int gen_inherited(Gen *g, const GenUnit *u, GenUnit **ret) {
        _cleanup_strv_free_ char **names = NULL;
        int r = gen_unit_dropin_names(u->name, &names);

        *ret = NULL;
        for (char **n = names + (r == 0); r == 0 && *n; n++) { /* names[0] is u itself */
                GenUnit *v = gen_find(g, *n);

                if (!v)
                        continue;
                r = gen_decide(g, v);
                if (r == 0 && v->write) {
                        *ret = v;
                        break;
                }
        }
        return r;
}

static int gen_decide(Gen *g, GenUnit *u) {
        GenUnit *from;
        int r;

        if (u->decided)
                return 0;
        u->decided = true;
        if (u->state != GEN_UNIT_FOUND)
                return 0; /* masked, aliased or missing: it reads no drop-in of ours */
        r = gen_inherited(g, u, &from);
        if (r < 0)
                return r;
        if (u->text && !(from && from->reserves && strcmp(from->write, u->text) == 0)) {
                u->write = strdup(u->text);
                u->reserves = true;
                return u->write ? 0 : -ENOMEM;
        }
        if (!u->text && from && from->reserves)
                return gen_dropin_mask_text(u->name, from->name, &u->write);
        return 0;
}

/* ---- writing ---- */

static int gen_write_unit(const Gen *g, int dfd, const char *dest, const GenUnit *u) {
        _cleanup_free_ char *dir = NULL, *file = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        if (asprintf(&dir, "%s.d", u->name) < 0 || asprintf(&file, "%s/" DROPIN_NAME, dir) < 0)
                return -ENOMEM;
        if (strlen(dir) > NAME_MAX) {
                /* a bad unit, not a failed run: v252 ignores such a directory too (ENAMETOOLONG) */
                gen_log(g->log, GEN_LOG_ERR,
                        "%s: name too long for a drop-in directory (%zu characters, at most %d): systemd reads "
                        "none, so its reservation cannot apply",
                        u->name, strlen(u->name), NAME_MAX - 2);
                return 0;
        }
        if (mkdirat(dfd, dir, 0755) < 0 && errno != EEXIST) {
                r = -errno;
                gen_log(g->log, GEN_LOG_ERR, "%s/%s: cannot create: %s", dest, dir, strerror(-r));
                return r;
        }
        fd = openat(dfd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
        r = fd < 0 ? -errno : hcbs_write_all(fd, u->write, strlen(u->write));
        if (r == 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r < 0)
                gen_log(g->log, GEN_LOG_ERR, "%s/%s: cannot write: %s", dest, file, strerror(-r));
        return r;
}

/* Writes every unit's file; a failure does not stop the others. Returns the first error. */
static int gen_write(const Gen *g, const char *dest) {
        _cleanup_close_ int dfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int r = 0;

        if (dfd < 0) {
                r = -errno;
                gen_log(g->log, GEN_LOG_ERR, "%s: cannot open: %s", dest, strerror(-r));
                return r;
        }
        for (size_t i = 0; i < g->n_units; i++) {
                int k = g->units[i].write ? gen_write_unit(g, dfd, dest, &g->units[i]) : 0;

                if (k == -ENOMEM)
                        return k;
                if (r == 0)
                        r = k;
        }
        return r;
}

int gen_run(const GenUnitPaths *paths, const char *dest, const char *hcbsctl, const GenLog *log) {
        Gen g = { .paths = paths, .hcbsctl = hcbsctl, .log = log };
        int r = gen_load(&g);

        for (size_t i = 0; r == 0 && i < g.n_units; i++)
                r = gen_decide(&g, &g.units[i]);
        if (r == 0)
                r = gen_write(&g, dest);
        if (r == -ENOMEM)
                gen_log(log, GEN_LOG_ERR, "out of memory");
        gen_done(&g);
        return r;
}

/* ---- the program ---- */

/* systemd's parse_boolean(): 1, 0, or -EINVAL. */
static int parse_boolean(const char *s) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

bool gen_in_initrd(const char *root) {
        const char *e = getenv("SYSTEMD_IN_INITRD");
        char path[4096];
        int b = e ? parse_boolean(e) : -EINVAL;

        if (b >= 0)
                return b;
        snprintf(path, sizeof(path), "%s/etc/initrd-release", root ?: "");
        return access(path, F_OK) == 0;
}

/* An absolute path that needs no quoting in ExecStartPre= and holds no '%' specifier. */
static bool hcbsctl_is_valid(const char *path) {
        return path[0] == '/' &&
               strspn(path, "/._+-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(path);
}

static int generator_paths(GenUnitPaths *ret, char *const *skip, const GenLog *log) {
        int r = gen_unit_paths_init(ret, getenv("SYSTEMD_UNIT_PATH"), getenv("HCBS_GENERATOR_ROOT"), skip);

        if (r < 0)
                gen_log(log, GEN_LOG_ERR, "cannot build the unit search path: %s", strerror(-r));
        return r;
}

int gen_main(int argc, char *argv[]) {
        const char *hcbsctl = getenv("HCBS_GENERATOR_HCBSCTL") ?: HCBS_HCBSCTL_PATH;
        GenUnitPaths paths = {};
        GenLog log;
        int r = 0;

        gen_log_open(&log, getenv("HCBS_GENERATOR_LOG"));
        if (argc != 2 && argc != 4) {
                gen_log(&log, GEN_LOG_ERR, "expected NORMAL_DIR [EARLY_DIR LATE_DIR], got %d arguments", argc - 1);
                r = -EINVAL;
        } else if (gen_in_initrd(getenv("HCBS_GENERATOR_ROOT"))) {
                r = 0; /* reservations are for the real root's services */
        } else if (!hcbsctl_is_valid(hcbsctl)) {
                gen_log(&log, GEN_LOG_ERR, "hcbsctl path '%s' is not absolute, or needs quoting", hcbsctl);
                r = -EINVAL;
        } else if ((r = generator_paths(&paths, argv + 1, &log)) == 0) {
                r = gen_run(&paths, argv[1], hcbsctl, &log);
        }
        gen_unit_paths_done(&paths);
        gen_log_close(&log);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
