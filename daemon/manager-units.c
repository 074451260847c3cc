/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Units' reservations. Under systemd the slice holding hcbsd's unit is the
 * pool (docs/systemd.md): its children are hcbsd's own cgroup (whose groups/ hold
 * hcbsd's groups) and the cgroups of services that declare a reservation.
 * The pool and hcbsd's cgroups hold exactly what their children hold,
 * growing on demand up to Capacity= (admission.h) and trimmed back after.
 * systemd creates and removes the units' cgroups; hcbsd writes only their
 * RT files. systemd names a unit's cgroup (asked through
 * systemd-questions.h); the name of the directory is never parsed.
 *
 * Every decision about a unit is taken here, on facts the systemd client
 * reports: a reservation once systemd named the unit's cgroup, a release
 * once systemd says the unit stopped, the scheduling policy once its main
 * process runs. An answer about a unit is acted on only if the unit's
 * reservation has not changed since the question (GroupInfo.generation):
 * a stale "inactive" must not release a reservation made a moment later
 * by the unit's next start.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "log.h"
#include "manager-containers.h"
#include "manager-internal.h"
#include "message-ids.h"
#include "name.h"

/* An ActiveState in which the unit's processes are gone. */
static bool state_is_stopped(const char *state) {
        return strcmp(state, "inactive") == 0 || strcmp(state, "failed") == 0;
}

static bool watching(const Manager *m) {
        return m->admission.pool && m->systemd.ask;
}

static int adopt_unit_cgroup(Manager *m, HcbsNode *pool, const char *name, void *userdata) {
        const char *own = userdata;
        HcbsNode *n;
        int r;

        if (strcmp(name, own) == 0)
                return 0;
        r = manager_child_node(m, pool, name, &n);
        if (r < 0)
                return r;
        /* a unit with Delegate=yes may have cgroups of its own */
        return manager_for_each_subdir(m, n, manager_add_foreign, NULL);
}

int manager_units_adopt(Manager *m) {
        HcbsNode *pool = m->admission.pool;
        const char *own = strrchr(m->own_cgroup, '/') + 1;
        int r;

        hcbs_model_set_foreign(m->model, pool, 0);
        r = manager_for_each_subdir(m, pool, adopt_unit_cgroup, (void *) own);
        if (r < 0)
                return log_error_errno(r, "Cannot read the units' cgroups in %s/%s: %m", m->mount, pool->path);
        return 0;
}

void manager_trim_node(Manager *m, HcbsNode *n) {
        HcbsPlanScope scope = { .base = m->admission.base };
        uint64_t runtime;
        HcbsPlan plan;
        HcbsVerdict v;

        if (n->runtime_us <= 0 || n->period_us == 0 || hcbs_node_children_runtime_us(m->model, n, n->period_us, &runtime) < 0 ||
            (int64_t) runtime >= n->runtime_us)
                return;
        if (hcbs_plan_set(m->model, n, n->period_us, (int64_t) runtime, scope, &plan, &v) > 0)
                (void) manager_execute(m, &plan, &v);
        hcbs_plan_done(&plan);
        if (v.error != HCBS_OK)
                log_warning("Cannot give back the unused bandwidth of %s/%s: %s", m->mount, n->path, v.message);
}

void manager_trim_pool(Manager *m) {
        HcbsNode *stop = m->admission.pool ? m->admission.pool->parent : NULL;

        for (HcbsNode *n = m->admission.base; m->admission.pool && n != stop; n = n->parent)
                manager_trim_node(m, n);
        manager_pools_trim(m);
}

/* The node of a unit's cgroup, read afresh: systemd makes a new cgroup each time the unit starts. */
static int unit_cgroup_node(Manager *m, const char *cgroup, HcbsNode **ret) {
        HcbsNode *pool = m->admission.pool, *n;
        const char *name = strrchr(cgroup, '/');
        size_t plen = strlen(pool->path);
        int r;

        if (!name || (size_t) (name - cgroup) != plen || strncmp(cgroup, pool->path, plen) != 0)
                return 0;
        name++;
        if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return 0;
        if (!cgroupfs_exists(m->fs, cgroup)) {
                n = hcbs_model_find(m->model, cgroup);
                if (n)
                        manager_forget_group(m, n);
                return -ENOENT;
        }
        r = manager_child_node(m, pool, name, &n);
        if (r < 0)
                return r;
        *ret = n;
        return 1;
}

