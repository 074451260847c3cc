/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "ctl-cmdline.h"
#include "ctl-format.h"
#include "ctl-json.h"
#include "ctl-verbs.h"
#include "ctl-why-bus.h"
#include "ctl-why-facts.h"
#include "duration.h"
#include "macro.h"
#include "strutil.h"

/*
 * why PID|TID|UNIT|CONTAINER: why a thread cannot be SCHED_FIFO/SCHED_RR, or
 * does not get its share. It reads (ctl-why-facts.c), asks (ctl-why-bus.c),
 * lets lib/why.c decide, and prints the facts and each cause with its fix.
 * It changes nothing. Exit 0 when nothing is wrong, 1 when a cause blocks
 * the thread or costs it its share, 4 when the target does not exist.
 */

typedef enum TargetKind {
        TARGET_THREAD,
        TARGET_UNIT,
        TARGET_CONTAINER,
} TargetKind;

static const char *const target_kinds[] = { "thread", "unit", "container" };

typedef struct Why {
        HcbsWhyFacts f;
        HcbsKernelFacts k;
        WhyHcbsd h;
        TargetKind kind;
        const char *arg;
        char cgroup[HCBS_WHY_PATH_MAX]; /* a unit's or container's cgroup, relative to the mount */
        HcbsWhyCause causes[HCBS_WHY_CAUSES_MAX];
        size_t n_causes;
} Why;

static bool parse_id(const char *s, pid_t *ret) {
        uint64_t v;
        const char *end;

        if (hcbs_parse_u64(s, INT32_MAX, &end, &v) < 0 || *end || v == 0)
                return false;
        *ret = (pid_t) v;
        return true;
}

static const char *policy_name(int policy) {
        switch (policy) {
        case SCHED_FIFO: return "SCHED_FIFO";
        case SCHED_RR: return "SCHED_RR";
        case SCHED_BATCH: return "SCHED_BATCH";
        case SCHED_IDLE: return "SCHED_IDLE";
        case SCHED_DEADLINE: return "SCHED_DEADLINE";
        default: return "SCHED_OTHER";
        }
}

/* The mode: hcbsd's when it answers (it probed the rules), else decided here from the kernel's facts. */
static void take_mode(Why *w) {
        HcbsWhyFacts *f = &w->f;
        const CtlManagerProps *p = &w->h.props;
        int m = p->kernel_mode ? hcbs_kernel_mode_from_string(p->kernel_mode) : -EINVAL;
        int i = p->kernel_interface ? hcbs_interface_from_string(p->kernel_interface) : -EINVAL;

        if (w->h.running && m >= 0 && i >= 0) {
                f->mode = (HcbsKernelVerdict) { .mode = (HcbsKernelMode) m, .usable = true, .iface = (HcbsInterface) i };
                f->mode.guaranteed = m == HCBS_MODE_HCBS_RFC1 || m == HCBS_MODE_HCBS_RTMAX;
                snprintf(f->mode.reason, sizeof(f->mode.reason), "%s", p->kernel_mode_reason ? p->kernel_mode_reason : "");
                snprintf(f->mode.fix, sizeof(f->mode.fix), "%s", p->kernel_mode_fix ? p->kernel_mode_fix : "");
                f->mode_from_hcbsd = true;
        } else
                hcbs_kernel_mode_decide(&w->k, &f->mode);
        f->have_sysctls = w->k.have_sysctls;
        f->rt_runtime_us = w->k.rt_runtime_us;
        f->rt_period_us = w->k.rt_period_us;
}

/* hcbsd's root relative to the mount of the RT files ("" when it is elsewhere). */
static void take_hcbsd_root(Why *w) {
        const char *root = w->h.props.cgroup_root;
        char real[PATH_MAX];
        size_t len = strlen(w->f.mount);

        if (!w->h.running || !root || !len)
                return;
        w->f.hcbsd_running = true;
        w->f.hcbsd_under_systemd = strstr(root, "/hcbs.slice/") != NULL;
        if (!realpath(root, real))
                snprintf(real, sizeof(real), "%s", root);
        if (strncmp(real, w->f.mount, len) == 0 && real[len] == '/')
                snprintf(w->f.hcbsd_root, sizeof(w->f.hcbsd_root), "%s", real + len + 1);
        if (w->h.props.capacity_period) {
                uint64_t cap = hcbs_bw(w->h.props.capacity_period, (int64_t) w->h.props.capacity_runtime);
                uint64_t alloc = (uint64_t) (w->h.props.allocated * (double) HCBS_BW_UNIT);
                w->f.free_bw = cap > alloc ? cap - alloc : 0;
        }
}

