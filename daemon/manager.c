/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "bandwidth.h"
#include "config.h"
#include "delegate.h"
#include "journal.h"
#include "kernel-facts.h"
#include "log.h"
#include "manager-internal.h"
#include "manager-observe.h"
#include "manager-stats.h"
#include "message-ids.h"
#include "name.h"
#include "persist.h"
#include "strutil.h"

#define DEFAULT_V2_ROOT "/sys/fs/cgroup/hcbs"
#define DEFAULT_V1_ROOT "/sys/fs/cgroup/cpu/hcbs"

static void options_done(ManagerOptions *o) {
        free(o->bus_address);
        free(o->cgroup_root);
        free(o->interface);
        free(o->config_path);
        free(o->config_dir);
        free(o->state_dir);
        free(o->runtime_dir);
}

static int strdup_opt(char **dst, const char *src) {
        if (!src)
                return 0;
        *dst = strdup(src);
        return *dst ? 0 : -ENOMEM;
}

int manager_new(const ManagerOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(Manager));
        int r = 0;

        if (!m)
                return -ENOMEM;
        hcbs_conf_init(&m->conf);
        m->opts.notify = opts->notify;
        r |= strdup_opt(&m->opts.bus_address, opts->bus_address);
        r |= strdup_opt(&m->opts.cgroup_root, opts->cgroup_root);
        r |= strdup_opt(&m->opts.interface, opts->interface);
        r |= strdup_opt(&m->opts.config_path, opts->config_path);
        r |= strdup_opt(&m->opts.config_dir, opts->config_dir);
        r |= strdup_opt(&m->opts.state_dir, opts->state_dir);
        r |= strdup_opt(&m->opts.runtime_dir, opts->runtime_dir);
        if (r < 0)
                return -ENOMEM;
        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        r = analyses_new(m->event, &m->analyses);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        manager_observations_stop(m); /* before the analyses: an observation's end may start one */
        manager_analyses_stop(m);
        manager_stats_stop(m);
        m->journal = journal_close(m->journal); /* no plan in progress: the file goes */
        manager_pool_unwatch(m);
        origins_done(&m->origins);
        persist_groups_free(m->persist_kept, m->n_persist_kept);
        manager_set_changes_listener(m, NULL, NULL);
        manager_pools_free(m);
        for (size_t i = 0; i < m->n_raised; i++)
                free(m->raised[i].path);
        free(m->raised);
        manager_tree_free(m);
        cgroupfs_free(m->fs);
        sd_event_source_unref(m->notify_source);
        sd_event_unref(m->event);
        free(m->mount);
        free(m->root_path);
        free(m->own_cgroup);
        hcbs_conf_done(&m->conf);
        options_done(&m->opts);
        free(m);
        return NULL;
}

const char *manager_root_rel(const Manager *m) {
        const char *rel = m->root_path + strlen(m->mount);
        while (*rel == '/')
                rel++;
        return rel;
}

const char *manager_state_dir(const Manager *m) {
        return m->opts.state_dir ? m->opts.state_dir : HCBS_STATEDIR;
}

const char *manager_runtime_dir(const Manager *m) {
        const char *env = m->opts.runtime_dir ? NULL : getenv("RUNTIME_DIRECTORY"); /* systemd's RuntimeDirectory= */
        return m->opts.runtime_dir ? m->opts.runtime_dir : env && env[0] == '/' && !strchr(env, ':') ? env
                                                                                                       : HCBS_RUNTIMEDIR;
}

HcbsNode *manager_capacity_node(const Manager *m) {
        return m->admission.pool ? m->admission.pool : m->admission.base;
}

void manager_capacity(const Manager *m, int64_t *ret_runtime_us, uint64_t *ret_period_us) {
        const HcbsNode *base = m->admission.base;
        uint64_t runtime;

        /* a pool holds what is in use, up to Capacity=; hcbsd's root holds all of it */
        if (m->admission.pool && hcbs_runtime_for_bw(m->conf.capacity_period_us, m->conf.capacity_bw, &runtime) >= 0) {
                *ret_runtime_us = (int64_t) runtime;
                *ret_period_us = m->conf.capacity_period_us;
        } else {
                *ret_runtime_us = base->runtime_us;
                *ret_period_us = base->period_us;
        }
}

size_t manager_group_count(const Manager *m) {
        /* not the path down to the base, nor (with a pool) the units' and containers' cgroups beside it */
        return m->admission.base->n_descendants;
}

int manager_analysis_start(Manager *m, uid_t uid, AnalysisRunFn run, AnalysisDoneFn done, void *job, Analysis **ret,
                           HcbsVerdict *v) {
        unsigned cpus = m->model ? hcbs_model_profile(m->model)->dl_cpus : 0;

        if (!m->analyses)
                return -ESHUTDOWN;
        return analyses_start(m->analyses, uid, MAX(cpus, 1u), run, done, job, ret, v);
}