static int refuse_cgroup(Manager *m, const UnitReservation *u, const char *cgroup, int r, HcbsVerdict *v) {
        if (r == -ENOENT)
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT,
                                 "%s has no cgroup %s/%s: reserve from its ExecStartPre=, while it starts", u->unit,
                                 m->mount, cgroup);
        else if (r == 0)
                hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                 "%s runs in /%s, outside %s/%s: give it Slice=%s (hcbs-generator does)", u->unit,
                                 cgroup, m->mount, m->admission.pool->path, m->admission.pool->name);
        else
                return log_error_errno(r, "%s: cannot read %s/%s: %m", u->unit, m->mount, cgroup);
        return 0;
}

static int refuse_no_pool(HcbsVerdict *v) {
        hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                         "units' reservations need hcbsd to run as hcbsd.service in a slice of its own under systemd");
        return 0;
}

static int unit_info_set(Manager *m, HcbsNode *n, const UnitReservation *u, uint64_t generation) {
        GroupInfo *info = manager_group_info(n);
        int r = manager_group_set_unit(m, n, u->unit);

        if (r < 0)
                return r;
        info->policy = u->policy;
        info->priority = u->priority;
        info->policy_pending = proc_policy_is_rt(u->policy);
        info->generation = generation;
        return 0;
}

/* An operation on a unit waiting for systemd to name the unit's cgroup. */
typedef struct UnitCall {
        Manager *m;
        UnitReservation u; /* u.unit is unit */
        char *unit;
        UnitDoneFn done;
        void *userdata;
} UnitCall;

static UnitCall *unit_call_free(UnitCall *call) {
        if (call)
                free(call->unit);
        free(call);
        return NULL;
}

static UnitCall *unit_call_new(Manager *m, const UnitReservation *u, UnitDoneFn done, void *userdata) {
        UnitCall *call = calloc(1, sizeof(*call));

        if (!call)
                return NULL;
        *call = (UnitCall) { .m = m, .u = *u, .unit = strdup(u->unit), .done = done, .userdata = userdata };
        if (!call->unit)
                return unit_call_free(call);
        call->u.unit = call->unit;
        return call;
}

/* The outcome as the rule of error.h has it: a refusal's code returned too. */
static void unit_done(UnitDoneFn done, Manager *m, int r, const HcbsVerdict *v, void *userdata) {
        done(m, r < 0 ? r : (int) v->error, v, userdata);
}

/* Gives the outcome to the caller and forgets the call. */
static void unit_call_finish(UnitCall *call, int r, const HcbsVerdict *v) {
        unit_done(call->done, call->m, r, v, call->userdata);
        unit_call_free(call);
}

/*
 * The cgroup systemd named for call's unit: 1 with *ret; 0 with v set for
 * a refusal; -errno (v->message saying what, when it is systemd's fault).
 */
static int answered_cgroup(const UnitCall *call, const SystemdAnswer *a, const char **ret, HcbsVerdict *v) {
        const char *unit = call->unit;

        if (a->r == -ECANCELED) {
                snprintf(v->message, sizeof(v->message), "hcbsd stopped before systemd named the cgroup of %s", unit);
                return a->r;
        }
        if (a->r == -ETIMEDOUT) {
                log_warning("systemd did not say within %llus which cgroup %s has",
                            SYSTEMD_TIMEOUT_USEC / 1000000ULL, unit);
                snprintf(v->message, sizeof(v->message), "systemd did not say within %llus which cgroup %s has",
                         SYSTEMD_TIMEOUT_USEC / 1000000ULL, unit);
                return a->r;
        }
        if (a->error) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "systemd cannot tell the cgroup of %s: %s", unit,
                                 a->error);
                return 0;
        }
        if (a->r < 0)
                return log_error_errno(a->r, "Cannot ask systemd for the cgroup of %s: %m", unit);
        if (!a->string[0]) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, ENOENT,
                                 "%s has no cgroup: reserve from its ExecStartPre=, while it starts", unit);
                return 0;
        }
        *ret = a->string;
        return 1;
}

