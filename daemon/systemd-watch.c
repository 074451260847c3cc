/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Talking to systemd. Start-up asks synchronously (systemd answers while
 * it waits for our READY=1); everything later is asynchronous, so hcbsd
 * never blocks on PID 1 while it serves. An answer about a unit is acted
 * on only if the unit's reservation has not changed since the question
 * (GroupInfo.generation): a stale "inactive" must not release a
 * reservation made a moment later by the unit's next start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager-internal.h"
#include "name.h"
#include "systemd-watch.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT_PREFIX "/org/freedesktop/systemd1/unit"
#define SD_TIMEOUT_USEC (5 * 1000 * 1000ULL)

typedef enum QueryKind { QUERY_STATE, QUERY_MAIN_PID } QueryKind;

struct SystemdQuery {
        SystemdQuery *next;
        Manager *m;
        sd_bus_slot *slot;
        QueryKind kind;
        char *unit;
        uint64_t generation;
};

static int call(Manager *m, const char *path, const char *iface, const char *member, sd_bus_error *error,
                sd_bus_message **reply, const char *types, const char *a, const char *b) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        int r = sd_bus_message_new_method_call(m->bus, &msg, SD_DEST, path, iface, member);

        if (r >= 0)
                r = b ? sd_bus_message_append(msg, types, a, b) : sd_bus_message_append(msg, types, a);
        if (r < 0)
                return r;
        return sd_bus_call(m->bus, msg, SD_TIMEOUT_USEC, error, reply);
}

static int get_string(Manager *m, const char *path, const char *iface, const char *prop, char **ret,
                      sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *s;
        int r = call(m, path, "org.freedesktop.DBus.Properties", "Get", error, &reply, "ss", iface, prop);

        if (r >= 0)
                r = sd_bus_message_read(reply, "v", "s", &s);
        if (r < 0)
                return r;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

int systemd_unit_cgroup(Manager *m, const char *unit, char **ret, HcbsVerdict *v) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL, *cgroup = NULL;
        int r;

        if (!hcbs_service_name_is_valid(unit)) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "'%s' is not the name of a service", unit);
                return 0;
        }
        r = sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path);
        if (r >= 0)
                r = get_string(m, path, "org.freedesktop.systemd1.Service", "ControlGroup", &cgroup, &error);
        if (r < 0 && sd_bus_error_is_set(&error)) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "systemd cannot tell the cgroup of %s: %s", unit,
                                 error.message ? error.message : error.name);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot ask systemd for the cgroup of %s: %m", unit);
        if (!cgroup[0]) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT,
                                 "%s has no cgroup: reserve from its ExecStartPre=, while it starts", unit);
                return 0;
        }
        *ret = strdup(cgroup + strspn(cgroup, "/"));
        return *ret ? 1 : -ENOMEM;
}

/* ---- asynchronous questions ---- */

static SystemdQuery *query_free(SystemdQuery *q) {
        if (q) {
                sd_bus_slot_unref(q->slot);
                free(q->unit);
                free(q);
        }
        return NULL;
}

void systemd_queries_free(Manager *m) {
        while (m->systemd_queries) {
                SystemdQuery *q = m->systemd_queries;
                m->systemd_queries = q->next;
                query_free(q);
        }
}

static void query_done(SystemdQuery *q) {
        for (SystemdQuery **p = &q->m->systemd_queries; *p; p = &(*p)->next)
                if (*p == q) {
                        *p = q->next;
                        break;
                }
        query_free(q);
}

/* The unit's reservation node, if it is still the one the question was about. */
static HcbsNode *query_node(const SystemdQuery *q) {
        HcbsNode *n = manager_unit_node(q->m, q->unit);
        return n && manager_group_info(n)->generation == q->generation ? n : NULL;
}

/* An ActiveState in which the unit's processes are gone. */
static bool state_is_stopped(const char *state) {
        return strcmp(state, "inactive") == 0 || strcmp(state, "failed") == 0;
}

static void on_state(SystemdQuery *q, sd_bus_message *reply) {
        HcbsNode *n = query_node(q);
        bool gone = sd_bus_message_is_method_error(reply, "org.freedesktop.systemd1.NoSuchUnit") ||
                    sd_bus_message_is_method_error(reply, "org.freedesktop.DBus.Error.UnknownObject");
        const char *state = "inactive"; /* as good as for a unit systemd no longer knows */
        HcbsVerdict v;

        if (!n)
                return;
        if (!gone && sd_bus_message_is_method_error(reply, NULL)) {
                log_warning("Cannot ask systemd about %s: %s", q->unit, sd_bus_message_get_error(reply)->message);
                return;
        }
        if (!gone && sd_bus_message_read(reply, "v", "s", &state) < 0)
                return;
        if (!state_is_stopped(state))
                return;
        log_notice("%s is %s but still held its reservation: giving it back", q->unit, state);
        (void) manager_unit_drop(q->m, n, &v);
}

