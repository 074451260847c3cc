/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"

void changes_clear(Changes *c) {
        assert(c);
        for (size_t i = 0; i < c->n_events; i++)
                free(c->events[i].name);
        for (size_t i = 0; i < c->n_groups; i++)
                free(c->groups[i].name);
        free(c->events);
        free(c->groups);
        hashmap_free(c->index);
        *c = (Changes) {};
}

bool changes_empty(const Changes *c) {
        return c->n_events == 0 && c->n_groups == 0 && !c->manager;
}

/* The entry of name, added at the end when it is new. */
static GroupChange *group_entry(Changes *c, const char *name) {
        uintptr_t i;
        GroupChange *v;

        if (!c->index && hashmap_new(&c->index) < 0)
                return NULL;
        i = (uintptr_t) hashmap_get(c->index, name);
        if (i > 0)
                return &c->groups[i - 1];
        v = reallocarray(c->groups, c->n_groups + 1, sizeof(GroupChange));
        if (!v)
                return NULL;
        c->groups = v;
        v = &c->groups[c->n_groups];
        *v = (GroupChange) { .name = strdup(name) };
        /* the key is the entry's own copy: it moves with the array, not with the string */
        if (!v->name || hashmap_put(c->index, v->name, (void *) (uintptr_t) (c->n_groups + 1)) < 0) {
                free(v->name);
                return NULL;
        }
        c->n_groups++;
        return v;
}

static int group_event(Changes *c, const char *name, bool created) {
        GroupChange *g;
        GroupEvent *v;
        char *copy;

        assert(c);
        assert(name);
        g = group_entry(c, name);
        if (!g)
                return -ENOMEM;
        copy = strdup(name);
        v = copy ? reallocarray(c->events, c->n_events + 1, sizeof(GroupEvent)) : NULL;
        if (!v) {
                free(copy);
                return -ENOMEM;
        }
        c->events = v;
        c->events[c->n_events++] = (GroupEvent) { .name = copy, .created = created };
        g->created = created;
        c->manager = true;
        return 0;
}

int changes_group_created(Changes *c, const char *name) {
        return group_event(c, name, true);
}

int changes_group_removed(Changes *c, const char *name) {
        return group_event(c, name, false);
}

int changes_group(Changes *c, const char *name, ChangeWhat what) {
        GroupChange *g;

        assert(c);
        assert(name);
        g = group_entry(c, name);
        if (!g)
                return -ENOMEM;
        g->what |= what;
        c->manager |= what != CHANGE_TASKS;
        return 0;
}

void changes_manager(Changes *c) {
        assert(c);
        c->manager = true;
}
