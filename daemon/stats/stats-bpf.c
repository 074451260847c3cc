/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hcbs-stats-direct.skel.h"
#include "hcbs-stats.skel.h"
#include "log.h"
#include "macro.h"
#include "stats-bpf.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

/* Either skeleton (hcbs-stats.bpf.c built twice): the same maps and programs. */
struct StatsBpf {
        struct hcbs_stats *probe;
        struct hcbs_stats_direct *direct;
        int slots_fd, groups_fd, switch_fd;
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
        hcbs_stats_direct__destroy(b->direct);
        hcbs_stats__destroy(b->probe);
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

/* Opens, loads and attaches skeleton type T into *ret; "what" names the step that failed. */
#define LOAD_SKEL(T, ret, what)                                          \
        ({                                                               \
                struct T *_s = T##__open();                              \
                int _r = _s ? 0 : -errno;                                \
                *(what) = "cannot open the BPF collector";               \
                if (_r >= 0) {                                           \
                        _r = T##__load(_s);                              \
                        *(what) = "the kernel refused the BPF collector (--log-level=debug shows libbpf's log)"; \
                }                                                        \
                if (_r >= 0) {                                           \
                        _r = T##__attach(_s);                            \
                        *(what) = "cannot attach the BPF collector to the sched tracepoints"; \
                }                                                        \
                if (_r < 0)                                              \
                        T##__destroy(_s);                                \
                else                                                     \
                        *(ret) = _s;                                     \
                _r;                                                      \
        })

int stats_bpf_open(StatsBpf **ret, bool direct, char *why, size_t whylen) {
        const char *what = NULL;
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
        r = direct ? LOAD_SKEL(hcbs_stats_direct, &b->direct, &what) : -EOPNOTSUPP;
        if (r >= 0) {
                b->slots_fd = bpf_map__fd(b->direct->maps.slots);
                b->groups_fd = bpf_map__fd(b->direct->maps.groups);
                b->switch_fd = bpf_program__fd(b->direct->progs.hcbs_switch);
        } else {
                if (direct)
                        log_debug_errno(r, "The direct-load collector does not load (%s: %m), "
                                        "trying bpf_probe_read_kernel()", what);
                r = LOAD_SKEL(hcbs_stats, &b->probe, &what);
                if (r < 0) {
                        stats_bpf_free(b);
                        return fail(r, why, whylen, what);
                }
                b->slots_fd = bpf_map__fd(b->probe->maps.slots);
                b->groups_fd = bpf_map__fd(b->probe->maps.groups);
                b->switch_fd = bpf_program__fd(b->probe->progs.hcbs_switch);
        }
        *ret = b;
        return 0;
}

const char *stats_bpf_variant(const StatsBpf *b) {
        return b->direct ? "direct loads" : "bpf_probe_read_kernel";
}

uint32_t stats_bpf_slots(const StatsBpf *b) {
        return bpf_map__max_entries(b->direct ? b->direct->maps.slots : b->probe->maps.slots);
}

int stats_bpf_track(StatsBpf *b, uint64_t cgid, uint32_t slot) {
        if (slot >= HCBS_STATS_MAX_GROUPS)
                return -ERANGE;
        memset(b->percpu, 0, (size_t) b->ncpus * sizeof(struct hcbs_slot));
        if (bpf_map_update_elem(b->slots_fd, &slot, b->percpu, BPF_ANY) < 0)
                return -errno;
        if (bpf_map_update_elem(b->groups_fd, &cgid, &slot, BPF_ANY) < 0)
                return -errno;
        return 0;
}

int stats_bpf_untrack(StatsBpf *b, uint64_t cgid) {
        if (bpf_map_delete_elem(b->groups_fd, &cgid) < 0)
                return -errno;
        return 0;
}

int stats_bpf_read(StatsBpf *b, uint32_t slot, struct hcbs_slot *ret) {
        struct hcbs_slot sum = {};

        if (slot >= HCBS_STATS_MAX_GROUPS)
                return -ERANGE;
        if (bpf_map_lookup_elem(b->slots_fd, &slot, b->percpu) < 0)
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
        return b->switch_fd;
}
