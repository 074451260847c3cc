/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hcbs-stats.skel.h"
#include "log.h"
#include "macro.h"
#include "stats-bpf.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

struct StatsBpf {
        struct hcbs_stats *skel;
        int groups_fd, hists_fd, switch_fd, observed_fd;
        struct ring_buffer *jobs;  /* the reader of the jobs ring buffer, made at the first observation */
        StatsBpfJobFn job_fn;
        void *job_userdata;
        __u64 *member_bits;      /* the collector's .bss, mmapped: HCBS_FILTER_WORDS words */
        uint32_t *bit_refs;      /* how many counted ids map to each bit of member_bits */
        uint32_t capacity;
        unsigned features;
        unsigned ncpus;
        void *value;             /* a value of `groups`: ncpus * HCBS_STATS_CPU_STRIDE bytes */
        struct hcbs_hist *hist;
        bool untracked;          /* an id has left `groups` since load: its histogram may linger */
};

/* libbpf's own messages (the verifier's log among them) at debug level: the caller logs the reason. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap) {
        char buf[1024];
        size_t len;

        if (level == LIBBPF_DEBUG && log_get_max_level() < LOG_DEBUG)
                return 0;
        vsnprintf(buf, sizeof(buf), fmt, ap);
        len = strlen(buf);
        if (len && buf[len - 1] == '\n')
                buf[len - 1] = '\0';
        log_debug("libbpf: %s", buf);
        return 0;
}

StatsBpf *stats_bpf_free(StatsBpf *b) {
        if (!b)
                return NULL;
        ring_buffer__free(b->jobs);
        hcbs_stats__destroy(b->skel);
        free(b->value);
        free(b->hist);
        free(b->bit_refs);
        free(b);
        return NULL;
}

static int fail(int r, char *why, size_t whylen, const char *what) {
        const char *hint = "";

        if (r == -EPERM || r == -EACCES)
                hint = " (hcbsd needs CAP_BPF and CAP_PERFMON, or root)";
        snprintf(why, whylen, "%s: %s%s", what, strerror(-r), hint);
        return r;
}

/* Opens the collector, sizes its group maps for capacity cgroups, loads and attaches it; *what names the failed step. */
static int load(StatsBpf *b, uint32_t capacity, const char **what) {
        LIBBPF_OPTS(bpf_test_run_opts, run);
        int r;

        *what = "cannot open the BPF collector";
        b->skel = hcbs_stats__open();
        if (!b->skel)
                return -errno;
        b->skel->rodata->ncpus = b->ncpus;
        r = bpf_map__set_max_entries(b->skel->maps.groups, capacity);
        if (r >= 0)
                r = bpf_map__set_value_size(b->skel->maps.groups, b->ncpus * HCBS_STATS_CPU_STRIDE);
        if (r >= 0)
                r = bpf_map__set_max_entries(b->skel->maps.hists, capacity);
        if (r < 0)
                return r;
        *what = "the kernel refused the BPF collector (--log-level=debug shows libbpf's log)";
        r = hcbs_stats__load(b->skel);
        if (r < 0)
                return r;
        *what = "cannot attach the BPF collector to the sched tracepoints";
        r = hcbs_stats__attach(b->skel);
        if (r < 0)
                return r;
        /* what this kernel offers: a program of the collector's, run once */
        *what = "cannot run the BPF collector's feature probe";
        if (bpf_prog_test_run_opts(bpf_program__fd(b->skel->progs.hcbs_features), &run) < 0)
                return -errno;
        b->features = b->skel->bss->features;
        if (!(b->features & HCBS_FEATURE_LOADED))
                return -EIO;
        b->groups_fd = bpf_map__fd(b->skel->maps.groups);
        b->hists_fd = bpf_map__fd(b->skel->maps.hists);
        b->observed_fd = bpf_map__fd(b->skel->maps.observed);
        b->switch_fd = bpf_program__fd(b->skel->progs.hcbs_switch);
        b->member_bits = b->skel->bss->member_bits;
        return 0;
}