static void on_main_pid(SystemdQuery *q, sd_bus_message *reply) {
        HcbsNode *n = query_node(q);
        GroupInfo *info = n ? manager_group_info(n) : NULL;
        _cleanup_free_ char *cgroup = NULL;
        uint32_t pid = 0;
        int r;

        if (!info || !info->policy_pending || sd_bus_message_is_method_error(reply, NULL) ||
            sd_bus_message_read(reply, "v", "u", &pid) < 0 || pid == 0)
                return;
        info->policy_pending = false;
        r = proc_get_cgroup((pid_t) pid, "", &cgroup);
        if (r >= 0 && strcmp(cgroup, n->path) != 0)
                r = -EXDEV;
        if (r >= 0)
                r = proc_set_policy((pid_t) pid, info->policy, info->priority);
        if (r < 0)
                log_error_errno(r, "%s: cannot make main process %u %s %d: %m", q->unit, pid,
                                proc_policy_to_string(info->policy), info->priority);
        else
                log_info("%s: main process %u runs %s %d in its reservation", q->unit, pid,
                         proc_policy_to_string(info->policy), info->priority);
        (void) manager_refresh_tasks(q->m, n);
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        SystemdQuery *q = userdata;

        (void) error;
        if (q->kind == QUERY_STATE)
                on_state(q, reply);
        else
                on_main_pid(q, reply);
        query_done(q);
        return 0;
}

static int ask(Manager *m, const char *unit, QueryKind kind) {
        HcbsNode *n = manager_unit_node(m, unit);
        _cleanup_free_ char *path = NULL;
        SystemdQuery *q;
        int r;

        if (!n)
                return 0;
        q = calloc(1, sizeof(SystemdQuery));
        if (!q)
                return -ENOMEM;
        q->m = m;
        q->kind = kind;
        q->generation = manager_group_info(n)->generation;
        q->unit = strdup(unit);
        if (!q->unit || sd_bus_path_encode(SD_UNIT_PREFIX, unit, &path) < 0) {
                query_free(q);
                return -ENOMEM;
        }
        r = sd_bus_call_method_async(m->bus, &q->slot, SD_DEST, path, "org.freedesktop.DBus.Properties", "Get",
                                     on_reply, q, "ss",
                                     kind == QUERY_STATE ? "org.freedesktop.systemd1.Unit"
                                                         : "org.freedesktop.systemd1.Service",
                                     kind == QUERY_STATE ? "ActiveState" : "MainPID");
        if (r < 0) {
                query_free(q);
                return log_warning_errno(r, "Cannot ask systemd about %s: %m", unit);
        }
        q->next = m->systemd_queries;
        m->systemd_queries = q;
        return 0;
}

/* ---- systemd's signals ---- */

/*
 * Anyone may send a unicast signal to hcbsd with systemd's interface and
 * path; dbus-daemon fills in the true sender. Only the connection that owns
 * org.freedesktop.systemd1 is systemd, so each handler checks the sender
 * against that unique name, which hcbsd follows through NameOwnerChanged
 * (itself only believed from the bus driver).
 */
static bool from_systemd(Manager *m, sd_bus_message *msg) {
        const char *sender = sd_bus_message_get_sender(msg);

        if (sender && m->systemd_owner && strcmp(sender, m->systemd_owner) == 0)
                return true;
        log_debug("Ignoring %s.%s from %s: not systemd (%s)", sd_bus_message_get_interface(msg),
                  sd_bus_message_get_member(msg), sender ? sender : "?", m->systemd_owner ? m->systemd_owner : "none");
        return false;
}

static int on_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name, *old_owner, *new_owner;
        const char *sender = sd_bus_message_get_sender(msg);
        char *owner;

        (void) error;
        if (!sender || strcmp(sender, "org.freedesktop.DBus") != 0 ||
            sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, SD_DEST) != 0)
                return 0;
        owner = new_owner[0] ? strdup(new_owner) : NULL;
        if (new_owner[0] && !owner)
                return log_error_errno(-ENOMEM, "Out of memory");
        free(m->systemd_owner);
        m->systemd_owner = owner;
        log_info("systemd is %s on the bus now", owner ? owner : "gone");
        if (owner) /* a re-executed systemd: subscribe again */
                (void) sd_bus_call_method_async(m->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL,
                                                "");
        return 0;
}

