/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the calls since the last flush changed, as the core saw it: groups
 * created and removed (in order), groups whose bandwidth or processes
 * changed, and whether the Manager's own figures (allocated bandwidth,
 * group count, capacity) did. The core records, the bus layer announces
 * (bus-signals.c): nothing here knows about D-Bus.
 *
 * Recorded already de-duplicated, in O(1) per change: a group changed
 * five times in a call is one entry with the union of what changed, and
 * a group the same calls created is marked so (its creation says it all).
 */

#include <stdbool.h>
#include <stddef.h>

#include "hashmap.h"

typedef enum ChangeWhat {
        CHANGE_BANDWIDTH = 1 << 0, /* runtime or period */
        CHANGE_TASKS = 1 << 1,     /* its processes */
} ChangeWhat;

/* A group created or removed, in the order it happened. */
typedef struct GroupEvent {
        char *name;
        bool created; /* false: removed */
} GroupEvent;

/* A group that changed, once, in the order of its first change. */
typedef struct GroupChange {
        char *name;
        unsigned what;      /* ChangeWhat flags; 0 when only created or removed */
        bool created;       /* its last event is a creation: it is new */
} GroupChange;

typedef struct Changes {
        GroupEvent *events;
        size_t n_events;
        GroupChange *groups;
        size_t n_groups;
        Hashmap *index; /* name -> 1 + its index in groups */
        bool manager;   /* the Manager's figures changed */
} Changes;

/* Empties the record and frees what it held; the record can be used again. */
void changes_clear(Changes *c);
bool changes_empty(const Changes *c);

/* Each returns 0 or -ENOMEM (then the record misses that change, and only that one). */
int changes_group_created(Changes *c, const char *name);
int changes_group_removed(Changes *c, const char *name);
int changes_group(Changes *c, const char *name, ChangeWhat what);
void changes_manager(Changes *c);
