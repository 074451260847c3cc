/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbs-soak: a randomized fault soak of hcbsd (tests/soak/README.md).
 *
 *   hcbs-soak [OPTIONS] -- HCBSD-COMMAND-LINE...
 *
 * Starts hcbsd with the command line after "--", then for --seconds runs
 * --clients clients, each a process with its own bus connection, issuing
 * random CreateGroup, SetBandwidth, DeleteGroup, Attach, Detach, Apply (with
 * and without persistent groups) and SizeReservation calls on names of its
 * own; the last --unprivileged of them run as uid 65534, which polkit (or its
 * absence) refuses; some calls are sent and their connection closed at once.
 * Meanwhile hcbsd is SIGKILLed or SIGTERMed at random moments, sometimes its
 * cgroup tree and runtime directory are wiped as a reboot would, and
 * sometimes it is restarted with HCBS_CRASH_AFTER_WRITES so that it aborts
 * (or gets SIGTERM) inside a plan. After every restart, with the clients
 * paused, and at the end it checks from the kernel's own files:
 *
 *   - every group hcbsd lists has the runtime and period it lists, and every
 *     cgroup below hcbsd's root is one it lists (nothing holds bandwidth
 *     hcbsd does not know);
 *   - every persistent group whose creation was acknowledged to a client
 *     (and not deleted since) exists, is listed, and is in the state file;
 *   - no name of an unprivileged client exists;
 *   - no plan journal is left once hcbsd is ready, nor after a SIGTERM it
 *     served to the end (its crash hook may fire in the exit's own write,
 *     which gives back the capacity no group holds: the next start replays
 *     the journal that leaves);
 *   - hcbsd's root holds the capacity configured (--capacity);
 *   - hcbsd died only when it was killed or its crash hook fired, and a
 *     SIGTERM ends it with status 0.
 *
 * It prints the operations, kills and checks, and stops at the first
 * violation with the seed (--seed, SOAK_SEED) that replays the same random
 * choices. Exit status 0, 1 on a violation, 2 when it cannot run, 77 when
 * hcbsd's root cannot get its capacity at the first start (the machine's
 * RT budget is shared).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "../bus-client.h"
#include "../random.h"
#include "bus-names.h"

#define MAX_CLIENTS 16
#define NAMES 12        /* per client: 4 top-level groups, 2 children each */
#define SLEEPERS 2      /* processes per client, to attach and detach */
#define NOBODY 65534

typedef enum Outcome { OK, REFUSED, DOWN, UNKNOWN, _OUTCOME_MAX } Outcome;
static const char *const outcome_names[] = { "ok", "refused", "hcbsd down", "unknown (cut off)" };

typedef enum Op { OP_CREATE, OP_SET, OP_DELETE, OP_ATTACH, OP_DETACH, OP_APPLY, OP_SIZE, _OP_MAX } Op;
static const char *const op_names[] = { "create", "set", "delete", "attach", "detach", "apply", "size" };
static const unsigned op_weights[] = { 25, 15, 15, 10, 8, 12, 3 };

/* What the processes share (MAP_SHARED): the pause handshake, counters, the ledger. */
typedef struct Shared {
        atomic_int pause, stop;
        atomic_int busy[MAX_CLIENTS];
        atomic_ulong ops[_OP_MAX][_OUTCOME_MAX];
        atomic_ulong cut;                         /* calls sent and their connection closed at once */
        atomic_uchar acked[MAX_CLIENTS][NAMES];   /* a persistent group acknowledged to the client */
        pid_t sleepers[MAX_CLIENTS][SLEEPERS];
} Shared;

typedef struct Config {
        unsigned seconds, clients, unprivileged;
        uint64_t seed;
        const char *root, *mount, *state_dir, *runtime_dir, *polkit, *log;
        int64_t cap_runtime;
        uint64_t cap_period;
        char **hcbsd_argv;
} Config;

static Config C = { .seconds = 600, .clients = 8, .unprivileged = 2 };
static Shared *S;
static FILE *LOG;

/* ---- small helpers ---------------------------------------------------------------------------- */

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms) {
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        printf("soak: ");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        fflush(stdout);
}

static void name_of(unsigned client, unsigned i, char *buf, size_t size) {
        char top[16];

        snprintf(top, sizeof(top), "%c%u%c", client >= C.clients - C.unprivileged ? 'u' : 's', client, 'a' + i % 4);
        if (i < 4)
                snprintf(buf, size, "%s", top);
        else
                snprintf(buf, size, "%s/%c", top, i < 8 ? 'x' : 'y');
}

static int read_i64(const char *dir, const char *file, int64_t *ret) {
        char path[4096], buf[64];
        FILE *f;
        int ok;

        snprintf(path, sizeof(path), "%s/%s", dir, file);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        ok = fgets(buf, sizeof(buf), f) != NULL;
        fclose(f);
        if (!ok)
                return -EIO;
        *ret = strtoll(buf, NULL, 10);
        return 0;
}

static int write_str(const char *path, const char *s) {
        int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

        if (fd < 0)
                return -errno;
        if (write(fd, s, strlen(s)) < 0)
                r = -errno;
        close(fd);
        return r;
}

