/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of what changed (daemon/changes.c): one entry a group, in order, whatever the number of changes. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "changes.h"

Test(changes, empty_until_something_changes) {
        Changes c = {};

        cr_assert(changes_empty(&c));
        changes_manager(&c);
        cr_assert_not(changes_empty(&c));
        changes_clear(&c);
        cr_assert(changes_empty(&c));
        cr_assert_eq(changes_group(&c, "a", CHANGE_TASKS), 0);
        cr_assert_not(c.manager, "processes do not change the Manager's figures");
        cr_assert_not(changes_empty(&c));
        changes_clear(&c);
}

Test(changes, one_entry_a_group_in_first_order) {
        Changes c = {};

        cr_assert_eq(changes_group(&c, "b", CHANGE_BANDWIDTH), 0);
        cr_assert_eq(changes_group(&c, "a", CHANGE_TASKS), 0);
        cr_assert_eq(changes_group(&c, "b", CHANGE_TASKS), 0);
        cr_assert_eq(changes_group(&c, "b", CHANGE_BANDWIDTH), 0);
        cr_assert_eq(c.n_groups, 2);
        cr_assert_str_eq(c.groups[0].name, "b");
        cr_assert_eq(c.groups[0].what, CHANGE_BANDWIDTH | CHANGE_TASKS);
        cr_assert_str_eq(c.groups[1].name, "a");
        cr_assert_eq(c.groups[1].what, CHANGE_TASKS);
        cr_assert(c.manager);
        changes_clear(&c);
}

Test(changes, created_and_removed_in_order) {
        Changes c = {};

        cr_assert_eq(changes_group_created(&c, "x"), 0);
        cr_assert_eq(changes_group(&c, "x", CHANGE_BANDWIDTH), 0);
        cr_assert(c.groups[0].created, "new: its creation says it all");
        cr_assert_eq(changes_group_removed(&c, "x"), 0);
        cr_assert_not(c.groups[0].created);
        cr_assert_eq(changes_group_created(&c, "x"), 0);
        cr_assert(c.groups[0].created);
        cr_assert_eq(c.n_groups, 1);
        cr_assert_eq(c.n_events, 3);
        cr_assert(c.events[0].created && !c.events[1].created && c.events[2].created);
        changes_clear(&c);
}

/* Enough groups for the array to move many times: the index must follow it. */
Test(changes, many_groups) {
        Changes c = {};
        char name[32];

        for (int round = 0; round < 2; round++)
                for (int i = 0; i < 5000; i++) {
                        snprintf(name, sizeof(name), "g%d/h", i);
                        cr_assert_eq(changes_group(&c, name, round ? CHANGE_TASKS : CHANGE_BANDWIDTH), 0);
                }
        cr_assert_eq(c.n_groups, 5000);
        for (int i = 0; i < 5000; i++) {
                snprintf(name, sizeof(name), "g%d/h", i);
                cr_assert_str_eq(c.groups[i].name, name);
                cr_assert_eq(c.groups[i].what, CHANGE_BANDWIDTH | CHANGE_TASKS);
        }
        changes_clear(&c);
        cr_assert(changes_empty(&c));
}
