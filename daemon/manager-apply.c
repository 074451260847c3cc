/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Apply: many creates, re-budgets and deletes as one step. The whole batch
 * is admitted and planned before the kernel sees a write, applied as one
 * journalled plan, and rolled back as a whole if the kernel refuses any
 * write; a crash in the middle is undone at the next start like any plan.
 *
 * Planning: deletes go first, deepest first, so the bandwidth they free is
 * there for the rest; then creates and sets, parents first. Each entry is
 * planned against the model as the entries before it leave it (its plan is
 * committed to the model at once), and a log of what was committed lets
 * the model return to where it was: the combined plan is then executed
 * from there like any other, so the kernel, the journal and the signals
 * see one plan. A removal's undo brings the group back (mkdir with its
 * period; the undo of its first write gives the runtime back), so even a
 * batch that deletes rolls back whole.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "log.h"
#include "manager-internal.h"
#include "name.h"

/* What the batch did to the model, to take back: a plan's ops, or a group it removed. */
typedef struct Committed {
        HcbsPlan plan;          /* undone through plan.undo, in reverse */
        char *removed_parent;   /* set for a delete: the group to bring back */
        char *removed_name;
        uint64_t period_us;
        int64_t runtime_us;
        GroupInfo *info;
} Committed;

typedef struct Batch {
        Manager *m;
        Committed *log;
        size_t n_log;
        HcbsPlan all; /* the combined plan */
} Batch;

static int plan_append(HcbsPlan *to, const HcbsPlan *from) {
        HcbsOp *ops, *undo;

        if (from->n_ops == 0) /* a no-op entry: reallocarray() to 0 would free to's arrays and answer NULL */
                return 0;
        ops = reallocarray(to->ops, to->n_ops + from->n_ops, sizeof(HcbsOp));
        undo = ops ? reallocarray(to->undo, to->n_ops + from->n_ops, sizeof(HcbsOp)) : NULL;

        if (ops)
                to->ops = ops;
        if (!undo)
                return -ENOMEM;
        to->undo = undo;
        for (size_t i = 0; i < from->n_ops; i++) {
                HcbsOp op = from->ops[i], u = from->undo[i];
                op.path = strdup(op.path);
                u.path = u.path ? strdup(u.path) : NULL;
                to->ops[to->n_ops] = op;
                to->undo[to->n_ops] = u;
                to->n_ops++;
                if (!op.path || (from->undo[i].path && !u.path))
                        return -ENOMEM;
        }
        return 0;
}

static Committed *log_push(Batch *b) {
        Committed *l = reallocarray(b->log, b->n_log + 1, sizeof(Committed));

        if (!l)
                return NULL;
        b->log = l;
        l[b->n_log] = (Committed) {};
        hcbs_plan_init(&l[b->n_log].plan);
        return &l[b->n_log++];
}

/* Commits an entry's plan to the model and logs how to take it back. */
static int commit_entry(Batch *b, HcbsPlan *plan, bool delete) {
        HcbsModel *model = b->m->model;
        Committed *c = log_push(b);
        int r;

        if (!c)
                return -ENOMEM;
        if (delete) {
                HcbsNode *n = hcbs_model_find(model, plan->ops[plan->n_ops - 1].path);
                c->removed_parent = strdup(n->parent->path);
                c->removed_name = strdup(n->name);
                c->period_us = n->period_us;
                c->runtime_us = n->runtime_us;
                c->info = n->userdata;
                n->userdata = NULL;
                if (!c->removed_parent || !c->removed_name)
                        return -ENOMEM;
        }
        r = plan_append(&b->all, plan);
        if (r < 0)
                return r;
        if (delete) {
                /* the journal and the kernel's rollback bring the group back too */
                HcbsOp *u = &b->all.undo[b->all.n_ops - 1];
                free(u->path);
                /* rtmax: a "max" group (runtime -1) comes back as max, with no write to undo */
                *u = (HcbsOp) { HCBS_OP_MKDIR, strdup(plan->ops[plan->n_ops - 1].path), HCBS_FILE_PERIOD,
                                c->runtime_us < 0 && hcbs_model_profile(model)->max_delegation ? -1 : 0,
                                c->period_us };
                if (!u->path)
                        return -ENOMEM;
        }
        r = hcbs_plan_commit(model, plan);
        c->plan = *plan; /* owned by the log now */
        hcbs_plan_init(plan);
        return r;
}