void manager_analyses_stop(Manager *m) {
        m->analyses = analyses_free(m->analyses);
}

size_t manager_pool_count(const Manager *m) {
        return m->admission.pool ? 1 + m->n_pools : 0;
}

HcbsNode *manager_pool_node(const Manager *m, size_t i) {
        assert(i < manager_pool_count(m));
        return i == 0 ? m->admission.pool : m->pools[i - 1].pool.node;
}

HcbsPool manager_pool_of_node(const Manager *m, const HcbsNode *n) {
        if (n->parent && n->parent == m->admission.pool)
                return (HcbsPool) { .node = m->admission.pool, .cap_bw = m->admission.pool_cap_bw };
        for (size_t i = 0; n->parent && i < m->n_pools; i++)
                if (n->parent == m->pools[i].pool.node)
                        return m->pools[i].pool;
        return (HcbsPool) {};
}

bool manager_in_a_pool(const Manager *m, const HcbsNode *n) {
        return manager_pool_of_node(m, n).node != NULL;
}

bool manager_is_group(const Manager *m, const HcbsNode *n) {
        return hcbs_node_is_ancestor(m->admission.base, n);
}

const char *manager_group_name(const Manager *m, const HcbsNode *n) {
        const HcbsNode *base = m->admission.base;
        if (!manager_is_group(m, n))
                return "";
        return n->path + (base->path[0] ? strlen(base->path) + 1 : 0);
}

static int load_config(Manager *m) {
        char err[512] = "";
        int r;

        hcbs_conf_done(&m->conf);
        hcbs_conf_init(&m->conf);
        r = hcbs_conf_load(&m->conf, m->opts.config_path, m->opts.config_dir, err, sizeof(err));
        if (r < 0)
                return log_error_errno(r, "Configuration: %s", err);
        return 0;
}

/*
 * CgroupRoot=auto: on a cgroup-v2 kernel with RT files, our delegated
 * cgroup's groups/ when systemd runs us, else /sys/fs/cgroup/hcbs; without
 * them the v1 cpu hierarchy.
 */
static int resolve_root(Manager *m) {
        const char *root = m->opts.cgroup_root ? m->opts.cgroup_root : m->conf.cgroup_root;
        HcbsInterface iface;
        int r;

        if (root && strcmp(root, "auto") != 0) {
                /* tests/integration/test-units.sh: a delegated cgroup and its pool, on a host without systemd */
                const char *own = secure_getenv("HCBS_TEST_OWN_CGROUP");
                if (own && !(m->own_cgroup = strdup(own)))
                        return -ENOMEM;
                m->root_path = strdup(root);
        } else if (cgroupfs_detect("/sys/fs/cgroup", &iface, NULL, 0) >= 0) {
                r = delegate_detect(&m->own_cgroup);
                if (r < 0)
                        return log_error_errno(r, "Cannot read our own cgroup: %m");
                if (r > 0)
                        r = asprintf(&m->root_path, "/sys/fs/cgroup/%s/" DELEGATE_GROUPS, m->own_cgroup);
                else
                        m->root_path = strdup(DEFAULT_V2_ROOT);
                if (r < 0)
                        m->root_path = NULL;
        } else
                m->root_path = strdup(DEFAULT_V1_ROOT);
        if (!m->root_path)
                return -ENOMEM;
        if (m->root_path[0] != '/')
                return log_error_errno(-EINVAL, "CgroupRoot=%s is not an absolute path", m->root_path);
        return 0;
}

static const char *wanted_interface(const Manager *m) {
        const char *want = m->opts.interface ? m->opts.interface : m->conf.interface;
        return want && strcmp(want, "auto") != 0 ? want : NULL;
}

/* rtmax: v6 or the devel-v7 interface, told by hcbsd's root's files (the root cgroup has neither). */
static void probe_revision(Manager *m) {
        int r;

        if (m->iface != HCBS_IFACE_RTMAX)
                return;
        m->revision = 6;
        r = cgroupfs_rtmax_revision(m->fs, manager_root_rel(m), &m->revision);
        if (r < 0)
                log_warning_errno(r, "Neither cpu.rt.max.effective.local nor cpu.rt.internal in %s: taking the v6 "
                                  "rules: %m", m->root_path);
        cgroupfs_set_revision(m->fs, m->revision);
}

