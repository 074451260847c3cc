/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbsd's statistics collector: BTF-typed tracepoints (tp_btf) on the
 * scheduler's events, CO-RE, one object for every kernel since 5.18 (task-
 * local storage in tracing programs, sched_switch's prev_state).
 *
 * Every event is charged to the task it measures, never to `current`:
 * the wakee at sched_wakeup/sched_wakeup_new (current is the waker), prev
 * and next at sched_switch. A task belongs to the cgroup of its cpu
 * controller, task->sched_task_group->css.cgroup->kn->id, which is the
 * same on cgroup v1 and v2 and is the inode number of the cgroup's
 * directory; only cgroups hcbsd put in `groups` are counted.
 *
 * What a task that is not counted costs: its cgroup id (four loads) and
 * one bit of `member_bits`; no map, no clock, no helper call. A counted
 * task costs one hash lookup for its group's counters, which are per-CPU
 * (no lock, no atomic: a CPU adds to its own copy); its CPU time and its
 * wait are the kernel's own totals (se.sum_exec_runtime and, where the
 * kernel keeps it, sched_info.run_delay) read at its switch-in and switch-
 * out, kept per CPU. Only an RT task's wakeup latency (and, without
 * sched_info, any task's wait) needs timestamps: they are in the task's
 * own storage (tp_btf's task pointers are trusted, which the storage helper
 * needs), created at its first counted event and freed by the kernel with
 * the task: no table of tasks that a forking group could fill, and no exit
 * program. Only the latency histogram, shared by the CPUs, takes atomic
 * adds. Negative intervals are dropped; the idle task is never counted.
 *
 * On HCBS kernels a group's tasks run inside per-CPU deadline servers
 * (task_group.dl_se, which mainline lacks: CO-RE decides at load, and the
 * code for it is dead elsewhere): a counted task switched out while still
 * runnable by a throttled server is an exhaustion on that CPU (one per
 * throttling); the group's next run there under a server no longer
 * throttled ends it; every new server deadline it runs under is a
 * replenishment it used. No new tracepoint: the same events.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "hcbs-stats.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_RUNNING 0
#define SCHED_FIFO 1
#define SCHED_RR 2

/*
 * Sizes are the daemon's capacity, set before load (bpf_map__set_max_entries),
 * and the value of `groups` is ncpus * HCBS_STATS_CPU_STRIDE bytes
 * (bpf_map__set_value_size): the verifier knows both, and ncpus.
 */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __uint(max_entries, 1);
        __uint(key_size, sizeof(__u64)); /* cgroup id */
        __uint(value_size, HCBS_STATS_CPU_STRIDE);
} groups SEC(".maps");

/* The possible CPUs: set by the loader before load, a constant for the verifier. */
const volatile __u32 ncpus = 1;

struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __uint(max_entries, 1);
        __type(key, __u64); /* cgroup id */
        __type(value, struct hcbs_hist);
} hists SEC(".maps");

/* What the task now on a CPU had when it was switched in there (one per CPU). */
struct {
        __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct hcbs_run);
} runs SEC(".maps");

/* A zeroed histogram to create a group's from: never written (the BPF stack is too small for one). */
struct {
        __uint(type, BPF_MAP_TYPE_ARRAY);
        __uint(max_entries, 1);
        __type(key, __u32);
        __type(value, struct hcbs_hist);
} hist_zero SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
        __uint(map_flags, BPF_F_NO_PREALLOC);
        __type(key, int);
        __type(value, struct hcbs_task);
} task_states SEC(".maps");

/* The cgroups whose RT tasks' jobs are observed (hcbs-stats.h), and where their jobs go. */
struct {
        __uint(type, BPF_MAP_TYPE_HASH);
        __uint(max_entries, HCBS_OBSERVE_MAX);
        __type(key, __u64); /* cgroup id */
        __type(value, struct hcbs_observation);
} observed SEC(".maps");

struct {
        __uint(type, BPF_MAP_TYPE_RINGBUF);
        __uint(max_entries, HCBS_JOBS_RING);
} jobs SEC(".maps");

/* Written by the daemon through the mmap of .bss: bit (id mod HCBS_FILTER_BITS) per counted cgroup id. */
__u64 member_bits[HCBS_FILTER_WORDS];
/* HCBS_FEATURE_*: set by hcbs_features, which the loader runs once. */
__u32 features;
/* Entries of `observed` (the daemon's count): 0, as nearly always, spares every event the lookup. */
__u32 n_observed;
/* Jobs the ring buffer had no room for. */
__u64 jobs_lost;

