/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * How systemd v252 finds a unit's files (checked in the v252 sources, as
 * shipped in Debian 12's systemd 252.39).
 *
 * Search path (src/basic/path-lookup.c, lookup_paths_init): $SYSTEMD_UNIT_PATH
 * split at ':' (empty components dropped, relative paths made absolute); a
 * trailing ':' appends the defaults. The system defaults, Debian being built
 * with split-usr, are the list in unit_default_dirs below, which is also what
 * `systemd-analyze --system unit-paths` prints there. Duplicates are dropped.
 * We leave out the generator directories (generators run in parallel, so
 * theirs are incomplete, and ours must not feed back) and the transient one.
 *
 * Unit file (src/basic/unit-file.c, unit_file_build_name_map and
 * unit_file_find_fragment): the first search directory holding NAME as a
 * regular file or a symlink wins. A symlink whose target lies inside the
 * search path is an alias of the target's name; an alias to itself is
 * ignored (the next directory is tried). A symlink leading outside the search
 * path, /dev/null included, is a "linked" unit file read through the link.
 * An instance without its own entry uses its template's. A unit is masked when
 * its file is empty or a character device (src/core/load-fragment.c,
 * unit_load_fragment; src/basic/stat-util.c, null_or_empty); a masked unit
 * reads no drop-ins at all.
 *
 * Drop-ins (src/shared/dropin.c, unit_file_find_dirs and
 * unit_file_find_dropin_paths; src/basic/conf-files.c): for each search
 * directory in order, NAME.d/, then (instances) TEMPLATE.d/ with the
 * template's own prefixes, then the dash prefixes ("a-b-c.service":
 * "a-b-.service.d/", "a-.service.d/"; "a-b@x.service": "a-@x.service.d/",
 * "a-@.service.d/"); after all of those, service.d/ of every directory.
 * Their *.conf entries (hidden names skipped) are merged by file name, the
 * first directory in that list owning a name (so a same-named file masks the
 * others, and a /dev/null symlink masks with nothing), and read in strcmp()
 * order of the file names. Hence foo@x.service.d/zz.conf masks
 * foo@.service.d/zz.conf of the same directory, and a higher-priority
 * directory's foo@.service.d/zz.conf masks a lower one's foo@x.service.d/zz.conf.
 *
 * Simplified here: aliases (a symlink to another unit name inside the search
 * path) are not followed: the name is skipped, and drop-in directories named
 * after aliases are not read; a symlink from an instance to its own template
 * counts as "no own file". An alias target is recognised lexically (".." and
 * "." removed), or through the canonical path of its directory, where v252
 * chases every symlink. Instances are found through unit files, NAME.d/
 * directories and *.wants/, *.requires/, *.upholds/ entries (v252's core reads
 * only .wants/ and .requires/); template entries in an instance's .wants/ (a
 * propagated instance) are not expanded.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "path.h"
#include "strutil.h"
#include "strv.h"
#include "gen-unit-file.h"

#define SERVICE_SUFFIX ".service"
#define SERVICE_SUFFIX_LEN (sizeof(SERVICE_SUFFIX) - 1)

/* ---- names ---- */

