/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-util.h"
#include "log.h"
#include "name.h"

static int invalid(sd_bus_error *error, const char *fmt, const char *a) {
        return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument", fmt, a);
}

static int read_u32_array(sd_bus_message *msg, BusU32Array *ret) {
        const void *p;
        size_t size;
        int r;

        r = sd_bus_message_read_array(msg, 'u', &p, &size);
        if (r < 0)
                return r;
        ret->v = malloc(size ? size : 1);
        if (!ret->v)
                return -ENOMEM;
        memcpy(ret->v, p, size);
        ret->n = size / sizeof(uint32_t);
        return 0;
}

static int read_value(sd_bus_message *msg, const BusOption *o) {
        int b, r;

        if (strcmp(o->type, "au") == 0)
                return read_u32_array(msg, o->ret);
        if (strcmp(o->type, "b") != 0)
                return sd_bus_message_read_basic(msg, o->type[0], o->ret);
        r = sd_bus_message_read_basic(msg, 'b', &b);
        if (r >= 0)
                *(bool *) o->ret = b;
        return r;
}

static int read_one(sd_bus_message *msg, BusOption *o, sd_bus_error *error) {
        const char *contents;
        int r;

        if (o->seen)
                return invalid(error, "option '%s' given twice", o->name);
        r = sd_bus_message_peek_type(msg, NULL, &contents);
        if (r < 0)
                return r;
        if (strcmp(contents, o->type) != 0)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "option '%s' has the wrong type (%s, not %s)", o->name, contents, o->type);
        r = sd_bus_message_enter_container(msg, 'v', o->type);
        if (r < 0)
                return r;
        r = read_value(msg, o);
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

/*
 * polkit, asynchronously: authentication may wait for a person to type a
 * password, and hcbsd must keep serving meanwhile. The first dispatch of a
 * call starts CheckAuthorization and answers nothing yet; the reply stores
 * the verdict and puts the original call back in the read queue, so its
 * handler runs again and finds the answer here, with the uid it was asked
 * for (the caller may be gone by then, and its uid with it). A query leaves
 * the list when its call is dispatched again, or, still unanswered, with
 * its caller.
 */
struct PolkitQuery {
        PolkitQuery *next;
        BusServer *server;
        sd_bus_message *request;
        sd_bus_slot *slot;
        sd_bus_track *caller;
        uid_t uid; /* the caller, as the bus vouches for it */
        bool done, authorized;
        char *denied; /* why, when not authorized */
};

static PolkitQuery *query_free(PolkitQuery *q) {
        if (q) {
                sd_bus_slot_unref(q->slot);
                sd_bus_track_unref(q->caller);
                sd_bus_message_unref(q->request);
                free(q->denied);
                free(q);
        }
        return NULL;
}

/*
 * The caller left: nobody waits for the answer, and polkit's call is
 * dropped with the query. One already answered stays until its call,
 * queued again, runs and takes it (with its uid) out.
 */
static int query_caller_gone(sd_bus_track *t, void *userdata) {
        PolkitQuery *q = userdata;

        if (q->done)
                return 1;
        LIST_REMOVE(q->server->polkit_queries, q);
        query_free(q);
        return 1; /* 0 would have sd-bus call this again while the track stays empty */
}

void bus_polkit_queries_free(BusServer *b) {
        while (b->polkit_queries) {
                PolkitQuery *q = b->polkit_queries;
                b->polkit_queries = q->next;
                query_free(q);
        }
}

static int polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PolkitQuery *q = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        int authorized = 0, challenge = 0, r;

        if (e)
                log_debug("polkit unavailable: %s", e->message ? e->message : e->name);
        else if (sd_bus_message_enter_container(reply, 'r', "bba{ss}") < 0 ||
                 sd_bus_message_read(reply, "bb", &authorized, &challenge) < 0)
                authorized = 0;
        q->done = true;
        q->authorized = authorized;
        if (!authorized && asprintf(&q->denied, "%s",
                                    e ? "only root may change RT groups (polkit is not available to authorize others)"
                                    : challenge ? "not authorized for " HCBS_POLKIT_ACTION " (authentication required)"
                                                : "not authorized for " HCBS_POLKIT_ACTION) < 0)
                q->denied = NULL;
        (void) sd_bus_message_rewind(q->request, true);
        r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->request), q->request);
        if (r < 0) { /* the call will not run again: answer it here, and forget it */
                log_error_errno(r, "Cannot dispatch a call again after polkit's answer: %m");
                (void) sd_bus_reply_method_errno(q->request, r, NULL);
                LIST_REMOVE(q->server->polkit_queries, q);
                query_free(q);
        }
        return 0;
}