static int learn_owner(Manager *m) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *owner;
        int r;

        r = sd_bus_match_signal(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameOwnerChanged", on_owner_changed, m);
        if (r >= 0)
                r = sd_bus_call_method(m->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetNameOwner", &error, &reply, "s", SD_DEST);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &owner);
        if (r < 0)
                return log_error_errno(r, "Cannot learn which connection is systemd: %s",
                                       error.message ? error.message : strerror(-r));
        free(m->systemd_owner);
        m->systemd_owner = strdup(owner);
        return m->systemd_owner ? 0 : log_error_errno(-ENOMEM, "Out of memory");
}

static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *job, *unit, *result;
        uint32_t id;
        HcbsNode *n;

        (void) error;
        if (!from_systemd(m, msg) || sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) < 0 ||
            !(n = manager_unit_node(m, unit)))
                return 0;
        if (strcmp(result, "done") == 0 && manager_group_info(n)->policy_pending)
                (void) ask(m, unit, QUERY_MAIN_PID);
        (void) ask(m, unit, QUERY_STATE);
        return 0;
}

/* Sent when a unit is unloaded, but also for every unit during daemon-reload: ask, do not assume. */
static int on_unit_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *unit, *path;

        (void) error;
        if (from_systemd(m, msg) && sd_bus_message_read(msg, "so", &unit, &path) >= 0)
                (void) ask(m, unit, QUERY_STATE);
        return 0;
}

static int on_reloading(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int active;

        (void) error;
        if (!from_systemd(m, msg) || sd_bus_message_read(msg, "b", &active) < 0 || active)
                return 0;
        HCBS_NODE_FOREACH_CHILD(n, m->policy.pool) {
                GroupInfo *info = manager_group_info(n);
                if (info && info->unit)
                        (void) ask(m, info->unit, QUERY_STATE);
        }
        return 0;
}

/* ---- start-up ---- */

/* Which unit owns a cgroup found holding bandwidth at start; drops what no running unit holds. */
static void learn_unit(Manager *m, HcbsNode *n) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *cgroup = NULL, *unit = NULL, *state = NULL;
        const char *path;
        GroupInfo *info = manager_group_info(n);
        HcbsVerdict v;
        int r;

        if (asprintf(&cgroup, "/%s", n->path) < 0)
                return;
        r = call(m, SD_PATH, SD_MANAGER, "GetUnitByControlGroup", &error, &reply, "s", cgroup, NULL);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = get_string(m, path, "org.freedesktop.systemd1.Unit", "Id", &unit, &error);
        if (r >= 0)
                r = get_string(m, path, "org.freedesktop.systemd1.Unit", "ActiveState", &state, &error);
        if (r >= 0 && !state_is_stopped(state)) {
                info->unit = TAKE_PTR(unit);
                info->generation = ++m->generation;
                log_info("%s holds %" PRId64 "us every %" PRIu64 "us in %s/%s", info->unit, n->runtime_us,
                         n->period_us, m->mount, n->path);
                return;
        }
        log_notice("%s/%s holds a reservation but no running unit does (%s): giving it back", m->mount, n->path,
                   r < 0 ? (error.message ? error.message : strerror(-r)) : state);
        (void) manager_unit_drop(m, n, &v);
}

static int subscribe(Manager *m) {
        static const struct {
                const char *member;
                sd_bus_message_handler_t fn;
        } signals[] = {
                { "JobRemoved", on_job_removed },
                { "UnitRemoved", on_unit_removed },
                { "Reloading", on_reloading },
        };
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = learn_owner(m);

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(signals); i++)
                r = sd_bus_match_signal(m->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, signals[i].member,
                                        signals[i].fn, m);
        if (r >= 0)
                r = call(m, SD_PATH, SD_MANAGER, "Subscribe", &error, NULL, "", NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot subscribe to systemd's signals: %s",
                                       error.message ? error.message : strerror(-r));
        return 0;
}

int manager_systemd_watch(Manager *m) {
        int r;

        if (!m->policy.pool)
                return 0;
        r = subscribe(m);
        if (r < 0)
                return r;
        for (HcbsNode *n = m->policy.pool->first_child, *next; n; n = next) {
                next = n->next; /* learn_unit may forget n */
                /* a "max" cgroup (rtmax) reserves nothing: a unit hcbsd never served */
                if (n->runtime_us != 0 && !hcbs_node_is_max(hcbs_model_profile(m->model), n) &&
                    n != m->policy.base->parent && !manager_group_info(n)->unit)
                        learn_unit(m, n);
        }
        manager_trim_pool(m);
        return 0;
}
