/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel-mode.h"
#include "macro.h"

static const char *const mode_names[_HCBS_MODE_MAX] = {
        [HCBS_MODE_HCBS_RFC1] = "hcbs-rfc1",
        [HCBS_MODE_HCBS_RTMAX] = "hcbs-rtmax",
        [HCBS_MODE_MAINLINE_V1] = "mainline-v1",
        [HCBS_MODE_MAINLINE_V2] = "mainline-v2",
        [HCBS_MODE_UNLIMITED] = "unlimited",
        [HCBS_MODE_MAINLINE_V1_ONLY] = "mainline-v1-only",
        [HCBS_MODE_SWITCH_OFF] = "switch-off",
        [HCBS_MODE_NONE] = "none",
        [HCBS_MODE_NO_CPU_CONTROLLER] = "no-cpu-controller",
};

/* What to boot when the kernel has nothing for hcbsd: said the same way by every case. */
#define HCBS_KERNEL_HINT \
        "the project's HCBS kernel (patches/hcbs-rfc1-6.12, 'make kernel'; try it under qemu with 'make demo KERNEL=hcbs')"

const char *hcbs_kernel_mode_to_string(HcbsKernelMode m) {
        return (unsigned) m < _HCBS_MODE_MAX ? mode_names[m] : NULL;
}

int hcbs_kernel_mode_from_string(const char *s) {
        for (int i = 0; i < _HCBS_MODE_MAX; i++)
                if (strcmp(s, mode_names[i]) == 0)
                        return i;
        return -EINVAL;
}

void hcbs_kernel_facts_init(HcbsKernelFacts *f) {
        *f = (HcbsKernelFacts) {
                .cpu_enabled = HCBS_TRI_UNKNOWN,
                .config_rt_group_sched = HCBS_TRI_UNKNOWN,
                .has_switch = HCBS_TRI_UNKNOWN,
                .cmdline_switch = -1,
                .probed = -1,
        };
}

_printf_(3, 4) static void put(char *buf, size_t len, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, len, fmt, ap);
        va_end(ap);
}

#define REASON(v, ...) put((v)->reason, sizeof((v)->reason), __VA_ARGS__)
#define FIX(v, ...) put((v)->fix, sizeof((v)->fix), __VA_ARGS__)

static void unusable(HcbsKernelVerdict *v, HcbsKernelMode mode) {
        v->mode = mode;
        v->usable = false;
        v->guaranteed = false;
}

static const char *release_or(const HcbsKernelFacts *f) {
        return f->release[0] ? f->release : "this kernel";
}

/* The parenthesis naming where the build facts come from, or "". */
static void source_note(const HcbsKernelFacts *f, char *buf, size_t len) {
        if (f->config_source[0])
                snprintf(buf, len, " (%s)", f->config_source);
        else
                buf[0] = '\0';
}

static bool switch_off(const HcbsKernelFacts *f) {
        if (f->config_rt_group_sched == HCBS_TRI_NO || f->has_switch == HCBS_TRI_NO)
                return false;
        return f->cmdline_switch == 0 || (f->default_disabled && f->cmdline_switch != 1);
}

