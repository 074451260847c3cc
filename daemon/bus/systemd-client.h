/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * hcbsd as a client of systemd (org.freedesktop.systemd1 on the system
 * bus). It asks and listens, and reports what systemd says to callbacks;
 * it decides nothing (manager-units.c does). Every question after start-up
 * is asynchronous with a timeout, so hcbsd never blocks on PID 1 while it
 * serves; start-up asks synchronously, while systemd waits for READY=1.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

typedef struct SystemdClient SystemdClient;

/* How long a question may wait for systemd's answer. */
#define SYSTEMD_TIMEOUT_USEC (5 * 1000 * 1000ULL)

/* systemd's signals, from the connection that owns org.freedesktop.systemd1 only. */
typedef struct SystemdSignals {
        /* A job of unit ended: result is "done", "failed", "canceled", ... */
        void (*job_removed)(void *userdata, const char *unit, const char *result);
        /* A unit was unloaded; sent for every unit during a daemon-reload too. */
        void (*unit_removed)(void *userdata, const char *unit);
        /* A daemon-reload finished. */
        void (*reloaded)(void *userdata);
} SystemdSignals;

/*
 * What systemd answered. r is 0 with the value; or -errno: -ETIMEDOUT
 * when it did not answer in time, -ECANCELED when hcbsd stops first, or
 * systemd's error (error set, with systemd's name and message).
 */
typedef struct SystemdAnswer {
        int r;
        const sd_bus_error *error; /* NULL unless systemd answered with an error */
        const char *string;        /* ControlGroup (relative to the mount, no leading '/'), ActiveState */
        uint32_t pid;              /* MainPID, 0 when none */
} SystemdAnswer;

/* Called exactly once per question, with the answer; owns userdata from then on. */
typedef void (*SystemdAnswerFn)(const SystemdAnswer *a, void *userdata);

/*
 * Learns which connection is systemd, follows it, matches its signals and
 * subscribes (synchronously). When the bus's event loop exits, the pending
 * questions are answered with -ECANCELED before sd-bus closes the bus (so
 * a caller waiting on one still gets its reply). Returns 0 or -errno (logged).
 */
int systemd_client_new(sd_bus *bus, const SystemdSignals *signals, void *userdata, SystemdClient **ret);
/* Answers every pending question with -ECANCELED, then frees. */
SystemdClient *systemd_client_free(SystemdClient *c);

/*
 * Asynchronous questions about a unit: its ControlGroup (a service's),
 * its ActiveState, its MainPID (a service's). fn runs from the event loop
 * (never before these return); on -errno returned, fn is never called.
 */
int systemd_ask_cgroup(SystemdClient *c, const char *unit, SystemdAnswerFn fn, void *userdata);
int systemd_ask_active_state(SystemdClient *c, const char *unit, SystemdAnswerFn fn, void *userdata);
int systemd_ask_main_pid(SystemdClient *c, const char *unit, SystemdAnswerFn fn, void *userdata);
/* How many questions wait for an answer. */
unsigned systemd_client_pending(const SystemdClient *c);

/*
 * Start-up only, synchronous: the unit whose cgroup is /cgroup, and its
 * ActiveState. 0 with both set (caller frees); or -errno, with error set
 * when systemd answered one.
 */
int systemd_unit_of_cgroup(SystemdClient *c, const char *cgroup, char **ret_unit, char **ret_state,
                           sd_bus_error *error);

/* An ActiveState in which the unit's processes are gone. */
bool systemd_state_is_stopped(const char *state);