static bool path_under(const char *path, const char *dir) {
        size_t len = strlen(dir);
        return len && strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* Whom its cgroup belongs to: one of hcbsd's groups, a unit's or a container's reservation, or nobody. */
static void take_managed(Why *w) {
        HcbsWhyFacts *f = &w->f;
        const char *leaf = f->n_chain ? f->chain[f->n_chain - 1].path : w->cgroup;

        if (!f->hcbsd_running)
                return;
        if (f->hcbsd_root[0] && path_under(leaf, f->hcbsd_root) && strlen(leaf) > strlen(f->hcbsd_root)) {
                f->managed = HCBS_WHY_MANAGED_GROUP;
                snprintf(f->managed_name, sizeof(f->managed_name), "%s", leaf + strlen(f->hcbsd_root) + 1);
                return;
        }
        for (size_t i = 0; i < w->h.units.n; i++) {
                const CtlUnit *u = &w->h.units.v[i];
                if (f->unit[0] && strcmp(u->unit, f->unit) == 0)
                        f->unit_reservation_held = true;
                if (!path_under(leaf, u->cgroup))
                        continue;
                f->managed = hcbs_endswith(u->unit, ".scope") ? HCBS_WHY_MANAGED_CONTAINER : HCBS_WHY_MANAGED_UNIT;
                snprintf(f->managed_name, sizeof(f->managed_name), "%s", u->unit);
        }
}

/* Whether the child holding a runtime below the thread's group (the rfc1 leaf rule) is one of hcbsd's groups. */
static void take_busy_child(Ctl *ctl, Why *w) {
        HcbsWhyFacts *f = &w->f;
        size_t len = strlen(f->hcbsd_root);
        CtlGroupList l;

        if (!f->busy_child[0] || f->managed != HCBS_WHY_MANAGED_GROUP || !path_under(f->busy_child, f->hcbsd_root) ||
            ctl_list_groups(ctl, &l) != CTL_EXIT_OK)
                return;
        for (size_t i = 0; i < l.n; i++)
                if (strcmp(l.v[i].name, f->busy_child + len + 1) == 0)
                        f->busy_child_managed = true;
        ctl_group_list_done(&l);
}

/* The first process of cgroup or of one of its children (a container's process sits in scope/container). */
static pid_t first_pid_below(const Why *w, const char *cgroup) {
        pid_t pid = 0;
        char sub[HCBS_WHY_PATH_MAX + 16];

        if (why_first_pid(kernel_facts_prefix(), w->f.mount, cgroup, &pid) >= 0 && pid)
                return pid;
        snprintf(sub, sizeof(sub), "%s/container", cgroup);
        if (why_first_pid(kernel_facts_prefix(), w->f.mount, sub, &pid) >= 0 && pid)
                return pid;
        return 0;
}

/* A container among the reservations hcbsd holds: its scope's name, or an id (prefix) in it. */
static const CtlUnit *find_container(const Why *w, const char *arg) {
        for (size_t i = 0; i < w->h.units.n; i++) {
                const CtlUnit *u = &w->h.units.v[i];
                const char *dash = strrchr(u->unit, '-');
                if (!hcbs_endswith(u->unit, ".scope"))
                        continue;
                if (strcmp(u->unit, arg) == 0 || (dash && hcbs_startswith(dash + 1, arg) && strlen(arg) >= 4))
                        return u;
        }
        return NULL;
}

static int resolve_process(Why *w, pid_t id) {
        pid_t tgid;
        int r;

        r = why_read_tgid(id, &tgid);
        if (r == -ESRCH)
                return ctl_fail(CTL_EXIT_NOT_FOUND, "why: no process or thread %d", (int) id);
        if (r < 0)
                return ctl_fail_errno(r, "why: cannot read /proc");
        w->kind = TARGET_THREAD;
        r = why_read_thread(tgid, id, &w->f);
        if (r == -ESRCH)
                return ctl_fail(CTL_EXIT_NOT_FOUND, "why: no process or thread %d", (int) id);
        if (r < 0)
                return ctl_fail_errno(r, "why: cannot read /proc");
        if (getuid() != 0 && w->f.uid != getuid())
                return ctl_fail(CTL_EXIT_REFUSED, "why: %d is a process of uid %u: ask as that user or as root", (int) id,
                                (unsigned) w->f.uid);
        return CTL_EXIT_OK;
}

/* A unit (systemd's) or a container (hcbsd's reservations); its main or first process, if any. */
static int resolve_named(Ctl *ctl, Why *w, const char *arg) {
        const CtlUnit *c = find_container(w, arg);
        char unit[HCBS_WHY_NAME_MAX];
        pid_t pid = 0;
        int r = -ENOENT;

        if (c) {
                w->kind = TARGET_CONTAINER;
                snprintf(w->cgroup, sizeof(w->cgroup), "%s", c->cgroup);
                if (ctl->bus)
                        (void) why_ask_systemd(ctl, 0, c->unit, &w->f, NULL, NULL);
                snprintf(w->f.unit, sizeof(w->f.unit), "%s", c->unit);
                pid = first_pid_below(w, c->cgroup);
        } else if (ctl->bus) {
                snprintf(unit, sizeof(unit), "%s%s", arg, strchr(arg, '.') ? "" : ".service");
                r = why_ask_systemd(ctl, 0, unit, &w->f, &pid, w->cgroup);
                if (r < 0)
                        return r == -ENOENT ? ctl_fail(CTL_EXIT_NOT_FOUND, "why: no process, unit or container '%s'", arg)
                                            : ctl_fail(CTL_EXIT_UNREACHABLE, "why: systemd does not answer about %s: %s",
                                                       unit, strerror(-r));
                w->kind = TARGET_UNIT;
                if (!pid && w->cgroup[0])
                        pid = first_pid_below(w, w->cgroup);
        } else
                return ctl_fail(CTL_EXIT_NOT_FOUND, "why: no process '%s', and no bus to ask about units", arg);
        if (!pid)
                return CTL_EXIT_OK;
        r = why_read_thread(pid, pid, &w->f);
        if (r < 0 && r != -ESRCH)
                return ctl_fail_errno(r, "why: cannot read /proc");
        if (r == -ESRCH)
                w->f.pid = w->f.tid = 0;
        return CTL_EXIT_OK;
}

/* ---- output ---- */

static const char *limit_str(uint64_t v, char *buf, size_t len) {
        if (v == HCBS_WHY_UNLIMITED)
                return "unlimited";
        snprintf(buf, len, "%" PRIu64, v);
        return buf;
}

static const char *node_values(const HcbsWhyNode *n, char *buf, size_t len) {
        char r[HCBS_DURATION_STRLEN], p[HCBS_DURATION_STRLEN];

        if (!n->has_files)
                snprintf(buf, len, "(no RT files: runs in the group above)");
        else if (n->max)
                snprintf(buf, len, "max %s", hcbs_duration_format(n->period_us, p));
        else if (n->runtime_us < 0)
                snprintf(buf, len, "unlimited/%s", hcbs_duration_format(n->period_us, p));
        else
                snprintf(buf, len, "%s/%s", hcbs_duration_format((uint64_t) n->runtime_us, r),
                         hcbs_duration_format(n->period_us, p));
        return buf;
}

static void print_target(const Why *w) {
        const HcbsWhyFacts *f = &w->f;

        if (w->kind != TARGET_THREAD)
                printf("%s %s\n", w->kind == TARGET_UNIT ? "Unit" : "Container", f->unit[0] ? f->unit : w->arg);
        if (!f->pid) {
                printf("Thread:   none (no process runs in it)\n");
                return;
        }
        printf("Thread:   %d (%s) of process %d, %u thread(s), %u RT; uid %u; %s", (int) f->tid, f->comm,
               (int) f->pid, f->threads, f->rt_threads, (unsigned) f->uid, policy_name(f->policy));
        if (f->priority)
                printf(" %d", f->priority);
        printf("\n");
}

static void print_chain(const Why *w) {
        const HcbsWhyFacts *f = &w->f;
        const HcbsWhyNode *z = hcbs_why_first_zero(f), *ctx = hcbs_why_context(f);
        char v[96];
        int width = 0;

        if (!f->n_chain)
                return;
        printf("Cgroup:   %s%s%s\n", f->mount, f->n_chain > 1 ? "/" : "", f->chain[f->n_chain - 1].path);
        for (size_t i = 0; i < f->n_chain; i++)
                width = MAX(width, (int) strlen(f->chain[i].path) + 1);
        for (size_t i = 0; i < f->n_chain; i++)
                printf("          /%-*s  %s%s\n", width, f->chain[i].path, node_values(&f->chain[i], v, sizeof(v)),
                       &f->chain[i] == z     ? "   <- the first at 0"
                       : &f->chain[i] == ctx ? "   <- the reservation its max group runs on"
                                             : "");
}

static void print_facts(const Why *w) {
        const HcbsWhyFacts *f = &w->f;
        char a[32], b[32];

        print_target(w);
        print_chain(w);
        if (f->pid)
                printf("Limits:   RLIMIT_RTPRIO %s (hard %s), RLIMIT_RTTIME %s, CAP_SYS_NICE %s%s\n",
                       limit_str(f->rtprio_soft, a, sizeof(a)), limit_str(f->rtprio_hard, b, sizeof(b)),
                       f->rttime_soft_us == HCBS_WHY_UNLIMITED ? "unlimited" : hcbs_duration_format(f->rttime_soft_us, a),
                       f->cap_sys_nice ? "yes" : "no", f->seccomp_filter ? ", a seccomp filter" : "");
        if (f->unit[0])
                printf("Unit:     %s in %s (%s): RestrictRealtime=%s, LimitRTPRIO=%s, CPUSchedulingPolicy=%s%s\n",
                       f->unit, f->unit_slice[0] ? f->unit_slice : "-", f->unit_state[0] ? f->unit_state : "-",
                       f->restrict_realtime ? "yes" : "no", limit_str(f->unit_rtprio_soft, a, sizeof(a)),
                       policy_name(f->unit_policy) + strlen("SCHED_"),
                       f->unit_reserves ? ", reserves through hcbsd" : "");
        if (!f->hcbsd_running)
                printf("hcbsd:    not running\n");
        else if (f->managed == HCBS_WHY_NOT_MANAGED)
                printf("hcbsd:    does not manage this cgroup\n");
        else
                printf("hcbsd:    manages it: %s %s\n",
                       f->managed == HCBS_WHY_MANAGED_GROUP  ? "group"
                       : f->managed == HCBS_WHY_MANAGED_UNIT ? "the reservation of"
                                                             : "the reservation of container",
                       f->managed_name);
        printf("Kernel:   %s%s; kernel.sched_rt_runtime_us %" PRId64 " of %" PRIu64 "\n",
               hcbs_kernel_mode_to_string(f->mode.mode), f->mode_from_hcbsd ? " (hcbsd's)" : "", f->rt_runtime_us,
               f->rt_period_us);
}

static int print_text(const Why *w) {
        bool wrong = hcbs_why_any_wrong(w->causes, w->n_causes);

        print_facts(w);
        printf("\n");
        if (!wrong)
                printf("Nothing is wrong: %s\n", w->f.pid && (w->f.policy == SCHED_FIFO || w->f.policy == SCHED_RR)
                                                         ? "it runs real-time as set up"
                                                         : "it may become SCHED_FIFO/SCHED_RR");
        for (size_t i = 0; i < w->n_causes; i++) {
                const HcbsWhyCause *c = &w->causes[i];
                printf("%-7s %s: %s\n", c->kind == HCBS_WHY_BLOCKS ? "BLOCKS" : c->kind == HCBS_WHY_SHARE ? "SHARE" : "NOTE",
                       c->id, c->message);
                if (c->fix[0])
                        printf("        %s %s\n", c->hcbsd_can_fix ? "fix:" : "fix (not hcbsd's):", c->fix);
        }
        return wrong ? CTL_EXIT_REFUSED : CTL_EXIT_OK;
}

static void json_kv_signed(Json *j, const char *key, int64_t v) {
        json_key(j, key);
        if (v < 0)
                json_double(j, (double) v);
        else
                json_uint(j, (uint64_t) v);
}

static void json_kv_limit(Json *j, const char *key, uint64_t v) {
        json_key(j, key);
        if (v == HCBS_WHY_UNLIMITED)
                json_null(j);
        else
                json_uint(j, v);
}

static void print_json_thread(Json *j, const HcbsWhyFacts *f) {
        json_kv_uint(j, "pid", (uint64_t) f->pid);
        json_kv_uint(j, "tid", (uint64_t) f->tid);
        if (!f->pid)
                return;
        json_kv_string(j, "comm", f->comm);
        json_kv_uint(j, "uid", f->uid);
        json_kv_string(j, "policy", policy_name(f->policy));
        json_kv_uint(j, "priority", (uint64_t) f->priority);
        json_kv_uint(j, "threads", f->threads);
        json_kv_uint(j, "rt_threads", f->rt_threads);
        json_kv_bool(j, "cap_sys_nice", f->cap_sys_nice);
        json_kv_bool(j, "seccomp_filter", f->seccomp_filter);
        json_kv_limit(j, "rlimit_rtprio", f->rtprio_soft);
        json_kv_limit(j, "rlimit_rtprio_hard", f->rtprio_hard);
        json_kv_limit(j, "rlimit_rttime_us", f->rttime_soft_us);
        json_kv_limit(j, "rlimit_rttime_hard_us", f->rttime_hard_us);
}

static void print_json_chain(Json *j, const HcbsWhyFacts *f) {
        json_kv_string(j, "mount", f->mount);
        json_key(j, "chain");
        json_array_begin(j);
        for (size_t i = 0; i < f->n_chain; i++) {
                const HcbsWhyNode *n = &f->chain[i];
                json_object_begin(j);
                json_kv_string(j, "path", n->path);
                json_kv_bool(j, "rt_files", n->has_files);
                json_kv_bool(j, "max", n->max);
                json_kv_signed(j, "runtime_us", n->runtime_us);
                json_kv_uint(j, "period_us", n->period_us);
                json_object_end(j);
        }
        json_array_end(j);
        json_kv_string(j, "first_zero", hcbs_why_first_zero(f) ? hcbs_why_first_zero(f)->path : NULL);
        json_kv_string(j, "context", hcbs_why_context(f) ? hcbs_why_context(f)->path : NULL);
        json_kv_string(j, "busy_child", f->busy_child);
}

static void print_json_unit(Json *j, const HcbsWhyFacts *f) {
        json_key(j, "unit");
        if (!f->unit[0]) {
                json_null(j);
                return;
        }
        json_object_begin(j);
        json_kv_string(j, "name", f->unit);
        json_kv_string(j, "slice", f->unit_slice);
        json_kv_string(j, "state", f->unit_state);
        json_kv_bool(j, "restrict_realtime", f->restrict_realtime);
        json_kv_limit(j, "limit_rtprio", f->unit_rtprio_soft);
        json_kv_string(j, "cpu_scheduling_policy", policy_name(f->unit_policy));
        json_kv_uint(j, "cpu_scheduling_priority", (uint64_t) f->unit_priority);
        json_kv_bool(j, "reserves", f->unit_reserves);
        if (f->unit_reserves) {
                json_kv_uint(j, "runtime_us", f->unit_runtime_us);
                json_kv_uint(j, "period_us", f->unit_period_us);
        }
        json_kv_bool(j, "reservation_held", f->unit_reservation_held);
        json_object_end(j);
}

static const char *managed_name(HcbsWhyManaged m) {
        static const char *const names[] = { "no", "group", "unit", "container" };
        return names[m];
}

static void print_json_hcbsd(Json *j, const HcbsWhyFacts *f) {
        json_key(j, "hcbsd");
        json_object_begin(j);
        json_kv_bool(j, "running", f->hcbsd_running);
        json_kv_string(j, "managed", managed_name(f->managed));
        json_kv_string(j, "name", f->managed_name);
        if (f->have_stats) {
                json_kv_uint(j, "latency_count", f->latency_count);
                json_kv_uint(j, "latency_p99_ns", f->latency_p99_ns);
                json_kv_uint(j, "latency_max_ns", f->latency_max_ns);
                if (f->reservation_share >= 0)
                        json_kv_double(j, "reservation_share", f->reservation_share);
                if (f->have_exhaustions)
                        json_kv_uint(j, "budget_exhaustions", f->exhaustions);
        }
        json_object_end(j);
}

static int print_json(const Why *w) {
        const HcbsWhyFacts *f = &w->f;
        bool wrong = hcbs_why_any_wrong(w->causes, w->n_causes);
        Json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "target", w->arg);
        json_kv_string(&j, "kind", target_kinds[w->kind]);
        json_kv_bool(&j, "ok", !wrong);
        print_json_thread(&j, f);
        print_json_chain(&j, f);
        print_json_unit(&j, f);
        print_json_hcbsd(&j, f);
        json_kv_string(&j, "mode", hcbs_kernel_mode_to_string(f->mode.mode));
        json_kv_string(&j, "mode_reason", f->mode.reason);
        json_kv_string(&j, "mode_fix", f->mode.fix);
        json_kv_signed(&j, "sched_rt_runtime_us", f->rt_runtime_us);
        json_kv_uint(&j, "sched_rt_period_us", f->rt_period_us);
        json_key(&j, "causes");
        json_array_begin(&j);
        for (size_t i = 0; i < w->n_causes; i++) {
                const HcbsWhyCause *c = &w->causes[i];
                json_object_begin(&j);
                json_kv_string(&j, "id", c->id);
                json_kv_string(&j, "kind", hcbs_why_kind_to_string(c->kind));
                json_kv_string(&j, "message", c->message);
                json_kv_string(&j, "fix", c->fix);
                json_kv_bool(&j, "hcbsd_can_fix", c->hcbsd_can_fix);
                json_object_end(&j);
        }
        json_array_end(&j);
        json_object_end(&j);
        if (json_finish(&j) < 0)
                return ctl_fail(CTL_EXIT_REFUSED, "why: cannot write the JSON");
        return wrong ? CTL_EXIT_REFUSED : CTL_EXIT_OK;
}

