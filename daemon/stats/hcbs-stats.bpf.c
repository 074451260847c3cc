/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbsd's statistics collector: raw tracepoints (the host kernels have no
 * BPF "tracing" program type, so no tp_btf/fentry) with CO-RE reads.
 *
 * Every event is charged to the task it measures, never to `current`:
 * the wakee at sched_wakeup/sched_wakeup_new (current is the waker), prev
 * and next at sched_switch. A task belongs to the cgroup of its cpu
 * controller, task->sched_task_group->css.cgroup->kn->id, which is the
 * same on cgroup v1 and v2 and is the inode number of the cgroup's
 * directory; only cgroups hcbsd put in `groups` are counted. The idle
 * task (pid 0) is skipped, negative intervals are dropped, and nothing on
 * the hot path takes a lock: counters are per-CPU, and a task's timestamps
 * are updated in place (its wakeup and its switches are serialised by its
 * runqueue's lock); only a task's first event inserts into the hash.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "hcbs-stats.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_RUNNING 0
#define SCHED_FIFO 1
#define SCHED_RR 2

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, HCBS_STATS_MAX_GROUPS);
        __type(key, __u64);   /* cgroup id */
        __type(value, __u32); /* slot */
} groups SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, HCBS_STATS_MAX_GROUPS);
        __type(key, __u32);
        __type(value, struct hcbs_slot);
} slots SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, HCBS_STATS_MAX_TASKS);
        __type(key, __u32); /* thread id */
        __type(value, struct hcbs_task);
} tasks SEC(".maps");

/* Kernels before 5.14 called task_struct.__state "state" (a long). */
struct task_struct___pre514 {
        long state;
} __attribute__((preserve_access_index));

/*
 * Reading the kernel's structures. Built twice (meson): with
 * HCBS_STATS_DIRECT the task pointers the tracepoints pass are cast with
 * the bpf_rdonly_cast() kfunc (Linux 6.2+) and read with plain loads, which
 * the verifier turns into fault-safe loads; otherwise each field costs a
 * bpf_probe_read_kernel() call (BPF_CORE_READ), several times slower, and
 * this is what the sched_switch hot path is made of. The loader tries the
 * direct build first. Both are CO-RE: field offsets come from the running
 * kernel's BTF.
 */
#if HCBS_STATS_DIRECT
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define TASK(arg) ((struct task_struct *) bpf_rdonly_cast((void *) (arg), bpf_core_type_id_kernel(struct task_struct)))
#define TASK_TG(t) ((t)->sched_task_group)
#define TG_CGROUP_ID(tg) ((tg)->css.cgroup->kn->id)
#define TASK_FIELD(t, f) ((t)->f)
#define TASK_SUM_EXEC(t) ((t)->se.sum_exec_runtime)
#define TASK_OLD_STATE(t) (((struct task_struct___pre514 *) (t))->state)
#else
#define TASK(arg) ((struct task_struct *) (arg))
#define TASK_TG(t) BPF_CORE_READ(t, sched_task_group)
#define TG_CGROUP_ID(tg) BPF_CORE_READ(tg, css.cgroup, kn, id)
#define TASK_FIELD(t, f) BPF_CORE_READ(t, f)
#define TASK_SUM_EXEC(t) BPF_CORE_READ(t, se.sum_exec_runtime)
#define TASK_OLD_STATE(t) BPF_CORE_READ((struct task_struct___pre514 *) (t), state)
#endif

/* The slot counting t, or NULL when t's cpu cgroup is not one of hcbsd's. */
static __always_inline struct hcbs_slot *slot_of(struct task_struct *t) {
        struct task_group *tg;
        __u64 id;
        __u32 *slot;

        if (!bpf_core_field_exists(t->sched_task_group))
                return NULL; /* no CONFIG_CGROUP_SCHED */
        tg = TASK_TG(t);
        if (!tg)
                return NULL;
        id = TG_CGROUP_ID(tg);
        slot = bpf_map_lookup_elem(&groups, &id);
        if (!slot)
                return NULL;
        return bpf_map_lookup_elem(&slots, slot);
}

/* How often t was switched out: at its sched_switch as prev, already counting this one. */
static __always_inline __u64 task_switches(struct task_struct *t) {
        return TASK_FIELD(t, nvcsw) + TASK_FIELD(t, nivcsw);
}

static __always_inline struct hcbs_task *task_get(__u32 pid, struct hcbs_slot *s) {
        struct hcbs_task *t = bpf_map_lookup_elem(&tasks, &pid);
        struct hcbs_task zero = {};

        if (t)
                return t;
        if (bpf_map_update_elem(&tasks, &pid, &zero, BPF_NOEXIST) < 0 && s)
                s->task_drops++; /* the slot is this CPU's */
        return bpf_map_lookup_elem(&tasks, &pid);
}

