/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        int ncpus;
        struct hcbs_slot *percpu; /* ncpus values, for reads and zeroing */
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
        hcbs_stats__destroy(b->skel);
        free(b->percpu);
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

int stats_bpf_open(StatsBpf **ret, char *why, size_t whylen) {
        StatsBpf *b;
        int r;

        if (access(KERNEL_BTF, R_OK) < 0)
                return fail(-errno, why, whylen, "no kernel BTF for CO-RE at " KERNEL_BTF);
        if (libbpf_major_version() < 1)
                return fail(-EOPNOTSUPP, why, whylen, "libbpf older than 1.0");
        libbpf_set_print(libbpf_print);
        b = calloc(1, sizeof(StatsBpf));
        if (!b)
                return -ENOMEM;
        r = libbpf_num_possible_cpus();
        if (r <= 0) {
                stats_bpf_free(b);
                return fail(r < 0 ? r : -EINVAL, why, whylen, "cannot count the possible CPUs");
        }
        b->ncpus = r;
        b->percpu = calloc((size_t) b->ncpus, sizeof(struct hcbs_slot));
        if (!b->percpu) {
                stats_bpf_free(b);
                return -ENOMEM;
        }
        b->skel = hcbs_stats__open();
        if (!b->skel) {
                r = -errno;
                stats_bpf_free(b);
                return fail(r, why, whylen, "cannot open the BPF collector");
        }
        r = hcbs_stats__load(b->skel);
        if (r < 0) {
                stats_bpf_free(b);
                return fail(r, why, whylen, "the kernel refused the BPF collector (--log-level=debug shows libbpf's log)");
        }
        r = hcbs_stats__attach(b->skel);
        if (r < 0) {
                stats_bpf_free(b);
                return fail(r, why, whylen, "cannot attach the BPF collector to the sched tracepoints");
        }
        *ret = b;
        return 0;
}

int stats_bpf_track(StatsBpf *b, uint64_t cgid, uint32_t slot) {
        if (slot >= HCBS_STATS_MAX_GROUPS)
                return -ERANGE;
        memset(b->percpu, 0, (size_t) b->ncpus * sizeof(struct hcbs_slot));
        if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.slots), &slot, b->percpu, BPF_ANY) < 0)
                return -errno;
        if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.groups), &cgid, &slot, BPF_ANY) < 0)
                return -errno;
        return 0;
}

int stats_bpf_untrack(StatsBpf *b, uint64_t cgid) {
        if (bpf_map_delete_elem(bpf_map__fd(b->skel->maps.groups), &cgid) < 0)
                return -errno;
        return 0;
}

int stats_bpf_read(StatsBpf *b, uint32_t slot, struct hcbs_slot *ret) {
        struct hcbs_slot sum = {};

        if (slot >= HCBS_STATS_MAX_GROUPS)
                return -ERANGE;
        if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.slots), &slot, b->percpu) < 0)
                return -errno;
        for (int c = 0; c < b->ncpus; c++) {
                const struct hcbs_slot *s = &b->percpu[c];
                sum.rt_time_ns += s->rt_time_ns;
                sum.cpu_time_ns += s->cpu_time_ns;
                sum.wakeups += s->wakeups;
                sum.preemptions += s->preemptions;
                sum.wait_ns += s->wait_ns;
                sum.latency_sum_ns += s->latency_sum_ns;
                sum.task_drops += s->task_drops;
                sum.latency_max_ns = MAX(sum.latency_max_ns, s->latency_max_ns);
                for (unsigned i = 0; i < LOGHIST_BUCKETS; i++)
                        sum.latency[i] += s->latency[i];
        }
        *ret = sum;
        return 0;
}

int stats_bpf_switch_fd(StatsBpf *b) {
        return bpf_program__fd(b->skel->progs.hcbs_switch);
}