/* HCBS (rfc1, rtmax): one SCHED_DEADLINE server per group and CPU. Mainline has no such field. */
struct task_group___hcbs {
        struct sched_dl_entity **dl_se;
} __attribute__((preserve_access_index));

#define HAVE_SERVERS bpf_core_field_exists(((struct task_group___hcbs *) 0)->dl_se)

/*
 * CONFIG_SCHED_INFO (selected by SCHEDSTATS and TASK_DELAY_ACCT: every
 * distribution kernel): the kernel keeps each task's total time runnable
 * but not running, sched_info.run_delay, from an enqueue (a wakeup) or a
 * preemption to the switch-in (the figure /proc/PID/schedstat shows
 * second). A group's wait is then the change of its tasks' totals over
 * their stays on a CPU, read at the switches the collector sees anyway: a
 * task needs no timestamps of its own, so a SCHED_OTHER task costs no
 * storage and no clock read. Without it, the wait is timed from the
 * collector's own timestamps in the task's storage.
 */
#define HAVE_SCHED_INFO bpf_core_field_exists(((struct task_struct *) 0)->sched_info)

/* t's total wait so far (0 without CONFIG_SCHED_INFO). */
static __always_inline __u64 task_run_delay(struct task_struct *t) {
        if (!HAVE_SCHED_INFO)
                return 0;
        return t->sched_info.run_delay;
}

/* bpf_ktime_get_ns(), read once per event and only when something needs it. */
static __always_inline __u64 clock_now(__u64 *now) {
        if (!*now)
                *now = bpf_ktime_get_ns();
        return *now;
}

/* t's cpu cgroup id and task group; 0 when it has none (no CONFIG_CGROUP_SCHED). */
static __always_inline __u64 cgroup_of(struct task_struct *t, struct task_group **ret_tg) {
        struct task_group *tg;

        if (!bpf_core_field_exists(t->sched_task_group))
                return 0;
        tg = t->sched_task_group;
        if (!tg)
                return 0;
        *ret_tg = tg;
        return tg->css.cgroup->kn->id;
}

/* Whether id may be counted: its bit in the filter. */
static __always_inline bool maybe_counted(__u64 id) {
        return member_bits[(id / 64) % HCBS_FILTER_WORDS] & (1ULL << (id % 64));
}

/* The counters of group id on this CPU, or NULL when id is not counted. */
static __always_inline struct hcbs_counters *counters_of(__u64 id) {
        __u32 cpu;
        void *v;

        v = bpf_map_lookup_elem(&groups, &id);
        cpu = bpf_get_smp_processor_id();
        if (!v || cpu >= ncpus)
                return NULL;
        return v + cpu * HCBS_STATS_CPU_STRIDE;
}