static __always_inline void on_wakeup(struct task_struct *p) {
        struct hcbs_slot *s;
        struct hcbs_task *t;
        __u32 pid;
        __u64 now;

        s = slot_of(p); /* first: most tasks are not ours, and the idle task never is */
        if (!s)
                return;
        pid = TASK_FIELD(p, pid);
        if (pid == 0)
                return;
        s->wakeups++;
        t = task_get(pid, s);
        if (!t || t->run_ns)
                return; /* woken while still on CPU: nothing to wait for */
        now = bpf_ktime_get_ns();
        t->wake_ns = now;
        t->cs_wake = task_switches(p);
        if (!t->queued_ns || t->cs_queued != t->cs_wake) {
                t->queued_ns = now;
                t->cs_queued = t->cs_wake;
        }
}

SEC("raw_tp/sched_wakeup")
int hcbs_wakeup(struct bpf_raw_tracepoint_args *ctx) {
        on_wakeup(TASK(ctx->args[0]));
        return 0;
}

SEC("raw_tp/sched_wakeup_new")
int hcbs_wakeup_new(struct bpf_raw_tracepoint_args *ctx) {
        on_wakeup(TASK(ctx->args[0]));
        return 0;
}

static __always_inline long task_state(struct task_struct *t) {
        if (bpf_core_field_exists(t->__state))
                return TASK_FIELD(t, __state);
        return TASK_OLD_STATE(t);
}

static __always_inline void switch_out(struct task_struct *prev, struct hcbs_slot *s, bool preempt, __u64 now) {
        struct hcbs_task *t;
        unsigned int policy;
        __u64 cs;
        __u32 pid;

        if (!s)
                return;
        pid = TASK_FIELD(prev, pid);
        if (pid == 0)
                return;
        t = bpf_map_lookup_elem(&tasks, &pid);
        cs = task_switches(prev);
        if (t && t->run_ns && cs == t->cs_in + 1) { /* switched in while we counted it, out now */
                /*
                 * What the kernel charged for this stay on the CPU (put_prev_task() has
                 * updated it by now), which is also what RT throttling counts; it starts
                 * at the rq clock of the pick, which after an idle wakeup is the wakeup.
                 */
                __u64 sum = TASK_SUM_EXEC(prev);
                __u64 ran = sum > t->sum_in ? sum - t->sum_in : 0;
                policy = TASK_FIELD(prev, policy);
                s->cpu_time_ns += ran;
                if (policy == SCHED_FIFO || policy == SCHED_RR)
                        s->rt_time_ns += ran;
        }
        if (preempt || task_state(prev) == TASK_RUNNING) {
                s->preemptions++;
                if (!t)
                        t = task_get(pid, s);
                if (t) {
                        t->queued_ns = now;
                        t->cs_queued = cs;
                }
        } else if (t)
                t->queued_ns = 0;
        if (t)
                t->run_ns = 0;
}

static __always_inline void switch_in(struct task_struct *next, struct hcbs_slot *s, __u64 now) {
        struct hcbs_task *t;
        __u64 cs;
        __u32 pid;

        if (!s)
                return;
        pid = TASK_FIELD(next, pid);
        if (pid == 0)
                return;
        t = task_get(pid, s);
        if (!t)
                return;
        cs = task_switches(next);
        if (t->wake_ns && now >= t->wake_ns && cs == t->cs_wake) { /* not run since that wakeup */
                __u64 lat = now - t->wake_ns;
                unsigned int b = loghist_bucket(lat);
                if (b < LOGHIST_BUCKETS)
                        s->latency[b]++;
                s->latency_sum_ns += lat;
                if (lat > s->latency_max_ns)
                        s->latency_max_ns = lat;
        }
        if (t->queued_ns && now >= t->queued_ns && cs == t->cs_queued)
                s->wait_ns += now - t->queued_ns;
        t->wake_ns = 0;
        t->queued_ns = 0;
        t->run_ns = now;
        t->cs_in = cs;
        t->sum_in = TASK_SUM_EXEC(next);
}

/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next[, unsigned int prev_state]) */
SEC("raw_tp/sched_switch")
int hcbs_switch(struct bpf_raw_tracepoint_args *ctx) {
        struct task_struct *prev = TASK(ctx->args[1]), *next = TASK(ctx->args[2]);
        struct hcbs_slot *sp = slot_of(prev), *sn = slot_of(next);
        __u64 now;

        /* the common case is neither task being ours: then no clock read (and no "sp | sn" for the verifier) */
        if (!sp) {
                if (sn)
                        switch_in(next, sn, bpf_ktime_get_ns());
                return 0;
        }
        now = bpf_ktime_get_ns();
        switch_out(prev, sp, ctx->args[0] != 0, now);
        switch_in(next, sn, now);
        return 0;
}

/* sched_process_free: after the task's last switch-out (sched_process_exit comes before it) */
SEC("raw_tp/sched_process_free")
int hcbs_exit(struct bpf_raw_tracepoint_args *ctx) {
        struct task_struct *p = TASK(ctx->args[0]);
        __u32 pid = TASK_FIELD(p, pid);

        if (bpf_map_lookup_elem(&tasks, &pid)) /* a lookup is lock-free; most exiting tasks are not ours */
                bpf_map_delete_elem(&tasks, &pid);
        return 0;
}
