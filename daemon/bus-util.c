/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "log.h"

static int invalid(sd_bus_error *error, const char *fmt, const char *a) {
        return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument", fmt, a);
}

static int read_one(sd_bus_message *msg, BusOption *o, sd_bus_error *error) {
        char sig[2] = { o->type, 0 };
        const char *contents;
        int r;

        r = sd_bus_message_peek_type(msg, NULL, &contents);
        if (r < 0)
                return r;
        if (strcmp(contents, sig) != 0)
                return invalid(error, "option '%s' has the wrong type", o->name);
        r = sd_bus_message_enter_container(msg, 'v', sig);
        if (r < 0)
                return r;
        if (o->type == 'b') {
                int b;
                r = sd_bus_message_read_basic(msg, 'b', &b);
                if (r >= 0)
                        *(bool *) o->ret = b;
        } else
                r = sd_bus_message_read_basic(msg, o->type, o->ret);
        if (r < 0)
                return r;
        o->seen = true;
        return sd_bus_message_exit_container(msg);
}

int bus_read_options(sd_bus_message *msg, BusOption *table, size_t n, sd_bus_error *error) {
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                const char *key;
                BusOption *o = NULL;

                r = sd_bus_message_read(msg, "s", &key);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n && !o; i++)
                        if (strcmp(table[i].name, key) == 0)
                                o = &table[i];
                if (!o)
                        return invalid(error, "unknown option '%s'", key);
                r = read_one(msg, o, error);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(msg);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(msg);
}

static int polkit_check(Manager *m, sd_bus_message *msg, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error perr = SD_BUS_ERROR_NULL;
        int authorized = 0, challenge = 0, r;

        r = sd_bus_call_method(sd_bus_message_get_bus(msg), "org.freedesktop.PolicyKit1",
                               "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
                               "CheckAuthorization", &perr, &reply, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name",
                               "s", sd_bus_message_get_sender(msg), HCBS_POLKIT_ACTION, 0,
                               (uint32_t) (sd_bus_message_get_allow_interactive_authorization(msg) ? 1 : 0), "");
        if (r < 0) {
                log_debug("polkit unavailable: %s", perr.message ? perr.message : strerror(-r));
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "PermissionDenied",
                                         "only root may change RT groups (polkit is not available to authorize "
                                         "others)");
        }
        r = sd_bus_message_read(reply, "(bb", &authorized, &challenge);
        if (r < 0)
                return r;
        if (!authorized)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "PermissionDenied",
                                         "not authorized for " HCBS_POLKIT_ACTION "%s",
                                         challenge ? " (authentication required)" : "");
        return 1;
}

int bus_verify_manage(Manager *m, sd_bus_message *msg, uid_t *ret_uid, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        uint64_t augmented;
        uid_t uid;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        augmented = sd_bus_creds_get_augmented_mask(creds);
        if (augmented & SD_BUS_CREDS_EUID)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "PermissionDenied",
                                         "the bus did not vouch for the caller's uid");
        r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;
        *ret_uid = uid;
        if (uid == 0)
                return 1;
        return polkit_check(m, msg, error);
}

int bus_group_path(const char *name, char **ret) {
        return sd_bus_path_encode(HCBS_GROUP_PREFIX, name, ret);
}