static PolkitQuery *query_find(BusServer *b, sd_bus_message *msg) {
        LIST_FOREACH(q, b->polkit_queries)
                if (q->request == msg)
                        return q;
        return NULL;
}

/*
 * A call waiting for polkit holds its message (arguments and all) in a
 * root daemon, and an agent may never answer: a few per user (whatever
 * number of connections it opens), a bounded number in all.
 */
static int check_pending(BusServer *b, uid_t uid, sd_bus_error *error) {
        unsigned total = 0, mine = 0;

        LIST_FOREACH(q, b->polkit_queries) {
                total++;
                mine += q->uid == uid;
        }
        if (mine >= HCBS_POLKIT_PENDING_PER_USER || total >= HCBS_POLKIT_PENDING_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "%u calls already wait for polkit's answer%s; try again later",
                                         mine >= HCBS_POLKIT_PENDING_PER_USER ? mine : total,
                                         mine >= HCBS_POLKIT_PENDING_PER_USER ? " from this user" : "");
        return 0;
}

/* A call dispatched again with polkit's answer: 1 with the uid it was asked for, or PermissionDenied. */
static int polkit_answered(BusServer *b, PolkitQuery *q, uid_t *ret_uid, sd_bus_error *error) {
        int r;

        LIST_REMOVE(b->polkit_queries, q);
        *ret_uid = q->uid;
        r = q->authorized ? 1 : sd_bus_error_set(error, HCBS_ERROR_PREFIX "PermissionDenied",
                                                 q->denied ? q->denied : "not authorized");
        query_free(q);
        return r;
}

/* Asks polkit about msg's caller uid, and watches the caller (gone, the query goes). */
static int polkit_ask(BusServer *b, sd_bus_message *msg, uid_t uid, sd_bus_error *error) {
        PolkitQuery *q;
        int r;

        r = check_pending(b, uid, error);
        if (r < 0)
                return r;
        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->server = b;
        q->uid = uid;
        q->request = sd_bus_message_ref(msg);
        r = sd_bus_track_new(sd_bus_message_get_bus(msg), &q->caller, query_caller_gone, q);
        if (r >= 0)
                r = sd_bus_track_add_sender(q->caller, msg);
        if (r < 0) { /* gone already, or no match for it: nobody to answer */
                query_free(q);
                return r;
        }
        r = sd_bus_call_method_async(sd_bus_message_get_bus(msg), &q->slot, "org.freedesktop.PolicyKit1",
                                     "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority",
                                     "CheckAuthorization", polkit_reply, q, "(sa{sv})sa{ss}us", "system-bus-name", 1,
                                     "name", "s", sd_bus_message_get_sender(msg), HCBS_POLKIT_ACTION, 0,
                                     (uint32_t) (sd_bus_message_get_allow_interactive_authorization(msg) ? 1 : 0),
                                     "");
        if (r < 0) {
                query_free(q);
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "PermissionDenied",
                                         "only root may change RT groups (polkit cannot be asked: %s)", strerror(-r));
        }
        LIST_PREPEND(b->polkit_queries, q);
        return 0;
}

/*
 * dbus-daemon attaches no credentials to messages, so sd-bus asks it
 * (GetConnectionCredentials), a blocking round trip per call. A
 * connection's uid is fixed when it connects and a unique name is never
 * given to another connection, so the answer is kept per unique name.
 */
static bool uid_cache_get(BusServer *b, const char *sender, uid_t *ret) {
        for (size_t i = 0; sender && i < ELEMENTSOF(b->uid_cache); i++)
                if (strcmp(b->uid_cache[i].sender, sender) == 0) {
                        *ret = b->uid_cache[i].uid;
                        return true;
                }
        return false;
}

static void uid_cache_put(BusServer *b, const char *sender, uid_t uid) {
        if (!sender || strlen(sender) >= sizeof(b->uid_cache[0].sender) || sender[0] != ':')
                return; /* only unique names: a well-known one may change hands */
        UidCacheEntry *e = &b->uid_cache[b->uid_cache_next++ % ELEMENTSOF(b->uid_cache)];
        snprintf(e->sender, sizeof(e->sender), "%s", sender);
        e->uid = uid;
}