/* ---- the verb ---- */

static int gather(Ctl *ctl, Why *w) {
        HcbsWhyFacts *f = &w->f;
        const char *prefix = kernel_facts_prefix();
        pid_t id;
        int r;

        if (ctl_connect_quietly(ctl) >= 0)
                (void) sd_bus_set_method_call_timeout(ctl->bus, 5 * 1000 * 1000);
        if (ctl->bus && why_ask_hcbsd(ctl, &w->h) < 0)
                return ctl_fail_errno(-ENOMEM, "why");
        r = kernel_facts_read(prefix, NULL, &w->k);
        if (r < 0)
                return ctl_fail_errno(r, "why: cannot read the kernel's facts");
        snprintf(f->mount, sizeof(f->mount), "%s", w->k.v1_rt_runtime ? w->k.v1_cpu_mount : w->k.v2_mount);
        take_mode(w);
        take_hcbsd_root(w);
        r = parse_id(w->arg, &id) ? resolve_process(w, id) : resolve_named(ctl, w, w->arg);
        if (r != CTL_EXIT_OK)
                return r;
        if (f->pid) {
                r = why_read_chain(prefix, &w->k, f->pid, f->tid, f);
                if (r == -ESRCH)
                        return ctl_fail(CTL_EXIT_NOT_FOUND, "why: %s ended while it was read", w->arg);
                if (r < 0)
                        return ctl_fail_errno(r, "why: cannot read its cgroup");
        }
        take_managed(w);
        /* a thread in one of hcbsd's groups was moved there: the unit that holds the cgroup is hcbsd's own */
        if (w->kind == TARGET_THREAD && ctl->bus && f->managed != HCBS_WHY_MANAGED_GROUP)
                (void) why_ask_systemd(ctl, f->pid, NULL, f, NULL, NULL);
        take_managed(w); /* again: the unit is known now */
        take_busy_child(ctl, w);
        if (ctl->bus && f->pid && f->uid != 0)
                f->rtkit = why_ask_rtkit(ctl);
        if (ctl->bus && f->managed != HCBS_WHY_NOT_MANAGED)
                (void) why_ask_stats(ctl, f->managed == HCBS_WHY_MANAGED_GROUP ? f->managed_name : f->unit, f);
        return CTL_EXIT_OK;
}

int verb_why(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_free_ Why *w = NULL;
        CtlParsed a;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 1, 1, &a);
        if (r != CTL_EXIT_OK || a.help)
                return r;
        w = calloc(1, sizeof(Why));
        if (!w)
                return ctl_fail_errno(-ENOMEM, "why");
        hcbs_why_facts_init(&w->f);
        w->arg = a.pos[0];
        r = gather(ctl, w);
        if (r == CTL_EXIT_OK) {
                w->n_causes = hcbs_why_diagnose(&w->f, w->causes, HCBS_WHY_CAUSES_MAX);
                r = ctl->json ? print_json(w) : print_text(w);
        }
        why_hcbsd_done(&w->h);
        return r;
}
