/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Intrusive singly linked lists: an element holds its own `next`. Used
 * for the calls that wait for someone else's answer (polkit's, systemd's),
 * a handful at a time, so the O(n) removal does not matter.
 */

#define LIST_PREPEND(head, item)             \
        do {                                 \
                (item)->next = (head);       \
                (head) = (item);             \
        } while (0)

/* Unlinks item from the list at head; nothing if it is not there. */
#define LIST_REMOVE(head, item)                                                   \
        do {                                                                      \
                for (__typeof__(head) *_p_ = &(head); *_p_; _p_ = &(*_p_)->next) \
                        if (*_p_ == (item)) {                                     \
                                *_p_ = (item)->next;                              \
                                break;                                            \
                        }                                                         \
        } while (0)

#define LIST_FOREACH(i, head) for (__typeof__(head) i = (head); i; i = i->next)
