/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Observing a target's RT threads' jobs for a while (manager-observe.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "list.h"
#include "log.h"
#include "macro.h"
#include "manager-internal.h"
#include "manager-observe.h"
#include "stats.h"

#define THREAD_SLOTS (2 * HCBS_OBSERVE_THREADS) /* open addressing, at most half full */

struct ManagerObservation {
        Manager *m;
        unsigned id;
        uid_t uid;
        uint64_t cgid;
        char *group;        /* NULL: a process outside hcbsd's groups */
        bool unit;          /* group is a unit's name */
        pid_t pid;
        uint64_t duration_us;
        uint64_t jobs_lost_before;
        sd_event_source *timer;
        ObserveDoneFn done;
        void *userdata;
        ObservedThread *threads; /* HCBS_OBSERVE_THREADS, the first n_threads used */
        size_t n_threads;
        uint64_t jobs_dropped;   /* job records not kept: threads past HCBS_OBSERVE_THREADS, or no memory */
        int16_t slots[THREAD_SLOTS]; /* tid -> index in threads, -1: free */
        ManagerObservation *next;
};

static ObservedThread *thread_of(ManagerObservation *o, const struct hcbs_job *j) {
        unsigned h = (j->tid * 2654435761u) % THREAD_SLOTS;

        for (unsigned i = 0; i < THREAD_SLOTS; i++, h = (h + 1) % THREAD_SLOTS) {
                ObservedThread *t;
                if (o->slots[h] >= 0) {
                        if (o->threads[o->slots[h]].tid == (pid_t) j->tid)
                                return &o->threads[o->slots[h]];
                        continue;
                }
                if (o->n_threads == HCBS_OBSERVE_THREADS) {
                        o->jobs_dropped++;
                        return NULL;
                }
                o->slots[h] = (int16_t) o->n_threads;
                t = &o->threads[o->n_threads++];
                *t = (ObservedThread) { .tid = (pid_t) j->tid, .tgid = (pid_t) j->tgid };
                memcpy(t->comm, j->comm, sizeof(t->comm));
                t->comm[sizeof(t->comm) - 1] = '\0';
                return t;
        }
        return NULL;
}

/* A job record of the collector's (the ring buffer's reader calls it). */
static void on_job(const struct hcbs_job *j, void *userdata) {
        Manager *m = userdata;
        ObservedThread *t;

        LIST_FOREACH(o, m->observations) {
                if (o->id != j->observation)
                        continue;
                if (o->pid && (pid_t) j->tgid != o->pid)
                        return; /* another process in the same cgroup */
                t = thread_of(o, j);
                if (!t)
                        return;
                if (j->kind == HCBS_JOB_UNBOUNDED) {
                        t->jobs.unbounded = true;
                        t->jobs.unbounded_ns = j->exec_ns;
                } else if (hcbs_job_stats_add(&t->jobs, j->release_ns, j->exec_ns) < 0)
                        o->jobs_dropped++; /* no memory for its interval: the job is not counted */
                return;
        }
}

static int on_jobs_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        int r = stats_jobs_consume(m->stats);

        if (r < 0)
                log_debug_errno(r, "Cannot read the collector's job records: %m");
        return 0;
}

void manager_observed_threads_free(ObservedThread *threads, size_t n_threads) {
        for (size_t i = 0; threads && i < n_threads; i++)
                hcbs_job_stats_done(&threads[i].jobs);
        free(threads);
}

/* Frees o, which is not in m's list (any more); the last one gone, the ring buffer is no longer read. */
static void observation_drop(Manager *m, ManagerObservation *o) {
        sd_event_source_disable_unref(o->timer);
        manager_observed_threads_free(o->threads, o->n_threads);
        free(o->group);
        free(o);
        if (!m->observations)
                m->jobs_source = sd_event_source_disable_unref(m->jobs_source);
}

