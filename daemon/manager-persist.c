/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Persistent groups: the entries of the state file not restored (yet),
 * and the file saved after a change to a persistent group. Restoring them
 * creates groups, which is start-up's (manager-startup.c). The file's
 * format and its safety are persist.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hashmap.h"
#include "log.h"
#include "manager-internal.h"
#include "name.h"
#include "persist.h"

/*
 * Drops the kept entry of a group that is in the model now, or was
 * replaced by a new group of that name. O(entries not restored): none but
 * after a start or a reload that could not restore some.
 */
void manager_persist_forget(Manager *m, const char *name) {
        if (m->persist_restoring)
                return; /* manager_restore_persistent() keeps its own account */
        for (size_t i = 0; i < m->n_persist_kept; i++)
                if (strcmp(m->persist_kept[i].name, name) == 0) {
                        free(m->persist_kept[i].name);
                        memmove(&m->persist_kept[i], &m->persist_kept[i + 1],
                                (m->n_persist_kept - i - 1) * sizeof(PersistGroup));
                        m->n_persist_kept--;
                        return;
                }
}

static int depth_then_name(const void *a, const void *b) {
        const PersistGroup *x = a, *y = b;
        size_t dx = hcbs_name_depth(x->name), dy = hcbs_name_depth(y->name);

        return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x->name, y->name);
}

/* The persistent groups, parents first, from the index: O(persistent groups), never the whole tree. */
static int collect_persistent(Manager *m, PersistGroup **ret, size_t *ret_n) {
        PersistGroup *groups = calloc(manager_persistent_count(m) + 1, sizeof(PersistGroup));
        const char *name;
        size_t n = 0;

        if (!groups)
                return -ENOMEM;
        for (size_t i = 0; m->persistent && hashmap_iterate(m->persistent, &i, &name, NULL);) {
                const HcbsNode *c = hcbs_admission_find(&m->admission, name);
                if (!c || !manager_group_info(c) || !manager_group_info(c)->persistent)
                        continue; /* not in the model at the moment (an Apply's planning): not ours to write */
                groups[n++] = (PersistGroup) { (char *) name,
                                               c->runtime_us < 0 ? PERSIST_RUNTIME_MAX : (uint64_t) c->runtime_us,
                                               c->period_us, c->cpus };
        }
        if (n > 1)
                qsort(groups, n, sizeof(PersistGroup), depth_then_name);
        *ret = groups;
        *ret_n = n;
        return 0;
}

/*
 * The file is rewritten whole, in one atomic and durable write, and only
 * when a persistent group changed: it costs the persistent groups, not the
 * tree (an append-only log would save the rewrite but not the fsync).
 */
int manager_save_persistent(Manager *m) {
        PersistGroup *groups = NULL;
        size_t n = 0;
        int r;

        if (m->persist_restoring)
                return 0;
        r = collect_persistent(m, &groups, &n);
        for (size_t i = 0; r >= 0 && i < m->n_persist_kept; i++) { /* the ones not restored (yet) */
                PersistGroup *g = reallocarray(groups, n + 1, sizeof(PersistGroup));
                if (!g)
                        r = -ENOMEM;
                else
                        (groups = g)[n++] = m->persist_kept[i];
        }
        if (r >= 0)
                r = persist_save(manager_state_dir(m), groups, n);
        free(groups); /* names are borrowed from the index */
        if (r < 0)
                log_error_errno(r, "Cannot save persistent groups to %s: %m", manager_state_dir(m));
        return r;
}
