/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Talking to systemd: questions with a callback and a timeout, and
 * systemd's signals passed on as facts. No policy here: what an answer
 * means for a reservation is manager-units.c's to decide.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"
#include "log.h"
#include "macro.h"
#include "systemd-client.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT_PREFIX "/org/freedesktop/systemd1/unit"
#define SD_UNIT_IFACE "org.freedesktop.systemd1.Unit"
#define SD_SERVICE_IFACE "org.freedesktop.systemd1.Service"

typedef struct SystemdQuery SystemdQuery;
struct SystemdQuery {
        SystemdQuery *next;
        SystemdClient *client;
        sd_bus_slot *slot;
        SystemdQuestion kind;
        SystemdAnswerFn fn;
        void *userdata;
};

enum { MATCH_OWNER, MATCH_JOB_REMOVED, MATCH_UNIT_REMOVED, MATCH_RELOADING, _MATCH_MAX };

struct SystemdClient {
        sd_bus *bus;
        SystemdSignals signals;
        void *userdata;
        char *owner; /* the unique bus name of systemd: its signals come from it */
        sd_bus_slot *matches[_MATCH_MAX];
        SystemdQuery *queries;
        sd_event_source *exit_source;
        bool freeing;
};

/* ---- questions ---- */

/* Unlinks q and gives its answer: the callback may ask again meanwhile. */
static void query_answer(SystemdQuery *q, const SystemdAnswer *a) {
        LIST_REMOVE(q->client->queries, q);
        q->slot = sd_bus_slot_unref(q->slot);
        q->fn(a, q->userdata);
        free(q);
}

static int read_answer(SystemdQuery *q, sd_bus_message *reply, SystemdAnswer *a) {
        int r;

        if (q->kind == SYSTEMD_MAIN_PID)
                return sd_bus_message_read(reply, "v", "u", &a->pid);
        r = sd_bus_message_read(reply, "v", "s", &a->string);
        if (r >= 0 && q->kind == SYSTEMD_CGROUP)
                a->string += strspn(a->string, "/");
        return r;
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        SystemdQuery *q = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        SystemdAnswer a = {};

        if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY))
                a.r = -ETIMEDOUT; /* sd-bus's timeout, or dbus-daemon's: systemd said nothing */
        else if (e) {
                a.r = -sd_bus_message_get_errno(reply);
                a.r = a.r < 0 ? a.r : -EIO;
                a.error = e->message ? e->message : e->name;
                a.unit_gone = sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit") ||
                              sd_bus_error_has_name(e, SD_BUS_ERROR_UNKNOWN_OBJECT);
        } else
                a.r = read_answer(q, reply, &a) < 0 ? -EBADMSG : 0;
        query_answer(q, &a);
        return 0;
}

static int ask(void *client, SystemdQuestion kind, const char *unit, SystemdAnswerFn fn, void *userdata) {
        static const char *const props[][2] = {
                [SYSTEMD_CGROUP] = { SD_SERVICE_IFACE, "ControlGroup" },
                [SYSTEMD_ACTIVE_STATE] = { SD_UNIT_IFACE, "ActiveState" },
                [SYSTEMD_MAIN_PID] = { SD_SERVICE_IFACE, "MainPID" },
        };
        SystemdClient *c = client;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        _cleanup_free_ char *path = NULL;
        SystemdQuery *q;
        int r;

        if (c->freeing)
                return -ECANCELED;
        r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(c->bus, &msg, SD_DEST, path, "org.freedesktop.DBus.Properties", "Get");
        if (r < 0)
                return r;
        r = sd_bus_message_append(msg, "ss", props[kind][0], props[kind][1]);
        if (r < 0)
                return r;
        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        *q = (SystemdQuery) { .client = c, .kind = kind, .fn = fn, .userdata = userdata };
        r = sd_bus_call_async(c->bus, &q->slot, msg, on_reply, q, SYSTEMD_TIMEOUT_USEC);
        if (r < 0) {
                free(q);
                return log_warning_errno(r, "Cannot ask systemd about %s: %m", unit);
        }
        LIST_PREPEND(c->queries, q);
        return 0;
}

/* ---- start-up, synchronous ---- */

static int get_string(SystemdClient *c, const char *path, const char *prop, char **ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *s;
        int r;

        r = sd_bus_get_property(c->bus, SD_DEST, path, SD_UNIT_IFACE, prop, error, &reply, "s");
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &s);
        if (r < 0)
                return r;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int unit_of_cgroup(void *client, const char *cgroup, char **ret_unit, char **ret_state, char **ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *unit = NULL, *state = NULL;
        SystemdClient *c = client;
        const char *path;
        int r;

        r = sd_bus_call_method(c->bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnitByControlGroup", &error, &reply, "s",
                               cgroup);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = get_string(c, path, "Id", &unit, &error);
        if (r >= 0)
                r = get_string(c, path, "ActiveState", &state, &error);
        if (r < 0) {
                if (error.message && !(*ret_error = strdup(error.message)))
                        return -ENOMEM;
                return r;
        }
        *ret_unit = TAKE_PTR(unit);
        *ret_state = TAKE_PTR(state);
        return 0;
}

SystemdQuestions systemd_client_questions(SystemdClient *c) {
        return (SystemdQuestions) { .client = c, .ask = ask, .unit_of_cgroup = unit_of_cgroup };
}

/* ---- systemd's signals ---- */

/*
 * Anyone may send a unicast signal to hcbsd with systemd's interface and
 * path; dbus-daemon fills in the true sender. Only the connection that owns
 * org.freedesktop.systemd1 is systemd, so each handler checks the sender
 * against that unique name, which the client follows through
 * NameOwnerChanged (itself only believed from the bus driver).
 */
