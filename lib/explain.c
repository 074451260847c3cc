/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"
#include "duration.h"
#include "explain.h"
#include "name.h"
#include "strutil.h"

#define NAME_BUF (HCBS_NAME_MAX + 32)
#define SIBLINGS_SHOWN 3

const char *hcbs_display_name(const HcbsNode *base, const HcbsNode *n, char *buf, size_t size) {
        if (base && hcbs_node_is_ancestor(base, n))
                snprintf(buf, size, "%s", n->path + (base->path[0] ? strlen(base->path) + 1 : 0));
        else if (n->is_kernel_root)
                snprintf(buf, size, "the root cgroup");
        else if (n == base)
                snprintf(buf, size, "hcbsd's root");
        else
                snprintf(buf, size, "cgroup /%s", n->path);
        return buf;
}

/* "video 16.0%, ui 2.0% and 3 more (1.0%)": the largest siblings of n first. */
static void describe_siblings(const HcbsNode *base, const HcbsNode *n, char *out, size_t size) {
        const HcbsNode *shown[SIBLINGS_SHOWN] = {};
        unsigned n_shown = 0, n_rest = 0;
        uint64_t rest = n->parent->foreign_bw;
        char name[NAME_BUF], pct[HCBS_BW_STRLEN];

        HCBS_NODE_FOREACH_CHILD(s, n->parent) {
                if (s == n || s->bw == 0)
                        continue;
                /* keep the SIBLINGS_SHOWN largest, in order */
                const HcbsNode *c = s;
                for (unsigned i = 0; i < SIBLINGS_SHOWN && c; i++)
                        if (!shown[i] || c->bw > shown[i]->bw) {
                                const HcbsNode *t = shown[i];
                                shown[i] = c;
                                c = t;
                        }
                if (c)
                        rest += c->bw, n_rest++;
        }
        out[0] = '\0';
        for (unsigned i = 0; i < SIBLINGS_SHOWN && shown[i]; i++, n_shown++)
                hcbs_strbuf_append(out, size, "%s%s %s", i ? ", " : "", hcbs_display_name(base, shown[i], name,
                                   sizeof(name)), hcbs_bw_format(shown[i]->bw, pct));
        if (n_rest > 0)
                hcbs_strbuf_append(out, size, " and %u more %s", n_rest, hcbs_bw_format(rest, pct));
        else if (n->parent->foreign_bw > 0)
                hcbs_strbuf_append(out, size, "%sother cgroups %s", n_shown ? " and " : "",
                                   hcbs_bw_format(n->parent->foreign_bw, pct));
}

static void explain_parent_full(const HcbsProfile *prof, const HcbsNode *base, const HcbsNode *n, uint64_t bw,
                                HcbsVerdict *v) {
        /* rtmax: a "max" parent passes the question to its context */
        const HcbsNode *p = hcbs_node_context(prof, n->parent);
        uint64_t others = p->children_bw - (hcbs_node_is_max(prof, n) ? n->children_bw : n->bw);
        uint64_t free_bw = p->bw > others ? p->bw - others : 0;
        char name[NAME_BUF], pname[NAME_BUF], sib[HCBS_MESSAGE_MAX / 2];
        char need[HCBS_BW_STRLEN], fr[HCBS_BW_STRLEN], tot[HCBS_BW_STRLEN];

        hcbs_display_name(base, n, name, sizeof(name));
        hcbs_display_name(base, p, pname, sizeof(pname));
        describe_siblings(base, n, sib, sizeof(sib));
        hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, EINVAL, "%s needs %s per CPU; %s%s has %s free: %s%s%s",
                         name, hcbs_bw_format(bw, need), p == base || p->is_kernel_root ? "" : "parent ", pname,
                         hcbs_bw_format(free_bw, fr), hcbs_bw_format(p->bw, tot), sib[0] ? " minus siblings " : "",
                         sib);
}