static void log_refused(const UnitReservation *u, const HcbsVerdict *v) {
        if (v->error != HCBS_E_KERNEL_REJECTED)
                log_struct(LOG_WARNING, HCBS_MESSAGE_REFUSED,
                           &(LogFields) { .unit = u->unit, .error = hcbs_error_to_string(v->error), .bandwidth = true,
                                          .runtime_us = u->runtime_us, .period_us = u->period_us },
                           "%s: no reservation of %" PRIu64 "us/%" PRIu64 "us: %s", u->unit, u->runtime_us,
                           u->period_us, v->message);
        else
                log_warning("%s: no reservation of %" PRIu64 "us/%" PRIu64 "us: %s", u->unit, u->runtime_us,
                            u->period_us, v->message);
}

/* Admits and applies u in the unit's cgroup, which systemd named. */
static int reserve_in(Manager *m, const UnitReservation *u, const char *cgroup, HcbsVerdict *v) {
        HcbsNode *n = NULL;
        HcbsPlan plan;
        int r;

        r = unit_cgroup_node(m, cgroup, &n);
        if (r <= 0)
                return refuse_cgroup(m, u, cgroup, r, v);
        r = hcbs_admit_unit(&m->admission, n, u->unit, u->runtime_us, u->period_us, u->has_cpus ? &u->cpus : NULL,
                            &plan, v);
        if (r > 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r < 0 || v->error != HCBS_OK) {
                if (r >= 0)
                        log_refused(u, v);
                return r;
        }
        r = unit_info_set(m, n, u, ++m->generation);
        manager_trim_pool(m); /* a smaller reservation than before */
        if (r >= 0)
                log_struct(LOG_INFO, HCBS_MESSAGE_GRANTED,
                           &(LogFields) { .unit = u->unit, .bandwidth = true, .runtime_us = u->runtime_us,
                                          .period_us = u->period_us },
                           "%s: reserved %" PRIu64 "us every %" PRIu64 "us in %s/%s", u->unit, u->runtime_us,
                           u->period_us, m->mount, n->path);
        return r;
}

static void on_reserve_cgroup(const SystemdAnswer *a, void *userdata) {
        UnitCall *call = userdata;
        const char *cgroup = NULL;
        HcbsVerdict v;
        int r;

        hcbs_verdict_ok(&v);
        r = answered_cgroup(call, a, &cgroup, &v);
        if (r > 0)
                r = reserve_in(call->m, &call->u, cgroup, &v);
        unit_call_finish(call, r, &v);
}

/* Starts asking systemd for the unit's cgroup; fn finishes the operation. */
static int ask_cgroup(Manager *m, const UnitReservation *u, SystemdAnswerFn fn, UnitDoneFn done, void *userdata) {
        UnitCall *call = unit_call_new(m, u, done, userdata);
        int r;

        if (!call)
                return -ENOMEM;
        r = m->systemd.ask(m->systemd.client, SYSTEMD_CGROUP, u->unit, fn, call);
        if (r < 0)
                unit_call_free(call);
        return r;
}

/* Refusals known before systemd is asked: 1 with v set, else 0. */
static int refuse_early(const Manager *m, const char *unit, HcbsVerdict *v) {
        if (!watching(m)) {
                refuse_no_pool(v);
                return 1;
        }
        if (!hcbs_service_name_is_valid(unit)) {
                hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0, "'%s' is not the name of a service", unit);
                return 1;
        }
        return 0;
}

