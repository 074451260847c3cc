/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record of what changed (changes.h) and its one listener, the bus
 * layer. Operations record each change where they make it; the listener
 * gets the record once per event-loop iteration that changed anything,
 * from a deferred source, so a call that creates a group and re-budgets
 * its parents is announced once, after its reply. Nothing is recorded
 * while nobody listens (start-up, shutdown); the statistics collector's
 * set of counted groups follows groups created and removed all the same.
 */
#include <assert.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"

static int on_changes(sd_event_source *s, void *userdata) {
        manager_flush_changes(userdata); /* a oneshot source: off until the next change arms it */
        return 0;
}

void manager_set_changes_listener(Manager *m, ManagerChangesFn fn, void *userdata) {
        assert(m);
        m->changes_fn = fn;
        m->changes_userdata = userdata;
        changes_clear(&m->changes);
        if (!fn)
                m->changes_source = sd_event_source_disable_unref(m->changes_source);
}

void manager_flush_changes(Manager *m) {
        assert(m);
        if (m->changes_fn && !changes_empty(&m->changes))
                m->changes_fn(m, &m->changes, m->changes_userdata);
        changes_clear(&m->changes);
}

/* Makes sure the listener hears of it once the current call is done (a loop that does not run, as
 * in tests, leaves it to manager_flush_changes()); 0 or -errno. */
static int arm(Manager *m) {
        int r;

        if (!m->changes_source) {
                r = sd_event_add_defer(m->event, &m->changes_source, on_changes, m);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(m->changes_source, "changes");
        }
        return sd_event_source_set_enabled(m->changes_source, SD_EVENT_ONESHOT);
}

static void recorded(Manager *m, int r) {
        if (r >= 0)
                r = arm(m);
        if (r < 0)
                log_warning_errno(r, "A change goes unannounced: %m");
}

static bool listening(const Manager *m) {
        return m->changes_fn && sd_event_get_state(m->event) != SD_EVENT_FINISHED;
}

/* The collector follows the same record, whoever listens: counted from its creation, forgotten at its removal. */
void manager_changed_group_created(Manager *m, const HcbsNode *n) {
        manager_stats_count(m, n, 0);
        if (listening(m))
                recorded(m, changes_group_created(&m->changes, manager_group_name(m, n)));
}

void manager_changed_group_removed(Manager *m, const char *path) {
        const char *base = m->admission.base->path;

        manager_stats_forget(m, path);
        if (listening(m))
                recorded(m, changes_group_removed(&m->changes, path + (base[0] ? strlen(base) + 1 : 0)));
}

void manager_changed_bandwidth(Manager *m, const HcbsNode *n) {
        if (!listening(m))
                return;
        if (manager_is_group(m, n))
                recorded(m, changes_group(&m->changes, manager_group_name(m, n), CHANGE_BANDWIDTH));
        else { /* hcbsd's root, its ancestors, a unit's cgroup: the Manager's figures */
                changes_manager(&m->changes);
                recorded(m, 0);
        }
}

void manager_changed_tasks(Manager *m, const HcbsNode *n) {
        if (listening(m) && manager_is_group(m, n))
                recorded(m, changes_group(&m->changes, manager_group_name(m, n), CHANGE_TASKS));
}
