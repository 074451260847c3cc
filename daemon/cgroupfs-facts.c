/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Many groups' facts read at once (cgroupfs_read_facts(), cgroupfs.h):
 * start-up's reads, on the CPUs the machine has. It calls only cgroupfs.h's
 * readers, so the unit tests' in-memory kernel serves it too.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgroupfs.h"

static void read_facts(CgroupFs *fs, const char *path, bool with_cpus, CgroupFsFacts *f) {
        int r = cgroupfs_read_rt(fs, path, &f->period_us, &f->runtime_us);

        if (r >= 0 && with_cpus)
                r = cgroupfs_read_cpus(fs, path, &f->cpus);
        if (r >= 0)
                r = cgroupfs_read_procs(fs, path, &f->pids, &f->n_pids);
        if (r >= 0)
                r = cgroupfs_stat(fs, path, &f->id, &f->has_children);
        f->error = r < 0 ? r : 0;
}

typedef struct FactsJob {
        CgroupFs *fs;
        const char *const *paths;
        CgroupFsFacts *out;
        size_t n;
        bool with_cpus;
        atomic_size_t next; /* the next group to read: each reader takes one at a time */
} FactsJob;

static void *facts_reader(void *userdata) {
        FactsJob *j = userdata;

        for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;)
                read_facts(j->fs, j->paths[i], j->with_cpus, &j->out[i]);
        return NULL;
}

/* Groups per reader below which another thread costs more than it saves. */
#define FACTS_PER_READER 128

void cgroupfs_read_facts(CgroupFs *fs, const char *const *paths, size_t n, bool with_cpus, CgroupFsFacts *out) {
        FactsJob job = { .fs = fs, .paths = paths, .out = out, .n = n, .with_cpus = with_cpus };
        pthread_t threads[CGROUPFS_READERS - 1];
        size_t want = MIN(n / FACTS_PER_READER, (size_t) CGROUPFS_READERS), started = 0;
        pthread_attr_t attr;
        sigset_t all, saved;

        for (size_t i = 0; i < n; i++)
                out[i] = (CgroupFsFacts) {};
        if (want > 1) { /* glibc reads /sys for the CPUs: not for one group (a unit's, a container's) */
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                want = MIN(want, (size_t) (cpus > 0 ? cpus : 1));
        }
        /* a thread that cannot start leaves its share to the others: the same work, done by fewer */
        if (want > 1 && pthread_attr_init(&attr) == 0) {
                (void) pthread_attr_setstacksize(&attr, 256 * 1024); /* two paths and a 4 KiB buffer */
                (void) sigfillset(&all);
                (void) pthread_sigmask(SIG_SETMASK, &all, &saved); /* the readers take no signal */
                while (started < want - 1 && pthread_create(&threads[started], &attr, facts_reader, &job) == 0)
                        started++;
                (void) pthread_sigmask(SIG_SETMASK, &saved, NULL);
                (void) pthread_attr_destroy(&attr);
        }
        (void) facts_reader(&job);
        for (size_t i = 0; i < started; i++)
                (void) pthread_join(threads[i], NULL);
}

void cgroupfs_facts_done(CgroupFsFacts *facts, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(facts[i].pids);
                facts[i].pids = NULL;
        }
}
