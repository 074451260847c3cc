/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "hashmap.h"
#include "name.h"
#include "model.h"
#include "strutil.h"

struct HcbsModel {
        HcbsProfile profile;
        HcbsNode *root;
        Hashmap *by_path;
};

static HcbsNode *node_free(HcbsNode *n) {
        if (n) {
                free(n->path);
                free(n);
        }
        return NULL;
}

static int node_new(HcbsNode *parent, const char *name, HcbsNode **ret) {
        HcbsNode *n = calloc(1, sizeof(*n));
        int r;

        if (!n)
                return -ENOMEM;
        if (!parent || !parent->path[0])
                r = asprintf(&n->path, "%s", name);
        else
                r = asprintf(&n->path, "%s/%s", parent->path, name);
        if (r < 0) {
                free(n);
                return -ENOMEM;
        }
        n->name = hcbs_name_last(n->path);
        n->parent = parent;
        n->depth = parent ? parent->depth + 1 : 0;
        *ret = n;
        return 0;
}

int hcbs_model_new(HcbsModel **ret, const HcbsProfile *profile, bool root_is_kernel_root) {
        HcbsModel *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return -ENOMEM;
        m->profile = *profile;
        r = hashmap_new(&m->by_path);
        if (r >= 0)
                r = node_new(NULL, "", &m->root);
        if (r >= 0)
                r = hashmap_put(m->by_path, m->root->path, m->root);
        if (r < 0)
                return hcbs_model_free(m), r;

        /* sched_init(): the root starts at the global values; rfc1 at runtime 0 (seed 009) */
        m->root->is_kernel_root = root_is_kernel_root;
        m->root->period_us = profile->global_period_us;
        m->root->runtime_us = profile->root_runtime_nonzero ? profile->global_runtime_us : 0;
        m->root->bw = hcbs_bw(m->root->period_us, m->root->runtime_us);
        *ret = m;
        return 0;
}

HcbsModel *hcbs_model_free(HcbsModel *m) {
        HcbsNode *n, *next;

        if (!m)
                return NULL;
        /* post-order without recursion: descend to a leaf, free it, climb */
        for (n = m->root; n; n = next) {
                if (n->first_child) {
                        next = n->first_child;
                        continue;
                }
                next = n->next ? n->next : n->parent;
                if (n->parent)
                        n->parent->first_child = n->next;
                node_free(n);
        }
        hashmap_free(m->by_path);
        free(m);
        return NULL;
}

const HcbsProfile *hcbs_model_profile(const HcbsModel *m) {
        return &m->profile;
}

HcbsProfile *hcbs_model_profile_mut(HcbsModel *m) {
        return &m->profile;
}

HcbsNode *hcbs_model_root(const HcbsModel *m) {
        return m->root;
}

size_t hcbs_model_size(const HcbsModel *m) {
        return hashmap_size(m->by_path);
}

HcbsNode *hcbs_model_find(const HcbsModel *m, const char *path) {
        return hashmap_get(m->by_path, path);
}

const HcbsNode *hcbs_node_context(const HcbsProfile *p, const HcbsNode *n) {
        while (n->parent && hcbs_node_is_max(p, n))
                n = n->parent;
        return n;
}

uint64_t hcbs_node_internal_runtime_us(const HcbsProfile *p, const HcbsNode *n) {
        uint64_t ns;

        if (hcbs_node_is_max(p, n) || n->children_bw >= n->bw)
                return 0;
        ns = ((n->bw - n->children_bw) * (n->period_us * HCBS_NSEC_PER_USEC)) >> HCBS_BW_SHIFT;
        return ns < 1024 ? 0 : ns / HCBS_NSEC_PER_USEC;
}

static uint64_t node_bw(const HcbsProfile *p, const HcbsNode *n) {
        return hcbs_node_is_max(p, n) ? 0 : hcbs_bw(n->period_us, n->runtime_us);
}

/* What n counts in its parent's children_bw. */
static uint64_t node_share(const HcbsProfile *p, const HcbsNode *n) {
        return hcbs_node_is_max(p, n) ? n->children_bw : n->bw;
}

/* Adds delta (mod 2^64) to n's children_bw and on through "max" ancestors, whose share it is. */
static void children_add(const HcbsProfile *p, HcbsNode *n, uint64_t delta) {
        for (;;) {
                n->children_bw += delta;
                if (!n->parent || !hcbs_node_is_max(p, n))
                        return;
                n = n->parent;
        }
}