int stats_bpf_open(StatsBpf **ret, uint32_t capacity, char *why, size_t whylen) {
        const char *what = NULL;
        StatsBpf *b;
        int r;

        if (access(KERNEL_BTF, R_OK) < 0)
                return fail(-errno, why, whylen, "no kernel BTF for CO-RE at " KERNEL_BTF);
        if (libbpf_major_version() < 1)
                return fail(-EOPNOTSUPP, why, whylen, "libbpf older than 1.0");
        if (capacity == 0)
                return fail(-EINVAL, why, whylen, "no capacity for counted groups");
        capacity = MIN(capacity, HCBS_STATS_MAP_MAX);
        libbpf_set_print(libbpf_print);
        b = calloc(1, sizeof(StatsBpf));
        if (!b)
                return -ENOMEM;
        r = libbpf_num_possible_cpus();
        if (r <= 0) {
                stats_bpf_free(b);
                return fail(r < 0 ? r : -EINVAL, why, whylen, "cannot count the possible CPUs");
        }
        b->ncpus = (unsigned) r;
        b->capacity = capacity;
        b->value = calloc(b->ncpus, HCBS_STATS_CPU_STRIDE);
        b->hist = calloc(1, sizeof(struct hcbs_hist));
        b->bit_refs = calloc(HCBS_FILTER_BITS, sizeof(uint32_t));
        if (!b->value || !b->hist || !b->bit_refs) {
                stats_bpf_free(b);
                return -ENOMEM;
        }
        r = load(b, capacity, &what);
        if (r < 0) {
                stats_bpf_free(b);
                return fail(r, why, whylen, what);
        }
        *ret = b;
        return 0;
}

unsigned stats_bpf_features(const StatsBpf *b) {
        return b->features;
}

unsigned stats_bpf_ncpus(const StatsBpf *b) {
        return b->ncpus;
}

uint32_t stats_bpf_slots(const StatsBpf *b) {
        return b->capacity;
}

static void bit_ref(StatsBpf *b, uint64_t cgid, bool add) {
        uint32_t bit = (uint32_t) (cgid % HCBS_FILTER_BITS);
        __u64 *word = &b->member_bits[bit / 64], mask = 1ULL << (bit % 64);

        /* a plain store: the collector reads it with a plain load; a stale bit only costs a lookup */
        if (add && b->bit_refs[bit]++ == 0)
                __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
        else if (!add && b->bit_refs[bit] > 0 && --b->bit_refs[bit] == 0)
                __atomic_fetch_and(word, ~mask, __ATOMIC_RELAXED);
}

/* One CPU's counters in b->value. */
static const struct hcbs_counters *cpu_counters(const StatsBpf *b, unsigned cpu) {
        return (const struct hcbs_counters *) ((const char *) b->value + (size_t) cpu * HCBS_STATS_CPU_STRIDE);
}

int stats_bpf_track(StatsBpf *b, uint64_t cgid) {
        int r;

        memset(b->value, 0, (size_t) b->ncpus * HCBS_STATS_CPU_STRIDE);
        /* one allocation (the hash's element), which the kernel refills per CPU in the background:
         * a long run of inserts can find its cache empty for a moment */
        for (unsigned i = 0;; i++) {
                r = bpf_map_update_elem(b->groups_fd, &cgid, b->value, BPF_NOEXIST) < 0 ? -errno : 0;
                if (r != -ENOMEM || i == 100)
                        break;
                sched_yield();
        }
        if (r == -EEXIST) /* counted already: from zero again */
                r = bpf_map_update_elem(b->groups_fd, &cgid, b->value, BPF_EXIST) < 0 ? -errno : 1;
        if (r < 0)
                return r;
        /*
         * The collector makes a group's histogram at its first wakeup, so the
         * histogram of an id counted before may linger after its untrack (a
         * program past its `groups` look-up). Until an id has left, none can
         * exist for a new one: adopting 10,000 groups saves 10,000 syscalls.
         */
        if (r == 1 || b->untracked)
                (void) bpf_map_delete_elem(b->hists_fd, &cgid);
        if (r == 0)
                bit_ref(b, cgid, true);
        return 0;
}

