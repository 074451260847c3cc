/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "hashmap.h"
#include "log.h"
#include "stats.h"
#if HCBS_HAVE_BPF
#include "stats-bpf.h"
#endif

/* A counted cgroup: its entry in the table, and its slot in the collector's maps. */
typedef struct Tracked {
        char *key;
        uint64_t cgid;
        uint64_t since_ns;
        uint32_t slot;
} Tracked;

struct Stats {
#if HCBS_HAVE_BPF
        StatsBpf *bpf;
#endif
        bool table;         /* keep the tracking table: with the collector, or HCBS_STATS_BPF=table */
        char reason[512];
        uint32_t capacity;  /* slots 0..capacity-1 */
        Hashmap *tracked;   /* key -> Tracked */
        uint32_t next_slot; /* slots from here on were never used */
        uint32_t *free;     /* slots given back, a stack: reused before new ones */
        uint32_t n_free, free_size;
};

static uint64_t now_ns(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of bpf_ktime_get_ns() */
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void choose_backend(Stats *s) {
        const char *env = getenv("HCBS_STATS_BPF");

        if (env && (strcmp(env, "0") == 0 || strcmp(env, "table") == 0)) {
                snprintf(s->reason, sizeof(s->reason), "the BPF collector is disabled by HCBS_STATS_BPF=%s", env);
                s->table = strcmp(env, "table") == 0;
                return;
        }
#if HCBS_HAVE_BPF
        if (stats_bpf_open(&s->bpf, s->capacity, s->reason, sizeof(s->reason)) >= 0) {
                s->reason[0] = '\0';
                s->table = true;
                s->capacity = MIN(s->capacity, stats_bpf_slots(s->bpf));
        }
#else
        snprintf(s->reason, sizeof(s->reason), "hcbsd was built without the BPF collector (meson -Dbpf=disabled)");
#endif
}

int stats_new(Stats **ret, uint32_t capacity) {
        Stats *s = calloc(1, sizeof(Stats));

        if (!s)
                return -ENOMEM;
        s->capacity = capacity;
        choose_backend(s);
        if (!s->table)
                s->capacity = 0; /* nothing is counted */
        if (s->table && hashmap_new(&s->tracked) < 0) {
                stats_free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

static void tracked_free(Tracked *t) {
        free(t->key);
        free(t);
}

/* Stops counting t (the collector forgets its cgroup id) and gives its slot back. */
static void untrack(Stats *s, Tracked *t) {
#if HCBS_HAVE_BPF
        int r = s->bpf ? stats_bpf_untrack(s->bpf, t->cgid) : 0;
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Cannot stop counting %s in the BPF collector, ignoring: %m", t->key);
#endif
        (void) hashmap_remove(s->tracked, t->key);
        s->free[s->n_free++] = t->slot; /* never full: it had room for t's slot when t was tracked */
        tracked_free(t);
}

Stats *stats_free(Stats *s) {
        Tracked *t;

        if (!s)
                return NULL;
        /* the collector goes as a whole: no map entry to delete one by one */
        for (size_t i = 0; s->tracked && hashmap_iterate(s->tracked, &i, NULL, (void **) &t);)
                tracked_free(t);
        hashmap_free(s->tracked);
        free(s->free);
#if HCBS_HAVE_BPF
        stats_bpf_free(s->bpf);
#endif
        free(s);
        return NULL;
}

bool stats_have_bpf(const Stats *s) {
#if HCBS_HAVE_BPF
        return s->bpf != NULL;
#else
        return false;
#endif
}

const char *stats_bpf_how(const Stats *s) {
#if HCBS_HAVE_BPF
        if (!s->bpf)
                return "";
        return stats_bpf_features(s->bpf) & HCBS_FEATURE_SERVERS ? "budget exhaustion from the per-CPU deadline servers"
                                                                  : "budget exhaustion: " HCBS_STATS_NO_SERVERS;
#else
        return "";
#endif
}

const char *stats_backend(const Stats *s) {
        return stats_have_bpf(s) ? "bpf" : "cgroupfs";
}

const char *stats_backend_reason(const Stats *s) {
        return s->reason;
}

uint32_t stats_capacity(const Stats *s) {
        return s->capacity;
}

size_t stats_tracked(const Stats *s) {
        return s->tracked ? hashmap_size(s->tracked) : 0;
}

/* A free slot: one given back, else the next never used; -ENOSPC when all are taken. */
static int take_slot(Stats *s, uint32_t *ret) {
        if (s->n_free > 0) {
                *ret = s->free[--s->n_free];
                return 0;
        }
        if (s->next_slot >= s->capacity)
                return -ENOSPC;
        /* room to give every slot used so far back, so that untrack() never allocates */
        if (s->free_size <= s->next_slot) {
                uint32_t size = MAX(64u, s->free_size * 2);
                uint32_t *v = reallocarray(s->free, size, sizeof(uint32_t));
                if (!v)
                        return -ENOMEM;
                s->free = v;
                s->free_size = size;
        }
        *ret = s->next_slot++;
        return 0;
}

int stats_track(Stats *s, const char *key, uint64_t cgid) {
        Tracked *t = s->table ? hashmap_get(s->tracked, key) : NULL;
        int r;

        if (!s->table)
                return 0;
        if (t && t->cgid == cgid)
                return 0;
        if (t)
                untrack(s, t); /* the same name, a new cgroup */
        t = calloc(1, sizeof(Tracked));
        if (!t || !(t->key = strdup(key))) {
                free(t);
                return -ENOMEM;
        }
        r = take_slot(s, &t->slot);
        if (r < 0) {
                tracked_free(t);
                return r;
        }
#if HCBS_HAVE_BPF
        r = s->bpf ? stats_bpf_track(s->bpf, cgid) : 0;
#endif
        if (r >= 0)
                r = hashmap_put(s->tracked, t->key, t);
        if (r < 0) {
#if HCBS_HAVE_BPF
                if (s->bpf)
                        (void) stats_bpf_untrack(s->bpf, cgid);
#endif
                s->free[s->n_free++] = t->slot;
                tracked_free(t);
                return r;
        }
        t->cgid = cgid;
        t->since_ns = now_ns();
        return 0;
}

int stats_untrack(Stats *s, const char *key) {
        Tracked *t = s->table ? hashmap_get(s->tracked, key) : NULL;

        if (!t)
                return -ENOENT;
        untrack(s, t);
        return 0;
}

int stats_read(Stats *s, const char *key, StatsFigures *ret) {
        Tracked *t = stats_have_bpf(s) ? hashmap_get(s->tracked, key) : NULL;
        StatsFigures f = {};

        if (!t)
                return -ENOENT;
#if HCBS_HAVE_BPF
        int r = stats_bpf_read(s->bpf, t->cgid, &f.c, NULL);
        if (r < 0)
                return r;
#endif
        f.window_ns = now_ns() - t->since_ns;
        *ret = f;
        return 0;
}

unsigned stats_features(const Stats *s) {
#if HCBS_HAVE_BPF
        return s->bpf ? stats_bpf_features(s->bpf) : 0;
#else
        return 0;
#endif
}

unsigned stats_ncpus(const Stats *s) {
#if HCBS_HAVE_BPF
        return s->bpf ? stats_bpf_ncpus(s->bpf) : 0;
#else
        return 0;
#endif
}

int stats_read_servers(Stats *s, const char *key, struct hcbs_server_cpu *per_cpu) {
        Tracked *t = stats_have_bpf(s) ? hashmap_get(s->tracked, key) : NULL;

        if (!t)
                return -ENOENT;
#if HCBS_HAVE_BPF
        struct hcbs_slot sum;
        return stats_bpf_read(s->bpf, t->cgid, &sum, per_cpu);
#else
        return -ENOENT;
#endif
}

int stats_jobs_open(Stats *s, StatsJobsFn fn, void *userdata, int *ret_fd) {
#if HCBS_HAVE_BPF
        if (s->bpf)
                return stats_bpf_jobs_open(s->bpf, fn, userdata, ret_fd);
#endif
        return -EOPNOTSUPP;
}

int stats_jobs_consume(Stats *s) {
#if HCBS_HAVE_BPF
        if (s->bpf)
                return stats_bpf_jobs_consume(s->bpf);
#endif
        return -EOPNOTSUPP;
}

uint64_t stats_jobs_lost(const Stats *s) {
#if HCBS_HAVE_BPF
        if (s->bpf)
                return stats_bpf_jobs_lost(s->bpf);
#endif
        return 0;
}

int stats_observe(Stats *s, uint64_t cgid, unsigned id, uint64_t duration_ns) {
#if HCBS_HAVE_BPF
        if (s->bpf)
                return stats_bpf_observe(s->bpf, cgid, id, duration_ns);
#endif
        return -EOPNOTSUPP;
}

int stats_unobserve(Stats *s, uint64_t cgid) {
#if HCBS_HAVE_BPF
        if (s->bpf)
                return stats_bpf_unobserve(s->bpf, cgid);
#endif
        return -EOPNOTSUPP;
}