/* t's timestamps, created when create is true; a failed creation is the group's drop. */
static __always_inline struct hcbs_task *task_get(struct task_struct *t, struct hcbs_counters *c, bool create) {
        struct hcbs_task *st;

        st = bpf_task_storage_get(&task_states, t, NULL, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
        if (!st && create)
                c->task_drops++; /* c is this CPU's: no atomic */
        return st;
}

/* How often t was switched out: at its sched_switch as prev, already counting this one. */
static __always_inline __u64 task_switches(struct task_struct *t) {
        return t->nvcsw + t->nivcsw;
}

/* Whether t is running on a CPU now (a wakeup then ends no wait). */
static __always_inline bool task_on_cpu(struct task_struct *t) {
        return bpf_core_field_exists(t->on_cpu) && t->on_cpu;
}

/* The observation of group id, when one runs (n_observed) and id is observed. */
static __always_inline struct hcbs_observation *observation_of(__u64 id) {
        return n_observed ? bpf_map_lookup_elem(&observed, &id) : NULL;
}

static __always_inline bool task_is_rt(struct task_struct *t) {
        return t->policy == SCHED_FIFO || t->policy == SCHED_RR;
}

static __always_inline void job_send(struct task_struct *t, struct hcbs_task *st, unsigned int kind, __u64 exec) {
        struct hcbs_job j = {
                .release_ns = st->job_release_ns,
                .exec_ns = exec,
                .tid = t->pid,
                .tgid = t->tgid,
                .observation = st->job_observation,
                .kind = kind,
        };

        (void) bpf_probe_read_kernel(j.comm, sizeof(j.comm), t->comm);
        if (bpf_ringbuf_output(&jobs, &j, sizeof(j), 0) < 0)
                __sync_fetch_and_add(&jobs_lost, 1);
}

/* An observed RT task's storage for observation o, its job state reset when it was another observation's. */
static __always_inline struct hcbs_task *observed_task(struct task_struct *t, struct hcbs_observation *o) {
        struct hcbs_task *st;

        if (!task_is_rt(t))
                return NULL;
        st = bpf_task_storage_get(&task_states, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
        if (st && st->job_observation != o->id) {
                st->job_observation = o->id;
                st->job_flags = 0;
                st->job_release_ns = 0;
                st->job_wake_ns = 0;
        }
        return st;
}

/* An observed RT task woke: the release of the job its next switch-in starts. */
static __always_inline void observe_wakeup(struct task_struct *p, struct hcbs_observation *o, __u64 now) {
        struct hcbs_task *st = observed_task(p, o);

        if (st)
                st->job_wake_ns = now;
}

/*
 * An observed RT task takes the CPU: after a sleep, a job starts (a
 * switch-in, not the wakeup, starts it: a job is counted even when its
 * wakeup's event was not seen, which happens).
 */
static __always_inline void observe_switch_in(struct task_struct *next, struct hcbs_observation *o, __u64 now) {
        struct hcbs_task *st = observed_task(next, o);

        if (!st || !(st->job_flags & HCBS_JOB_SLEPT))
                return; /* running already when the observation began: its job's start is unknown */
        st->job_flags &= ~HCBS_JOB_SLEPT;
        st->job_release_ns = st->job_wake_ns && st->job_wake_ns <= now ? st->job_wake_ns : now;
        st->job_wake_ns = 0;
        st->job_sum = next->se.sum_exec_runtime;
}

/*
 * An observed RT task leaves the CPU: asleep, its job is done; still
 * runnable, it may have run for half the observation without a sleep
 * (since its release, or since the observation began if it was released
 * before), which makes it unbounded.
 */
static __always_inline void observe_switch_out(struct task_struct *prev, struct hcbs_observation *o, bool runnable,
                                               __u64 now) {
        struct hcbs_task *st = observed_task(prev, o);
        __u64 since;

        if (!st)
                return;
        if (!runnable) {
                if (st->job_release_ns)
                        job_send(prev, st, HCBS_JOB_DONE, prev->se.sum_exec_runtime - st->job_sum);
                st->job_release_ns = 0;
                st->job_flags |= HCBS_JOB_SLEPT;
                return;
        }
        since = st->job_release_ns ? st->job_release_ns : o->start_ns;
        if (!(st->job_flags & HCBS_JOB_UNBOUNDED) && now > since && now - since >= o->half_ns) {
                st->job_flags |= HCBS_JOB_UNBOUNDED;
                job_send(prev, st, HCBS_JOB_UNBOUNDED, now - since);
        }
}

static __always_inline void on_wakeup(struct task_struct *p) {
        struct task_group *tg = NULL;
        struct hcbs_counters *c;
        struct hcbs_task *t;
        __u64 id = cgroup_of(p, &tg), now;
        struct hcbs_observation *o;

        if (!maybe_counted(id) || p->pid == 0)
                return; /* first: most tasks are not ours */
        if ((o = observation_of(id)))
                observe_wakeup(p, o, bpf_ktime_get_ns());
        if (!(c = counters_of(id)))
                return;
        c->wakeups++;
        if (task_on_cpu(p))
                return; /* woken while still on CPU: nothing to wait for */
        if (HAVE_SCHED_INFO && !task_is_rt(p))
                return; /* its wait is the kernel's (run_delay); only an RT task's latency is timed here */
        t = task_get(p, c, true);
        if (!t)
                return;
        now = bpf_ktime_get_ns();
        t->wake_ns = now;
        t->cs_wake = task_switches(p);
        if (!HAVE_SCHED_INFO && (!t->queued_ns || t->cs_queued != t->cs_wake)) {
                t->queued_ns = now;
                t->cs_queued = t->cs_wake;
        }
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(hcbs_wakeup, struct task_struct *p) {
        on_wakeup(p);
        return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(hcbs_wakeup_new, struct task_struct *p) {
        on_wakeup(p);
        return 0;
}

/* The deadline server of group tg on this CPU (HCBS kernels; NULL elsewhere). Probe reads: off the common path. */
static __always_inline struct sched_dl_entity *server_of(struct task_group *tg) {
        struct sched_dl_entity **servers, *dl = NULL;
        __u32 cpu = bpf_get_smp_processor_id();

        if (!HAVE_SERVERS)
                return NULL;
        servers = BPF_CORE_READ((struct task_group___hcbs *) tg, dl_se);
        if (!servers || bpf_probe_read_kernel(&dl, sizeof(dl), servers + cpu) < 0)
                return NULL;
        return dl;
}

/*
 * prev leaves the CPU: the CPU time of its stay and the wait that ended at
 * its start (from this CPU's record of its switch-in: no storage lookup for
 * a task that goes to sleep); a task still runnable starts waiting, and on
 * HCBS kernels it may have been switched out by its group's throttled
 * server.
 */
static __always_inline void switch_out(struct task_struct *prev, struct task_group *tg, struct hcbs_counters *c,
                                       struct hcbs_run *run, bool runnable, __u64 *now) {
        __u32 pid = prev->pid;
        struct sched_dl_entity *dl;
        struct hcbs_task *t;
        __u64 cs;

        if (pid == 0)
                return;
        cs = task_switches(prev);
        if (run && run->pid == pid) {
                if (run->switches + 1 == cs) { /* switched in while we counted it, out now */
                        /*
                         * What the kernel charged for this stay on the CPU (put_prev_task() has
                         * updated it by now), which is also what RT throttling and HCBS's servers
                         * count; it starts at the rq clock of the pick, which after an idle
                         * wakeup is the wakeup.
                         */
                        __u64 sum = prev->se.sum_exec_runtime, delay = task_run_delay(prev);
                        __u64 ran = sum > run->sum_in ? sum - run->sum_in : 0;
                        c->cpu_time_ns += ran;
                        if (task_is_rt(prev))
                                c->rt_time_ns += ran;
                        /* the kernel added the stay's wait to run_delay after the switch-in's event */
                        c->wait_ns += delay > run->delay_in ? delay - run->delay_in : 0;
                }
                run->pid = 0;
        }
        if (!runnable)
                return; /* to sleep: its wait starts at its wakeup */
        c->preemptions++;
        if (!HAVE_SCHED_INFO) {
                t = task_get(prev, c, true);
                if (t) {
                        t->queued_ns = clock_now(now);
                        t->cs_queued = cs;
                }
        }
        dl = server_of(tg);
        /* its budget ran out: once per throttling, which a task run on the throttled server (switch_in) does not end */
        if (dl && BPF_CORE_READ_BITFIELD_PROBED(dl, dl_throttled) && !c->throttled_since) {
                c->exhaustions++;
                c->throttled_since = clock_now(now);
        }
}

/*
 * One wakeup-to-run latency of group id: the shared histogram, created at
 * the group's first (so groups without wakeups cost none), this CPU's sum
 * and maximum.
 */
static __always_inline void add_latency(struct hcbs_counters *c, __u64 id, __u64 lat) {
        struct hcbs_hist *h = bpf_map_lookup_elem(&hists, &id);
        unsigned int b = loghist_bucket(lat);
        __u32 zero = 0;

        if (!h) {
                struct hcbs_hist *z = bpf_map_lookup_elem(&hist_zero, &zero);
                if (z)
                        (void) bpf_map_update_elem(&hists, &id, z, BPF_NOEXIST);
                h = bpf_map_lookup_elem(&hists, &id);
        }
        if (h && b < LOGHIST_BUCKETS)
                __sync_fetch_and_add(&h->latency[b], 1);
        c->latency_sum_ns += lat;
        if (lat > c->latency_max_ns)
                c->latency_max_ns = lat;
}

/*
 * next takes the CPU: this CPU records its switch-in; an RT task's wakeup
 * latency ends (and, without sched_info, any task's wait).
 */
static __always_inline void switch_in(struct task_struct *next, struct task_group *tg, struct hcbs_counters *c,
                                      struct hcbs_run *run, __u64 id, __u64 *now) {
        __u32 pid = next->pid;
        struct sched_dl_entity *dl;
        struct hcbs_task *t;
        __u64 cs;

        if (pid == 0)
                return;
        cs = task_switches(next);
        if (run) {
                run->pid = pid;
                run->switches = cs;
                run->sum_in = next->se.sum_exec_runtime;
                run->delay_in = task_run_delay(next);
        }
        /* none: never woken nor preempted while counted, nothing to end; with sched_info only RT tasks have any */
        t = !HAVE_SCHED_INFO || task_is_rt(next) ? task_get(next, c, false) : NULL;
        if (t) {
                __u64 at = clock_now(now);
                /* not run since that wakeup; the latency of the RT tasks the reservation is for */
                if (t->wake_ns && at >= t->wake_ns && cs == t->cs_wake && task_is_rt(next))
                        add_latency(c, id, at - t->wake_ns);
                if (t->queued_ns && at >= t->queued_ns && cs == t->cs_queued)
                        c->wait_ns += at - t->queued_ns; /* only without sched_info: nothing sets it else */
                t->wake_ns = 0;
                t->queued_ns = 0;
        }
        dl = server_of(tg);
        /*
         * Still throttled: the kernel picked next before it charged prev's
         * run, and that charge used the budget up (the pick comes first
         * since 6.12). next runs on the throttled server, not a
         * replenished one: the throttling goes on and no budget starts.
         */
        if (dl && BPF_CORE_READ_BITFIELD_PROBED(dl, dl_throttled))
                return;
        if (c->throttled_since) { /* replenished: the group runs again on this CPU */
                __u64 at = clock_now(now);
                c->throttled_ns += at > c->throttled_since ? at - c->throttled_since : 0;
                c->throttled_since = 0;
        }
        if (dl) {
                __u64 deadline = BPF_CORE_READ(dl, deadline);
                if (deadline != c->server_deadline) {
                        c->replenishments++;
                        c->server_deadline = deadline;
                }
        }
}

/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next[, unsigned int prev_state]) */
SEC("tp_btf/sched_switch")
int BPF_PROG(hcbs_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state) {
        struct task_group *tgp = NULL, *tgn = NULL;
        /*
         * Still runnable: preempted, or the state __schedule() read (prev_state, 5.18+) is
         * running. Not prev->__state: a wakeup on another CPU may set it while prev is
         * still on its way out, and a task going to sleep would pass for a preempted one.
         */
        bool runnable = preempt || prev_state == TASK_RUNNING;
        __u64 idp = cgroup_of(prev, &tgp), idn = cgroup_of(next, &tgn), now = 0;
        struct hcbs_counters *cp = NULL, *cn = NULL;
        struct hcbs_run *run;
        __u32 zero = 0;

        /* the common case is neither task being ours: two loads of the filter, no map, no clock */
        if (maybe_counted(idp)) {
                struct hcbs_observation *o = observation_of(idp);
                if (o && prev->pid)
                        observe_switch_out(prev, o, runnable, bpf_ktime_get_ns());
                cp = counters_of(idp);
        }
        if (maybe_counted(idn)) {
                struct hcbs_observation *o = observation_of(idn);
                if (o && next->pid)
                        observe_switch_in(next, o, bpf_ktime_get_ns());
        }
        if (idn == idp)
                cn = cp; /* one group switching between its own tasks: one lookup */
        else if (maybe_counted(idn))
                cn = counters_of(idn);
        if (!cp) {
                barrier_var(cn); /* else clang makes "!cp && !cn" a "cp | cn", which the verifier refuses */
                if (!cn)
                        return 0;
        }
        run = bpf_map_lookup_elem(&runs, &zero); /* this CPU's switch-in, for both */
        if (cp && tgp)
                switch_out(prev, tgp, cp, run, runnable, &now);
        if (cn && tgn)
                switch_in(next, tgn, cn, run, idn, &now);
        return 0;
}

/* Run once by the loader (BPF_PROG_TEST_RUN), never attached: what this kernel offers. */
SEC("raw_tp")
int hcbs_features(void *ctx) {
        __u32 f = HCBS_FEATURE_LOADED;

        if (HAVE_SERVERS)
                f |= HCBS_FEATURE_SERVERS;
        features = f;
        return 0;
}