int stats_bpf_untrack(StatsBpf *b, uint64_t cgid) {
        if (bpf_map_delete_elem(b->groups_fd, &cgid) < 0)
                return -errno;
        b->untracked = true;
        (void) bpf_map_delete_elem(b->hists_fd, &cgid);
        bit_ref(b, cgid, false);
        return 0;
}

int stats_bpf_read(StatsBpf *b, uint64_t cgid, struct hcbs_slot *ret, struct hcbs_server_cpu *per_cpu) {
        struct hcbs_slot sum = {};

        if (bpf_map_lookup_elem(b->groups_fd, &cgid, b->value) < 0)
                return -errno;
        for (unsigned c = 0; c < b->ncpus; c++) {
                const struct hcbs_counters *s = cpu_counters(b, c);
                sum.rt_time_ns += s->rt_time_ns;
                sum.cpu_time_ns += s->cpu_time_ns;
                sum.wakeups += s->wakeups;
                sum.preemptions += s->preemptions;
                sum.wait_ns += s->wait_ns;
                sum.latency_sum_ns += s->latency_sum_ns;
                sum.task_drops += s->task_drops;
                sum.latency_max_ns = MAX(sum.latency_max_ns, s->latency_max_ns);
                sum.exhaustions += s->exhaustions;
                sum.throttled_ns += s->throttled_ns;
                sum.replenishments += s->replenishments;
                if (per_cpu)
                        per_cpu[c] = (struct hcbs_server_cpu) {
                                .exhaustions = s->exhaustions,
                                .throttled_ns = s->throttled_ns,
                                .replenishments = s->replenishments,
                        };
        }
        if (bpf_map_lookup_elem(b->hists_fd, &cgid, b->hist) >= 0)
                memcpy(sum.latency, b->hist->latency, sizeof(sum.latency));
        else if (errno != ENOENT) /* ENOENT: no wakeup yet, no histogram */
                return -errno;
        *ret = sum;
        return 0;
}

static int job_sample(void *ctx, void *data, size_t size) {
        StatsBpf *b = ctx;

        if (size >= sizeof(struct hcbs_job))
                b->job_fn(data, b->job_userdata);
        return 0;
}

int stats_bpf_jobs_open(StatsBpf *b, StatsBpfJobFn fn, void *userdata, int *ret_fd) {
        if (!b->jobs) {
                b->jobs = ring_buffer__new(bpf_map__fd(b->skel->maps.jobs), job_sample, b, NULL);
                if (!b->jobs)
                        return -errno;
        }
        b->job_fn = fn;
        b->job_userdata = userdata;
        *ret_fd = ring_buffer__epoll_fd(b->jobs);
        return 0;
}

int stats_bpf_jobs_consume(StatsBpf *b) {
        int r = b->jobs ? ring_buffer__consume(b->jobs) : 0;
        return r < 0 ? r : 0;
}

uint64_t stats_bpf_jobs_lost(const StatsBpf *b) {
        return __atomic_load_n(&b->skel->bss->jobs_lost, __ATOMIC_RELAXED);
}

int stats_bpf_observe(StatsBpf *b, uint64_t cgid, unsigned id, uint64_t duration_ns) {
        struct timespec ts;
        struct hcbs_observation o = { .half_ns = duration_ns / 2, .id = id };

        (void) clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock */
        o.start_ns = (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
        if (bpf_map_update_elem(b->observed_fd, &cgid, &o, BPF_NOEXIST) < 0)
                return -errno;
        __atomic_fetch_add(&b->skel->bss->n_observed, 1, __ATOMIC_RELAXED);
        bit_ref(b, cgid, true);
        return 0;
}

int stats_bpf_unobserve(StatsBpf *b, uint64_t cgid) {
        if (bpf_map_delete_elem(b->observed_fd, &cgid) < 0)
                return -errno;
        __atomic_fetch_sub(&b->skel->bss->n_observed, 1, __ATOMIC_RELAXED);
        bit_ref(b, cgid, false);
        return 0;
}

int stats_bpf_switch_fd(StatsBpf *b) {
        return b->switch_fd;
}
