/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Start-up: build the model from what the kernel holds, then bring the
 * tree to what the configuration and the state directory declare; a
 * reload (SIGHUP, Reload) does the second part again.
 *
 * The model is rooted at the kernel's root group. The path from there to
 * hcbsd's root is modelled node by node; at each level the bandwidth of
 * cgroups that are not on the path is "foreign": hcbsd never touches
 * them, but they count in their parent's sum. Below hcbsd's root every
 * cgroup is adopted: a restart loses nothing and double-books nothing.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "config.h"
#include "delegate.h"
#include "log.h"
#include "message-ids.h"
#include "manager-internal.h"
#include "name.h"
#include "persist.h"

static int read_profile(Manager *m, HcbsProfile *p) {
        int r = cgroupfs_read_profile(m->iface, p);
        if (r < 0)
                return log_error_errno(r, "Cannot read kernel.sched_rt_*_us: %m");
        if (m->iface == HCBS_IFACE_RTMAX)
                (void) hcbs_profile_set_revision(p, m->revision ? m->revision : 6);
        /* tuned's realtime profile sets -1: the kernel then admits everything (dl_bandwidth_enabled() is
         * off); manager_startup() says so in the mode it logs (kernel-mode.h, HCBS_MODE_UNLIMITED) */
        return 0;
}

/*
 * The children of a level whose files are read at once: enough for every
 * reader (CGROUPFS_READERS), and a bound on what the read holds (~250 bytes
 * each: the facts, a path).
 */
#define ADOPT_CHUNK 512

/*
 * Adopts the subgroups of parent and theirs, a level at a time: the files
 * of up to ADOPT_CHUNK children read at once, on the CPUs the machine has
 * (cgroupfs_read_facts()), then modelled in name order. A name hcbsd does
 * not accept counts as foreign.
 */
static int adopt_below(Manager *m, HcbsNode *parent) {
        CgroupFsChildren c = {};
        const char **names = NULL, **paths = NULL;
        CgroupFsFacts *facts = NULL;
        size_t i = 0, cap, stride;
        char *buf = NULL;
        int r;

        r = cgroupfs_list_children(m->fs, parent->path, &c);
        if (r < 0 || c.n == 0)
                goto done;
        cap = MIN(c.n, (size_t) ADOPT_CHUNK);
        stride = strlen(parent->path) + 1 + HCBS_NAME_SEGMENT_MAX + 1; /* a path of an accepted name */
        names = calloc(cap, sizeof(*names));
        paths = calloc(cap, sizeof(*paths));
        facts = calloc(cap, sizeof(*facts));
        buf = malloc(cap * stride);
        if (!names || !paths || !facts || !buf) {
                r = -ENOMEM;
                goto done;
        }
        while (r >= 0 && i < c.n) {
                size_t k = 0;
                char err[256];

                for (; r >= 0 && i < c.n && k < cap; i++) {
                        const char *name = c.names[i];
                        if (hcbs_name_validate(name, err, sizeof(err)) < 0 || strchr(name, '/')) {
                                log_warning("Not adopting %s/%s: %s; its bandwidth counts as foreign", m->mount,
                                            parent->path, err);
                                r = manager_add_foreign(m, parent, name, NULL);
                                continue;
                        }
                        names[k] = name;
                        paths[k] = buf + k * stride;
                        snprintf(buf + k * stride, stride, "%s%s%s", parent->path, parent->path[0] ? "/" : "", name);
                        k++;
                }
                if (r < 0)
                        break;
                cgroupfs_read_facts(m->fs, paths, k, hcbs_model_profile(m->model)->cpuset_coupling, facts);
                for (size_t j = 0; r >= 0 && j < k; j++) {
                        HcbsNode *n;
                        r = manager_child_node_from(m, parent, names[j], &facts[j], &n);
                        if (r >= 0 && facts[j].has_children)
                                r = adopt_below(m, n);
                }
                cgroupfs_facts_done(facts, k);
        }
done:
        free(buf);
        free(facts);
        free(paths);
        free(names);
        cgroupfs_children_done(&c);
        return r;
}