static void observation_free(ManagerObservation *o) {
        Manager *m = o->m;
        int r;

        LIST_REMOVE(m->observations, o);
        r = stats_unobserve(m->stats, o->cgid);
        if (r < 0)
                log_warning_errno(r, "Cannot stop observing cgroup %" PRIu64 ", ignoring: %m", o->cgid);
        observation_drop(m, o);
}

/* Ends o: its done gets r (and, with 0, what it saw), then o is freed (done must not free it). */
static void observation_end(ManagerObservation *o, int r) {
        ObservationResult res = {};
        Manager *m = o->m;

        if (r >= 0) {
                (void) stats_jobs_consume(m->stats); /* what came before the end */
                res = (ObservationResult) {
                        .group = o->group,
                        .unit = o->unit,
                        .pid = o->pid,
                        .duration_us = o->duration_us,
                        .threads = TAKE_PTR(o->threads),
                        .n_threads = o->n_threads,
                        .jobs_dropped = o->jobs_dropped,
                        .jobs_lost = stats_jobs_lost(m->stats) - o->jobs_lost_before,
                };
        }
        if (r >= 0)
                o->n_threads = 0; /* res has them */
        o->done(m, r, r >= 0 ? &res : NULL, o->userdata);
        manager_observed_threads_free(res.threads, res.n_threads); /* those done did not take */
        observation_free(o);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        observation_end(userdata, 0);
        return 0;
}

/* The cgroup of target: a group, a unit's reservation, or a process of uid's (*ret_pid). */
static int resolve(Manager *m, const char *target, uid_t uid, char **ret_path, char **ret_group, bool *ret_unit,
                   pid_t *ret_pid, HcbsVerdict *v) {
        HcbsNode *n = NULL;
        char *end;
        long pid;
        int r;

        errno = 0;
        pid = target[0] >= '1' && target[0] <= '9' ? strtol(target, &end, 10) : 0;
        if (pid > 0 && !errno && !*end && pid <= INT32_MAX) {
                _cleanup_free_ char *cg = NULL;
                uid_t owner;
                r = proc_get_cgroup((pid_t) pid, cgroupfs_is_v2(m->fs) ? "" : "cpu", &cg);
                if (r >= 0)
                        r = proc_get_uid((pid_t) pid, &owner);
                if (r < 0)
                        return hcbs_verdict_set(v, HCBS_E_NO_SUCH_PROCESS, ESRCH, "no process %ld", pid);
                if (uid != 0 && owner != uid) /* its timing is its owner's to know */
                        return hcbs_verdict_set(v, HCBS_E_PERMISSION_DENIED, EPERM,
                                                "process %ld belongs to uid %u; only it and root may observe it", pid,
                                                (unsigned) owner);
                /* the process's cgroup may be one of hcbsd's: then --apply has a group to set */
                n = hcbs_model_find(m->model, cg);
                *ret_pid = (pid_t) pid;
                *ret_path = TAKE_PTR(cg);
        } else {
                n = hcbs_admission_find(&m->admission, target);
                if (!n || !manager_is_group(m, n))
                        n = manager_unit_node(m, target);
                if (!n)
                        return hcbs_verdict_set(v, HCBS_E_NO_SUCH_GROUP, 0, "no group or unit '%s'", target);
                *ret_path = strdup(n->path);
                if (!*ret_path)
                        return -ENOMEM;
        }
        /* a group, or a unit's reservation (a node of the pool with a unit); any other node has no name to apply to */
        if (n && (manager_is_group(m, n) || (manager_group_info(n) && manager_group_info(n)->unit))) {
                *ret_unit = !manager_is_group(m, n);
                *ret_group = strdup(*ret_unit ? manager_group_info(n)->unit : manager_group_name(m, n));
                if (!*ret_group)
                        return -ENOMEM;
        }
        return 0;
}

