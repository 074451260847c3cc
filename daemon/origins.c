/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
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

static Origin *find_exact(const Origins *o, pid_t pid, uint64_t starttime) {
        for (size_t i = 0; i < o->n; i++)
                if (o->v[i].pid == pid && o->v[i].starttime == starttime)
                        return &o->v[i];
        return NULL;
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

static int append(Origins *o, pid_t pid, uint64_t starttime, const char *cgroup) {
        Origin *v;

        if (o->n >= ORIGINS_MAX)
                return -ENOSPC;
        v = reallocarray(o->v, o->n + 1, sizeof(Origin));
        if (!v)
                return -ENOMEM;
        o->v = v;
        v[o->n] = (Origin) { pid, starttime, strdup(cgroup) };
        if (!v[o->n].cgroup)
                return -ENOMEM;
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

static void drop(Origins *o, size_t i) {
        free(o->v[i].cgroup);
        o->v[i] = o->v[--o->n];
}

void origins_forget(Origins *o, pid_t pid) {
        for (size_t i = 0; i < o->n; i++)
                if (o->v[i].pid == pid) {
                        drop(o, i);
                        return;
                }
}

void origins_prune(Origins *o) {
        for (size_t i = 0; i < o->n;) {
                uint64_t starttime;
                if (proc_get_starttime(o->v[i].pid, &starttime) < 0 || starttime != o->v[i].starttime)
                        drop(o, i);
                else
                        i++;
        }
}

void origins_done(Origins *o) {
        for (size_t i = 0; i < o->n; i++)
                free(o->v[i].cgroup);
        free(o->v);
        *o = (Origins) {};
}

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