int manager_ensure_root(Manager *m) {
        const char *rel = manager_root_rel(m);
        char path[PATH_MAX] = "";
        CgroupFsError e = {};

        if (!*rel)
                return log_error_errno(-EINVAL, "CgroupRoot=%s is the hierarchy's root; hcbsd needs a cgroup of its own",
                                       m->root_path);
        if (m->own_cgroup) {
                if (delegate_move_self(m->fs, m->own_cgroup, &e) < 0)
                        return log_error_errno(-e.error, "Cannot move hcbsd to %s/%s: %m", m->mount, e.file);
                log_info("Running in %s/%s/" DELEGATE_DAEMON ", delegated by systemd", m->mount, m->own_cgroup);
        }
        for (const char *p = rel; *p;) {
                size_t len = strcspn(p, "/"), plen = strlen(path);
                char parent[PATH_MAX];

                snprintf(parent, sizeof(parent), "%s", path);
                snprintf(path + plen, sizeof(path) - plen, "%s%.*s", plen ? "/" : "", (int) len, p);
                p += len + (p[len] == '/');
                if (cgroupfs_exists(m->fs, path))
                        continue;
                if (cgroupfs_enable_cpu(m->fs, parent, &e) < 0 || cgroupfs_mkdir(m->fs, path, &e) < 0)
                        return log_error_errno(-e.error, "Cannot create %s/%s: %m", m->mount, e.file);
                log_info("Created %s/%s", m->mount, path);
        }
        if (cgroupfs_enable_cpu(m->fs, path, &e) < 0)
                log_warning("Cannot enable +cpu below %s: %s", m->root_path, strerror(e.error));
        return 0;
}

/* Models each cgroup from the mount down to hcbsd's root; other cgroups on the way count as foreign. */
static int build_path(Manager *m, HcbsNode **ret_base) {
        const char *rel = manager_root_rel(m);
        char seg[HCBS_NAME_SEGMENT_MAX + 2];
        HcbsNode *n = hcbs_model_root(m->model);
        int r;

        while (*rel) {
                size_t len = strcspn(rel, "/");
                snprintf(seg, sizeof(seg), "%.*s", (int) len, rel);
                rel += len + (rel[len] == '/');
                r = manager_for_each_subdir(m, n, manager_add_foreign, seg);
                if (r >= 0)
                        r = hcbs_model_add(m->model, n, seg, &n);
                if (r >= 0)
                        r = manager_load_node(m, n);
                if (r < 0)
                        return r;
        }
        *ret_base = n;
        return 0;
}

/* Under systemd the slice holding our unit is the pool, shared with units' reservations. */
static int adopt_pool(Manager *m) {
        _cleanup_free_ char *pool = m->own_cgroup ? delegate_pool_of(m->own_cgroup) : NULL;

        if (!pool)
                return 0;
        m->admission.pool = hcbs_model_find(m->model, pool);
        if (!m->admission.pool)
                return 0;
        log_info("Capacity and units' reservations share %s/%s", m->mount, pool);
        return manager_units_adopt(m);
}