static bool from_systemd(SystemdClient *c, sd_bus_message *msg) {
        const char *sender = sd_bus_message_get_sender(msg);

        if (sender && c->owner && strcmp(sender, c->owner) == 0)
                return true;
        log_debug("Ignoring %s.%s from %s: not systemd (%s)", sd_bus_message_get_interface(msg),
                  sd_bus_message_get_member(msg), sender ? sender : "?", c->owner ? c->owner : "none");
        return false;
}

static int on_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SystemdClient *c = userdata;
        const char *name, *old_owner, *new_owner;
        const char *sender = sd_bus_message_get_sender(msg);
        char *owner;

        if (!sender || strcmp(sender, "org.freedesktop.DBus") != 0 ||
            sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, SD_DEST) != 0)
                return 0;
        owner = new_owner[0] ? strdup(new_owner) : NULL;
        if (new_owner[0] && !owner)
                return log_error_errno(-ENOMEM, "Out of memory");
        free(c->owner);
        c->owner = owner;
        log_info("systemd is %s on the bus now", owner ? owner : "gone");
        if (owner) /* a re-executed systemd: subscribe again */
                (void) sd_bus_call_method_async(c->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL,
                                                "");
        return 0;
}

static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SystemdClient *c = userdata;
        const char *job, *unit, *result;
        uint32_t id;

        if (from_systemd(c, msg) && sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) >= 0)
                c->signals.job_removed(c->userdata, unit, result);
        return 0;
}

static int on_unit_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SystemdClient *c = userdata;
        const char *unit, *path;

        if (from_systemd(c, msg) && sd_bus_message_read(msg, "so", &unit, &path) >= 0)
                c->signals.unit_removed(c->userdata, unit);
        return 0;
}

static int on_reloading(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        SystemdClient *c = userdata;
        int active;

        if (from_systemd(c, msg) && sd_bus_message_read(msg, "b", &active) >= 0 && !active)
                c->signals.reloaded(c->userdata);
        return 0;
}

static int learn_owner(SystemdClient *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *owner;
        int r;

        /* arg0: only systemd's name; without it every client connecting to the system bus (each
         * hcbsctl, twice) would wake hcbsd for nothing */
        r = sd_bus_add_match(c->bus, &c->matches[MATCH_OWNER],
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" SD_DEST "'",
                             on_owner_changed, c);
        if (r < 0)
                return log_error_errno(r, "Cannot follow which connection is systemd: %m");
        r = sd_bus_call_method(c->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &error, &reply, "s", SD_DEST);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &owner);
        if (r < 0)
                return log_error_errno(r, "Cannot learn which connection is systemd: %s",
                                       error.message ? error.message : strerror(-r));
        c->owner = strdup(owner);
        return c->owner ? 0 : log_error_errno(-ENOMEM, "Out of memory");
}

static int subscribe(SystemdClient *c) {
        static const struct {
                int slot;
                const char *member;
                sd_bus_message_handler_t fn;
        } signals[] = {
                { MATCH_JOB_REMOVED, "JobRemoved", on_job_removed },
                { MATCH_UNIT_REMOVED, "UnitRemoved", on_unit_removed },
                { MATCH_RELOADING, "Reloading", on_reloading },
        };
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                r = sd_bus_match_signal(c->bus, &c->matches[signals[i].slot], SD_DEST, SD_PATH, SD_MANAGER,
                                        signals[i].member, signals[i].fn, c);
                if (r < 0)
                        return log_error_errno(r, "Cannot match systemd's %s signal: %m", signals[i].member);
        }
        r = sd_bus_call_method(c->bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &error, NULL, "");
        if (r < 0)
                return log_error_errno(r, "Cannot subscribe to systemd's signals: %s",
                                       error.message ? error.message : strerror(-r));
        return 0;
}

/* Answers every pending question with -ECANCELED; asks nothing from then on. */
static void cancel_all(SystemdClient *c) {
        c->freeing = true;
        while (c->queries)
                query_answer(c->queries, &(SystemdAnswer) { .r = -ECANCELED });
}

/*
 * The event loop exits: the answers (a caller's error reply) must go out
 * before sd-bus flushes and closes the connection, which an exit source of
 * its own does at the bus's priority.
 */
static int on_loop_exit(sd_event_source *s, void *userdata) {
        cancel_all(userdata);
        return 0;
}

static int watch_exit(SystemdClient *c) {
        sd_event *e = sd_bus_get_event(c->bus);
        int r;

        if (!e)
                return 0;
        r = sd_event_add_exit(e, &c->exit_source, on_loop_exit, c);
        if (r >= 0)
                r = sd_event_source_set_priority(c->exit_source, SD_EVENT_PRIORITY_IMPORTANT);
        return r < 0 ? log_error_errno(r, "Cannot watch the event loop's exit: %m") : 0;
}

int systemd_client_new(sd_bus *bus, const SystemdSignals *signals, void *userdata, SystemdClient **ret) {
        SystemdClient *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return log_error_errno(-ENOMEM, "Out of memory");
        c->bus = sd_bus_ref(bus);
        c->signals = *signals;
        c->userdata = userdata;
        r = watch_exit(c);
        if (r >= 0)
                r = learn_owner(c);
        if (r >= 0)
                r = subscribe(c);
        if (r < 0) {
                systemd_client_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

SystemdClient *systemd_client_free(SystemdClient *c) {
        if (!c)
                return NULL;
        cancel_all(c);
        sd_event_source_unref(c->exit_source);
        for (size_t i = 0; i < ELEMENTSOF(c->matches); i++)
                sd_bus_slot_unref(c->matches[i]);
        sd_bus_unref(c->bus);
        free(c->owner);
        free(c);
        return NULL;
}