/* Adds (sign = +1) or removes (sign = -1) a child's share from its parent's caches. */
static void parent_account(const HcbsProfile *pr, HcbsNode *c, int sign) {
        HcbsNode *p = c->parent;

        if (!p)
                return;
        if (sign > 0) {
                children_add(pr, p, node_share(pr, c));
                p->n_active_children += c->runtime_us != 0;
        } else {
                children_add(pr, p, -node_share(pr, c));
                p->n_active_children -= c->runtime_us != 0;
        }
}

int hcbs_model_add(HcbsModel *m, HcbsNode *parent, const char *name, HcbsNode **ret) {
        HcbsNode *n;
        int r;

        r = node_new(parent, name, &n);
        if (r < 0)
                return r;
        r = hashmap_put(m->by_path, n->path, n);
        if (r < 0)
                return node_free(n), r;

        /* alloc_rt_sched_group(); rtmax (v6 12/25): "max" with period 0 */
        n->period_us = m->profile.new_group_global_period ? m->profile.global_period_us : 0;
        n->runtime_us = m->profile.max_delegation ? -1 : 0;
        n->bw = 0;

        n->prev = parent->last_child;
        if (parent->last_child)
                parent->last_child->next = n;
        else
                parent->first_child = n;
        parent->last_child = n;
        parent->n_children++;
        for (HcbsNode *a = parent; a; a = a->parent)
                a->n_descendants++;
        parent_account(&m->profile, n, +1);
        if (ret)
                *ret = n;
        return 0;
}

int hcbs_model_remove(HcbsModel *m, HcbsNode *n) {
        HcbsNode *p = n->parent;

        if (n->first_child || !p)
                return -EBUSY;
        if (n->foreign_bw)
                children_add(&m->profile, n, -n->foreign_bw);
        parent_account(&m->profile, n, -1);
        for (HcbsNode *a = p; a; a = a->parent)
                a->n_descendants--;
        if (n->prev)
                n->prev->next = n->next;
        else
                p->first_child = n->next;
        if (n->next)
                n->next->prev = n->prev;
        else
                p->last_child = n->prev;
        p->n_children--;
        hashmap_remove(m->by_path, n->path);
        node_free(n);
        return 0;
}

void hcbs_model_set(HcbsModel *m, HcbsNode *n, uint64_t period_us, int64_t runtime_us) {
        parent_account(&m->profile, n, -1);
        n->period_us = period_us;
        n->runtime_us = runtime_us < 0 ? -1 : runtime_us;
        n->bw = node_bw(&m->profile, n);
        parent_account(&m->profile, n, +1);
}

void hcbs_model_set_tasks(HcbsModel *m, HcbsNode *n, unsigned nprocs, unsigned nrt) {
        n->nprocs = nprocs;
        n->nrt = nrt;
}

void hcbs_model_set_foreign(HcbsModel *m, HcbsNode *n, uint64_t foreign_bw) {
        children_add(&m->profile, n, foreign_bw - n->foreign_bw);
        n->foreign_bw = foreign_bw;
}

HcbsError hcbs_reason_to_error(HcbsReason r) {
        switch (r) {
        case HCBS_REASON_NONE:
                return HCBS_OK;
        case HCBS_REASON_PARENT_HAS_RT:
                return HCBS_E_NOT_LEAF;
        case HCBS_REASON_RT_TASKS:
        case HCBS_REASON_SWITCH_RT_TASKS:
                return HCBS_E_GROUP_BUSY;
        case HCBS_REASON_ROOT_STALLED:
        case HCBS_REASON_PARENT_FULL:
        case HCBS_REASON_GLOBAL_LIMIT:
        case HCBS_REASON_ROOT_RESERVE:
        case HCBS_REASON_CHILDREN_EXCEED:
                return HCBS_E_INSUFFICIENT_BANDWIDTH;
        default:
                return HCBS_E_INVALID_ARGUMENT;
        }
}

const char *hcbs_file_name(const HcbsProfile *p, HcbsFile f) {
        switch (f) {
        case HCBS_FILE_RUNTIME:
                return "cpu.rt_runtime_us";
        case HCBS_FILE_PERIOD:
                return "cpu.rt_period_us";
        default:
                return "cpu.rt.max";
        }
}

bool hcbs_node_is_ancestor(const HcbsNode *a, const HcbsNode *n) {
        for (const HcbsNode *up = n ? n->parent : NULL; up; up = up->parent)
                if (up == a)
                        return true;
        return false;
}