int manager_build_model(Manager *m) {
        HcbsProfile p;
        HcbsNode *root, *base = NULL;
        int r;

        r = read_profile(m, &p);
        if (r < 0)
                return r;
        r = hcbs_model_new(&m->model, &p, true);
        if (r < 0)
                return r;
        root = hcbs_model_root(m->model);
        r = manager_load_node(m, root);
        if (r < 0)
                return r;
        /* kernel threads are RT tasks of the root group; their count does not matter */
        hcbs_model_set_tasks(m->model, root, 1, p.leaf_only ? 1 : 0);

        r = build_path(m, &base);
        if (r < 0)
                return r;
        r = manager_group_info_ensure(base);
        if (r < 0)
                return r;
        m->admission.base = base;
        r = adopt_pool(m);
        if (r >= 0)
                r = manager_pools_setup(m);
        if (r < 0)
                return r;
        r = adopt_below(m, base);
        if (r < 0)
                return log_error_errno(r, "Cannot adopt the groups below %s: %m", m->root_path);
        log_struct(LOG_INFO, HCBS_MESSAGE_ADOPTED,
                   &(LogFields) { .root = m->root_path, .counts = true, .groups = manager_group_count(m),
                                  .units = manager_unit_count(m) },
                   "Adopted %zu group(s) below %s, %zu unit reservation(s)", manager_group_count(m), m->root_path,
                   manager_unit_count(m));
        return 0;
}

/*
 * With a pool, the pool, hcbsd's root and the cgroups between them hold
 * only what is in use and grow on demand; on HCBS a new cgroup's period
 * is 0, which cannot grow, so they get CapacityPeriod= first (rtmax: a
 * "max" cgroup becomes a reservation of 0, keeping a period it has).
 */
static int prepare_pool_chain(Manager *m) {
        if (!m->admission.pool)
                return 0;
        return manager_give_periods(m, m->admission.base, m->admission.pool->parent, m->admission.base);
}

/* Records the original values of the ancestors of below that a plan raises, to give them back on exit. */
int manager_remember_raised(Manager *m, const HcbsPlan *plan, const HcbsNode *below) {
        for (size_t i = 0; i < plan->n_ops; i++) {
                HcbsNode *n = hcbs_model_find(m->model, plan->ops[i].path);
                bool seen = false;

                if (!n || !hcbs_node_is_ancestor(n, below))
                        continue;
                for (size_t j = 0; j < m->n_raised; j++)
                        seen |= strcmp(m->raised[j].path, n->path) == 0;
                if (seen)
                        continue;
                Raised *nr = realloc(m->raised, (m->n_raised + 1) * sizeof(Raised));
                if (!nr)
                        return -ENOMEM;
                m->raised = nr;
                nr[m->n_raised] = (Raised) { strdup(n->path), n->period_us, n->runtime_us };
                if (!nr[m->n_raised].path)
                        return -ENOMEM;
                m->n_raised++;
        }
        return 0;
}

static int reserve_capacity(Manager *m) {
        HcbsNode *base = manager_capacity_node(m);
        uint64_t period = m->conf.capacity_period_us, runtime;
        HcbsPlanScope scope = { .grow = true, .ceiling = NULL, .base = base };
        HcbsPlan plan;
        HcbsVerdict v;
        int r;

        if (hcbs_runtime_for_bw(period, m->conf.capacity_bw, &runtime) < 0)
                return log_error_errno(-EINVAL, "Capacity= does not fit in CapacityPeriod=");
        if (base->period_us == period && base->runtime_us == (int64_t) runtime)
                return 0;
        /* a pool grows on demand: reserving is only for raising what is above it, if anything needs it */
        if (m->admission.pool && hcbs_model_check(m->model, base, period, (int64_t) runtime).kernel_errno == 0)
                return 0;
        r = hcbs_plan_set(m->model, base, period, (int64_t) runtime, scope, &plan, &v);
        if (r < 0)
                return r;
        if (r == 0) {
                log_error("Cannot reserve the capacity of %" PRIu64 "us/%" PRIu64 "us: %s; serving with %" PRId64
                          "us/%" PRIu64 "us",
                          runtime, period, v.message, base->runtime_us, base->period_us);
                return 0;
        }
        r = manager_remember_raised(m, &plan, base);
        if (r >= 0)
                r = manager_execute(m, &plan, &v);
        hcbs_plan_done(&plan);
        if (r >= 0 && v.error != HCBS_OK)
                log_error("Cannot reserve the capacity: %s", v.message);
        return r;
}