int gen_unit_name_kind(const char *name) {
        static const char valid[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\@";
        size_t len = strlen(name), base;
        const char *at;

        if (len <= SERVICE_SUFFIX_LEN || len >= GEN_UNIT_NAME_MAX)
                return -EINVAL;
        base = len - SERVICE_SUFFIX_LEN;
        if (strcmp(name + base, SERVICE_SUFFIX) != 0 || strspn(name, valid) < base)
                return -EINVAL;
        at = memchr(name, '@', base);
        if (!at)
                return GEN_UNIT_NAME_PLAIN;
        if (at == name)
                return -EINVAL;
        return (size_t) (at - name) + 1 == base ? GEN_UNIT_NAME_TEMPLATE : GEN_UNIT_NAME_INSTANCE;
}

int gen_unit_name_template(const char *name, char **ret) {
        if (gen_unit_name_kind(name) != GEN_UNIT_NAME_INSTANCE)
                return -EINVAL;
        if (asprintf(ret, "%.*s" SERVICE_SUFFIX, (int) (strchr(name, '@') + 1 - name), name) < 0)
                return -ENOMEM;
        return 0;
}

/*
 * How much of prefix the next, more generic drop-in name keeps: up to and
 * including its last dash, after dropping a trailing dash once ("a-b-" ->
 * "a-"). 0 when there is none: no dash, or only a leading one.
 */
static size_t prefix_cut(const char *prefix) {
        size_t len = strlen(prefix);
        bool chopped = false;

        for (;;) {
                const char *dash = memrchr(prefix, '-', len);
                size_t n;

                if (!dash || dash == prefix)
                        return 0;
                n = (size_t) (dash - prefix);
                if (n + 1 < len || chopped)
                        return n + 1;
                len = n;
                chopped = true;
        }
}

/*
 * v252 walks the same tree (unit_file_find_dirs recurses into the template
 * and the dash prefix of every name it visits), so an instance reaches most
 * names twice or more: "a-b-c@x" reaches "a-.service" through its template
 * and through "a-b-@x". Its list is then de-duplicated
 * (conf_files_list_strv, path_strv_resolve_uniq: the first occurrence
 * stays). Adding each name once, and not walking again from a name already
 * listed (whose own walk is already in), gives that list directly: at most
 * two names per dash of the unit's prefix, where the plain walk grows with
 * the square of their number.
 */
static int dropin_names_add(const char *name, char ***l, size_t *n) {
        int kind = gen_unit_name_kind(name), r;
        size_t plen, cut;
        const char *at;
        char *next;

        if (strv_contains(*l, name))
                return 0;
        r = strv_extend(l, n, name);
        if (r < 0)
                return r;
        if (kind == GEN_UNIT_NAME_INSTANCE) {
                _cleanup_free_ char *template = NULL;

                r = gen_unit_name_template(name, &template);
                if (r < 0)
                        return r;
                r = dropin_names_add(template, l, n);
                if (r < 0)
                        return r;
        }
        at = strchr(name, '@');
        plen = at ? (size_t) (at - name) : strlen(name) - SERVICE_SUFFIX_LEN;
        _cleanup_free_ char *prefix = strndup(name, plen);
        if (!prefix)
                return -ENOMEM;
        cut = prefix_cut(prefix);
        if (cut == 0)
                return 0;
        /* a template keeps no instance: "a-b@.service" reads "a-.service.d/" */
        if (kind == GEN_UNIT_NAME_INSTANCE)
                r = asprintf(&next, "%.*s%.*s", (int) cut, prefix, (int) (strlen(at)), at);
        else
                r = asprintf(&next, "%.*s" SERVICE_SUFFIX, (int) cut, prefix);
        if (r < 0)
                return -ENOMEM;
        r = dropin_names_add(next, l, n);
        free(next);
        return r;
}

int gen_unit_dropin_names(const char *name, char ***ret) {
        char **l = NULL;
        size_t n = 0;
        int r;

        if (gen_unit_name_kind(name) < 0)
                return -EINVAL;
        r = dropin_names_add(name, &l, &n);
        if (r < 0) {
                strv_free(l);
                return r;
        }
        return strv_return(l, ret);
}

/* ---- the search path ---- */

static const char *const unit_default_dirs[] = {
        "/etc/systemd/system.control",
        "/run/systemd/system.control",
        "/run/systemd/transient",
        "/run/systemd/generator.early",
        "/etc/systemd/system",
        "/etc/systemd/system.attached",
        "/run/systemd/system",
        "/run/systemd/system.attached",
        "/run/systemd/generator",
        "/usr/local/lib/systemd/system",
        "/lib/systemd/system",
        "/usr/lib/systemd/system",
        "/run/systemd/generator.late",
};

/* Never read: what generators write, and systemd's own transient units. */
static const char *const unit_skipped_dirs[] = {
        "/run/systemd/transient",
        "/run/systemd/generator.early",
        "/run/systemd/generator",
        "/run/systemd/generator.late",
};

static int paths_add_defaults(char ***l, size_t *n, const char *root) {
        for (size_t i = 0; i < ELEMENTSOF(unit_default_dirs); i++) {
                char *s;

                if (asprintf(&s, "%s%s", root, unit_default_dirs[i]) < 0)
                        return -ENOMEM;
                if (strv_consume(l, n, s) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Splits $SYSTEMD_UNIT_PATH; *ret_append is set if it ends in ':'. */
static int paths_add_environ(char ***l, size_t *n, const char *unit_path, bool *ret_append) {
        const char *p = unit_path;
        char cwd[PATH_MAX];

        while (*p) {
                size_t len = strcspn(p, ":");
                char *s;

                if (len > 0 && p[0] != '/' && !getcwd(cwd, sizeof(cwd)))
                        return -errno;
                if (len > 0 && asprintf(&s, "%s%s%.*s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/",
                                        (int) len, p) < 0)
                        return -ENOMEM;
                if (len > 0 && strv_consume(l, n, s) < 0)
                        return -ENOMEM;
                p += len + (p[len] == ':');
        }
        *ret_append = *unit_path && unit_path[strlen(unit_path) - 1] == ':';
        return 0;
}

static bool path_is_skipped(const char *path, const char *root, char *const *skip) {
        for (size_t i = 0; i < ELEMENTSOF(unit_skipped_dirs); i++) {
                size_t rlen = strlen(root);

                if (strncmp(path, root, rlen) == 0 && strcmp(path + rlen, unit_skipped_dirs[i]) == 0)
                        return true;
        }
        return strv_contains(skip, path);
}

/* Keeps the first of each simplified path that is not skipped; adds canonical forms to expanded. */
static int paths_finish(GenUnitPaths *p, char **raw, const char *root, char *const *skip) {
        size_t n = 0, m = 0;
        int r;

        for (char **i = raw; *i; i++) {
                _cleanup_free_ char *canon = NULL;
                char *s = path_simplify(*i);

                if (!s)
                        return -ENOMEM;
                if (strv_contains(p->dirs, s) || path_is_skipped(s, root, skip)) {
                        free(s);
                        continue;
                }
                r = strv_consume(&p->dirs, &n, s);
                if (r < 0 || (r = strv_extend(&p->expanded, &m, s)) < 0)
                        return r;
                canon = realpath(s, NULL);
                if (canon && !strv_contains(p->expanded, canon) && (r = strv_extend(&p->expanded, &m, canon)) < 0)
                        return r;
        }
        return 0;
}

int gen_unit_paths_init(GenUnitPaths *ret, const char *unit_path, const char *root, char *const *skip) {
        _cleanup_strv_free_ char **raw = NULL, **simple_skip = NULL;
        _cleanup_free_ char *simple_root = path_simplify(root && *root ? root : "/");
        GenUnitPaths p = {};
        bool append = true;
        size_t n = 0, k = 0;
        int r = 0;

        if (!simple_root)
                return -ENOMEM;
        root = strcmp(simple_root, "/") == 0 ? "" : simple_root;
        for (char *const *s = skip; s && *s && r == 0; s++)
                r = strv_consume(&simple_skip, &k, path_simplify(*s));
        if (r == 0 && unit_path)
                r = paths_add_environ(&raw, &n, unit_path, &append);
        if (r == 0 && append)
                r = paths_add_defaults(&raw, &n, root);
        if (r == 0 && raw)
                r = paths_finish(&p, raw, root, simple_skip);
        if (r == 0 && !p.dirs) /* "SYSTEMD_UNIT_PATH=": an empty search path */
                p.dirs = calloc(1, sizeof(char *));
        if (r == 0 && !p.dirs)
                r = -ENOMEM;
        if (r < 0) {
                gen_unit_paths_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void gen_unit_paths_done(GenUnitPaths *p) {
        if (!p)
                return;
        strv_free(p->dirs);
        strv_free(p->expanded);
        *p = (GenUnitPaths) {};
}

/* ---- unit files ---- */

typedef enum EntryKind {
        ENTRY_NONE,   /* nothing usable under this name in this directory */
        ENTRY_FILE,   /* a regular file, or a link leading outside the search path */
        ENTRY_ALIAS,  /* a link to another name inside the search path */
        ENTRY_SELF,   /* an instance linked to its own template: "no own file" */
} EntryKind;

/* Whether target names a valid alias of name (v252 unit_validate_alias_symlink_or_warn, for services). */
static bool alias_is_valid(const char *name, const char *target) {
        int kn = gen_unit_name_kind(name), kt = gen_unit_name_kind(target);
        const char *in = strchr(name, '@'), *it = strchr(target, '@');

        if (kt < 0 || strcmp(name, target) == 0)
                return false;
        if (kn == GEN_UNIT_NAME_INSTANCE && kt == GEN_UNIT_NAME_INSTANCE)
                return strcmp(in, it) == 0;
        return kn == kt || (kn == GEN_UNIT_NAME_INSTANCE && kt == GEN_UNIT_NAME_TEMPLATE);
}

static bool path_in_search_path(const GenUnitPaths *p, const char *path) {
        for (char **d = p->expanded; d && *d; d++) {
                size_t len = strlen(*d);

                if (strncmp(path, *d, len) == 0 && path[len] == '/')
                        return true;
        }
        return false;
}

/* The target of the link dir/name, absolute and simplified; also tried with its directory canonicalized. */
static int link_target(const char *dir, const char *name, char **ret, char **ret_canon) {
        char buf[PATH_MAX], *slash;
        _cleanup_free_ char *path = path_join(dir, name), *abs = NULL, *parent = NULL;
        ssize_t len;

        if (!path)
                return -ENOMEM;
        len = readlink(path, buf, sizeof(buf) - 1);
        if (len < 0)
                return -errno;
        buf[len] = '\0';
        if (asprintf(&abs, "%s%s%s", buf[0] == '/' ? "" : dir, buf[0] == '/' ? "" : "/", buf) < 0)
                return -ENOMEM;
        *ret = path_simplify(abs);
        if (!*ret)
                return -ENOMEM;
        slash = strrchr(*ret, '/');
        parent = strndup(*ret, (size_t) (slash - *ret) + (slash == *ret));
        if (!parent)
                return -ENOMEM;
        _cleanup_free_ char *canon = realpath(parent, NULL);
        *ret_canon = NULL;
        if (canon && asprintf(ret_canon, "%s/%s", canon, slash + 1) < 0)
                return -ENOMEM;
        return 0;
}

/* Classifies the link dir/name; -errno for an unreadable or invalid link, which systemd ignores. */
static int link_classify(const GenUnitPaths *p, const char *dir, const char *name, EntryKind *ret) {
        _cleanup_free_ char *target = NULL, *canon = NULL, *template = NULL;
        const char *base;
        int r = link_target(dir, name, &target, &canon);

        if (r < 0)
                return r;
        if (!path_in_search_path(p, target) && !(canon && path_in_search_path(p, canon))) {
                *ret = ENTRY_FILE;
                return 0;
        }
        base = strrchr(target, '/') + 1;
        if (!alias_is_valid(name, base))
                return -EINVAL;
        if (gen_unit_name_template(name, &template) == 0 && strcmp(template, base) == 0)
                *ret = ENTRY_SELF;
        else
                *ret = ENTRY_ALIAS;
        return 0;
}

/* What the first directory holding name has; *ret_path is set for ENTRY_FILE. */
static int entry_find(const GenUnitPaths *p, const char *name, EntryKind *ret, char **ret_path) {
        for (char **d = p->dirs; *d; d++) {
                _cleanup_free_ char *path = path_join(*d, name);
                EntryKind kind = ENTRY_FILE;
                struct stat st;

                if (!path)
                        return -ENOMEM;
                if (lstat(path, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        int r = link_classify(p, *d, name, &kind);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0)
                                continue;
                }
                *ret = kind;
                *ret_path = kind == ENTRY_FILE ? TAKE_PTR(path) : NULL;
                return 0;
        }
        *ret = ENTRY_NONE;
        *ret_path = NULL;
        return 0;
}

/* Masked, found, or not found (a dangling link systemd cannot open). */
static GenUnitState fragment_state(const char *path) {
        struct stat st;

        if (stat(path, &st) < 0)
                return GEN_UNIT_NOT_FOUND;
        if ((S_ISREG(st.st_mode) && st.st_size == 0) || S_ISCHR(st.st_mode))
                return GEN_UNIT_MASKED;
        return GEN_UNIT_FOUND;
}

int gen_unit_fragment_find(const GenUnitPaths *p, const char *name, GenUnitState *ret_state, char **ret_path) {
        _cleanup_free_ char *path = NULL, *template = NULL;
        EntryKind kind;
        int r = entry_find(p, name, &kind, &path);

        if (r == 0 && (kind == ENTRY_NONE || kind == ENTRY_SELF) && gen_unit_name_kind(name) == GEN_UNIT_NAME_INSTANCE) {
                r = gen_unit_name_template(name, &template);
                if (r == 0)
                        r = entry_find(p, template, &kind, &path);
        }
        if (r < 0)
                return r;
        *ret_path = NULL;
        if (kind == ENTRY_ALIAS)
                *ret_state = GEN_UNIT_ALIAS;
        else if (kind != ENTRY_FILE)
                *ret_state = GEN_UNIT_NOT_FOUND;
        else if ((*ret_state = fragment_state(path)) == GEN_UNIT_FOUND)
                *ret_path = TAKE_PTR(path);
        return 0;
}

/* ---- drop-ins ---- */

static bool is_dir(const char *path) {
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int dirs_add(char ***l, size_t *n, const char *dir, const char *name) {
        char *path;

        if (asprintf(&path, "%s/%s.d", dir, name) < 0)
                return -ENOMEM;
        if (!is_dir(path)) {
                free(path);
                return 0;
        }
        return strv_consume(l, n, path);
}

int gen_unit_dropin_dirs(const GenUnitPaths *p, const char *name, char ***ret) {
        _cleanup_strv_free_ char **names = NULL;
        char **l = NULL;
        size_t n = 0;
        int r = gen_unit_dropin_names(name, &names);

        for (char **d = p->dirs; r == 0 && *d; d++)
                for (char **i = names; r == 0 && *i; i++)
                        r = dirs_add(&l, &n, *d, *i);
        for (char **d = p->dirs; r == 0 && *d; d++)
                r = dirs_add(&l, &n, *d, "service");
        if (r < 0) {
                strv_free(l);
                return r;
        }
        return strv_return(l, ret);
}

/* Where name's non-empty base ends before suffix, or NULL. */
static const char *base_end(const char *name, const char *suffix) {
        const char *e = hcbs_endswith(name, suffix);

        return e && e > name ? e : NULL;
}

static bool name_is_conf(const char *name) {
        return name[0] != '.' && base_end(name, ".conf");
}

static int basename_cmp(const void *a, const void *b) {
        return strcmp(strrchr(*(char *const *) a, '/'), strrchr(*(char *const *) b, '/'));
}

static bool basename_seen(char *const *l, const char *name) {
        for (; l && *l; l++)
                if (strcmp(strrchr(*l, '/') + 1, name) == 0)
                        return true;
        return false;
}

static void closedirp(DIR **d) {
        if (*d)
                (void) closedir(*d);
}

static int files_add(char ***l, size_t *n, const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        for (errno = 0; (de = readdir(d)); errno = 0) {
                if (!name_is_conf(de->d_name) || basename_seen(*l, de->d_name))
                        continue;
                if (strv_consume(l, n, path_join(dir, de->d_name)) < 0)
                        return -ENOMEM;
        }
        return errno > 0 ? -errno : 0;
}

int gen_unit_dropin_files(char *const *dirs, char ***ret) {
        char **l = NULL;
        size_t n = 0;
        int r = 0;

        for (char *const *d = dirs; r == 0 && d && *d; d++)
                r = files_add(&l, &n, *d);
        if (r < 0) {
                strv_free(l);
                return r;
        }
        if (n > 1)
                qsort(l, n, sizeof(char *), basename_cmp);
        return strv_return(l, ret);
}

/* ---- which units ---- */

static bool entry_is(int dfd, const struct dirent *de, mode_t type) {
        struct stat st;

        if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
                return (mode_t) DTTOIF(de->d_type) == type;
        if (fstatat(dfd, de->d_name, &st, type == S_IFDIR ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        return (st.st_mode & S_IFMT) == type || (type == S_IFREG && S_ISLNK(st.st_mode));
}

/* Adds the instance names listed in a *.wants/, *.requires/ or *.upholds/ directory. */
static int services_add_deps(char ***l, size_t *n, const char *dir, const char *sub) {
        _cleanup_free_ char *path = path_join(dir, sub);
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;

        if (!path)
                return -ENOMEM;
        d = opendir(path);
        if (!d)
                return 0; /* unreadable: systemd skips it too */
        for (errno = 0; (de = readdir(d)); errno = 0)
                if (gen_unit_name_kind(de->d_name) == GEN_UNIT_NAME_INSTANCE && strv_extend(l, n, de->d_name) < 0)
                        return -ENOMEM;
        return errno > 0 ? -errno : 0;
}

static int services_add_dir_entry(char ***l, size_t *n, const char *dir, const char *name) {
        static const char *const deps[] = { ".wants", ".requires", ".upholds" };
        const char *end = base_end(name, ".d");

        if (end) {
                _cleanup_free_ char *unit = strndup(name, (size_t) (end - name));

                if (!unit)
                        return -ENOMEM;
                return gen_unit_name_kind(unit) == GEN_UNIT_NAME_INSTANCE ? strv_extend(l, n, unit) : 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(deps); i++)
                if (base_end(name, deps[i]))
                        return services_add_deps(l, n, dir, name);
        return 0;
}

static int services_add(char ***l, size_t *n, const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;
        int r = 0;

        if (!d)
                return 0; /* missing or unreadable, as systemd: nothing from here */
        for (errno = 0; r == 0 && (de = readdir(d)); errno = 0) {
                if (gen_unit_name_kind(de->d_name) >= 0 && entry_is(dirfd(d), de, S_IFREG))
                        r = strv_extend(l, n, de->d_name);
                else if (entry_is(dirfd(d), de, S_IFDIR))
                        r = services_add_dir_entry(l, n, dir, de->d_name);
        }
        if (r == 0 && errno > 0)
                r = -errno;
        return r;
}

int gen_unit_paths_list_services(const GenUnitPaths *p, char ***ret) {
        char **l = NULL;
        size_t n = 0;
        int r = 0;

        for (char **d = p->dirs; r == 0 && *d; d++)
                r = services_add(&l, &n, *d);
        if (r < 0) {
                strv_free(l);
                return r;
        }
        strv_sort_uniq(l);
        return strv_return(l, ret);
}
