/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "log.h"
#include "stats.h"
#if HCBS_HAVE_BPF
#include "stats-bpf.h"
#endif

typedef struct Tracked {
        char *key; /* NULL: the slot is free */
        uint64_t cgid;
        uint64_t since_ns;
        bool seen;
} Tracked;

struct Stats {
#if HCBS_HAVE_BPF
        StatsBpf *bpf;
#endif
        char reason[512];
        Tracked slots[HCBS_STATS_MAX_GROUPS]; /* index = the collector's slot */
};

static uint64_t now_ns(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock of bpf_ktime_get_ns() */
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void choose_backend(Stats *s) {
        const char *env = getenv("HCBS_STATS_BPF");

        if (env && strcmp(env, "0") == 0) {
                snprintf(s->reason, sizeof(s->reason), "the BPF collector is disabled by HCBS_STATS_BPF=0");
                return;
        }
#if HCBS_HAVE_BPF
        if (stats_bpf_open(&s->bpf, !env || strcmp(env, "probe") != 0, s->reason, sizeof(s->reason)) >= 0)
                s->reason[0] = '\0';
#else
        snprintf(s->reason, sizeof(s->reason), "hcbsd was built without the BPF collector (meson -Dbpf=disabled)");
#endif
}

int stats_new(Stats **ret) {
        Stats *s = calloc(1, sizeof(Stats));

        if (!s)
                return -ENOMEM;
        choose_backend(s);
        *ret = s;
        return 0;
}

static void untrack(Stats *s, uint32_t slot) {
        Tracked *t = &s->slots[slot];
#if HCBS_HAVE_BPF
        int r = stats_bpf_untrack(s->bpf, t->cgid);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Cannot stop counting %s in the BPF collector, ignoring: %m", t->key);
#endif
        free(t->key);
        *t = (Tracked) {};
}

Stats *stats_free(Stats *s) {
        if (!s)
                return NULL;
        for (uint32_t i = 0; i < HCBS_STATS_MAX_GROUPS; i++)
                free(s->slots[i].key);
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
        return s->bpf ? stats_bpf_variant(s->bpf) : "";
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

void stats_sync_begin(Stats *s) {
        for (uint32_t i = 0; i < HCBS_STATS_MAX_GROUPS; i++)
                s->slots[i].seen = false;
}

static Tracked *find(Stats *s, const char *key) {
        for (uint32_t i = 0; i < HCBS_STATS_MAX_GROUPS; i++)
                if (s->slots[i].key && strcmp(s->slots[i].key, key) == 0)
                        return &s->slots[i];
        return NULL;
}

int stats_track(Stats *s, const char *key, uint64_t cgid) {
        Tracked *t = find(s, key);
        uint32_t slot;

        if (!stats_have_bpf(s))
                return 0;
        if (t && t->cgid == cgid) {
                t->seen = true;
                return 0;
        }
        if (t)
                untrack(s, (uint32_t) (t - s->slots)); /* the same name, a new cgroup */
        for (slot = 0; slot < HCBS_STATS_MAX_GROUPS && s->slots[slot].key; slot++)
                ;
        if (slot == HCBS_STATS_MAX_GROUPS)
                return -ENOSPC;
        t = &s->slots[slot];
        t->key = strdup(key);
        if (!t->key)
                return -ENOMEM;
#if HCBS_HAVE_BPF
        int r = stats_bpf_track(s->bpf, cgid, slot);
        if (r < 0) {
                free(t->key);
                *t = (Tracked) {};
                return r;
        }
#endif
        t->cgid = cgid;
        t->since_ns = now_ns();
        t->seen = true;
        return 0;
}

void stats_sync_end(Stats *s) {
        for (uint32_t i = 0; i < HCBS_STATS_MAX_GROUPS; i++)
                if (s->slots[i].key && !s->slots[i].seen)
                        untrack(s, i);
}

int stats_read(Stats *s, const char *key, StatsFigures *ret) {
        Tracked *t = stats_have_bpf(s) ? find(s, key) : NULL;
        StatsFigures f = {};

        if (!t)
                return -ENOENT;
#if HCBS_HAVE_BPF
        int r = stats_bpf_read(s->bpf, (uint32_t) (t - s->slots), &f.c);
        if (r < 0)
                return r;
#endif
        f.window_ns = now_ns() - t->since_ns;
        *ret = f;
        return 0;
}