/* cgroup v2 with cpu.rt_runtime_us: HCBS, or mainline rules behind the same files? */
static int probe_rules(Manager *m) {
        HcbsInterface iface;
        int r;

        probe_revision(m);
        if (m->iface != HCBS_IFACE_RFC1 || wanted_interface(m))
                return 0;
        r = cgroupfs_probe_v2_rules(m->fs, manager_root_rel(m), &iface);
        if (r < 0)
                return log_error_errno(r, "Cannot probe the RT rules below %s: %m", m->root_path);
        if (iface != m->iface) {
                log_info("New groups start at the global period: mainline rules behind v2 files (%s)",
                         hcbs_interface_to_string(iface));
                m->iface = iface;
                cgroupfs_set_interface(m->fs, iface);
        }
        return 0;
}

void manager_kernel_mode(const Manager *m, HcbsKernelVerdict *ret) {
        HcbsKernelFacts f = m->kernel_facts;

        kernel_facts_read_sysctls(kernel_facts_prefix(), &f);
        hcbs_kernel_mode_decide(&f, ret);
}

/* Reads the kernel's facts for hcbsd's root and refuses, in one line with the fix, where hcbsd cannot work. */
static int check_kernel_mode(Manager *m) {
        HcbsKernelVerdict v;
        int r;

        r = kernel_facts_read(kernel_facts_prefix(), m->root_path, &m->kernel_facts);
        if (r < 0)
                return log_error_errno(r, "Cannot read the kernel's cgroup facts: %m");
        hcbs_kernel_mode_decide(&m->kernel_facts, &v);
        if (v.usable)
                return 0;
        return log_struct_errno(LOG_ERR, -EOPNOTSUPP, HCBS_MESSAGE_KERNEL_MODE,
                                &(LogFields) { .mode = hcbs_kernel_mode_to_string(v.mode), .root = m->root_path },
                                "hcbsd cannot work on this kernel (mode %s): %s. Fix: %s",
                                hcbs_kernel_mode_to_string(v.mode), v.reason, v.fix);
}

/* The mode once the rules are known: an info line, or a warning when nothing is guaranteed. */
static void log_kernel_mode(Manager *m) {
        HcbsKernelVerdict v;

        manager_kernel_mode(m, &v);
        if (v.mode == HCBS_MODE_UNLIMITED)
                log_struct(LOG_WARNING, HCBS_MESSAGE_KERNEL_MODE,
                           &(LogFields) { .mode = hcbs_kernel_mode_to_string(v.mode), .root = m->root_path },
                           "Mode %s: %s. Fix: %s", hcbs_kernel_mode_to_string(v.mode), v.reason, v.fix);
        else
                log_info("Mode %s: %s", hcbs_kernel_mode_to_string(v.mode), v.reason);
}

static int open_kernel(Manager *m) {
        const char *want = wanted_interface(m);
        char why[512];
        int r;

        r = check_kernel_mode(m);
        if (r < 0)
                return r;
        r = cgroupfs_find_mount(m->root_path, &m->mount);
        if (r < 0)
                return log_error_errno(r, "Cannot find the cgroup mount holding %s: %m", m->root_path);
        r = cgroupfs_detect(m->mount, &m->iface, why, sizeof(why));
        if (r < 0)
                return log_error_errno(r, "No RT group scheduling: %s", why);
        if (want) {
                r = hcbs_interface_from_string(want);
                if (r < 0)
                        return log_error_errno(r, "Unknown interface '%s'", want);
                if ((HcbsInterface) r != m->iface)
                        log_warning("Interface forced to %s; the kernel looks like %s", want,
                                    hcbs_interface_to_string(m->iface));
                m->iface = (HcbsInterface) r;
        }
        r = cgroupfs_open(m->mount, m->iface, &m->fs);
        if (r < 0)
                return log_error_errno(r, "Cannot open %s: %m", m->mount);
        return 0;
}

/* As root, on cgroup-v2 RT files of the machine itself: HCBS's rules or mainline's, as start-up probes. */
static void check_probe(Manager *m, HcbsKernelFacts *f) {
        _cleanup_(cgroupfs_freep) CgroupFs *fs = NULL;
        _cleanup_free_ char *mount = NULL;
        HcbsInterface iface;

        if (!f->v2_rt_runtime || f->v2_rt_max || kernel_facts_prefix()[0] || geteuid() != 0)
                return;
        if (cgroupfs_find_mount(m->root_path, &mount) < 0 || cgroupfs_open(mount, HCBS_IFACE_RFC1, &fs) < 0 ||
            cgroupfs_probe_v2_rules(fs, "", &iface) < 0)
                return;
        f->probed = (int) iface;
}

int manager_check_kernel(Manager *m, HcbsKernelVerdict *ret) {
        int r;

        r = load_config(m);
        if (r >= 0)
                r = resolve_root(m);
        if (r >= 0)
                r = kernel_facts_read(kernel_facts_prefix(), m->root_path, &m->kernel_facts);
        if (r < 0)
                return r;
        hcbs_kernel_mode_decide(&m->kernel_facts, ret);
        if (ret->usable) {
                check_probe(m, &m->kernel_facts);
                hcbs_kernel_mode_decide(&m->kernel_facts, ret);
        }
        return 0;
}

