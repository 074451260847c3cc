/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What the core asks systemd, and how systemd's answers and signals come
 * back: plain facts, no D-Bus types. The bus layer's systemd client
 * (systemd-client.c) asks over the bus; tests/unit/test-manager.c answers
 * in memory. Nothing here decides: what an answer means for a reservation
 * is manager-units.c's to say.
 */

#include <stdbool.h>
#include <stdint.h>

/* How long a question may wait for systemd's answer. */
#define SYSTEMD_TIMEOUT_USEC (5 * 1000 * 1000ULL)

typedef enum SystemdQuestion {
        SYSTEMD_CGROUP,       /* a service's ControlGroup */
        SYSTEMD_ACTIVE_STATE, /* a unit's ActiveState */
        SYSTEMD_MAIN_PID,     /* a service's MainPID */
} SystemdQuestion;

/*
 * What systemd answered. r is 0 with the value; or -errno: -ETIMEDOUT
 * when it did not answer in time, -ECANCELED when hcbsd stops first, or
 * the errno of systemd's error (then error holds systemd's message).
 */
typedef struct SystemdAnswer {
        int r;
        const char *error; /* systemd's message when it answered with an error, else NULL */
        bool unit_gone;    /* that error says systemd has no such unit (any more) */
        const char *string; /* ControlGroup (relative to the mount, no leading '/'), ActiveState */
        uint32_t pid;       /* MainPID, 0 when none */
} SystemdAnswer;

/* Called exactly once per question, from the event loop, with the answer; owns userdata from then on. */
typedef void (*SystemdAnswerFn)(const SystemdAnswer *a, void *userdata);

typedef struct SystemdQuestions {
        void *client;
        /*
         * Asks what about unit; fn runs from the event loop, never before
         * this returns. Returns 0, or -errno and fn is never called.
         */
        int (*ask)(void *client, SystemdQuestion what, const char *unit, SystemdAnswerFn fn, void *userdata);
        /*
         * Start-up only, synchronous (systemd waits for READY=1 meanwhile):
         * the unit whose cgroup is /cgroup and its ActiveState. 0 with both
         * set (caller frees); or -errno, with *ret_error set to systemd's
         * message when it answered one (caller frees).
         */
        int (*unit_of_cgroup)(void *client, const char *cgroup, char **ret_unit, char **ret_state, char **ret_error);
} SystemdQuestions;

/* systemd's signals, as the core wants them (from the connection that owns org.freedesktop.systemd1 only). */
typedef struct SystemdSignals {
        /* A job of unit ended: result is "done", "failed", "canceled", ... */
        void (*job_removed)(void *userdata, const char *unit, const char *result);
        /* A unit was unloaded; sent for every unit during a daemon-reload too. */
        void (*unit_removed)(void *userdata, const char *unit);
        /* A daemon-reload finished. */
        void (*reloaded)(void *userdata);
} SystemdSignals;

