/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "bandwidth.h"
#include "profile.h"

static const char *const iface_names[_HCBS_IFACE_MAX] = {
        [HCBS_IFACE_RFC1] = "rfc1",
        [HCBS_IFACE_RTMAX] = "rtmax",
        [HCBS_IFACE_LEGACY_V1] = "legacy-v1",
        [HCBS_IFACE_LEGACY_V2] = "legacy-v2",
};

const char *hcbs_interface_to_string(HcbsInterface i) {
        return (unsigned) i < _HCBS_IFACE_MAX ? iface_names[i] : NULL;
}

int hcbs_interface_from_string(const char *s) {
        for (int i = 0; i < _HCBS_IFACE_MAX; i++)
                if (strcmp(s, iface_names[i]) == 0)
                        return i;
        return -EINVAL;
}

void hcbs_profile_set_global(HcbsProfile *p, int64_t runtime_us, uint64_t period_us) {
        p->global_runtime_us = runtime_us;
        p->global_period_us = period_us;
        /* sched_dl_do_global(): dl_b->bw = to_ratio(global period, global runtime), -1 if unlimited */
        p->dl_bw = runtime_us < 0 ? UINT64_MAX : hcbs_bw(period_us, runtime_us);
}

void hcbs_profile_init(HcbsProfile *p, HcbsInterface iface) {
        bool hcbs = iface == HCBS_IFACE_RFC1 || iface == HCBS_IFACE_RTMAX;

        *p = (HcbsProfile) {
                .interface = iface,
                .new_group_global_period = !hcbs,
                .root_runtime_nonzero = !hcbs,
                .dl_limits = hcbs,
                .ebusy_needs_old_runtime = !hcbs,
                .root_reserve = hcbs,
                .leaf_only = hcbs,
                .atomic_write = iface == HCBS_IFACE_RTMAX,
                .max_delegation = iface == HCBS_IFACE_RTMAX,
                .dl_period_range = iface == HCBS_IFACE_RTMAX,
                /* kernel/sched/fair.c fair_server_init(): runtime 50ms, period 1s */
                .dl_server_bw = hcbs_bw(1000000, 50000),
                /* kernel/sched/deadline.c: sysctl_sched_dl_period_{min,max} */
                .dl_period_min_us = 100,
                .dl_period_max_us = UINT64_C(1) << 22,
        };
        /* rtmax has no leaf-only rule (v6 cover letter: internal tasks run on what children leave) */
        if (iface == HCBS_IFACE_RTMAX) {
                p->leaf_only = false;
                p->revision = 6;
        }
        /* one CPU, without its fair server's load */
        p->dl_cpus = 1;
        hcbs_cpuset_add(&p->online, 0);
        /* the default machine (a v6 kernel defaults to 1000000: hcbsd reads the sysctls) */
        hcbs_profile_set_global(p, 950000, 1000000);
}

int hcbs_profile_set_revision(HcbsProfile *p, unsigned revision) {
        if (p->interface != HCBS_IFACE_RTMAX || revision < 6 || revision > 7)
                return -EINVAL;
        p->revision = revision;
        p->percpu_admission = p->cpuset_coupling = revision >= 7;
        return 0;
}

void hcbs_profile_set_online(HcbsProfile *p, const HcbsCpuSet *online) {
        unsigned cpus = hcbs_cpuset_count(online);

        p->online = *online;
        p->dl_cpus = cpus;
        p->dl_total_bw = cpus * p->dl_server_bw;
}

void hcbs_profile_set_cpus(HcbsProfile *p, unsigned cpus) {
        HcbsCpuSet online = {};

        for (unsigned c = 0; c < cpus && c < HCBS_CPUS_MAX; c++)
                hcbs_cpuset_add(&online, c);
        hcbs_profile_set_online(p, &online);
}

uint64_t hcbs_profile_global_bw(const HcbsProfile *p) {
        return hcbs_bw(p->global_period_us, p->global_runtime_us);
}