int manager_reserve_unit(Manager *m, const UnitReservation *u, UnitDoneFn done, void *userdata) {
        HcbsVerdict v;

        hcbs_verdict_ok(&v);
        if (u->caller_uid != 0 && u->policy != PROC_POLICY_KEEP)
                /* the policy lands on the unit's processes, which are not the caller's to re-prioritise */
                hcbs_verdict_set(&v, HCBS_E_PERMISSION_DENIED, EPERM,
                                 "only root may choose the scheduling policy of %s's processes", u->unit);
        else if (!refuse_early(m, u->unit, &v))
                return ask_cgroup(m, u, on_reserve_cgroup, done, userdata);
        unit_done(done, m, 0, &v, userdata);
        return 0;
}

static int unit_drop_verdict(Manager *m, HcbsNode *n, HcbsVerdict *v) {
        GroupInfo *info = manager_group_info(n);
        _cleanup_free_ char *unit = NULL;
        HcbsPool pool = manager_pool_of_node(m, n);
        HcbsPlan plan;
        int r;

        hcbs_verdict_ok(v);
        hcbs_plan_init(&plan);
        if (info->unit && !(unit = strdup(info->unit)))
                return -ENOMEM;
        (void) manager_group_set_unit(m, n, NULL); /* clearing allocates nothing */
        info->policy_pending = false;
        info->generation = ++m->generation;
        if (!cgroupfs_exists(m->fs, n->path)) {
                manager_forget_group(m, n);
                manager_trim_pool(m);
                return 0;
        }
        r = manager_container_zero_below(m, n, v); /* a container's subgroups first */
        if (r >= 0 && v->error == HCBS_OK)
                r = manager_load_node(m, n); /* its processes have usually just exited */
        if (r >= 0 && v->error == HCBS_OK)
                r = hcbs_admit_pool_unit(&m->admission, &pool, n, unit ? unit : n->name, 0, n->period_us, NULL, &plan, v);
        if (r > 0)
                r = manager_execute(m, &plan, v);
        hcbs_plan_done(&plan);
        if (r >= 0 && v->error != HCBS_OK) {
                log_warning("%s: cannot give the reservation back: %s", unit ? unit : n->path, v->message);
                if (unit && manager_group_set_unit(m, n, unit) < 0) /* still held: try again on the next event */
                        log_error("%s: out of memory, hcbsd forgets that it holds %s/%s", unit, m->mount, n->path);
        } else if (r >= 0)
                log_struct(LOG_INFO, HCBS_MESSAGE_RELEASED, &(LogFields) { .unit = unit ? unit : n->path },
                           "%s: reservation given back", unit ? unit : n->path);
        manager_trim_pool(m);
        return r;
}

/* By the rule of error.h: the body above fills v for a refusal and returns 0; this returns the code too. */
int manager_unit_drop(Manager *m, HcbsNode *n, HcbsVerdict *v) {
        int r = unit_drop_verdict(m, n, v);

        return r < 0 ? r : (int) v->error;
}


/* The unit's reservation, once systemd named its cgroup: the recorded one, or its cgroup holding runtime. */
static void on_release_cgroup(const SystemdAnswer *a, void *userdata) {
        UnitCall *call = userdata;
        Manager *m = call->m;
        const char *cgroup = NULL;
        HcbsNode *n = NULL;
        HcbsVerdict v;
        int r;

        hcbs_verdict_ok(&v);
        r = answered_cgroup(call, a, &cgroup, &v);
        if (r == 0) /* systemd knows no cgroup of it: nothing is held */
                hcbs_verdict_ok(&v);
        if (r > 0) {
                n = manager_unit_node(m, call->unit); /* reserved while systemd was asked */
                if (!n && (unit_cgroup_node(m, cgroup, &n) <= 0 || n->runtime_us == 0))
                        n = NULL;
                r = n ? manager_unit_drop(m, n, &v) : 0;
        }
        unit_call_finish(call, r, &v);
}