int manager_apply_capacity(Manager *m) {
        int r = reserve_capacity(m);

        if (r >= 0)
                r = prepare_pool_chain(m);
        if (r >= 0)
                r = manager_pools_fund(m);
        if (r >= 0)
                manager_trim_pool(m);
        return r < 0 ? r : 0; /* a refusal was logged: hcbsd serves with what it has */
}

/* hcbsd's root down to what the groups that outlive hcbsd hold: the rest of Capacity= goes back. */
static void release_capacity(Manager *m) {
        HcbsNode *base = m->admission.base;
        HcbsPlanScope scope = { .base = base };
        uint64_t runtime;
        HcbsPlan plan;
        HcbsVerdict v;

        if (m->admission.pool) {
                manager_trim_pool(m); /* the pool's chain holds only what is in use already */
                return;
        }
        if (base->runtime_us <= 0 || base->period_us == 0 ||
            hcbs_node_children_runtime_us(m->model, base, base->period_us, &runtime) < 0 ||
            (int64_t) runtime >= base->runtime_us)
                return;
        if (runtime == 1)
                runtime = 2; /* rfc1 refuses 0 < runtime < 1024 ns */
        if (hcbs_plan_set(m->model, base, base->period_us, (int64_t) runtime, scope, &plan, &v) > 0) {
                (void) manager_execute(m, &plan, &v);
                log_info("Gave back the capacity no group holds: %s now %" PRIu64 "us/%" PRIu64 "us", m->root_path,
                         runtime, base->period_us);
        } else
                log_warning("Keeping the capacity of %s: %s", m->root_path, v.message);
        hcbs_plan_done(&plan);
}

void manager_shutdown(Manager *m) {
        if (!m->model || m->conf.keep_on_exit)
                return;
        release_capacity(m);
        /* innermost first: an ancestor can only shrink once its children have */
        for (size_t i = m->n_raised; i > 0; i--) {
                Raised *a = &m->raised[i - 1];
                HcbsNode *n = hcbs_model_find(m->model, a->path);
                HcbsPlanScope scope = { .base = m->admission.base };
                HcbsPlan plan;
                HcbsVerdict v;

                if (!n || hcbs_plan_set(m->model, n, a->period_us, a->runtime_us, scope, &plan, &v) <= 0) {
                        log_info("Keeping the RT bandwidth of %s/%s: it is still in use", m->mount, a->path);
                        continue;
                }
                (void) manager_execute(m, &plan, &v);
                hcbs_plan_done(&plan);
        }
}

static int group_depth_cmp(const void *a, const void *b) {
        const HcbsGroupConf *x = a, *y = b;
        return (int) hcbs_name_depth(x->name) - (int) hcbs_name_depth(y->name);
}

void manager_apply_declared(Manager *m) {
        if (m->conf.n_groups > 0)
                qsort(m->conf.groups, m->conf.n_groups, sizeof(HcbsGroupConf), group_depth_cmp);
        for (size_t i = 0; i < m->conf.n_groups; i++) {
                const HcbsGroupConf *g = &m->conf.groups[i];
                HcbsNode *n = hcbs_admission_find(&m->admission, g->name);
                const HcbsCpuSet *cpus = g->has_cpus ? &g->cpus : NULL;
                CreateOptions o = { .cpus = cpus };
                HcbsVerdict v;
                int r;

                if (n && n->period_us == g->period_us && n->runtime_us == (int64_t) g->runtime_us &&
                    (!cpus || hcbs_cpuset_equal(cpus, &n->cpus)))
                        continue;
                r = n ? manager_set_bandwidth(m, g->name, g->runtime_us, g->period_us, cpus, false, &v)
                      : manager_create_group(m, g->name, g->runtime_us, g->period_us, &o, &v);
                if (r < 0)
                        log_error_errno(r, "%s: group %s: %m", g->source, g->name);
                else if (r > 0)
                        log_error("%s: group %s not applied: %s", g->source, g->name, v.message);
        }
}

