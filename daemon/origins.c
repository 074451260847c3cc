/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "name.h"
#include "origins.h"
#include "persist.h"
#include "process.h"
#include "strutil.h"

#define ANCESTRY_MAX 64 /* parents looked through for a forked child's origin */

/* ---- the index: pid -> entry, linear probing with backward-shift deletion ---- */

static size_t home(const Origins *o, pid_t pid) {
        return ((uint32_t) pid * UINT32_C(0x9E3779B1)) & (o->index_size - 1);
}

/* The index slot of pid, or the empty slot where it would go. */
static size_t slot_of(const Origins *o, pid_t pid) {
        size_t i = home(o, pid);

        while (o->index[i] && o->v[o->index[i] - 1].pid != pid)
                i = (i + 1) & (o->index_size - 1);
        return i;
}

/* Makes room for n entries: an index of at least 2n slots, rebuilt. */
static int index_reserve(Origins *o, size_t n) {
        size_t size = o->index_size ? o->index_size : 64;
        uint32_t *index;

        if (o->index && n * 2 <= o->index_size)
                return 0;
        while (size < n * 2)
                size *= 2;
        index = calloc(size, sizeof(uint32_t));
        if (!index)
                return -ENOMEM;
        free(o->index);
        o->index = index;
        o->index_size = size;
        for (size_t i = 0; i < o->n; i++)
                o->index[slot_of(o, o->v[i].pid)] = (uint32_t) (i + 1);
        return 0;
}

static void index_remove(Origins *o, size_t i) {
        size_t mask = o->index_size - 1, j = i;

        for (;;) {
                j = (j + 1) & mask;
                if (!o->index[j])
                        break;
                size_t h = home(o, o->v[o->index[j] - 1].pid);
                if (((j - h) & mask) >= ((j - i) & mask)) {
                        o->index[i] = o->index[j];
                        i = j;
                }
        }
        o->index[i] = 0;
}

static Origin *find(const Origins *o, pid_t pid) {
        size_t i;

        if (!o->index)
                return NULL;
        i = slot_of(o, pid);
        return o->index[i] ? &o->v[o->index[i] - 1] : NULL;
}

static Origin *find_exact(const Origins *o, pid_t pid, uint64_t starttime) {
        Origin *e = find(o, pid);
        return e && e->starttime == starttime ? e : NULL;
}

const char *origins_lookup(const Origins *o, pid_t pid) {
        for (unsigned depth = 0; pid > 1 && depth < ANCESTRY_MAX; depth++) {
                uint64_t starttime;
                const Origin *e;

                if (proc_get_starttime(pid, &starttime) < 0)
                        return NULL;
                e = find_exact(o, pid, starttime);
                if (e)
                        return e->cgroup;
                if (proc_get_ppid(pid, &pid) < 0)
                        return NULL;
        }
        return NULL;
}

static void drop(Origins *o, size_t i) {
        free(o->v[i].cgroup);
        index_remove(o, slot_of(o, o->v[i].pid));
        o->v[i] = o->v[--o->n];
        if (i < o->n) /* the last entry moved to i */
                o->index[slot_of(o, o->v[i].pid)] = (uint32_t) (i + 1);
}

static int append(Origins *o, pid_t pid, uint64_t starttime, const char *cgroup) {
        Origin *v, *e = find(o, pid);
        char *copy;
        int r;

        if (e) { /* an earlier process with this pid, or a duplicate line: the last one holds */
                copy = strdup(cgroup);
                if (!copy)
                        return -ENOMEM;
                free(e->cgroup);
                *e = (Origin) { pid, starttime, copy };
                return 0;
        }
        if (o->n >= ORIGINS_MAX)
                origins_prune(o); /* full: the dead go first */
        if (o->n >= ORIGINS_MAX)
                return -ENOSPC;
        r = index_reserve(o, o->n + 1);
        if (r < 0)
                return r;
        v = reallocarray(o->v, o->n + 1, sizeof(Origin));
        if (!v)
                return -ENOMEM;
        o->v = v;
        v[o->n] = (Origin) { pid, starttime, strdup(cgroup) };
        if (!v[o->n].cgroup)
                return -ENOMEM;
        o->index[slot_of(o, pid)] = (uint32_t) (o->n + 1);
        o->n++;
        return 0;
}