/* percpu_admission: n's share on CPU cpu of its context p, as a ratio of p's period (after the write, or before). */
static uint64_t cpu_share_bw(const HcbsModel *m, const HcbsNode *n, const HcbsNode *p, unsigned cpu, uint64_t period_us,
                             int64_t runtime_us) {
        uint64_t ref = p->period_us * HCBS_NSEC_PER_USEC, ns;

        if (runtime_us >= 0)
                ns = hcbs_cpuset_has(&n->effective, cpu) ? hcbs_cpu_share_ns(runtime_us, period_us, ref) : 0;
        else if (hcbs_node_is_max(hcbs_model_profile(m), n))
                ns = n->cpu_sum[cpu];
        else {
                uint64_t passed[hcbs_model_nr_cpus(m)];

                memset(passed, 0, sizeof(passed));
                hcbs_context_sum_add(m, n, ref, passed);
                ns = passed[cpu];
        }
        return hcbs_to_ratio(ref, ns);
}

/* "web needs 20.0% on CPU 3; parent rt has 5.0% free there" */
static void explain_parent_full_cpu(const HcbsModel *m, const HcbsNode *base, const HcbsNode *n, uint64_t period_us,
                                    int64_t runtime_us, unsigned cpu, HcbsVerdict *v) {
        const HcbsProfile *prof = hcbs_model_profile(m);
        const HcbsNode *p = hcbs_node_context(prof, n->parent);
        uint64_t mine = cpu_share_bw(m, n, p, cpu, n->period_us, n->runtime_us);
        uint64_t held = hcbs_to_ratio(p->period_us * HCBS_NSEC_PER_USEC, p->cpu_sum[cpu]);
        uint64_t others = held > mine ? held - mine : 0, free_bw = p->bw > others ? p->bw - others : 0;
        char name[NAME_BUF], pname[NAME_BUF], need[HCBS_BW_STRLEN], fr[HCBS_BW_STRLEN];

        hcbs_verdict_set(v, HCBS_E_INSUFFICIENT_BANDWIDTH, EINVAL, "%s needs %s on CPU %u; %s%s has %s free there",
                         hcbs_display_name(base, n, name, sizeof(name)),
                         hcbs_bw_format(cpu_share_bw(m, n, p, cpu, period_us, runtime_us), need), cpu,
                         p == base || p->is_kernel_root ? "" : "parent ", hcbs_display_name(base, p, pname, sizeof(pname)),
                         hcbs_bw_format(free_bw, fr));
}