/* ---- a client ---------------------------------------------------------------------------------- */

typedef struct Client {
        unsigned id;
        bool unprivileged;
        Rng rng;
        sd_bus *bus;
} Client;

static Outcome classify(int r, const sd_bus_error *e) {
        if (r >= 0)
                return OK;
        if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return DOWN;
        /* hcbsd's refusals, and the bus's limits: nothing was done */
        if ((e->name && strncmp(e->name, "org.hcbsd1.Error.", 17) == 0) ||
            sd_bus_error_has_names(e, SD_BUS_ERROR_LIMITS_EXCEEDED, SD_BUS_ERROR_INVALID_ARGS))
                return REFUSED;
        return UNKNOWN; /* no reply (hcbsd died), a timeout, the connection lost: done or not */
}

/* Sends m and waits, or (cut) sends it and closes the connection at once. */
static Outcome send_call(Client *c, sd_bus_message *m, bool cut) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        Outcome o;
        int r;

        if (cut) {
                r = sd_bus_send(c->bus, m, NULL);
                if (r >= 0)
                        (void) sd_bus_flush(c->bus);
                c->bus = sd_bus_flush_close_unref(c->bus);
                atomic_fetch_add(&S->cut, 1);
                return UNKNOWN;
        }
        r = sd_bus_call(c->bus, m, 30 * 1000000ULL, &e, NULL);
        o = classify(r, &e);
        if (o == UNKNOWN && (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE))
                c->bus = sd_bus_flush_close_unref(c->bus);
        sd_bus_error_free(&e);
        return o;
}

static int new_call(Client *c, const char *member, sd_bus_message **ret) {
        return sd_bus_message_new_method_call(c->bus, ret, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                              member);
}

static void pick_values(Client *c, uint64_t *runtime, uint64_t *period) {
        static const uint64_t periods[] = { 10000, 50000, 100000 };
        static const uint64_t runtimes[] = { 0, 100, 200, 500, 1000 };

        *period = periods[rng_below(&c->rng, 3)];
        *runtime = runtimes[rng_below(&c->rng, 5)];
}

/* The ledger: a persistent group acknowledged (1), or not to be relied on (0). */
static void ledger(Client *c, unsigned i, bool acked) {
        atomic_store(&S->acked[c->id][i], acked);
}