/* No hierarchy has RT files: why not. */
static void decide_no_files(const HcbsKernelFacts *f, HcbsKernelVerdict *v) {
        char src[HCBS_FACTS_PATH_MAX + 4];

        source_note(f, src, sizeof(src));
        if (switch_off(f)) {
                unusable(v, HCBS_MODE_SWITCH_OFF);
                if (f->cmdline_switch == 0)
                        REASON(v, "rt_group_sched=0 on the kernel command line turns RT group scheduling off: "
                                  "no cgroup has cpu.rt_runtime_us");
                else
                        REASON(v, "%s is built with CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED%s: RT group scheduling "
                                  "is off unless the kernel is booted with rt_group_sched=1",
                               release_or(f), src);
                FIX(v, "boot with rt_group_sched=1 on the kernel command line (GRUB_CMDLINE_LINUX in "
                       "/etc/default/grub, then update-grub)");
                return;
        }
        if (f->config_rt_group_sched == HCBS_TRI_YES && f->v2_has_cpu && !f->v1_cpu_mount[0]) {
                unusable(v, HCBS_MODE_MAINLINE_V1_ONLY);
                REASON(v, "%s has CONFIG_RT_GROUP_SCHED%s, mainline RT group scheduling, whose cpu.rt_runtime_us "
                          "exists on cgroup v1 only, and the cpu controller is on cgroup v2 here: nothing can be "
                          "configured, and every cgroup but the root has RT runtime 0, so RT threads in services "
                          "are refused (EPERM)",
                       release_or(f), src);
                FIX(v, "boot %s, or mount the cpu controller on cgroup v1 (systemd.unified_cgroup_hierarchy=0 on "
                       "the kernel command line, systemd before 256)",
                    HCBS_KERNEL_HINT);
                return;
        }
        if (f->config_rt_group_sched == HCBS_TRI_YES && !f->v2_has_cpu && !f->v1_cpu_mount[0]) {
                unusable(v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(v, "%s has RT group scheduling%s, but the cpu controller is mounted on no cgroup hierarchy",
                       release_or(f), src);
                FIX(v, "mount it: mkdir -p /sys/fs/cgroup/cpu && mount -t cgroup -o cpu cgroup /sys/fs/cgroup/cpu");
                return;
        }
        unusable(v, HCBS_MODE_NONE);
        if (f->config_rt_group_sched == HCBS_TRI_NO)
                REASON(v, "%s was built without CONFIG_RT_GROUP_SCHED%s: it has no RT group scheduling",
                       release_or(f), src);
        else
                REASON(v, "no cgroup hierarchy has cpu.rt_runtime_us or cpu.rt.max, and %s does not say why "
                          "(no /boot/config-%s, no /proc/kallsyms): it was most likely built without "
                          "CONFIG_RT_GROUP_SCHED",
                       release_or(f), f->release[0] ? f->release : "RELEASE");
        FIX(v, "boot %s, or a kernel built with CONFIG_RT_GROUP_SCHED=y", HCBS_KERNEL_HINT);
}

/* hcbsd's root, when given, must live where the RT files are. Returns true when it does. */
static bool decide_root(const HcbsKernelFacts *f, HcbsKernelVerdict *v) {
        bool v2_files = f->v2_rt_runtime || f->v2_rt_max;

        if (!f->root[0])
                return true;
        if (!f->root_mount[0]) {
                unusable(v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(v, "hcbsd's cgroup root %s is not in a cgroup file system", f->root);
                FIX(v, "CgroupRoot=auto in hcbsd.conf (or a path below %s)",
                    v2_files ? f->v2_mount : f->v1_cpu_mount);
                return false;
        }
        if (f->root_mount_v2 && !v2_files) {
                unusable(v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(v, "hcbsd's cgroup root %s is on cgroup v2, but this kernel's RT files are on the cgroup-v1 "
                          "cpu hierarchy %s",
                       f->root, f->v1_cpu_mount);
                FIX(v, "CgroupRoot=auto in hcbsd.conf (or a path below %s)", f->v1_cpu_mount);
                return false;
        }
        if (!f->root_mount_v2 && (!f->root_mount_has_cpu || !f->v1_rt_runtime)) {
                unusable(v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(v, "hcbsd's cgroup root %s is on the cgroup-v1 hierarchy %s, which has no %s", f->root,
                       f->root_mount, f->root_mount_has_cpu ? "RT files" : "cpu controller");
                FIX(v, "CgroupRoot=auto in hcbsd.conf (or a path below %s)",
                    v2_files ? f->v2_mount : f->v1_cpu_mount[0] ? f->v1_cpu_mount : "the cpu hierarchy");
                return false;
        }
        if (f->root_mount_v2 && !f->anchor_has_cpu) {
                unusable(v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(v, "the cpu controller is not enabled for %s (hcbsd's cgroup root %s lives there): its "
                          "parent's cgroup.subtree_control has no cpu, so it has no RT files",
                       f->root_anchor, f->root);
                FIX(v, "echo +cpu > the cgroup.subtree_control of each cgroup above %s (under systemd: "
                       "Delegate=yes for hcbsd.service, CPUWeight= on its slice), or CgroupRoot=auto",
                    f->root_anchor);
                return false;
        }
        return true;
}

static HcbsInterface decide_interface(const HcbsKernelFacts *f) {
        bool v2 = f->root[0] ? f->root_mount_v2 : f->v2_rt_runtime || f->v2_rt_max;

        if (!v2)
                return HCBS_IFACE_LEGACY_V1;
        if (f->v2_rt_max)
                return HCBS_IFACE_RTMAX;
        return f->probed == HCBS_IFACE_LEGACY_V2 ? HCBS_IFACE_LEGACY_V2 : HCBS_IFACE_RFC1;
}

static void decide_usable(const HcbsKernelFacts *f, HcbsKernelVerdict *v) {
        static const HcbsKernelMode modes[_HCBS_IFACE_MAX] = {
                [HCBS_IFACE_RFC1] = HCBS_MODE_HCBS_RFC1,
                [HCBS_IFACE_RTMAX] = HCBS_MODE_HCBS_RTMAX,
                [HCBS_IFACE_LEGACY_V1] = HCBS_MODE_MAINLINE_V1,
                [HCBS_IFACE_LEGACY_V2] = HCBS_MODE_MAINLINE_V2,
        };
        HcbsInterface iface = decide_interface(f);

        v->iface = iface;
        v->usable = true;
        v->mode = modes[iface];
        v->guaranteed = iface == HCBS_IFACE_RFC1 || iface == HCBS_IFACE_RTMAX;
        switch (iface) {
        case HCBS_IFACE_RFC1:
                REASON(v, "HCBS (RFC v1: cpu.rt_runtime_us on cgroup v2): a group's runtime is a hard reservation "
                          "on every CPU, served by deadline servers");
                break;
        case HCBS_IFACE_RTMAX:
                REASON(v, "HCBS (v6: cpu.rt.max on cgroup v2): a group's runtime is a hard reservation on every "
                          "CPU, served by deadline servers");
                break;
        case HCBS_IFACE_LEGACY_V1:
                REASON(v, "mainline RT group scheduling on the cgroup-v1 cpu hierarchy %s: the kernel's admission "
                          "rules and RT throttling, not HCBS's reservations",
                       f->v1_cpu_mount[0] ? f->v1_cpu_mount : "");
                break;
        default:
                REASON(v, "mainline RT group rules behind cgroup-v2 files (the project's stage-1 kernel): the "
                          "kernel's admission rules and RT throttling, not HCBS's reservations");
                break;
        }
        if (f->have_sysctls && f->rt_runtime_us < 0) {
                v->mode = HCBS_MODE_UNLIMITED;
                v->guaranteed = false;
                REASON(v, "kernel.sched_rt_runtime_us is -1: the kernel does no RT admission control, so nothing "
                          "hcbsd reserves is guaranteed (interface %s)",
                       hcbs_interface_to_string(iface));
                FIX(v, "sysctl kernel.sched_rt_runtime_us=%" PRIu64 " (the default, 95%% of the period)",
                    f->rt_period_us / 100 * 95);
        }
}

void hcbs_kernel_mode_decide(const HcbsKernelFacts *f, HcbsKernelVerdict *ret) {
        HcbsKernelVerdict v = { .iface = _HCBS_IFACE_MAX };

        if (f->cpu_enabled == HCBS_TRI_NO || f->cmdline_cpu_disabled) {
                unusable(&v, HCBS_MODE_NO_CPU_CONTROLLER);
                REASON(&v, "the cpu controller is disabled%s: no cgroup has RT files",
                       f->cmdline_cpu_disabled ? " by cgroup_disable=cpu on the kernel command line" : "");
                FIX(&v, "remove cgroup_disable=cpu from the kernel command line and reboot");
        } else if (!f->v2_rt_runtime && !f->v2_rt_max && !f->v1_rt_runtime)
                decide_no_files(f, &v);
        else if (decide_root(f, &v))
                decide_usable(f, &v);
        *ret = v;
}