/* Takes everything the batch committed back out of the model, newest first. */
static void revert_model(Batch *b) {
        HcbsModel *model = b->m->model;

        for (size_t i = b->n_log; i > 0; i--) {
                Committed *c = &b->log[i - 1];
                if (c->removed_name) {
                        HcbsNode *parent = hcbs_model_find(model, c->removed_parent), *n = NULL;
                        if (parent && hcbs_model_add(model, parent, c->removed_name, &n) >= 0) {
                                hcbs_model_set(model, n, c->period_us, c->runtime_us);
                                n->userdata = TAKE_PTR(c->info);
                        }
                } else
                        for (size_t k = c->plan.n_ops; k > 0; k--)
                                (void) hcbs_model_apply_op(model, &c->plan.undo[k - 1]);
        }
}

static void batch_done(Batch *b) {
        for (size_t i = 0; i < b->n_log; i++) {
                hcbs_plan_done(&b->log[i].plan);
                free(b->log[i].removed_parent);
                free(b->log[i].removed_name);
                if (b->log[i].info) {
                        free(b->log[i].info->unit);
                        free(b->log[i].info);
                }
        }
        free(b->log);
}

/* Deletes first, deepest first; then the rest, parents first; the file's order otherwise. */
static const ApplyEntry *sort_base;
static int entry_order(const void *x, const void *y) {
        const ApplyEntry *a = &sort_base[*(const size_t *) x], *b = &sort_base[*(const size_t *) y];
        int da = (int) hcbs_name_depth(a->name), db = (int) hcbs_name_depth(b->name);

        if (a->delete != b->delete)
                return a->delete ? -1 : 1;
        if (da != db)
                return a->delete ? db - da : da - db;
        return (a > b) - (a < b);
}

/* Names valid and each once (a hash of them, O(1) an entry); the hash maps a name to its entry. */
static int check_names(Manager *m, const ApplyEntry *e, size_t n, Hashmap *names, HcbsVerdict *v) {
        char why[HCBS_MESSAGE_MAX];
        int r;

        if (n == 0)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "nothing to apply");
        if (n > m->conf.max_groups)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%zu groups in one Apply; MaxGroups=%u", n,
                                        (unsigned) m->conf.max_groups);
        for (size_t i = 0; i < n; i++) {
                if (hcbs_name_validate(e[i].name, why, sizeof(why)) < 0)
                        return hcbs_verdict_set(v, HCBS_E_INVALID_NAME, 0, "entry %zu: %s", i + 1, why);
                r = hashmap_put(names, e[i].name, (void *) &e[i]);
                if (r == -EEXIST)
                        return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "group %s appears twice", e[i].name);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The rule of CreateGroup: a persistent group's parent is persistent, declared, or made persistent by the batch. */
static int check_persistent_parents(Manager *m, const ApplyEntry *e, size_t n, const Hashmap *names,
                                    HcbsVerdict *v) {
        for (size_t i = 0; i < n; i++) {
                size_t len = hcbs_name_parent_len(e[i].name);
                char parent[len + 1];
                const ApplyEntry *p;
                int r;

                if (!e[i].persistent || e[i].delete || len == 0)
                        continue;
                memcpy(parent, e[i].name, len);
                parent[len] = '\0';
                p = hashmap_get(names, parent);
                r = manager_check_persistent_parent(m, e[i].name, p && p->persistent && !p->delete, v);
                if (r != 0)
                        return r;
        }
        return 0;
}

static int check_entries(Manager *m, const ApplyEntry *e, size_t n, HcbsVerdict *v) {
        Hashmap *names = NULL;
        int r = hashmap_new(&names);

        if (r >= 0)
                r = check_names(m, e, n, names, v);
        if (r == 0)
                r = check_persistent_parents(m, e, n, names, v);
        hashmap_free(names);
        return r;
}

