/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The container engines' pools (hcbsd.conf's [Pool NAME]): besides
 * hcbs.slice, shared by hcbsd's groups and the services' reservations,
 * each pool is a cgroup where an engine puts its containers' scopes
 * (podman's machine.slice, kubelet's kubepods.slice), holding what its
 * scopes hold and growing with them up to its own Capacity= (admission.h,
 * HcbsPool). Like hcbs.slice, a pool is funded along its chain: the
 * cgroups from the mount down to it get a period (on HCBS a new cgroup
 * has none, and one without a period cannot grow), its ancestors are
 * raised once so that it could hold its Capacity= (given back at exit,
 * like hcbs.slice's, through manager_remember_raised()), and it is trimmed
 * to what its scopes hold after every change.
 *
 * systemd, not hcbsd, makes a pool's cgroup, and may make it only with
 * the first container (machine.slice): a pool whose cgroup is missing at
 * start is modelled and funded when a container first asks for it, and a
 * dry run (CheckCgroup, before the engine makes anything) counts it as
 * funded, with a period and nothing held, in a model copy of its chain
 * taken away after the answer. A pool's cgroup that went away (the slice
 * was stopped) is forgotten with everything below it.
 *
 * The pools are fixed at start: a reload updates their Capacity= and
 * says that other changes wait for the next start.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "log.h"
#include "name.h"
#include "manager-internal.h"