int bus_sender_uid(BusServer *b, sd_bus_message *msg, uid_t *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *sender = sd_bus_message_get_sender(msg);
        uint64_t augmented;
        uid_t uid;
        int r;

        if (uid_cache_get(b, sender, ret))
                return 0;
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
        uid_cache_put(b, sender, uid);
        *ret = uid;
        return 0;
}

int bus_verify_manage(BusServer *b, sd_bus_message *msg, uid_t *ret_uid, sd_bus_error *error) {
        PolkitQuery *q = query_find(b, msg);
        uid_t uid = (uid_t) -1;
        int r;

        if (q) /* dispatched again: the query knows the uid, whether or not the caller is still there */
                return q->done ? polkit_answered(b, q, ret_uid, error) : 0;
        r = bus_sender_uid(b, msg, &uid, error);
        if (r < 0)
                return r;
        *ret_uid = uid;
        if (uid == 0)
                return 1;
        return polkit_ask(b, msg, uid, error);
}

int bus_admit_call(BusServer *b, sd_bus_message *msg, BusOption *opts, size_t n, const char *name, uid_t *ret_uid,
                   sd_bus_error *error) {
        int r;

        r = bus_read_options(msg, opts, n, error);
        if (r < 0)
                return r;
        if (name) {
                r = bus_check_name(name, error);
                if (r < 0)
                        return r;
        }
        return bus_verify_manage(b, msg, ret_uid, error);
}

int bus_parse_policy(const char *policy, int32_t priority, ProcPolicy *ret, sd_bus_error *error) {
        ProcPolicy p = proc_policy_from_string(policy);

        if (p == _PROC_POLICY_INVALID)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "policy '%s' is not one of fifo, rr, other, keep", policy);
        if (proc_policy_is_rt(p) ? priority < 1 || priority > 99 : priority != 0)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "priority %d does not fit policy %s (fifo and rr take 1..99)", (int) priority,
                                         policy);
        *ret = p;
        return 0;
}

int bus_parse_cpus(const char *list, HcbsCpuSet *ret, sd_bus_error *error) {
        if (!list)
                return 0;
        if (hcbs_cpuset_parse(list, ret) < 0)
                return sd_bus_error_setf(error, HCBS_ERROR_PREFIX "InvalidArgument",
                                         "cpus '%s' is not a CPU list (like 0-3,6) of CPUs below %d", list,
                                         HCBS_CPUS_MAX);
        return 1;
}

int bus_reply_operation(sd_bus_message *msg, int r, const HcbsVerdict *v, BusAppendFn append, void *userdata,
                        sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;

        assert(msg);
        assert(v);
        if (r < 0)
                return r;
        if (r > 0) {
                assert(v->error == (HcbsError) r); /* the rule: a refusal's code is in both */
                return hcbs_bus_error_set_verdict(error, v);
        }
        if (!append)
                return sd_bus_reply_method_return(msg, NULL);
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = append(reply, userdata);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int bus_open_dict_array(sd_bus_message *reply, const char *key, const char *sig) {
        int r;

        assert(sig[0] == 'a');
        r = sd_bus_message_open_container(reply, 'e', "sv");
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", key);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'v', sig);
        if (r < 0)
                return r;
        return sd_bus_message_open_container(reply, 'a', sig + 1);
}

int bus_close_dict_array(sd_bus_message *reply) {
        int r;

        for (int i = 0; i < 3; i++) { /* the array, the variant, the entry */
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        return 0;
}

int bus_method_check(sd_bus_message *msg, void *userdata, BusCheckFn fn) {
        const char *name;
        uint64_t runtime, period;
        HcbsVerdict v;
        int r;

        r = sd_bus_message_read(msg, "stt", &name, &runtime, &period);
        if (r < 0)
                return r;
        r = fn(bus_manager(userdata), name, runtime, period, &v);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "bss", r == 0, r == 0 ? "" : hcbs_error_to_string(r), v.message);
}

int bus_check_name(const char *name, sd_bus_error *error) {
        char why[HCBS_MESSAGE_MAX];

        if (hcbs_name_validate(name, why, sizeof(why)) < 0)
                return sd_bus_error_set(error, HCBS_ERROR_PREFIX "InvalidName", why);
        return 0;
}

int bus_group_path(const char *name, char **ret) {
        return sd_bus_path_encode(HCBS_GROUP_PREFIX, name, ret);
}