int origins_record(Origins *o, pid_t pid, const char *cgroup) {
        uint64_t starttime;
        int r = proc_get_starttime(pid, &starttime);

        if (r < 0)
                return r;
        if (find_exact(o, pid, starttime))
                return 0;
        if (!hcbs_cgroup_path_is_valid(cgroup))
                return -EINVAL; /* a name with a newline: it could not be saved as one line */
        return append(o, pid, starttime, cgroup);
}

void origins_forget(Origins *o, pid_t pid) {
        Origin *e = find(o, pid);

        if (e)
                drop(o, (size_t) (e - o->v));
}

/* Drops entry i if its process exited; whether it did. */
static bool prune_one(Origins *o, size_t i) {
        uint64_t starttime;

        if (proc_get_starttime(o->v[i].pid, &starttime) >= 0 && starttime == o->v[i].starttime)
                return false;
        drop(o, i);
        return true;
}

void origins_prune(Origins *o) {
        for (size_t i = 0; i < o->n;)
                if (!prune_one(o, i))
                        i++;
        o->prune_next = 0;
}

void origins_prune_some(Origins *o, size_t n) {
        for (size_t k = 0; k < n && o->n > 0; k++) {
                if (o->prune_next >= o->n)
                        o->prune_next = 0;
                if (!prune_one(o, o->prune_next)) /* else the last entry moved in: look at it next */
                        o->prune_next++;
        }
}

void origins_done(Origins *o) {
        for (size_t i = 0; i < o->n; i++)
                free(o->v[i].cgroup);
        free(o->v);
        free(o->index);
        *o = (Origins) {};
}

/*
 * The whole table, rewritten after each Attach or Detach that changed it:
 * O(recorded processes) a call, a temporary file renamed into place. Kept
 * so because the file must be whole after a crash at any point and the
 * table is small beside a call's own work in practice (one line a process
 * hcbsd moved that is still alive, pruned as calls come); an append-only
 * log with compaction would make it O(changed) at the price of a second
 * format to read at start.
 */
int origins_save(const Origins *o, const char *dir) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", ORIGINS_HEADER);
        for (size_t i = 0; i < o->n; i++)
                fprintf(f, "%d %" PRIu64 " %s\n", (int) o->v[i].pid, o->v[i].starttime, o->v[i].cgroup);
        if (fclose(f) != 0)
                return -ENOMEM;
        return persist_replace(dir, ORIGINS_FILE, buf, len);
}

/* "PID STARTTIME CGROUP": the cgroup is the rest of the line, "" for the root. */
static int parse_line(void *userdata, char *s, char *why, size_t whylen) {
        Origins *o = userdata;
        char *end;
        unsigned long pid;
        unsigned long long starttime;
        int r;

        errno = 0;
        pid = strtoul(s, &end, 10);
        if (errno || end == s || *end != ' ' || pid == 0 || pid > INT32_MAX || s[0] < '0' || s[0] > '9')
                return hcbs_err(why, whylen, -EBADMSG, "expected \"PID STARTTIME CGROUP\"");
        s = end + 1;
        starttime = strtoull(s, &end, 10);
        if (errno || end == s || *end != ' ' || s[0] < '0' || s[0] > '9')
                return hcbs_err(why, whylen, -EBADMSG, "expected \"PID STARTTIME CGROUP\"");
        if (!hcbs_cgroup_path_is_valid(end + 1))
                return hcbs_err(why, whylen, -EBADMSG, "'%.64s' is not a cgroup path", end + 1);
        r = append(o, (pid_t) pid, starttime, end + 1);
        if (r == -ENOSPC)
                return hcbs_err(why, whylen, r, "more than %d processes", ORIGINS_MAX);
        return r < 0 ? hcbs_err(why, whylen, r, "out of memory") : 0;
}

int origins_load(Origins *o, const char *dir, char *err, size_t errlen) {
        char why[HCBS_ERRLEN];
        int r, k;

        origins_done(o);
        r = persist_read_lines(dir, ORIGINS_FILE, ORIGINS_HEADER, 0, parse_line, o, why, sizeof(why));
        if (r == -EBADMSG) {
                origins_done(o);
                k = persist_set_aside(dir, ORIGINS_FILE);
                if (k < 0)
                        return hcbs_err(err, errlen, k, "%s; cannot keep it aside: %s", why, strerror(-k));
                return hcbs_err(err, errlen, r, "%s; kept as " ORIGINS_FILE PERSIST_CORRUPT_SUFFIX, why);
        }
        if (r < 0)
                return hcbs_err(err, errlen, r, "%s", why);
        origins_prune(o);
        return 0;
}