/*
 * Creates the persistent groups the model lacks, in file order (parents
 * first), then saves once. One that cannot be restored stays in
 * m->persist_kept, so every save keeps it and a reload tries again: a full
 * pool or a parent that failed must not make a reboot forget it.
 */
int manager_restore_persistent(Manager *m) {
        size_t kept = 0;

        m->persist_restoring = true; /* create_group() must not save a file that lacks the rest */
        for (size_t i = 0; i < m->n_persist_kept; i++) {
                PersistGroup g = m->persist_kept[i];
                HcbsNode *node = hcbs_admission_find(&m->admission, g.name);
                CreateOptions o = { .persistent = true, .cpus = hcbs_cpuset_is_empty(&g.cpus) ? NULL : &g.cpus };
                HcbsVerdict v;
                int r = 0;

                if (node) { /* the kernel is the truth for bandwidth, the state for metadata */
                        r = manager_group_set_persistent(m, node, true);
                        if (r >= 0) {
                                free(g.name);
                                continue;
                        }
                }
                else
                        r = manager_create_group(m, g.name, g.runtime_us, g.period_us, &o, &v);
                if (r == 0) {
                        free(g.name);
                        continue;
                }
                log_error("Persistent group %s not restored, kept in %s/" PERSIST_FILE ": %s", g.name,
                          manager_state_dir(m), r < 0 ? strerror(-r) : v.message);
                m->persist_kept[kept++] = g;
        }
        m->n_persist_kept = kept;
        m->persist_restoring = false;
        return manager_save_persistent(m);
}

int manager_apply_persistent(Manager *m) {
        const char *dir = manager_state_dir(m);
        char err[256];
        int r;

        persist_groups_free(m->persist_kept, m->n_persist_kept);
        m->persist_kept = NULL;
        m->n_persist_kept = 0;
        r = persist_load(dir, &m->persist_kept, &m->n_persist_kept, err, sizeof(err));
        if (r < 0) {
                /* a root daemon that refuses to start takes every RT unit down: keep the file for a person */
                log_error("Not restoring persistent groups: %s", err);
                r = persist_set_aside(dir, PERSIST_FILE);
                if (r < 0)
                        log_error_errno(r, "Cannot keep %s/" PERSIST_FILE " aside: %m", dir);
                else
                        log_error("Kept it as %s/" PERSIST_FILE PERSIST_CORRUPT_SUFFIX, dir);
                return 0;
        }
        (void) manager_restore_persistent(m);
        return 0;
}

/* manager_reload() within the RELOADING=1 ... READY=1 frame. */
static int reload(Manager *m, HcbsVerdict *v) {
        HcbsConf old = m->conf;
        char err[512] = "";
        int r;

        hcbs_conf_init(&m->conf);
        r = hcbs_conf_load(&m->conf, m->opts.config_path, m->opts.config_dir, err, sizeof(err));
        if (r < 0) {
                hcbs_conf_done(&m->conf);
                m->conf = old;
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "configuration not reloaded: %s", err);
        }
        hcbs_conf_done(&old);
        m->admission.min_period_us = m->conf.min_period_us;
        m->admission.max_period_us = m->conf.max_period_us;
        m->admission.pool_cap_bw = m->conf.capacity_bw;
        manager_pools_reload(m);
        r = manager_apply_capacity(m); /* a refusal is logged there: the groups are applied all the same */
        if (r < 0)
                return r;
        manager_apply_declared(m);
        if (m->n_persist_kept > 0)
                (void) manager_restore_persistent(m);
        return 0;
}

int manager_reload(Manager *m, HcbsVerdict *v) {
        int r;

        assert(m);
        assert(v);
        hcbs_verdict_ok(v);
        manager_notify_reloading(m);
        r = reload(m, v);
        manager_notify_reloaded(m);
        return r;
}