/* MaxGroups= holds for the tree the batch leaves. */
static int check_count(Manager *m, const ApplyEntry *e, size_t n, HcbsVerdict *v) {
        size_t count = manager_group_count(m);

        for (size_t i = 0; i < n; i++) {
                bool exists = hcbs_admission_find(&m->admission, e[i].name);
                count += !e[i].delete && !exists;
                count -= e[i].delete && exists;
        }
        if (count <= m->conf.max_groups)
                return 0;
        return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "the batch leaves %zu groups, MaxGroups=%u", count,
                                (unsigned) m->conf.max_groups);
}

/* Admits and plans one entry against the model as the batch has left it. */
static int plan_entry(Batch *b, const ApplyEntry *e, const ApplyOptions *o, HcbsVerdict *v) {
        Manager *m = b->m;
        HcbsNode *n = hcbs_admission_find(&m->admission, e->name);
        HcbsPlan plan;
        int r;

        if (e->delete && n) {
                (void) manager_refresh_tasks(m, n);
                r = hcbs_admit_delete(&m->admission, e->name, &plan, v);
        } else if (e->delete)
                r = hcbs_admit_delete(&m->admission, e->name, &plan, v); /* names the problem */
        else if (n)
                r = hcbs_admit_set(&m->admission, e->name, e->runtime_us, e->period_us, e->has_cpus ? &e->cpus : NULL,
                                   o->grow_parents, &plan, v);
        else
                r = hcbs_admit_create(&m->admission, e->name, e->runtime_us, e->period_us,
                                      e->has_cpus ? &e->cpus : NULL, o->grow_parents, &plan, v);
        if (r == 0 && v->error == HCBS_OK)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "%s: refused", e->name);
        r = hcbs_admitted(r, v);
        if (r != 0)
                return r;
        r = commit_entry(b, &plan, e->delete);
        hcbs_plan_done(&plan);
        return r;
}

/* Plans the entries in order, each against the model as the ones before it leave it. */
static int plan_batch(Batch *b, const ApplyEntry *e, const size_t *order, size_t n, const ApplyOptions *o,
                      HcbsVerdict *v) {
        for (size_t i = 0; i < n; i++) {
                int r = plan_entry(b, &e[order[i]], o, v);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* After the kernel took the batch: metadata, persistence (saved if a persistent group came or went), the pool. */
static int finish(Manager *m, const ApplyEntry *e, size_t n, size_t n_persistent_before) {
        bool save = manager_persistent_count(m) != n_persistent_before; /* one deleted */
        int r = 0;

        for (size_t i = 0; i < n; i++) {
                HcbsNode *g = hcbs_admission_find(&m->admission, e[i].name);
                save |= e[i].persistent;
                if (!g)
                        continue;
                manager_persist_forget(m, e[i].name);
                if (e[i].persistent && r >= 0)
                        r = manager_group_set_persistent(m, g, true);
        }
        manager_trim_pool(m);
        if (r < 0)
                return log_error_errno(r, "Cannot record the batch's persistent groups: %m");
        return save ? manager_save_persistent(m) : 0;
}

int manager_apply(Manager *m, const ApplyEntry *e, size_t n, const ApplyOptions *o, HcbsPlan *ret_plan,
                  HcbsVerdict *v) {
        Batch b = { .m = m };
        _cleanup_free_ size_t *order = NULL;
        int r;

        assert(m);
        assert(e || n == 0);
        assert(o);
        assert(v);
        hcbs_verdict_ok(v);
        hcbs_plan_init(&b.all);
        r = check_entries(m, e, n, v);
        if (r != 0)
                return r;
        order = calloc(n, sizeof(size_t));
        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                order[i] = i;
        sort_base = e;
        qsort(order, n, sizeof(size_t), entry_order);
        r = check_count(m, e, n, v);
        if (r != 0)
                return r;
        r = plan_batch(&b, e, order, n, o, v);
        revert_model(&b);
        if (r == 0 && !o->dry_run) {
                size_t n_persistent = manager_persistent_count(m);
                r = manager_execute(m, &b.all, v);
                if (r == 0)
                        r = finish(m, e, n, n_persistent);
        }
        batch_done(&b);
        if (r == 0 && ret_plan)
                *ret_plan = b.all;
        else
                hcbs_plan_done(&b.all);
        return r;
}
