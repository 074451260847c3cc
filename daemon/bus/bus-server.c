/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bus layer set up and torn down: the connection, the objects served,
 * the manager's listener for its changes and, with a pool, the systemd
 * client that answers the manager's questions about units.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "log.h"

static int connect_bus(BusServer *b) {
        const char *address = b->manager->opts.bus_address;
        int r;

        if (!address) {
                r = sd_bus_open_system_with_description(&b->bus, "hcbsd");
                if (r < 0)
                        return log_error_errno(r, "Cannot connect to the system bus: %m");
                return 0;
        }
        r = sd_bus_new(&b->bus);
        if (r < 0)
                return log_error_errno(r, "Cannot create a bus connection: %m");
        r = sd_bus_set_address(b->bus, address);
        if (r < 0)
                return log_error_errno(r, "Cannot use the bus address %s: %m", address);
        r = sd_bus_set_bus_client(b->bus, true);
        if (r < 0)
                return log_error_errno(r, "Cannot make the connection to %s a bus client: %m", address);
        r = sd_bus_start(b->bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to the bus at %s: %m", address);
        return 0;
}

static int serve(BusServer *b) {
        int r;

        r = bus_manager_setup(b);
        if (r < 0)
                return log_error_errno(r, "Cannot serve the object " HCBS_MANAGER_PATH " (" HCBS_MANAGER_IFACE "): %m");
        r = bus_group_setup(b);
        if (r < 0)
                return log_error_errno(r, "Cannot serve the group objects below " HCBS_GROUP_PREFIX ": %m");
        r = sd_bus_attach_event(b->bus, b->manager->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the bus connection to the event loop: %m");
        /* a daemon nobody can reach serves nothing: end the loop with a failure (EXIT_FAILURE), so Restart= works */
        r = sd_bus_set_exit_on_disconnect(b->bus, true);
        if (r < 0)
                return log_error_errno(r, "Cannot have the bus connection's loss end the event loop: %m");
        r = sd_bus_request_name(b->bus, HCBS_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot own the name " HCBS_BUS_NAME " on the bus: %m");
        return 0;
}

/* With a pool: systemd's client, and the manager learns through it who holds what. */
static int watch_units(BusServer *b) {
        Manager *m = b->manager;
        SystemdQuestions q;
        int r;

        if (!m->admission.pool)
                return 0;
        r = systemd_client_new(b->bus, manager_units_signals(), m, &b->systemd);
        if (r < 0)
                return r;
        q = systemd_client_questions(b->systemd);
        return manager_units_watch(m, &q);
}

int bus_server_new(Manager *m, BusServer **ret) {
        _cleanup_(bus_server_freep) BusServer *b = NULL;
        int r;

        assert(m);
        assert(m->event);
        assert(ret);
        b = calloc(1, sizeof(BusServer));
        if (!b)
                return log_error_errno(-ENOMEM, "Out of memory");
        b->manager = m;
        r = hcbs_bus_errors_register();
        if (r < 0) /* replies still carry our names; only sd-bus's errno mapping of them is lost */
                log_warning_errno(r, "Cannot register the org.hcbsd1.Error names with sd-bus: %m");
        r = connect_bus(b);
        if (r < 0)
                return r;
        r = serve(b);
        if (r < 0)
                return r;
        manager_set_changes_listener(m, bus_emit_changes, b);
        r = watch_units(b);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}

BusServer *bus_server_free(BusServer *b) {
        if (!b)
                return NULL;
        /* the calls waiting for systemd or for an analysis are answered (-ECANCELED) while the bus still carries replies */
        b->systemd = systemd_client_free(b->systemd);
        manager_analyses_stop(b->manager);
        manager_units_unwatch(b->manager);
        manager_set_changes_listener(b->manager, NULL, NULL);
        bus_polkit_queries_free(b);
        sd_bus_flush_close_unref(b->bus);
        free(b);
        return NULL;
}
