/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For bench-stats: what a sched_switch program costs before it counts
 * anything, each attached alone to the same tracepoint as the collector's
 * and timed by the kernel's BPF run-time statistics. The floor (an empty
 * program, as tp_btf and as raw_tp), then the ways to tell that neither
 * task is counted: the cgroup id and a hash lookup (the collector until
 * issue 24), the cgroup id and one bit (the collector now), and the
 * task-local storage lookup a per-task cached answer would cost. The
 * cgroup the bench counts is never in these maps: every event takes the
 * "not counted" path, as for a task of a cgroup hcbsd does not manage.
 * Empty programs on all three of the collector's tracepoints together are
 * the floor of its wall time: what any program there costs the load.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "hcbs-stats.h"

char LICENSE[] SEC("license") = "GPL";

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, 256);
        __type(key, __u64);
        __type(value, __u32);
} ids SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __type(key, int);
        __type(value, __u64);
} cached SEC(".maps");

__u64 bits[HCBS_FILTER_WORDS];
__u64 hits; /* never grows: keeps the lookups from being optimized away */

static __always_inline __u64 cgroup_id(struct task_struct *t) {
        struct task_group *tg = t->sched_task_group;
        return tg ? tg->css.cgroup->kn->id : 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_tp_btf, bool preempt, struct task_struct *prev, struct task_struct *next) {
        return 0;
}

/* With floor_tp_btf, the collector's three tracepoints with nothing on them: its wall-time floor. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup, struct task_struct *p) {
        return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(floor_wakeup_new, struct task_struct *p) {
        return 0;
}

SEC("raw_tp/sched_switch")
int floor_raw_tp(void *ctx) {
        return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(by_hash, bool preempt, struct task_struct *prev, struct task_struct *next) {
        __u64 a = cgroup_id(prev), b = cgroup_id(next);

        if (bpf_map_lookup_elem(&ids, &a) || bpf_map_lookup_elem(&ids, &b))
                hits++;
        return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(by_bit, bool preempt, struct task_struct *prev, struct task_struct *next) {
        __u64 a = cgroup_id(prev), b = cgroup_id(next);

        if ((bits[(a / 64) % HCBS_FILTER_WORDS] & (1ULL << (a % 64))) ||
            (bits[(b / 64) % HCBS_FILTER_WORDS] & (1ULL << (b % 64))))
                hits++;
        return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(by_storage, bool preempt, struct task_struct *prev, struct task_struct *next) {
        __u64 *a = bpf_task_storage_get(&cached, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
        __u64 *b = bpf_task_storage_get(&cached, next, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

        if ((a && *a) || (b && *b)) /* the cached answer: 0, not counted */
                hits++;
        return 0;
}