int manager_release_unit(Manager *m, const char *unit, uid_t caller_uid, UnitDoneFn done, void *userdata) {
        HcbsNode *n;
        HcbsVerdict v;
        int r = 0;

        hcbs_verdict_ok(&v);
        if (!watching(m))
                refuse_no_pool(&v);
        else if ((n = manager_unit_node(m, unit))) {
                /* a container's scope is its owner's, as for ReleaseCgroup */
                if (manager_unit_is_container(unit))
                        r = manager_check_scope_owner(m, n->path, caller_uid, &v);
                if (r == 0)
                        r = manager_unit_drop(m, n, &v);
        }
        else if (hcbs_service_name_is_valid(unit)) /* a reservation hcbsd did not record, found through systemd */
                return ask_cgroup(m, &(UnitReservation) { .unit = unit }, on_release_cgroup, done, userdata);
        /* else not a service's name: it holds nothing */
        unit_done(done, m, r, &v, userdata);
        return 0;
}

/* ---- systemd's reports ---- */

/* A question about a unit's reservation, asked at some generation of it. */
typedef struct UnitQuestion {
        Manager *m;
        char *unit;
        uint64_t generation;
} UnitQuestion;

static void question_free(UnitQuestion *q) {
        free(q->unit);
        free(q);
}

/* The unit's reservation node, if it is still the one the question was about. */
static HcbsNode *question_node(const UnitQuestion *q) {
        HcbsNode *n = manager_unit_node(q->m, q->unit);
        return n && manager_group_info(n)->generation == q->generation ? n : NULL;
}

static void on_active_state(const SystemdAnswer *a, void *userdata) {
        UnitQuestion *q = userdata;
        HcbsNode *n = a->r == -ECANCELED ? NULL : question_node(q);
        const char *state = a->unit_gone ? "inactive" : a->string; /* as good as for a unit systemd no longer knows */
        HcbsVerdict v;

        if (n && !a->unit_gone && a->r < 0)
                log_warning("Cannot ask systemd about %s: %s", q->unit, a->error ? a->error : strerror(-a->r));
        else if (n && state_is_stopped(state)) {
                log_notice("%s is %s but still held its reservation: giving it back", q->unit, state);
                (void) manager_unit_drop(q->m, n, &v);
        }
        question_free(q);
}

/* Once the unit started: the policy chosen at ReserveUnit for its main process, if it runs in the reservation. */
static void apply_policy(Manager *m, HcbsNode *n, const char *unit, uint32_t pid) {
        GroupInfo *info = manager_group_info(n);
        _cleanup_free_ char *cgroup = NULL;
        int r;

        info->policy_pending = false;
        r = proc_get_cgroup((pid_t) pid, "", &cgroup);
        if (r >= 0 && strcmp(cgroup, n->path) != 0)
                r = -EXDEV;
        if (r >= 0)
                r = proc_set_policy((pid_t) pid, info->policy, info->priority);
        if (r < 0)
                log_error_errno(r, "%s: cannot make main process %u %s %d: %m", unit, pid,
                                proc_policy_to_string(info->policy), info->priority);
        else
                log_info("%s: main process %u runs %s %d in its reservation", unit, pid,
                         proc_policy_to_string(info->policy), info->priority);
        (void) manager_refresh_tasks(m, n);
}

static void on_main_pid(const SystemdAnswer *a, void *userdata) {
        UnitQuestion *q = userdata;
        HcbsNode *n = a->r < 0 ? NULL : question_node(q);

        if (n && manager_group_info(n)->policy_pending && a->pid != 0)
                apply_policy(q->m, n, q->unit, a->pid);
        question_free(q);
}

static void ask_about(Manager *m, const char *unit, SystemdQuestion what, SystemdAnswerFn fn) {
        HcbsNode *n = manager_unit_node(m, unit);
        UnitQuestion *q;

        if (!n || !watching(m))
                return;
        q = calloc(1, sizeof(*q));
        if (!q || !(q->unit = strdup(unit))) {
                free(q);
                (void) log_error_errno(-ENOMEM, "Out of memory");
                return;
        }
        q->m = m;
        q->generation = manager_group_info(n)->generation;
        if (m->systemd.ask(m->systemd.client, what, unit, fn, q) < 0)
                question_free(q);
}

