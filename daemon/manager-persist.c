/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Persistent groups: the state file's entries restored at start and on
 * reload, kept while they cannot be restored, and saved after a change.
 * The file's format and its safety are persist.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "manager-internal.h"
#include "persist.h"

/* Drops the kept entry of a group that is in the model now, or was replaced by a new group of that name. */
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
                CreateOptions o = { .persistent = true };
                HcbsVerdict v;
                int r = 0;

                if (node) { /* the kernel is the truth for bandwidth, the state for metadata */
                        manager_group_info(node)->persistent = true;
                        free(g.name);
                        continue;
                }
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

static int collect_persistent(const Manager *m, const HcbsNode *n, PersistGroup **groups, size_t *count) {
        for (const HcbsNode *c = n->first_child; c; c = c->next) {
                GroupInfo *info = manager_group_info(c);
                if (info && info->persistent) {
                        PersistGroup *g = realloc(*groups, (*count + 1) * sizeof(PersistGroup));
                        if (!g)
                                return -ENOMEM;
                        *groups = g;
                        g[*count] = (PersistGroup) { (char *) manager_group_name(m, c),
                                                     c->runtime_us < 0 ? PERSIST_RUNTIME_MAX : (uint64_t) c->runtime_us,
                                                     c->period_us };
                        (*count)++;
                }
                int r = collect_persistent(m, c, groups, count);
                if (r < 0)
                        return r;
        }
        return 0;
}

int manager_save_persistent(Manager *m) {
        PersistGroup *groups = NULL;
        size_t n = 0;
        int r;

        if (m->persist_restoring)
                return 0;
        r = collect_persistent(m, m->admission.base, &groups, &n);
        for (size_t i = 0; r >= 0 && i < m->n_persist_kept; i++) { /* the ones not restored (yet) */
                PersistGroup *g = reallocarray(groups, n + 1, sizeof(PersistGroup));
                if (!g)
                        r = -ENOMEM;
                else
                        (groups = g)[n++] = m->persist_kept[i];
        }
        if (r >= 0)
                r = persist_save(manager_state_dir(m), groups, n);
        free(groups); /* names are borrowed from the model */
        if (r < 0)
                log_error_errno(r, "Cannot save persistent groups to %s: %m", manager_state_dir(m));
        return r;
}