static bool cgroup_at_or_below(const char *a, const char *b) {
        size_t n = strlen(b);
        return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

/* SubdirFn: a pool's child is a scope (or another unit's cgroup); what it holds below itself is foreign. */
static int adopt_child(Manager *m, HcbsNode *pool, const char *name, void *userdata) {
        HcbsNode *n;
        int r = manager_child_node(m, pool, name, &n);

        return r < 0 ? r : manager_for_each_subdir(m, n, manager_add_foreign, NULL);
}

/* Models the pool's chain from the mount and its children, if its cgroup exists. 1 modelled, 0 absent. */
static int pool_load(Manager *m, EnginePool *p) {
        HcbsNode *n = hcbs_model_root(m->model);
        char seg[PATH_MAX];
        int r;

        if (!cgroupfs_exists(m->fs, p->cgroup))
                return 0;
        for (const char *s = p->cgroup; *s;) {
                size_t len = strcspn(s, "/");
                HcbsNode *parent = n;

                snprintf(seg, sizeof(seg), "%.*s", (int) len, s);
                s += len + (s[len] == '/');
                r = manager_child_node(m, parent, seg, &n);
                if (r >= 0)
                        r = manager_recount_foreign(m, parent); /* n is a node now, no longer foreign */
                if (r < 0)
                        return log_error_errno(r, "[Pool %s]: cannot read %s/%s: %m", p->name, m->mount, p->cgroup);
        }
        hcbs_model_set_foreign(m->model, n, 0);
        p->pool.node = n; /* first: the collector counts the scopes adopted below as pool children */
        r = manager_for_each_subdir(m, n, adopt_child, NULL);
        if (r < 0) {
                p->pool.node = NULL;
                return log_error_errno(r, "[Pool %s]: cannot read the scopes in %s/%s: %m", p->name, m->mount,
                                       p->cgroup);
        }
        return 1;
}

int manager_give_periods(Manager *m, HcbsNode *n, const HcbsNode *stop, const HcbsNode *base) {
        HcbsNode *chain[HCBS_NAME_DEPTH_MAX + 8];
        HcbsPlanScope scope = { .base = base };
        size_t k = 0;
        int r = 0;

        for (HcbsNode *c = n; c && c != stop && !c->is_kernel_root && k < ELEMENTSOF(chain); c = c->parent)
                chain[k++] = c;
        while (r >= 0 && k > 0) {
                HcbsNode *c = chain[--k];
                /* rtmax: a "max" cgroup holds nothing itself; as a reservation of 0 it can grow */
                bool max = hcbs_node_is_max(hcbs_model_profile(m->model), c);
                HcbsPlan plan;
                HcbsVerdict v;

                if (c->period_us != 0 && !max)
                        continue;
                r = hcbs_plan_set(m->model, c, c->period_us && max ? c->period_us : m->conf.capacity_period_us,
                                  max ? 0 : c->runtime_us, scope, &plan, &v);
                if (r > 0)
                        r = manager_execute(m, &plan, &v);
                hcbs_plan_done(&plan);
                if (r >= 0 && v.error != HCBS_OK)
                        log_warning("Cannot give %s/%s a period: %s", m->mount, c->path, v.message);
        }
        return r;
}

/* Raises the pool's ancestors, if need be, so that it could hold its Capacity=; the pool itself holds what is used. */
static int fund(Manager *m, EnginePool *p) {
        HcbsNode *n = p->pool.node;
        uint64_t period = m->conf.capacity_period_us, runtime;
        HcbsPlanScope scope = { .grow = true, .base = n };
        HcbsPlan plan;
        HcbsVerdict v;
        int r;

        r = manager_give_periods(m, n, NULL, n->parent);
        if (r < 0)
                return r;
        if (hcbs_runtime_for_bw(period, p->pool.cap_bw, &runtime) < 0 ||
            hcbs_model_check(m->model, n, period, (int64_t) runtime).kernel_errno == 0)
                return 0;
        r = hcbs_plan_set(m->model, n, period, (int64_t) runtime, scope, &plan, &v);
        if (r > 0) {
                r = manager_remember_raised(m, &plan, n);
                if (r >= 0)
                        r = manager_execute(m, &plan, &v);
        }
        hcbs_plan_done(&plan);
        if (r >= 0 && v.error != HCBS_OK)
                log_error("[Pool %s]: cannot make room for its Capacity= in %s/%s: %s; its containers get what there is",
                          p->name, m->mount, p->cgroup, v.message);
        manager_trim_node(m, n);
        return r < 0 ? r : 0;
}

/* Models and funds p if its cgroup has appeared; forgets it if it went away. */
static int refresh(Manager *m, EnginePool *p) {
        int r;

        if (p->pool.node && !cgroupfs_exists(m->fs, p->cgroup)) {
                log_info("[Pool %s]: %s/%s is gone", p->name, m->mount, p->cgroup);
                manager_forget_group(m, p->pool.node);
                p->pool.node = NULL;
        }
        if (p->pool.node)
                return 0;
        r = pool_load(m, p);
        if (r <= 0)
                return r;
        log_info("[Pool %s]: containers in %s/%s reserve from it", p->name, m->mount, p->cgroup);
        return fund(m, p);
}

int manager_pools_setup(Manager *m) {
        const char *main = m->admission.pool ? m->admission.pool->path : NULL;
        int r;

        if (m->conf.n_pools > 0 && !main) {
                log_warning("[Pool] sections need hcbsd under systemd, in a slice of its own: ignored");
                return 0;
        }
        m->pools = calloc(m->conf.n_pools ? m->conf.n_pools : 1, sizeof(EnginePool));
        if (!m->pools)
                return -ENOMEM;
        for (size_t i = 0; i < m->conf.n_pools; i++) {
                const HcbsPoolConf *c = &m->conf.pools[i];
                EnginePool *p = &m->pools[m->n_pools];

                if (cgroup_at_or_below(c->cgroup, main) || cgroup_at_or_below(main, c->cgroup)) {
                        log_error("%s: [Pool %s] Cgroup=%s is or holds %s, hcbsd's own pool: ignored", c->source,
                                  c->name, c->cgroup, main);
                        continue;
                }
                p->name = strdup(c->name);
                p->cgroup = strdup(c->cgroup);
                if (!p->name || !p->cgroup)
                        return -ENOMEM;
                p->pool.cap_bw = c->capacity_bw;
                m->n_pools++;
                r = pool_load(m, p);
                if (r < 0)
                        return r;
                if (r == 0)
                        log_info("[Pool %s]: %s/%s does not exist yet; its first container will make it", p->name,
                                 m->mount, p->cgroup);
        }
        return 0;
}

int manager_pools_fund(Manager *m) {
        int r = 0;

        for (size_t i = 0; r >= 0 && i < m->n_pools; i++)
                if (m->pools[i].pool.node)
                        r = fund(m, &m->pools[i]);
        return r;
}

void manager_pools_reload(Manager *m) {
        for (size_t i = 0; i < m->n_pools; i++) {
                EnginePool *p = &m->pools[i];
                const HcbsPoolConf *c = hcbs_conf_find_pool(&m->conf, p->name);
                if (c && strcmp(c->cgroup, p->cgroup) == 0)
                        p->pool.cap_bw = c->capacity_bw;
                else
                        log_warning("[Pool %s]: changed or removed; it stays as it was until hcbsd starts again", p->name);
        }
        for (size_t i = 0; i < m->conf.n_pools; i++) {
                bool known = false;
                for (size_t j = 0; j < m->n_pools; j++)
                        known |= strcmp(m->pools[j].name, m->conf.pools[i].name) == 0;
                if (!known)
                        log_warning("%s: [Pool %s] is new; it takes effect when hcbsd starts again",
                                    m->conf.pools[i].source, m->conf.pools[i].name);
        }
}

void manager_pools_free(Manager *m) {
        for (size_t i = 0; i < m->n_pools; i++) {
                free(m->pools[i].name);
                free(m->pools[i].cgroup);
        }
        free(m->pools);
        m->pools = NULL;
        m->n_pools = 0;
}

void manager_pools_trim(Manager *m) {
        for (size_t i = 0; i < m->n_pools; i++)
                if (m->pools[i].pool.node)
                        manager_trim_node(m, m->pools[i].pool.node);
}

/* The node of a cgroup below the mount, or the deepest of its ancestors the model holds. */
static HcbsNode *deepest_modelled(const Manager *m, const char *path, size_t *ret_len) {
        HcbsNode *n = hcbs_model_root(m->model);

        *ret_len = 0;
        for (;;) {
                const char *s = path + *ret_len + (*ret_len > 0);
                size_t len = strcspn(s, "/");
                HcbsNode *c = NULL;
                if (!*s)
                        return n;
                HCBS_NODE_FOREACH_CHILD(x, n)
                        if (strlen(x->name) == len && strncmp(x->name, s, len) == 0)
                                c = x;
                if (!c)
                        return n;
                n = c;
                *ret_len = (size_t) (s + len - path);
        }
}

int manager_pool_of(Manager *m, const char *path, bool dry_run, ManagerPoolRef *ret) {
        const char *main = m->admission.pool ? m->admission.pool->path : NULL;
        int r;

        *ret = (ManagerPoolRef) {};
        if (!main)
                return 0;
        if (cgroup_at_or_below(path, main) && strcmp(path, main) != 0) {
                ret->pool = (HcbsPool) { .node = m->admission.pool, .cap_bw = m->admission.pool_cap_bw };
                ret->name = m->admission.pool->name;
                return 1;
        }
        for (size_t i = 0; i < m->n_pools; i++) {
                EnginePool *p = &m->pools[i];
                size_t have;
                HcbsNode *n;

                if (!cgroup_at_or_below(path, p->cgroup) || strcmp(path, p->cgroup) == 0)
                        continue;
                r = refresh(m, p);
                if (r < 0)
                        return r;
                ret->pool = p->pool;
                ret->name = p->cgroup;
                if (p->pool.node || !dry_run)
                        return 1;
                /* the dry run of its first container: the chain as funding would make it, taken away after */
                n = deepest_modelled(m, p->cgroup, &have);
                for (const char *s = p->cgroup + have + (have > 0); *s;) {
                        size_t len = strcspn(s, "/");
                        char seg[PATH_MAX];
                        snprintf(seg, sizeof(seg), "%.*s", (int) len, s);
                        s += len + (s[len] == '/');
                        r = hcbs_model_add(m->model, n, seg, &n);
                        if (r < 0) {
                                manager_pool_ref_done(m, ret);
                                return r;
                        }
                        hcbs_model_set(m->model, n, m->conf.capacity_period_us, 0);
                        if (!ret->temporary)
                                ret->temporary = n;
                }
                ret->pool.node = n;
                return 1;
        }
        return 0;
}

void manager_pool_ref_done(Manager *m, ManagerPoolRef *ref) {
        if (ref->temporary) {
                HcbsNode *top = ref->temporary;
                while (top->first_child) { /* deepest first */
                        HcbsNode *c = top;
                        while (c->first_child)
                                c = c->first_child;
                        (void) hcbs_model_remove(m->model, c);
                }
                (void) hcbs_model_remove(m->model, top);
        }
        *ref = (ManagerPoolRef) {};
}