static void on_job_removed(void *userdata, const char *unit, const char *result) {
        Manager *m = userdata;
        HcbsNode *n = manager_unit_node(m, unit);

        if (!n)
                return;
        if (strcmp(result, "done") == 0 && manager_group_info(n)->policy_pending)
                ask_about(m, unit, SYSTEMD_MAIN_PID, on_main_pid);
        ask_about(m, unit, SYSTEMD_ACTIVE_STATE, on_active_state);
}

/* Sent when a unit is unloaded, but also for every unit during daemon-reload: ask, do not assume. */
static void on_unit_removed(void *userdata, const char *unit) {
        ask_about(userdata, unit, SYSTEMD_ACTIVE_STATE, on_active_state);
}

static void on_reloaded(void *userdata) {
        Manager *m = userdata;

        for (size_t i = 0; i < manager_pool_count(m); i++) {
                HcbsNode *pool = manager_pool_node(m, i);
                for (HcbsNode *n = pool ? pool->first_child : NULL; n; n = n->next) {
                        GroupInfo *info = manager_group_info(n);
                        if (info && info->unit)
                                ask_about(m, info->unit, SYSTEMD_ACTIVE_STATE, on_active_state);
                }
        }
}

/* ---- start-up ---- */

/* Which unit owns a cgroup found holding bandwidth at start; drops what no running unit holds. */
static void learn_unit(Manager *m, HcbsNode *n) {
        _cleanup_free_ char *cgroup = NULL, *unit = NULL, *state = NULL, *error = NULL;
        GroupInfo *info = manager_group_info(n);
        HcbsVerdict v;
        int r;

        if (asprintf(&cgroup, "/%s", n->path) < 0)
                return;
        r = m->systemd.unit_of_cgroup(m->systemd.client, cgroup, &unit, &state, &error);
        if (r >= 0 && !state_is_stopped(state)) {
                if (manager_group_set_unit(m, n, unit) < 0) { /* kept, unknown to hcbsd: never given back */
                        log_error("%s: out of memory, %s/%s is kept but not followed", unit, m->mount, n->path);
                        return;
                }
                info->generation = ++m->generation;
                log_info("%s holds %" PRId64 "us every %" PRIu64 "us in %s/%s", info->unit, n->runtime_us,
                         n->period_us, m->mount, n->path);
                return;
        }
        log_notice("%s/%s holds a reservation but no running unit does (%s): giving it back", m->mount, n->path,
                   r < 0 ? (error ? error : strerror(-r)) : state);
        (void) manager_unit_drop(m, n, &v);
}

const SystemdSignals *manager_units_signals(void) {
        static const SystemdSignals signals = {
                .job_removed = on_job_removed,
                .unit_removed = on_unit_removed,
                .reloaded = on_reloaded,
        };
        return &signals;
}

int manager_units_watch(Manager *m, const SystemdQuestions *q) {
        assert(m);
        assert(q && q->ask && q->unit_of_cgroup);
        if (!m->admission.pool)
                return 0;
        m->systemd = *q;
        for (size_t i = 0; i < manager_pool_count(m); i++) {
                HcbsNode *pool = manager_pool_node(m, i);
                for (HcbsNode *n = pool ? pool->first_child : NULL, *next; n; n = next) {
                        next = n->next; /* learn_unit may forget n */
                        /* a "max" cgroup (rtmax) reserves nothing: a unit hcbsd never served */
                        if (n->runtime_us != 0 && !hcbs_node_is_max(hcbs_model_profile(m->model), n) &&
                            n != m->admission.base->parent && !manager_group_info(n)->unit)
                                learn_unit(m, n);
                }
        }
        manager_trim_pool(m);
        return 0;
}

void manager_units_unwatch(Manager *m) {
        m->systemd = (SystemdQuestions) {};
}