static Outcome op_create(Client *c, unsigned i, bool cut) {
        sd_bus_message *m = NULL;
        bool persistent = rng_below(&c->rng, 10) < 4, grow = rng_below(&c->rng, 10) < 3;
        uint64_t runtime, period;
        char name[32];
        Outcome o = UNKNOWN;

        name_of(c->id, i, name, sizeof(name));
        pick_values(c, &runtime, &period);
        if (new_call(c, "CreateGroup", &m) >= 0 &&
            sd_bus_message_append(m, "stta{sv}", name, runtime, period, 2, "persistent", "b", persistent,
                                  "grow_parents", "b", grow) >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        if (o == OK && persistent)
                ledger(c, i, true);
        return o;
}

static Outcome op_set(Client *c, unsigned i, bool cut) {
        sd_bus_message *m = NULL;
        uint64_t runtime, period;
        char name[32];
        Outcome o = UNKNOWN;

        name_of(c->id, i, name, sizeof(name));
        pick_values(c, &runtime, &period);
        if (new_call(c, "SetBandwidth", &m) >= 0 &&
            sd_bus_message_append(m, "stta{sv}", name, runtime, period, 1, "grow_parents", "b",
                                  rng_below(&c->rng, 2)) >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        return o;
}

static Outcome op_delete(Client *c, unsigned i, bool cut) {
        sd_bus_message *m = NULL;
        char name[32];
        Outcome o = UNKNOWN;

        name_of(c->id, i, name, sizeof(name));
        if (new_call(c, "DeleteGroup", &m) >= 0 && sd_bus_message_append(m, "sa{sv}", name, 0) >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        if (o == OK || o == UNKNOWN) /* gone, or perhaps gone */
                ledger(c, i, false);
        return o;
}

static Outcome op_attach(Client *c, unsigned i, bool cut) {
        static const char *const policies[] = { "keep", "other", "fifo", "rr" };
        const char *policy = policies[rng_below(&c->rng, 4)];
        pid_t pid = S->sleepers[c->id][rng_below(&c->rng, SLEEPERS)];
        sd_bus_message *m = NULL;
        char name[32];
        Outcome o = UNKNOWN;

        name_of(c->id, i, name, sizeof(name));
        if (new_call(c, "Attach", &m) >= 0 && sd_bus_message_append(m, "sau", name, 1, (uint32_t) pid) >= 0 &&
            sd_bus_message_append(m, "a{sv}", 2, "policy", "s", policy, "priority", "i",
                                  (int32_t) (policy[0] == 'f' || policy[0] == 'r' ? 1 + rng_below(&c->rng, 10) : 0)) >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        return o;
}

static Outcome op_detach(Client *c, bool cut) {
        pid_t pid = S->sleepers[c->id][rng_below(&c->rng, SLEEPERS)];
        sd_bus_message *m = NULL;
        Outcome o = UNKNOWN;

        if (new_call(c, "Detach", &m) >= 0 && sd_bus_message_append(m, "aua{sv}", 1, (uint32_t) pid, 0) >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        return o;
}

/* One to four entries on distinct names: creates and re-budgets (some persistent), deletes. */
static Outcome op_apply(Client *c, bool cut) {
        unsigned n = 1 + rng_below(&c->rng, 4), idx[4];
        bool del[4], persistent[4];
        sd_bus_message *m = NULL;
        Outcome o = UNKNOWN;
        int r;

        for (unsigned k = 0; k < n; k++) {
                bool again;
                do {
                        idx[k] = rng_below(&c->rng, NAMES);
                        again = false;
                        for (unsigned j = 0; j < k; j++)
                                again |= idx[j] == idx[k];
                } while (again);
                del[k] = rng_below(&c->rng, 4) == 0;
                persistent[k] = !del[k] && rng_below(&c->rng, 10) < 4;
        }
        r = new_call(c, "Apply", &m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(stta{sv})");
        for (unsigned k = 0; k < n && r >= 0; k++) {
                uint64_t runtime, period;
                char name[32];
                name_of(c->id, idx[k], name, sizeof(name));
                pick_values(c, &runtime, &period);
                r = sd_bus_message_append(m, "(stta{sv})", name, runtime, period, 2, "delete", "b", del[k],
                                          "persistent", "b", persistent[k]);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 1, "grow_parents", "b", rng_below(&c->rng, 2));
        if (r >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        for (unsigned k = 0; k < n; k++)
                if (del[k] && (o == OK || o == UNKNOWN))
                        ledger(c, idx[k], false);
                else if (persistent[k] && o == OK)
                        ledger(c, idx[k], true);
        return o;
}

static Outcome op_size(Client *c, bool cut) {
        sd_bus_message *m = NULL;
        unsigned n = 1 + rng_below(&c->rng, 20);
        Outcome o = UNKNOWN;
        int r = new_call(c, "SizeReservation", &m);

        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ttt)");
        for (unsigned k = 0; k < n && r >= 0; k++) {
                uint64_t period = 1000 * (1 + rng_below(&c->rng, 100));
                r = sd_bus_message_append(m, "(ttt)", 1 + rng_below(&c->rng, period / (4 * n) + 1), period, (uint64_t) 0);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 1, "cpus", "u", (uint32_t) 1);
        if (r >= 0)
                o = send_call(c, m, cut);
        sd_bus_message_unref(m);
        return o;
}

static Op pick_op(Client *c) {
        unsigned total = 0, x;

        for (unsigned k = 0; k < _OP_MAX; k++)
                total += op_weights[k];
        x = rng_below(&c->rng, total);
        for (unsigned k = 0; k < _OP_MAX; k++) {
                if (x < op_weights[k])
                        return k;
                x -= op_weights[k];
        }
        return OP_CREATE;
}

static void one_op(Client *c) {
        Op op = pick_op(c);
        unsigned i = rng_below(&c->rng, NAMES);
        bool cut = rng_below(&c->rng, 100) < 6;
        Outcome o;

        if (!c->bus && test_bus_open(&c->bus) < 0) {
                c->bus = NULL;
                atomic_fetch_add(&S->ops[op][DOWN], 1);
                return;
        }
        switch (op) {
        case OP_CREATE: o = op_create(c, i, cut); break;
        case OP_SET: o = op_set(c, i, cut); break;
        case OP_DELETE: o = op_delete(c, i, cut); break;
        case OP_ATTACH: o = op_attach(c, i, cut); break;
        case OP_DETACH: o = op_detach(c, cut); break;
        case OP_APPLY: o = op_apply(c, cut); break;
        default: o = op_size(c, cut); break;
        }
        atomic_fetch_add(&S->ops[op][o], 1);
}

static pid_t spawn_sleeper(void) {
        pid_t pid = fork();

        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                        pause();
        }
        return pid;
}

static int drop_privileges(void) {
        if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
                return -errno;
        return 0;
}

static void client_main(unsigned id) {
        Client c = { .id = id, .unprivileged = id >= C.clients - C.unprivileged,
                     .rng = { C.seed ^ (0x9e3779b97f4a7c15ULL * (id + 1)) } };

        if (c.unprivileged && drop_privileges() < 0) {
                fprintf(stderr, "soak: client %u cannot become uid %d: %m\n", id, NOBODY);
                _exit(2);
        }
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL); /* after the uid change, which clears it */
        for (unsigned k = 0; k < SLEEPERS; k++)
                S->sleepers[id][k] = spawn_sleeper();
        while (!atomic_load(&S->stop)) {
                atomic_store(&S->busy[id], 1);
                if (atomic_load(&S->pause)) { /* busy first, pause second: the orchestrator's check sees one or the other */
                        atomic_store(&S->busy[id], 0);
                        sleep_ms(5);
                        continue;
                }
                one_op(&c);
                atomic_store(&S->busy[id], 0);
                sleep_ms((unsigned) rng_below(&c.rng, 20));
        }
        c.bus = sd_bus_flush_close_unref(c.bus);
        for (unsigned k = 0; k < SLEEPERS; k++)
                (void) kill(S->sleepers[id][k], SIGKILL);
        _exit(0);
}

/* ---- hcbsd ------------------------------------------------------------------------------------ */

typedef struct Daemon {
        pid_t pid;
        char hook[32];   /* HCBS_CRASH_AFTER_WRITES it runs with, "" for none */
        double started;
} Daemon;

static pid_t spawn(char **argv, const char *hook) {
        pid_t pid = fork();

        if (pid == 0) {
                int fd = LOG ? fileno(LOG) : -1;
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (fd >= 0) {
                        (void) dup2(fd, STDOUT_FILENO);
                        (void) dup2(fd, STDERR_FILENO);
                }
                if (hook && *hook)
                        setenv("HCBS_CRASH_AFTER_WRITES", hook, 1);
                else
                        unsetenv("HCBS_CRASH_AFTER_WRITES");
                execv(argv[0], argv);
                fprintf(stderr, "soak: cannot run %s: %m\n", argv[0]);
                _exit(127);
        }
        return pid;
}

/* Whether org.hcbsd1 has an owner. */
static bool hcbsd_ready(sd_bus *bus) {
        sd_bus_message *reply = NULL;
        int has = 0, r;

        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", HCBS_BUS_NAME);
        if (r >= 0)
                r = sd_bus_message_read(reply, "b", &has);
        sd_bus_message_unref(reply);
        return r >= 0 && has;
}

/* Starts hcbsd; 1 when it owns its name, 0 when it exited first (*status), -1 past 120 s. */
static int daemon_start(Daemon *d, sd_bus *bus, const char *hook, int *status) {
        if (LOG)
                fprintf(LOG, "=== soak: start%s%s\n", hook && *hook ? " with HCBS_CRASH_AFTER_WRITES=" : "",
                        hook ? hook : ""), fflush(LOG);
        snprintf(d->hook, sizeof(d->hook), "%s", hook ? hook : "");
        d->pid = spawn(C.hcbsd_argv, hook);
        d->started = now_s();
        while (now_s() - d->started < 120) {
                if (waitpid(d->pid, status, WNOHANG) == d->pid) {
                        d->pid = 0;
                        return 0;
                }
                if (hcbsd_ready(bus))
                        return 1;
                sleep_ms(20);
        }
        return -1;
}

/* Sends sig and waits for the end (SIGKILL after 60 s); returns the wait status. */
static int daemon_stop(Daemon *d, int sig) {
        double t0 = now_s();
        int status = 0;

        if (d->pid <= 0)
                return 0;
        (void) kill(d->pid, sig);
        while (waitpid(d->pid, &status, WNOHANG) != d->pid) {
                if (now_s() - t0 > 60) {
                        (void) kill(d->pid, SIGKILL);
                        (void) waitpid(d->pid, &status, 0);
                        break;
                }
                sleep_ms(5);
        }
        d->pid = 0;
        return status;
}

static const char *describe_status(int status, char *buf, size_t size) {
        if (WIFEXITED(status))
                snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
                snprintf(buf, size, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
                snprintf(buf, size, "wait status %#x", status);
        return buf;
}

/* A death hcbsd may die by itself: its crash hook's abort(), or the hook's SIGTERM served (status 0). */
static bool expected_death(const Daemon *d, int status) {
        if (!d->hook[0])
                return false;
        if (strstr(d->hook, ":TERM"))
                return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* ---- invariants ------------------------------------------------------------------------------- */

typedef struct Listed {
        char *name;
        uint64_t runtime, period;
} Listed;

typedef struct Checker {
        Listed *groups;
        size_t n;
        char why[8192];
        size_t len;
        unsigned violations;
} Checker;

static void violation(Checker *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(Checker *k, const char *fmt, ...) {
        va_list ap;

        k->violations++;
        if (k->len + 2 >= sizeof(k->why))
                return;
        va_start(ap, fmt);
        k->len += (size_t) vsnprintf(k->why + k->len, sizeof(k->why) - k->len, fmt, ap);
        va_end(ap);
        if (k->len < sizeof(k->why) - 1)
                k->why[k->len++] = '\n', k->why[k->len] = '\0';
}

static const Listed *listed(const Checker *k, const char *name) {
        for (size_t i = 0; i < k->n; i++)
                if (strcmp(k->groups[i].name, name) == 0)
                        return &k->groups[i];
        return NULL;
}

static int list_groups(sd_bus *bus, Checker *k) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *name;
        uint64_t runtime, period;
        int leaf, r;
        uint32_t procs, rt;

        r = sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "ListGroups", &e, &reply, "");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sttbuu)");
        while (r >= 0 && (r = sd_bus_message_read(reply, "(sttbuu)", &name, &runtime, &period, &leaf, &procs, &rt)) > 0) {
                Listed *g = realloc(k->groups, (k->n + 1) * sizeof(*g));
                if (!g) {
                        r = -ENOMEM;
                        break;
                }
                k->groups = g;
                g[k->n++] = (Listed) { strdup(name), runtime, period };
        }
        if (r < 0)
                violation(k, "ListGroups failed: %s", e.message ? e.message : strerror(-r));
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r;
}

/* Every cgroup below dir (rel its name below hcbsd's root) is listed, with the kernel's values. */
static void walk_kernel(Checker *k, const char *dir, const char *rel) {
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d) {
                violation(k, "cannot read %s: %s", dir, strerror(errno));
                return;
        }
        while ((de = readdir(d))) {
                char path[4096], name[4096];
                const Listed *g;
                int64_t runtime = 0, period = 0;

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                snprintf(name, sizeof(name), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
                if (read_i64(path, "cpu.rt_runtime_us", &runtime) < 0 || read_i64(path, "cpu.rt_period_us", &period) < 0)
                        violation(k, "%s: cannot read its RT files", name);
                g = listed(k, name);
                if (!g)
                        violation(k, "%s: a cgroup below hcbsd's root that hcbsd does not list (runtime %" PRId64
                                  "us, period %" PRId64 "us)", name, runtime, period);
                else if ((uint64_t) runtime != g->runtime || (uint64_t) period != g->period)
                        violation(k, "%s: hcbsd lists %" PRIu64 "/%" PRIu64 ", the kernel has %" PRId64 "/%" PRId64,
                                  name, g->runtime, g->period, runtime, period);
                walk_kernel(k, path, name);
        }
        closedir(d);
}

static bool in_state_file(const char *name) {
        char path[4096], line[4096];
        size_t len = strlen(name);
        bool found = false;
        FILE *f;

        snprintf(path, sizeof(path), "%s/groups", C.state_dir);
        f = fopen(path, "re");
        if (!f)
                return false;
        while (!found && fgets(line, sizeof(line), f))
                found = strncmp(line, name, len) == 0 && line[len] == ' ';
        fclose(f);
        return found;
}

/* Every invariant, with hcbsd ready and the clients paused. Returns the number of violations. */
static unsigned check(sd_bus *bus, char *why, size_t whylen) {
        Checker k = {};
        char path[4096];
        int64_t runtime = 0, period = 0;
        struct stat st;

        if (list_groups(bus, &k) >= 0) {
                walk_kernel(&k, C.root, "");
                for (size_t i = 0; i < k.n; i++) {
                        snprintf(path, sizeof(path), "%s/%s", C.root, k.groups[i].name);
                        if (access(path, F_OK) < 0)
                                violation(&k, "%s: listed, but not in the kernel", k.groups[i].name);
                        if (k.groups[i].name[0] == 'u')
                                violation(&k, "%s: a group of an unprivileged client exists", k.groups[i].name);
                }
        }
        for (unsigned c = 0; c < C.clients; c++)
                for (unsigned i = 0; i < NAMES; i++) {
                        char name[32];
                        if (!atomic_load(&S->acked[c][i]))
                                continue;
                        name_of(c, i, name, sizeof(name));
                        snprintf(path, sizeof(path), "%s/%s", C.root, name);
                        if (access(path, F_OK) < 0 || !listed(&k, name))
                                violation(&k, "%s: a persistent group acknowledged to client %u is gone", name, c);
                        else if (!in_state_file(name))
                                violation(&k, "%s: a persistent group acknowledged to client %u is not in %s/groups",
                                          name, c, C.state_dir);
                }
        /* hcbsd keeps its journal open while it runs (journal.h): empty between plans */
        snprintf(path, sizeof(path), "%s/plan", C.runtime_dir);
        if (stat(path, &st) == 0 && st.st_size > 0)
                violation(&k, "%s holds a plan (%lld bytes) while hcbsd is ready and no call runs", path,
                          (long long) st.st_size);
        if (read_i64(C.root, "cpu.rt_runtime_us", &runtime) < 0 || read_i64(C.root, "cpu.rt_period_us", &period) < 0)
                violation(&k, "cannot read hcbsd's root's RT files in %s", C.root);
        else if (runtime != C.cap_runtime || (uint64_t) period != C.cap_period)
                violation(&k, "hcbsd's root holds %" PRId64 "/%" PRId64 ", not the capacity configured, %" PRId64
                          "/%" PRIu64, runtime, period, C.cap_runtime, C.cap_period);
        for (size_t i = 0; i < k.n; i++)
                free(k.groups[i].name);
        free(k.groups);
        snprintf(why, whylen, "%s", k.why);
        return k.violations;
}

/* ---- the orchestrator ------------------------------------------------------------------------- */

static bool capacity_reserved(void) {
        int64_t runtime = 0, period = 0;

        return read_i64(C.root, "cpu.rt_runtime_us", &runtime) >= 0 && read_i64(C.root, "cpu.rt_period_us", &period) >= 0 &&
               runtime == C.cap_runtime && (uint64_t) period == C.cap_period;
}

static void pause_clients(void) {
        atomic_store(&S->pause, 1);
        for (unsigned c = 0; c < C.clients; c++)
                while (atomic_load(&S->busy[c]))
                        sleep_ms(2);
}

static void resume_clients(void) {
        atomic_store(&S->pause, 0);
}

/* A reboot: the cgroups and the runtime directory gone; the state directory kept. */
static void remove_tree(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        char path[4096];

        if (!d)
                return;
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                remove_tree(path);
        }
        closedir(d);
        /* the processes out first, SCHED_OTHER, to the mount's root */
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        FILE *f = fopen(path, "re");
        if (f) {
                char line[64], to[4096];
                snprintf(to, sizeof(to), "%s/cgroup.procs", C.mount);
                while (fgets(line, sizeof(line), f)) {
                        pid_t pid = (pid_t) atoi(line);
                        struct sched_param p = { 0 };
                        (void) sched_setscheduler(pid, SCHED_OTHER, &p);
                        (void) write_str(to, line);
                }
                fclose(f);
        }
        snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
        (void) write_str(path, "0");
        if (rmdir(dir) < 0 && errno != ENOENT)
                say("reboot: cannot remove %s: %s", dir, strerror(errno));
}

static void reboot(void) {
        char path[4096];

        remove_tree(C.root);
        for (const char *const *f = (const char *const[]) { "plan", "origins", NULL }; *f; f++) {
                snprintf(path, sizeof(path), "%s/%s", C.runtime_dir, *f);
                (void) unlink(path);
        }
}

typedef struct Tally {
        unsigned kill, term, reboot, hook_armed, hook_fired, start_crash, checks;
} Tally;

static void summary(const Tally *t, double elapsed) {
        unsigned long total = 0, by[_OUTCOME_MAX] = {};

        for (unsigned op = 0; op < _OP_MAX; op++)
                for (unsigned o = 0; o < _OUTCOME_MAX; o++) {
                        total += atomic_load(&S->ops[op][o]);
                        by[o] += atomic_load(&S->ops[op][o]);
                }
        say("%.0f s: %lu operations (%lu %s, %lu %s, %lu %s, %lu %s; %lu cut off by their caller); "
            "%u kills (%u SIGKILL, %u SIGTERM, %u reboots), crash hook armed %u times and fired %u (%u at start-up); "
            "%u invariant checks",
            elapsed, total, by[OK], outcome_names[OK], by[REFUSED], outcome_names[REFUSED], by[DOWN],
            outcome_names[DOWN], by[UNKNOWN], outcome_names[UNKNOWN], atomic_load(&S->cut), t->kill + t->term + t->reboot,
            t->kill, t->term, t->reboot, t->hook_armed, t->hook_fired, t->start_crash, t->checks);
}

static void op_table(void) {
        for (unsigned op = 0; op < _OP_MAX; op++)
                say("  %-7s ok %-6lu refused %-6lu down %-6lu unknown %lu", op_names[op], atomic_load(&S->ops[op][OK]),
                    atomic_load(&S->ops[op][REFUSED]), atomic_load(&S->ops[op][DOWN]), atomic_load(&S->ops[op][UNKNOWN]));
}

static int fail_run(const char *what, double elapsed, const Tally *t) {
        say("VIOLATION after %.1f s:", elapsed);
        printf("%s%s", what, what[0] && what[strlen(what) - 1] == '\n' ? "" : "\n");
        summary(t, elapsed);
        say("FAILED; replay with SOAK_SEED=%" PRIu64 " (--seed %" PRIu64 ")", C.seed, C.seed);
        return 1;
}

/* (Re)starts hcbsd until it is ready, arming the crash hook at random; returns 0, or 1 on a violation. */
static int restart(Daemon *d, sd_bus *bus, Rng *rng, Tally *t, char *why, size_t whylen) {
        char hook[32] = "", status_buf[64];
        int status, r;

        if (rng_below(rng, 100) < 20) {
                snprintf(hook, sizeof(hook), "%" PRIu64 "%s", 1 + rng_below(rng, 40), rng_below(rng, 3) == 0 ? ":TERM" : "");
                t->hook_armed++;
        }
        for (unsigned tries = 0; tries < 3; tries++) {
                r = daemon_start(d, bus, hook, &status);
                if (r > 0)
                        return 0;
                if (r < 0) {
                        snprintf(why, whylen, "hcbsd did not own %s within 120 s of its start", HCBS_BUS_NAME);
                        return 1;
                }
                if (!expected_death(d, status)) {
                        snprintf(why, whylen, "hcbsd exited before it was ready: %s (crash hook '%s')",
                                 describe_status(status, status_buf, sizeof(status_buf)), d->hook);
                        return 1;
                }
                t->hook_fired++;
                t->start_crash++;
                hook[0] = '\0'; /* it fired in start-up: once more, plainly */
        }
        snprintf(why, whylen, "hcbsd could not be started");
        return 1;
}

/* hcbsd ended by itself: a violation unless its crash hook fired. 0, or 1 with why. */
static int reap_own_death(Daemon *d, Tally *t, int status, char *why, size_t whylen) {
        char status_buf[64];

        d->pid = 0;
        if (!expected_death(d, status)) {
                snprintf(why, whylen, "hcbsd died by itself: %s (crash hook '%s'); its log: %s",
                         describe_status(status, status_buf, sizeof(status_buf)), d->hook, C.log ? C.log : "(none)");
                return 1;
        }
        t->hook_fired++;
        return 0;
}

/*
 * SIGTERM, and how hcbsd ended: status 0, or its crash hook (its own SIGTERM
 * served, or an abort, *crashed, which may come in the exit's own write that
 * gives back the capacity no group holds: the next start replays the journal
 * it leaves). 0, or 1 with why.
 */
static int stop_by_sigterm(Daemon *d, Tally *t, bool *crashed, char *why, size_t whylen) {
        char status_buf[64];
        int status = daemon_stop(d, SIGTERM);

        *crashed = WIFSIGNALED(status);
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !expected_death(d, status)) {
                snprintf(why, whylen, "hcbsd ended by SIGTERM with %s, not status 0",
                         describe_status(status, status_buf, sizeof(status_buf)));
                return 1;
        }
        if (*crashed)
                t->hook_fired++;
        return 0;
}

/*
 * Pauses the clients with hcbsd ready: one whose crash hook fired while the
 * clients ran (it restarts with them calling) is started again, the clients
 * paused. 0, or 1 on a violation.
 */
static int settle(Daemon *d, sd_bus *bus, Rng *rng, Tally *t, char *why, size_t whylen) {
        int status;

        pause_clients();
        while (d->pid > 0 && waitpid(d->pid, &status, WNOHANG) == d->pid)
                if (reap_own_death(d, t, status, why, whylen) || restart(d, bus, rng, t, why, whylen))
                        return 1;
        return 0;
}

static int orchestrate(sd_bus *bus, pid_t *clients) {
        Rng rng = { C.seed ? C.seed : 1 };
        Daemon d = {};
        Tally t = {};
        double t0 = now_s(), next_report = 30, elapsed = 0;
        char why[8192];
        bool crashed;
        int status;

        if (restart(&d, bus, &rng, &t, why, sizeof(why)) != 0)
                return fail_run(why, 0, &t);
        if (!capacity_reserved()) { /* the machine's RT budget is shared: someone else holds it now */
                printf("SKIP: hcbsd's root could not reserve the capacity configured (%" PRId64 "/%" PRIu64
                       "): the machine's root RT budget is in use elsewhere\n", C.cap_runtime, C.cap_period);
                (void) daemon_stop(&d, SIGTERM);
                return 77;
        }
        t.checks++;
        if (check(bus, why, sizeof(why)))
                return fail_run(why, 0, &t);
        resume_clients();
        while ((elapsed = now_s() - t0) < C.seconds) {
                unsigned gap = 200 + (unsigned) rng_below(&rng, 2800), kind = (unsigned) rng_below(&rng, 100);
                bool died = false;

                for (double w0 = now_s(); now_s() - w0 < gap / 1000.0 && !died;) {
                        sleep_ms(20);
                        died = d.pid > 0 && waitpid(d.pid, &status, WNOHANG) == d.pid;
                }
                if (died) {
                        if (reap_own_death(&d, &t, status, why, sizeof(why)))
                                return fail_run(why, now_s() - t0, &t);
                } else if (kind < 55) {
                        (void) daemon_stop(&d, SIGKILL);
                        t.kill++;
                } else if (kind < 88) {
                        t.term++;
                        if (stop_by_sigterm(&d, &t, &crashed, why, sizeof(why)))
                                return fail_run(why, now_s() - t0, &t);
                } else {
                        pause_clients();
                        (void) daemon_stop(&d, SIGKILL);
                        reboot();
                        t.reboot++;
                }
                if (restart(&d, bus, &rng, &t, why, sizeof(why)) != 0 ||
                    settle(&d, bus, &rng, &t, why, sizeof(why)) != 0)
                        return fail_run(why, now_s() - t0, &t);
                t.checks++;
                if (check(bus, why, sizeof(why)))
                        return fail_run(why, now_s() - t0, &t);
                resume_clients();
                if (now_s() - t0 >= next_report) {
                        summary(&t, now_s() - t0);
                        next_report += 30;
                }
        }
        if (settle(&d, bus, &rng, &t, why, sizeof(why)) != 0)
                return fail_run(why, now_s() - t0, &t);
        t.checks++;
        if (check(bus, why, sizeof(why)))
                return fail_run(why, now_s() - t0, &t);
        atomic_store(&S->stop, 1);
        resume_clients();
        for (unsigned c = 0; c < C.clients; c++)
                (void) waitpid(clients[c], NULL, 0);
        /*
         * The last SIGTERM. After a crash in the exit (stop_by_sigterm()), a
         * plain start must replay the journal (check(): none once ready), and
         * a plain SIGTERM leave none.
         */
        for (;;) {
                if (stop_by_sigterm(&d, &t, &crashed, why, sizeof(why)))
                        return fail_run(why, now_s() - t0, &t);
                if (!crashed)
                        break;
                if (daemon_start(&d, bus, "", &status) <= 0) {
                        snprintf(why, sizeof(why), "hcbsd did not start again after its crash hook fired in its exit");
                        return fail_run(why, now_s() - t0, &t);
                }
                t.checks++;
                if (check(bus, why, sizeof(why)))
                        return fail_run(why, now_s() - t0, &t);
        }
        snprintf(why, sizeof(why), "%s/plan", C.runtime_dir);
        if (access(why, F_OK) == 0)
                return fail_run("a plan journal is left behind after hcbsd's SIGTERM", now_s() - t0, &t);
        summary(&t, now_s() - t0);
        op_table();
        say("0 violations; seed %" PRIu64, C.seed);
        return 0;
}

/* ---- main ------------------------------------------------------------------------------------- */

static void usage(void) {
        fprintf(stderr,
                "usage: hcbs-soak --root DIR --mount DIR --state-dir DIR --runtime-dir DIR --capacity RUNTIME/PERIOD\n"
                "                 [--seconds N] [--seed N] [--clients N] [--unprivileged N] [--polkit PATH]\n"
                "                 [--log FILE] -- HCBSD-COMMAND-LINE...\n");
}

static int parse_args(int argc, char **argv) {
        static const struct option options[] = {
                { "root", required_argument, NULL, 'r' },        { "mount", required_argument, NULL, 'm' },
                { "state-dir", required_argument, NULL, 's' },   { "runtime-dir", required_argument, NULL, 'R' },
                { "capacity", required_argument, NULL, 'c' },    { "seconds", required_argument, NULL, 'S' },
                { "seed", required_argument, NULL, 'e' },        { "clients", required_argument, NULL, 'n' },
                { "unprivileged", required_argument, NULL, 'u' }, { "polkit", required_argument, NULL, 'p' },
                { "log", required_argument, NULL, 'l' },         {}
        };
        int o;

        while ((o = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (o) {
                case 'r': C.root = optarg; break;
                case 'm': C.mount = optarg; break;
                case 's': C.state_dir = optarg; break;
                case 'R': C.runtime_dir = optarg; break;
                case 'c':
                        if (sscanf(optarg, "%" SCNd64 "/%" SCNu64, &C.cap_runtime, &C.cap_period) != 2)
                                return -EINVAL;
                        break;
                case 'S': C.seconds = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'e': C.seed = strtoull(optarg, NULL, 0); break;
                case 'n': C.clients = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'u': C.unprivileged = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'p': C.polkit = optarg; break;
                case 'l': C.log = optarg; break;
                default: return -EINVAL;
                }
        if (!C.root || !C.mount || !C.state_dir || !C.runtime_dir || !C.cap_period || optind >= argc ||
            C.clients == 0 || C.clients > MAX_CLIENTS || C.unprivileged > C.clients)
                return -EINVAL;
        C.hcbsd_argv = argv + optind;
        return 0;
}

/* The polkit stand-in (fake-polkit deny 0): uid 65534 is refused by polkit, not by its absence. */
static pid_t start_polkit(void) {
        char *argv[] = { (char *) C.polkit, (char *) "deny", (char *) "0", NULL };
        int p[2];
        char buf[64] = "";
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                (void) dup2(p[1], STDOUT_FILENO);
                execv(argv[0], argv);
                _exit(127);
        }
        close(p[1]);
        if (read(p[0], buf, sizeof(buf) - 1) <= 0 || !strstr(buf, "ready"))
                pid = -1;
        close(p[0]);
        return pid;
}

int main(int argc, char **argv) {
        pid_t clients[MAX_CLIENTS] = {}, polkit = 0;
        sd_bus *bus = NULL;
        const char *e;
        int r;

        if ((e = getenv("SOAK_SECONDS")) && *e)
                C.seconds = (unsigned) strtoul(e, NULL, 10);
        C.seed = (e = getenv("SOAK_SEED")) && *e ? strtoull(e, NULL, 0) : (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 20);
        if (parse_args(argc, argv) < 0) {
                usage();
                return 2;
        }
        if (!C.seed)
                C.seed = 1;
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (C.log && !(LOG = fopen(C.log, "ae"))) {
                fprintf(stderr, "soak: cannot open %s: %m\n", C.log);
                return 2;
        }
        S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (S == MAP_FAILED)
                return 2;
        memset(S, 0, sizeof(*S));
        atomic_store(&S->pause, 1);
        say("seed %" PRIu64 " (replay: SOAK_SEED=%" PRIu64 "), %u s, %u clients (%u as uid %d), hcbsd: %s", C.seed,
            C.seed, C.seconds, C.clients, C.unprivileged, NOBODY, C.hcbsd_argv[0]);
        for (unsigned c = 0; c < C.clients; c++) {
                clients[c] = fork();
                if (clients[c] < 0)
                        return 2;
                if (clients[c] == 0)
                        client_main(c);
        }
        if (C.polkit && (polkit = start_polkit()) < 0) {
                fprintf(stderr, "soak: the polkit stand-in %s did not start\n", C.polkit);
                return 2;
        }
        r = test_bus_open(&bus);
        if (r < 0) {
                fprintf(stderr, "soak: cannot connect to the bus: %s\n", strerror(-r));
                return 2;
        }
        r = orchestrate(bus, clients);
        atomic_store(&S->stop, 1);
        atomic_store(&S->pause, 0);
        for (unsigned c = 0; c < C.clients; c++)
                if (clients[c] > 0) {
                        (void) kill(clients[c], SIGKILL);
                        (void) waitpid(clients[c], NULL, 0);
                }
        if (polkit > 0) {
                (void) kill(polkit, SIGTERM);
                (void) waitpid(polkit, NULL, 0);
        }
        sd_bus_flush_close_unref(bus);
        return r;
}