int manager_observe(Manager *m, const char *target, uint64_t duration_us, uid_t uid, ObserveDoneFn done,
                    void *userdata, ManagerObservation **ret, HcbsVerdict *v) {
        _cleanup_free_ char *path = NULL, *group = NULL;
        ManagerObservation *o;
        size_t n = 0;
        bool unit = false;
        pid_t pid = 0;
        uint64_t cgid;
        int r, fd;

        if (!m->stats || !stats_have_bpf(m->stats))
                return hcbs_verdict_set(v, HCBS_E_NOT_SUPPORTED, 0,
                                        "observation needs the BPF collector; the statistics backend is cgroupfs (%s)",
                                        m->stats ? stats_backend_reason(m->stats) : "not started");
        if (duration_us < HCBS_OBSERVE_MIN_USEC || duration_us > HCBS_OBSERVE_MAX_USEC)
                return hcbs_verdict_set(v, HCBS_E_INVALID_ARGUMENT, 0,
                                        "an observation lasts 1 s to 10 min, not %" PRIu64 " us", duration_us);
        LIST_FOREACH(x, m->observations) {
                if (x->uid == uid && uid != 0)
                        return hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0,
                                                "uid %u observes already: one observation per user at once",
                                                (unsigned) uid);
                n++;
        }
        if (n >= HCBS_OBSERVATIONS_MAX)
                return hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0, "%d observations run already: try later",
                                        HCBS_OBSERVATIONS_MAX);
        r = resolve(m, target, uid, &path, &group, &unit, &pid, v);
        if (r != 0)
                return r;
        r = cgroupfs_cgroup_id(m->fs, path, &cgid);
        if (r < 0)
                return hcbs_verdict_set(v, HCBS_E_NO_SUCH_GROUP, -r, "cannot read the cgroup of '%s' (%s): %s",
                                        target, path, strerror(-r));
        LIST_FOREACH(x, m->observations)
                if (x->cgid == cgid)
                        return hcbs_verdict_set(v, HCBS_E_LIMITS_EXCEEDED, 0,
                                                "cgroup %s is being observed already: try later", path);

        o = calloc(1, sizeof(ManagerObservation));
        if (!o)
                return -ENOMEM;
        *o = (ManagerObservation) {
                .m = m, .uid = uid, .cgid = cgid, .group = TAKE_PTR(group), .unit = unit, .pid = pid,
                .duration_us = duration_us, .done = done, .userdata = userdata,
                .threads = malloc(HCBS_OBSERVE_THREADS * sizeof(ObservedThread)),
        };
        if (!o->threads) {
                free(o->group);
                free(o);
                return -ENOMEM;
        }
        memset(o->slots, 0xff, sizeof(o->slots)); /* -1: free */
        if (++m->observation_ids == 0) /* 0 is nobody's */
                m->observation_ids = 1;
        o->id = m->observation_ids;
        if (!m->jobs_source) {
                r = stats_jobs_open(m->stats, on_job, m, &fd);
                if (r >= 0)
                        r = sd_event_add_io(m->event, &m->jobs_source, fd, EPOLLIN, on_jobs_readable, m);
                if (r < 0)
                        goto fail;
        }
        r = sd_event_add_time_relative(m->event, &o->timer, CLOCK_MONOTONIC, duration_us, 0, on_timer, o);
        if (r < 0)
                goto fail;
        o->jobs_lost_before = stats_jobs_lost(m->stats);
        r = stats_observe(m->stats, cgid, o->id, duration_us * 1000);
        if (r < 0)
                goto fail;
        LIST_PREPEND(m->observations, o);
        if (pid)
                log_info("Observing the RT threads of process %d (cgroup /%s) for %.1f s, for uid %u", (int) pid, path,
                         (double) duration_us / 1e6, (unsigned) uid);
        else
                log_info("Observing the RT threads of %s for %.1f s, for uid %u", o->group, (double) duration_us / 1e6,
                         (unsigned) uid);
        if (ret)
                *ret = o;
        return 0;
fail:
        observation_drop(m, o);
        return log_error_errno(r, "Cannot observe %s: %m", path);
}

void manager_observation_cancel(ManagerObservation *o) {
        observation_end(o, -ECANCELED);
}

void manager_observations_stop(Manager *m) {
        while (m->observations)
                observation_end(m->observations, -ECANCELED);
}
