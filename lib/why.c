/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"
#include "strutil.h"
#include "why.h"

void hcbs_why_facts_init(HcbsWhyFacts *f) {
        *f = (HcbsWhyFacts) {
                .policy = SCHED_OTHER,
                .rtprio_soft = 0,
                .rtprio_hard = 0,
                .rttime_soft_us = HCBS_WHY_UNLIMITED,
                .rttime_hard_us = HCBS_WHY_UNLIMITED,
                .unit_rtprio_soft = HCBS_WHY_UNLIMITED,
                .unit_policy = SCHED_OTHER,
                .reservation_share = -1,
                .rtkit = HCBS_TRI_UNKNOWN,
        };
        f->mode.mode = HCBS_MODE_NONE;
        f->mode.iface = _HCBS_IFACE_MAX;
}

const char *hcbs_why_kind_to_string(HcbsWhyKind k) {
        static const char *const names[] = { "blocks", "share", "note" };
        return (unsigned) k < ELEMENTSOF(names) ? names[k] : NULL;
}

bool hcbs_why_any_wrong(const HcbsWhyCause *c, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (c[i].kind != HCBS_WHY_NOTE)
                        return true;
        return false;
}

static bool is_rt(int policy) {
        policy &= ~SCHED_RESET_ON_FORK;
        return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* The deepest node with RT files: the task group the thread runs in. */
static const HcbsWhyNode *effective(const HcbsWhyFacts *f) {
        for (size_t i = f->n_chain; i > 0; i--)
                if (f->chain[i - 1].has_files)
                        return &f->chain[i - 1];
        return NULL;
}

const HcbsWhyNode *hcbs_why_context(const HcbsWhyFacts *f) {
        const HcbsWhyNode *e = effective(f);

        if (!e || !e->max || f->mode.iface != HCBS_IFACE_RTMAX)
                return NULL;
        for (const HcbsWhyNode *n = e; n >= f->chain; n--)
                if (n->has_files && !n->max)
                        return n;
        return NULL;
}

const HcbsWhyNode *hcbs_why_first_zero(const HcbsWhyFacts *f) {
        const HcbsWhyNode *e = effective(f), *ctx;

        if (!e)
                return NULL;
        if (f->mode.iface == HCBS_IFACE_RTMAX) {
                /* a "max" group runs on its nearest configured ancestor */
                ctx = e->max ? hcbs_why_context(f) : e;
                return ctx && ctx->path[0] && ctx->runtime_us == 0 ? ctx : NULL;
        }
        for (size_t i = 0; i < f->n_chain; i++) {
                const HcbsWhyNode *n = &f->chain[i];
                if (n->path[0] && n->has_files && !n->max && n->runtime_us == 0)
                        return n;
        }
        return NULL;
}

typedef struct Out {
        HcbsWhyCause *v;
        size_t n, max;
} Out;

_printf_(5, 6) static HcbsWhyCause *add(Out *o, const char *id, HcbsWhyKind kind, bool can_fix, const char *fmt,
                                          ...) {
        static HcbsWhyCause spare;
        HcbsWhyCause *c = o->n < o->max ? &o->v[o->n++] : &spare;
        va_list ap;

        *c = (HcbsWhyCause) { .id = id, .kind = kind, .hcbsd_can_fix = can_fix };
        va_start(ap, fmt);
        vsnprintf(c->message, sizeof(c->message), fmt, ap);
        va_end(ap);
        return c;
}

_printf_(2, 3) static void fix(HcbsWhyCause *c, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(c->fix, sizeof(c->fix), fmt, ap);
        va_end(ap);
}

static bool in_hcbs_slice(const HcbsWhyFacts *f) {
        return strcmp(f->unit_slice, "hcbs.slice") == 0;
}

/* The group name of a path below hcbsd's root, or NULL. */
static const char *group_of(const HcbsWhyFacts *f, const char *path) {
        size_t len = strlen(f->hcbsd_root);

        if (!f->hcbsd_running || !f->hcbsd_root[0] || strncmp(path, f->hcbsd_root, len) != 0 || path[len] != '/')
                return NULL;
        return path + len + 1;
}

static const char *name_or(const char *name, const char *dflt) {
        return name && name[0] ? name : dflt;
}

/* "hcbsctl attach GROUP PID --fifo PRIO": moving it into a reservation is the fix hcbsd offers for a thread. */
static void attach_hint(const HcbsWhyFacts *f, char *buf, size_t len) {
        const char *g = f->managed == HCBS_WHY_MANAGED_GROUP ? f->managed_name : "GROUP";
        snprintf(buf, len, "hcbsctl attach %s %d --fifo PRIO", g, (int) (f->pid ? f->pid : 0));
}

static void diagnose_kernel(const HcbsWhyFacts *f, bool rt, Out *o) {
        const char *leaf = f->n_chain ? f->chain[f->n_chain - 1].path : "";
        HcbsWhyCause *c;

        if (f->mode.mode == HCBS_MODE_MAINLINE_V1_ONLY && f->pid && leaf[0] && !rt) {
                c = add(o, "kernel-mode", HCBS_WHY_BLOCKS, false,
                        "this kernel's RT group scheduling has no files on cgroup v2, and the thread's cgroup /%s "
                        "(with the cpu controller) keeps RT runtime 0: no RT thread may run outside the root cgroup",
                        leaf);
                fix(c, "%s", f->mode.fix);
        } else if (!f->mode.usable && f->mode.mode != HCBS_MODE_MAINLINE_V1_ONLY) {
                c = add(o, "kernel-mode", HCBS_WHY_NOTE, false, "no reservation can be made on this kernel (mode %s): %s",
                        hcbs_kernel_mode_to_string(f->mode.mode), f->mode.reason);
                fix(c, "%s", f->mode.fix);
        } else if (f->mode.mode == HCBS_MODE_UNLIMITED) {
                c = add(o, "rt-unlimited", HCBS_WHY_SHARE, false, "%s", f->mode.reason);
                fix(c, "%s", f->mode.fix);
        }
}

static void diagnose_unit_reservation(const HcbsWhyFacts *f, Out *o) {
        char bw[HCBS_BW_STRLEN], free_bw[HCBS_BW_STRLEN];
        HcbsWhyCause *c;

        if (!f->unit[0] || !f->unit_reserves || f->unit_reservation_held)
                return;
        if (!f->hcbsd_running) {
                c = add(o, "hcbsd-absent", HCBS_WHY_BLOCKS, true,
                        "%s reserves its runtime through hcbsd (ExecStartPre= hcbsctl reserve-unit), and hcbsd is not "
                        "running, so the unit cannot start",
                        f->unit);
                fix(c, "systemctl start hcbsd.service, then systemctl restart %s", f->unit);
                return;
        }
        hcbs_bw_format(hcbs_bw(f->unit_period_us, (int64_t) f->unit_runtime_us), bw);
        hcbs_bw_format(f->free_bw, free_bw);
        if (strcmp(f->unit_state, "failed") == 0) {
                c = add(o, "reservation-refused", HCBS_WHY_BLOCKS, true,
                        "%s asks hcbsd for %" PRIu64 "us every %" PRIu64 "us (%s of each CPU) and holds no "
                        "reservation: hcbsd refused it when the unit started, so systemd did not start it "
                        "(journalctl -u %s has hcbsd's reason); hcbsd has %s of its capacity free",
                        f->unit, f->unit_runtime_us, f->unit_period_us, bw, f->unit, free_bw);
                fix(c, "a smaller [X-HCBS] Runtime= in %s (systemctl edit %s), or room in hcbsd's capacity "
                       "(hcbsctl units; hcbsctl delete GROUP; Capacity= in /etc/hcbsd/hcbsd.conf), then systemctl "
                       "restart %s",
                    f->unit, f->unit, f->unit);
        } else if (strcmp(f->unit_state, "active") != 0)
                add(o, "unit-inactive", HCBS_WHY_NOTE, true,
                    "%s is %s: its reservation (%" PRIu64 "us every %" PRIu64 "us) is made when it starts", f->unit,
                    name_or(f->unit_state, "not running"), f->unit_runtime_us, f->unit_period_us);
}

static void diagnose_zero(const HcbsWhyFacts *f, const HcbsWhyNode *z, Out *o) {
        const HcbsWhyNode *leaf = &f->chain[f->n_chain - 1];
        const char *g = group_of(f, z->path);
        char where[2 * HCBS_WHY_PATH_MAX + 64];
        HcbsWhyCause *c;

        if (z != leaf)
                snprintf(where, sizeof(where), "/%s, above its cgroup /%s,", z->path, leaf->path);
        else
                snprintf(where, sizeof(where), "its cgroup /%s", z->path);
        if (f->unit[0] && f->hcbsd_under_systemd && !in_hcbs_slice(f)) {
                c = add(o, "unit-outside-slice", HCBS_WHY_BLOCKS, true,
                        "%s runs in %s, outside hcbs.slice, and %s has RT runtime 0: no SCHED_FIFO/SCHED_RR thread "
                        "may run there (sched_setscheduler: EPERM); hcbsd gives runtime only to hcbs.slice and its "
                        "own groups",
                        f->unit, name_or(f->unit_slice, "its slice"), where);
                fix(c, "Slice=hcbs.slice and [X-HCBS] Runtime=RUNTIME Period=PERIOD in %s (systemctl edit %s), then "
                       "systemctl restart %s",
                    f->unit, f->unit, f->unit);
                return;
        }
        if (f->unit[0] && f->hcbsd_under_systemd && !f->unit_reservation_held && f->managed != HCBS_WHY_MANAGED_GROUP) {
                c = add(o, "unit-no-reservation", HCBS_WHY_BLOCKS, true,
                        "%s runs in hcbs.slice without a reservation: %s has RT runtime 0, so no SCHED_FIFO/SCHED_RR "
                        "thread may run there (sched_setscheduler: EPERM)",
                        f->unit, where);
                fix(c, "[X-HCBS] Runtime=RUNTIME Period=PERIOD in %s (systemctl edit %s), then systemctl restart %s",
                    f->unit, f->unit, f->unit);
                return;
        }
        c = add(o, "budget-zero", HCBS_WHY_BLOCKS, true,
                "%s has RT runtime 0%s: no SCHED_FIFO/SCHED_RR thread may run below it (sched_setscheduler: EPERM, "
                "moving an RT thread in: EINVAL)",
                where, g ? "" : (f->hcbsd_running ? " and is not hcbsd's" : ""));
        if (g)
                fix(c, "hcbsctl set %s RUNTIME PERIOD (hcbsctl size --task WCET:PERIOD finds them)", g);
        else
                fix(c, "%shcbsctl create GROUP RUNTIME PERIOD, then hcbsctl attach GROUP %d --fifo PRIO (into a "
                       "reservation of hcbsd's)",
                    f->hcbsd_running ? "" : "systemctl start hcbsd.service; ", (int) f->pid);
}

static void diagnose_leaf(const HcbsWhyFacts *f, Out *o) {
        const HcbsWhyNode *e = effective(f);
        const char *g, *child;
        HcbsWhyCause *c;

        if (!f->busy_child[0] || !e || !e->path[0] || f->mode.iface != HCBS_IFACE_RFC1)
                return;
        g = group_of(f, e->path);
        child = g && f->busy_child_managed ? group_of(f, f->busy_child) : NULL;
        c = add(o, "leaf-rule", HCBS_WHY_BLOCKS, child != NULL,
                "its cgroup /%s has a child with a reservation, /%s: on HCBS RFC v1 RT threads run only in leaves "
                "(sched_setscheduler: EPERM)",
                e->path, f->busy_child);
        if (child)
                fix(c, "hcbsctl attach %s %d --fifo PRIO (into the leaf), or hcbsctl set %s 0 PERIOD", child,
                    (int) f->pid, child);
        else
                fix(c, "move the thread into /%s (its cgroup.threads), or write 0 to its cpu.rt_runtime_us: hcbsd "
                       "did not make that cgroup and cannot fix this",
                    f->busy_child);
}

static void diagnose_privileges(const HcbsWhyFacts *f, Out *o) {
        char hint[HCBS_WHY_PATH_MAX + 64];
        HcbsWhyCause *c;

        attach_hint(f, hint, sizeof(hint));
        if (f->unit[0] && f->restrict_realtime) {
                c = add(o, "restrict-realtime", HCBS_WHY_BLOCKS, true,
                        "%s has RestrictRealtime=yes: its seccomp filter refuses the unit's own "
                        "sched_setscheduler(SCHED_FIFO/SCHED_RR) with EPERM, whatever its limits say",
                        f->unit);
                fix(c, "RestrictRealtime=no in %s (systemctl edit %s); or let hcbsd set the policy from outside: %s, "
                       "or CPUSchedulingPolicy=fifo with [X-HCBS] Runtime= in the unit",
                    f->unit, f->unit, hint);
        } else if (f->seccomp_filter)
                add(o, "seccomp", HCBS_WHY_NOTE, true,
                    "a seccomp filter is installed (RestrictRealtime=, a container's profile): if its own "
                    "sched_setscheduler(SCHED_FIFO) fails with EPERM while everything else allows it, the filter "
                    "refuses it; %s sets the policy from outside",
                    hint);
        if (f->cap_sys_nice || f->rtprio_soft > 0 || !f->pid)
                return;
        if (f->uid == 0) {
                c = add(o, "cap-sys-nice", HCBS_WHY_BLOCKS, true,
                        "it runs as root without CAP_SYS_NICE (dropped: capsh, setpriv, CapabilityBoundingSet=), "
                        "and RLIMIT_RTPRIO is 0: the kernel refuses its own sched_setscheduler(SCHED_FIFO/SCHED_RR) "
                        "with EPERM");
                if (f->unit[0])
                        fix(c, "keep CAP_SYS_NICE in %s (AmbientCapabilities=CAP_SYS_NICE, no "
                               "CapabilityBoundingSet=~CAP_SYS_NICE), or LimitRTPRIO=PRIO; or %s (hcbsd sets it with "
                               "its own CAP_SYS_NICE)",
                            f->unit, hint);
                else
                        fix(c, "keep CAP_SYS_NICE, or raise its limit (prlimit --rtprio=PRIO --pid %d); or %s (hcbsd "
                               "sets it with its own CAP_SYS_NICE)",
                            (int) f->pid, hint);
                return;
        }
        c = add(o, "rlimit-rtprio", HCBS_WHY_BLOCKS, true,
                "uid %u has no CAP_SYS_NICE and RLIMIT_RTPRIO is 0 (hard %s%" PRIu64 "): the kernel refuses its own "
                "sched_setscheduler(SCHED_FIFO/SCHED_RR) with EPERM",
                (unsigned) f->uid, f->rtprio_hard > 0 ? "limit, which it may raise itself: " : "", f->rtprio_hard);
        if (f->unit[0])
                fix(c, "LimitRTPRIO=PRIO in %s (systemctl edit %s); or %s (hcbsd sets it with its own CAP_SYS_NICE)",
                    f->unit, f->unit, hint);
        else
                fix(c, "an rtprio limit for its user (/etc/security/limits.d/: 'USER - rtprio PRIO', then log in again; "
                       "or prlimit --rtprio=PRIO --pid %d as root); or %s (hcbsd sets it with its own CAP_SYS_NICE)",
                    (int) f->pid, hint);
        if (f->rtkit == HCBS_TRI_NO)
                fix(add(o, "rtkit-absent", HCBS_WHY_NOTE, false,
                        "rtkit (org.freedesktop.RealtimeKit1) is not on the system bus: programs that ask it for "
                        "real-time (PipeWire, PulseAudio, JACK) get nothing and fall back to RLIMIT_RTPRIO"),
                    "apt install rtkit (hcbsd cannot fix this)");
}

static void diagnose_share(const HcbsWhyFacts *f, bool rt, Out *o) {
        char hint[HCBS_WHY_PATH_MAX + 64], a[HCBS_DURATION_STRLEN], b[HCBS_DURATION_STRLEN];
        const char *g = f->managed == HCBS_WHY_MANAGED_GROUP ? f->managed_name
                        : f->managed == HCBS_WHY_MANAGED_UNIT ? f->unit
                                                              : NULL;
        HcbsWhyCause *c;

        attach_hint(f, hint, sizeof(hint));
        if (f->pid && f->unit[0] && f->hcbsd_under_systemd && !in_hcbs_slice(f) && rt && !hcbs_why_first_zero(f)) {
                c = add(o, "unit-outside-slice", HCBS_WHY_SHARE, true,
                        "%s runs SCHED_FIFO/SCHED_RR in %s, outside hcbs.slice: no reservation backs it, and nothing "
                        "admitted it",
                        f->unit, name_or(f->unit_slice, "its slice"));
                fix(c, "Slice=hcbs.slice and [X-HCBS] Runtime=RUNTIME Period=PERIOD in %s (systemctl edit %s)", f->unit,
                    f->unit);
        } else if (f->pid && !f->hcbsd_running)
                fix(add(o, "hcbsd-absent", HCBS_WHY_NOTE, true,
                        "hcbsd does not answer on this bus: nothing here is admitted or reserved by it"),
                    "systemctl start hcbsd.service");
        else if (f->pid && f->managed == HCBS_WHY_NOT_MANAGED && f->n_chain)
                fix(add(o, "not-managed", HCBS_WHY_NOTE, true,
                        "hcbsd does not manage its cgroup /%s: %s", f->chain[f->n_chain - 1].path,
                        rt ? "its share is what that cgroup's owner set, and no one admitted it"
                           : "no reservation of hcbsd's backs it"),
                    "hcbsctl create GROUP RUNTIME PERIOD, then %s", hint);
        if (g && f->have_exhaustions && f->exhaustions > 0) {
                c = add(o, "budget-exhausted", HCBS_WHY_SHARE, true,
                        "%s ran out of its budget %" PRIu64 " time(s) in the last %s: its RT threads then waited %s "
                        "in all for the next period",
                        g, f->exhaustions, hcbs_duration_format(f->window_ns / 1000, a),
                        hcbs_duration_format(f->throttled_ns / 1000, b));
                fix(c, "more runtime: hcbsctl set %s RUNTIME PERIOD (hcbsctl size --observe %s measures what it needs)",
                    g, g);
        } else if (g && f->reservation_share >= 0.9) {
                c = add(o, "budget-used-up", HCBS_WHY_SHARE, true,
                        "the RT threads of %s used %.0f%% of its reservation over the last %s: at its budget, they "
                        "wait for the next period",
                        g, f->reservation_share * 100, hcbs_duration_format(f->window_ns / 1000, a));
                fix(c, "more runtime: hcbsctl set %s RUNTIME PERIOD (hcbsctl size --observe %s measures what it needs)",
                    g, g);
        }
        if (g && f->have_stats && f->latency_count > 0)
                add(o, "latency", HCBS_WHY_NOTE, true,
                    "wakeup-to-run latency in %s over %" PRIu64 " wakeups: p99 %s, max %s", g, f->latency_count,
                    hcbs_duration_format((f->latency_p99_ns + 999) / 1000, a),
                    hcbs_duration_format((f->latency_max_ns + 999) / 1000, b));
        if (f->pid && f->rttime_soft_us != HCBS_WHY_UNLIMITED) {
                c = add(o, "rlimit-rttime", rt ? HCBS_WHY_SHARE : HCBS_WHY_NOTE, false,
                        "RLIMIT_RTTIME is %s: an RT thread that runs that long without blocking gets SIGXCPU%s",
                        hcbs_duration_format(f->rttime_soft_us, a),
                        f->rttime_hard_us != HCBS_WHY_UNLIMITED ? " (SIGKILL at the hard limit)" : "");
                if (f->unit[0])
                        fix(c, "LimitRTTIME=infinity (or a longer one) in %s (hcbsd cannot change a limit)", f->unit);
                else
                        fix(c, "prlimit --rttime=unlimited --pid %d as root (hcbsd cannot change a limit)", (int) f->pid);
        }
        if (f->have_sysctls && f->rt_runtime_us >= 0 && f->rt_period_us > 0 &&
            (uint64_t) f->rt_runtime_us < f->rt_period_us / 100 * 95)
                add(o, "rt-limit", HCBS_WHY_NOTE, false,
                    "kernel.sched_rt_runtime_us is %" PRId64 " of %" PRIu64 ": RT threads get at most %.0f%% of each "
                    "CPU",
                    f->rt_runtime_us, f->rt_period_us, 100.0 * (double) f->rt_runtime_us / (double) f->rt_period_us);
}

/* Blocking causes first: a stable sort by kind. */
static void sort_by_kind(HcbsWhyCause *v, size_t n) {
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && v[j].kind < v[j - 1].kind; j--) {
                        HcbsWhyCause t = v[j];
                        v[j] = v[j - 1];
                        v[j - 1] = t;
                }
}

size_t hcbs_why_diagnose(const HcbsWhyFacts *f, HcbsWhyCause *ret, size_t max) {
        Out o = { .v = ret, .max = max };
        bool rt = f->pid && is_rt(f->policy);
        const HcbsWhyNode *z;

        diagnose_kernel(f, rt, &o);
        diagnose_unit_reservation(f, &o);
        if (!rt && f->mode.usable) {
                z = hcbs_why_first_zero(f);
                if (z && f->pid)
                        diagnose_zero(f, z, &o);
                else if (f->pid)
                        diagnose_leaf(f, &o);
        }
        if (!rt)
                diagnose_privileges(f, &o);
        diagnose_share(f, rt, &o);
        sort_by_kind(ret, o.n);
        return o.n;
}