static int startup_model(Manager *m) {
        int r = manager_build_model(m);
        if (r < 0)
                return r;
        m->admission = (HcbsAdmission) {
                .model = m->model,
                .base = m->admission.base,
                .pool = m->admission.pool,
                .pool_cap_bw = m->conf.capacity_bw,
                .min_period_us = m->conf.min_period_us,
                .max_period_us = m->conf.max_period_us,
        };
        return 0;
}

/* Undoes a plan that a crash interrupted, before anything is adopted. */
static int replay_journal(Manager *m) {
        _cleanup_free_ char *pool = m->own_cgroup ? delegate_pool_of(m->own_cgroup) : NULL;
        JournalScope scope = { .root = manager_root_rel(m), .pool = pool };
        int r;

        r = journal_replay(manager_runtime_dir(m), m->fs, &scope);
        if (r < 0)
                return log_error_errno(r, "Cannot forget the interrupted plan in %s: %m", manager_runtime_dir(m));
        return 0;
}

int manager_startup(Manager *m) {
        int r;

        r = load_config(m);
        if (r < 0)
                return r;
        r = resolve_root(m);
        if (r < 0)
                return r;
        r = open_kernel(m);
        if (r < 0)
                return r;
        r = replay_journal(m);
        if (r < 0)
                return r;
        r = manager_ensure_root(m);
        if (r < 0)
                return r;
        r = probe_rules(m);
        if (r < 0)
                return r;
        if (m->iface == HCBS_IFACE_RTMAX)
                log_info("Kernel interface %s (revision %u%s) on %s", hcbs_interface_to_string(m->iface), m->revision,
                         m->revision >= 7 ? ": reservations follow cpusets" : "", m->mount);
        else
                log_info("Kernel interface %s on %s", hcbs_interface_to_string(m->iface), m->mount);
        m->kernel_facts.probed = (int) m->iface;
        log_kernel_mode(m);
        /* before adoption: each group is counted as it is found, and libbpf's two copies of the
         * kernel's BTF (11 MB on 6.18) are freed before the model grows, so the peaks do not add up */
        r = manager_stats_start(m);
        if (r < 0)
                return r;
        r = startup_model(m);
        if (r < 0)
                return r;
        manager_origins_load(m);
        r = manager_apply_capacity(m);
        if (r < 0)
                return r;
        r = manager_pool_watch(m);
        if (r < 0)
                return r;
        manager_apply_declared(m);
        return manager_apply_persistent(m);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        HcbsVerdict v;
        int r;

        if (si->ssi_signo == SIGHUP) {
                log_info("SIGHUP: reloading the configuration");
                r = manager_reload(m, &v);
                if (r > 0)
                        log_warning("Reload: %s", v.message);
                else if (r < 0)
                        log_warning_errno(r, "Reload failed: %m");
                return 0;
        }
        log_info("Signal %d: exiting", (int) si->ssi_signo);
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static const int manager_signals[] = { SIGTERM, SIGINT, SIGHUP };

int manager_block_signals(void) {
        sigset_t mask;

        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(manager_signals); i++)
                sigaddset(&mask, manager_signals[i]);
        return sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ? -errno : 0;
}

/* The signals are blocked since main() (manager_block_signals): one that came during start-up is served now. */
static int setup_signals(Manager *m) {
        const int *signals = manager_signals;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(manager_signals); i++) {
                sd_event_source *s;
                r = sd_event_add_signal(m->event, &s, signals[i], on_signal, m);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(s, "signal");
                r = sd_event_source_set_floating(s, true);
                sd_event_source_unref(s);
                if (r < 0)
                        return r;
        }
        return 0;
}

int manager_run(Manager *m) {
        int64_t cap_runtime;
        uint64_t cap_period;
        int r;

        assert(m);
        r = setup_signals(m);
        if (r < 0)
                return log_error_errno(r, "Cannot set up signal handling: %m");
        r = manager_notify_ready(m);
        if (r < 0)
                return r;
        manager_capacity(m, &cap_runtime, &cap_period);
        log_info("Ready: %s, capacity %" PRId64 "us/%" PRIu64 "us", m->root_path, cap_runtime, cap_period);
        r = sd_event_loop(m->event);
        manager_notify_stopping(m);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        if (r > 0) /* sd_event_exit() with a failure: the bus connection is gone (bus-server.c) */
                return log_error_errno(-ENOTCONN, "Lost the bus connection, nothing can reach hcbsd: exiting "
                                                  "with a failure so that the service manager restarts it");
        return 0;
}