void hcbs_explain(const HcbsModel *m, const HcbsNode *base, const HcbsNode *n, uint64_t period_us,
                  int64_t runtime_us, HcbsCheck c, HcbsVerdict *v) {
        const HcbsProfile *p = hcbs_model_profile(m);
        uint64_t bw = hcbs_bw(period_us, runtime_us);
        char name[NAME_BUF], other[NAME_BUF], a[HCBS_BW_STRLEN], b[HCBS_BW_STRLEN];
        char rt[HCBS_DURATION_STRLEN], per[HCBS_DURATION_STRLEN];
        HcbsError e = hcbs_reason_to_error(c.reason);
        int k = c.kernel_errno;

        hcbs_display_name(base, n, name, sizeof(name));
        if (runtime_us < 0)
                snprintf(rt, sizeof(rt), "unlimited");
        else
                hcbs_duration_format((uint64_t) runtime_us, rt);
        hcbs_duration_format(period_us, per);

        switch (c.reason) {
        case HCBS_REASON_NONE:
                hcbs_verdict_ok(v);
                break;
        case HCBS_REASON_PARENT_HAS_RT:
                hcbs_verdict_set(v, e, k,
                                 "%s holds %u RT task(s); RT tasks must sit in leaf groups, so %s cannot get runtime",
                                 hcbs_display_name(base, n->parent, other, sizeof(other)), n->parent->nrt, name);
                break;
        case HCBS_REASON_ROOT_ZERO:
                hcbs_verdict_set(v, e, k, "the root cgroup's runtime cannot be 0 on this kernel");
                break;
        case HCBS_REASON_PERIOD_ZERO:
                hcbs_verdict_set(v, e, k, "%s: the period must be greater than 0", name);
                break;
        case HCBS_REASON_RUNTIME_RANGE:
                hcbs_verdict_set(v, e, k, "%s: runtime %s is above the kernel's limit of %s", name, rt,
                                 hcbs_duration_format(HCBS_MAX_RT_RUNTIME_NS / HCBS_NSEC_PER_USEC, per));
                break;
        case HCBS_REASON_PERIOD_RANGE:
                hcbs_verdict_set(v, e, k, "%s: period %lluus is above the kernel's limit", name,
                                 (unsigned long long) period_us);
                break;
        case HCBS_REASON_RUNTIME_SMALL:
                hcbs_verdict_set(v, e, k, "%s: runtime %s is below the kernel's minimum of 1024ns", name, rt);
                break;
        case HCBS_REASON_ROOT_STALLED:
                hcbs_verdict_set(v, e, k,
                                 "the root cgroup holds RT tasks but its RT reserve (cpu.rt_runtime_us) is 0; "
                                 "raise it before configuring groups");
                break;
        case HCBS_REASON_PARENT_FULL:
                if (p->percpu_admission && c.cpu >= 0)
                        explain_parent_full_cpu(m, base, n, period_us, runtime_us, (unsigned) c.cpu, v);
                else
                        explain_parent_full(p, base, n, bw, v);
                break;
        case HCBS_REASON_RUNTIME_ABOVE_PERIOD:
                hcbs_verdict_set(v, e, k, "%s: runtime %s is longer than the period %s", name, rt, per);
                break;
        case HCBS_REASON_RT_TASKS:
                hcbs_verdict_set(v, e, k, "%s holds %u RT task(s); its runtime cannot drop to 0 while they run",
                                 name, n->nrt);
                break;
        case HCBS_REASON_GLOBAL_LIMIT:
                hcbs_verdict_set(v, e, k,
                                 "%s needs %s per CPU; no group may exceed the kernel's global limit of %s "
                                 "(kernel.sched_rt_runtime_us/sched_rt_period_us)",
                                 name, hcbs_bw_format(bw, a), hcbs_bw_format(hcbs_profile_global_bw(p), b));
                break;
        case HCBS_REASON_ROOT_RESERVE:
                hcbs_verdict_set(v, e, k,
                                 "the root RT reserve of %s per CPU does not fit beside SCHED_DEADLINE tasks "
                                 "and servers, which use %s of %s",
                                 hcbs_bw_format(bw, a), hcbs_bw_format(p->dl_total_bw / (p->dl_cpus ? p->dl_cpus : 1), b),
                                 hcbs_bw_format(p->dl_bw, other));
                break;
        case HCBS_REASON_ROOT_MAX:
                hcbs_verdict_set(v, e, k, "the root cgroup cannot be max: its reservation holds every group's");
                break;
        case HCBS_REASON_SWITCH_RT_TASKS:
                hcbs_verdict_set(v, e, k,
                                 "RT tasks run in %s or its max subgroups; it cannot switch between max and a "
                                 "reservation while they do",
                                 name);
                break;
        case HCBS_REASON_CHILDREN_EXCEED:
                if (p->percpu_admission && c.cpu >= 0) {
                        uint64_t held[hcbs_model_nr_cpus(m)];

                        memset(held, 0, sizeof(held));
                        hcbs_context_sum_add(m, n, period_us * HCBS_NSEC_PER_USEC, held);
                        hcbs_verdict_set(v, e, k, "%s would get %s on CPU %d, but its children already hold %s there",
                                         name, hcbs_bw_format(bw, a), c.cpu,
                                         hcbs_bw_format(hcbs_to_ratio(period_us * HCBS_NSEC_PER_USEC, held[c.cpu]), b));
                } else
                        hcbs_verdict_set(v, e, k, "%s would get %s per CPU, but its children already hold %s", name,
                                         hcbs_bw_format(bw, a), hcbs_bw_format(n->children_bw, b));
                break;
        case HCBS_REASON_CPUSET_POPULATED:
                hcbs_verdict_set(v, e, k,
                                 "%s runs processes, and cpuset keeps a list of CPUs for such a group: name its "
                                 "CPUs rather than all of its parent's",
                                 name);
                break;
        case HCBS_REASON_CPUSET_RESERVED:
                hcbs_verdict_set(v, e, k,
                                 "the CPUs of %s cannot change while it or a group below it holds a reservation; "
                                 "set them to max first",
                                 name);
                break;
        default:
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, k, "%s: refused (%s)", name, strerror(k));
        }
}
