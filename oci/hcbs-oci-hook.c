/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hcbs-oci-hook: an OCI hook (oci-hooks(5)) that gives a container an RT
 * reservation from hcbsd. Run by the container engine or runtime:
 *
 *   hcbs-oci-hook check     precreate (podman runs it, with the OCI config
 *                           on stdin, which it prints back unchanged):
 *                           the annotations checked and CheckCgroup asked
 *                           for the scope the engine is about to make, so
 *                           that a refusal stops the container before it
 *                           exists, with hcbsd's reason
 *   hcbs-oci-hook reserve   createRuntime (the runtime runs it, with the
 *                           OCI state on stdin): the container's cgroup
 *                           exists and its process has not run the workload
 *                           yet: ReserveCgroup for that cgroup, the policy
 *                           for the process; any failure stops the container
 *   hcbs-oci-hook release   poststop: ReleaseCgroup (hcbsd also gives the
 *                           bandwidth back by itself when the scope goes)
 *
 * With org.hcbsd1.tasks, hcbsd sizes the reservation first (SizeReservation).
 * Every failure is one line on stderr and exit status 1; every call to
 * hcbsd is bounded (--timeout). Engines do not show a hook's stderr:
 * podman runs precreate hooks with stderr on /dev/null, and crun does the
 * same for the hooks it runs (runc puts it in its error). With --to-engine
 * the line also goes to the standard error of the process that runs the
 * hook, for precreate the engine itself, so `podman run` prints it above
 * its own error.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "bus-client.h"
#include "bus-errors.h"
#include "bus-names.h"
#include "duration.h"
#include "fileio.h"
#include "macro.h"
#include "oci-state.h"
#include "strutil.h"

#define HOOK "hcbs-oci-hook"
#define DEFAULT_TIMEOUT_USEC (5 * 1000 * 1000ULL)
#define DEFAULT_STATE_DIR "/run/hcbs-oci-hook"

typedef struct Args {
        const char *stage;
        const char *bus_address;
        const char *state_dir;
        uint64_t timeout_usec;
} Args;

static bool to_engine; /* --to-engine */

/* The parent's stderr, unless it is ours already: the engine that runs a precreate hook. */
static FILE *engine_stderr(void) {
        char path[64];
        struct stat ours, theirs;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/fd/2", (int) getppid());
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return NULL;
        if (fstat(fd, &theirs) < 0 || (fstat(STDERR_FILENO, &ours) == 0 && ours.st_dev == theirs.st_dev &&
                                       ours.st_ino == theirs.st_ino)) {
                close(fd);
                return NULL;
        }
        return fdopen(fd, "a");
}

/*
 * One line on stderr (and, with --to-engine, the engine's, often a
 * terminal); returns the exit status 1. The line quotes what the
 * container's author wrote (annotations): escaped, it stays one line and
 * moves no cursor.
 */
static int fail(const char *fmt, ...) _printf_(1, 2);
static int fail(const char *fmt, ...) {
        char raw[2048], line[4 * sizeof(raw)];
        va_list ap;
        FILE *f;

        va_start(ap, fmt);
        vsnprintf(raw, sizeof(raw), fmt, ap);
        va_end(ap);
        hcbs_escape_printable(raw, line, sizeof(line));
        fprintf(stderr, HOOK ": %s\n", line);
        if (to_engine && (f = engine_stderr())) {
                fprintf(f, HOOK ": %s\n", line);
                fclose(f);
        }
        return 1;
}

static void usage(FILE *f) {
        fprintf(f,
                "Usage: " HOOK " [OPTIONS] check < CONFIG\n"
                "       " HOOK " [OPTIONS] reserve|release < STATE\n"
                "\n"
                "An OCI hook giving a container an RT reservation from hcbsd, for podman and\n"
                "CRI-O (hooks.d). The container asks with annotations:\n"
                "  org.hcbsd1.runtime=DURATION org.hcbsd1.period=DURATION, or\n"
                "  org.hcbsd1.tasks='WCET:PERIOD[:DEADLINE] ...' (hcbsd sizes the reservation)\n"
                "  org.hcbsd1.policy=fifo:PRIO|rr:PRIO|other|keep (default keep)\n"
                "\n"
                "Stages:\n"
                "  check                precreate (the OCI config on stdin, printed back):\n"
                "                       would hcbsd admit the container? stop it if not\n"
                "  reserve              createRuntime: reserve for the container's cgroup,\n"
                "                       apply the policy to its process\n"
                "  release              poststop: give the reservation back\n"
                "\n"
                "Options:\n"
                "  --bus-address ADDR   talk to hcbsd on this bus instead of the system bus\n"
                "  --state-dir DIR      where reserve records a container's cgroup for release\n"
                "                       (default " DEFAULT_STATE_DIR ")\n"
                "  --timeout DURATION   bound of each call to hcbsd (default 5s)\n"
                "  --to-engine          a failure's line also to the stderr of the process\n"
                "                       that runs the hook (podman hides a precreate hook's)\n"
                "  -h, --help           show this help\n");
}

static int parse_args(int argc, char **argv, Args *a) {
        enum { OPT_BUS = 0x100, OPT_STATE, OPT_TIMEOUT, OPT_TO_ENGINE };
        static const struct option options[] = {
                { "bus-address", required_argument, NULL, OPT_BUS },
                { "state-dir", required_argument, NULL, OPT_STATE },
                { "timeout", required_argument, NULL, OPT_TIMEOUT },
                { "to-engine", no_argument, NULL, OPT_TO_ENGINE },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        char why[HCBS_ERRLEN];
        int c;

        *a = (Args) { .state_dir = DEFAULT_STATE_DIR, .timeout_usec = DEFAULT_TIMEOUT_USEC };
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case OPT_BUS:
                        a->bus_address = optarg;
                        break;
                case OPT_STATE:
                        a->state_dir = optarg;
                        break;
                case OPT_TIMEOUT:
                        if (hcbs_duration_parse(optarg, &a->timeout_usec, why, sizeof(why)) < 0 ||
                            a->timeout_usec == 0) {
                                (void) fail("--timeout %s: %s", optarg, a->timeout_usec == 0 ? "must not be 0" : why);
                                return 2;
                        }
                        break;
                case OPT_TO_ENGINE:
                        to_engine = true;
                        break;
                case 'h':
                        usage(stdout);
                        exit(0);
                default:
                        usage(stderr);
                        return 2;
                }
        if (optind + 1 != argc || (strcmp(argv[optind], "check") != 0 && strcmp(argv[optind], "reserve") != 0 &&
                                   strcmp(argv[optind], "release") != 0)) {
                usage(stderr);
                return 2;
        }
        a->stage = argv[optind];
        return 0;
}

static int read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        size_t len = 0, size = 4096;
        char *buf = malloc(size + 1);

        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k;

                if (len == size) {
                        char *b;
                        if (size >= max) {
                                free(buf);
                                return -EFBIG;
                        }
                        size *= 2;
                        b = realloc(buf, size + 1);
                        if (!b) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = b;
                }
                k = read(fd, buf + len, size - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = -errno;
                        free(buf);
                        return r;
                }
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        buf[len] = '\0';
        *ret = buf;
        *ret_len = len;
        return 0;
}

static int read_file(const char *path, size_t max, char **ret) {
        size_t len;
        int fd = open(path, O_RDONLY | O_CLOEXEC), r;

        if (fd < 0)
                return -errno;
        r = read_all(fd, max, ret, &len);
        close(fd);
        return r;
}

static int bus_connect(const Args *a, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r = hcbs_bus_open_client(a->bus_address, &bus);

        if (r >= 0)
                r = sd_bus_set_method_call_timeout(bus, a->timeout_usec);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

/* One line for a failed call to hcbsd. */
static int call_failed(const Args *a, const char *id, const char *what, const sd_bus_error *error, int r) {
        char buf[1024], t[HCBS_DURATION_STRLEN];
        size_t i;

        if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return fail("container %.12s: hcbsd is not running (%s has no owner on the bus)", id, HCBS_BUS_NAME);
        if (r == -ETIMEDOUT || sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT))
                return fail("container %.12s: hcbsd did not answer within %s (asked for %s)", id,
                            hcbs_duration_format(a->timeout_usec, t), what);
        if (!error || !error->message)
                return fail("container %.12s: %s: %s", id, what, strerror(r < 0 ? -r : EIO));
        for (i = 0; error->message[i] && i + 1 < sizeof(buf); i++)
                buf[i] = error->message[i] == '\n' ? ' ' : error->message[i];
        buf[i] = '\0';
        if (!error->name || strncmp(error->name, HCBS_ERROR_PREFIX, strlen(HCBS_ERROR_PREFIX)) != 0)
                /* the bus's answer, not hcbsd's: its activation failed, the unit is masked... */
                return fail("container %.12s: hcbsd is not running: %s (%s)", id, buf,
                            error->name ? error->name : "no error name");
        return fail("container %.12s: hcbsd refused %s: %s", id, what, buf);
}

static int state_path(const Args *a, const char *id, char *buf, size_t size) {
        return snprintf(buf, size, "%s/%s", a->state_dir, id) < (int) size ? 0 : -ENAMETOOLONG;
}

/*
 * Records the cgroup for release, whole or not at all: a temporary file
 * beside it, written, synced and renamed over it. file gets its path.
 * Returns 0 or -errno.
 */
static int save_state(const Args *a, const char *id, const char *cgroup, char *file, size_t size) {
        char tmp[4096 + 16];
        _cleanup_free_ char *line = NULL;
        int fd, r;

        r = state_path(a, id, file, size);
        if (r < 0)
                return r;
        if (mkdir(a->state_dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", a->state_dir, id) >= (int) sizeof(tmp))
                return -ENAMETOOLONG;
        if (asprintf(&line, "%s\n", cgroup) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = hcbs_write_all(fd, line, strlen(line));
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r >= 0)
                r = -errno;
        if (r >= 0 && rename(tmp, file) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

static int connect_or_fail(const Args *a, const char *id, sd_bus **ret) {
        int r = bus_connect(a, ret);

        if (r < 0)
                return fail("container %.12s: hcbsd is not reachable: cannot connect to the %s bus: %s", id,
                            a->bus_address ? "given" : "system", strerror(-r));
        return 0;
}

/* "RUNTIME every PERIOD", or for tasks hcbsd has not sized yet "a reservation for N tasks". */
static const char *asked_for(const HcbsContainerRequest *q, char *buf, size_t size) {
        char rt[HCBS_DURATION_STRLEN], pd[HCBS_DURATION_STRLEN];

        if (q->period_us == 0)
                snprintf(buf, size, "a reservation for %zu task%s", q->n_tasks, q->n_tasks == 1 ? "" : "s");
        else
                snprintf(buf, size, "%s every %s", hcbs_duration_format(q->runtime_us, rt),
                         hcbs_duration_format(q->period_us, pd));
        return buf;
}

/* With org.hcbsd1.tasks: the reservation hcbsd sizes for them (SizeReservation), into q. 0 or the exit status. */
static int size_tasks(const Args *a, sd_bus *bus, const char *id, HcbsContainerRequest *q) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        char what[64];
        uint32_t cpus;
        int r;

        if (q->n_tasks == 0)
                return 0;
        r = sd_bus_message_new_method_call(bus, &m, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE,
                                           "SizeReservation");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ttt)");
        for (size_t i = 0; r >= 0 && i < q->n_tasks; i++)
                r = sd_bus_message_append(m, "(ttt)", q->tasks[i].wcet_us, q->tasks[i].period_us,
                                          q->tasks[i].deadline_us);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 0);
        if (r < 0)
                return fail("container %.12s: cannot build the sizing call: %s", id, strerror(-r));
        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0)
                return call_failed(a, id, asked_for(q, what, sizeof(what)), &error, r);
        r = sd_bus_message_read(reply, "ttu", &q->runtime_us, &q->period_us, &cpus);
        if (r < 0)
                return fail("container %.12s: hcbsd's sizing answer is not (ttu...): %s", id, strerror(-r));
        return 0;
}

/* precreate: would hcbsd admit the scope the engine is about to make? The config goes back out unchanged. */
static int do_check(const Args *a, const char *json, size_t len) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(oci_config_done) OciConfig c = {};
        const char *name, *message;
        char err[512], what[128];
        int ok, r;

        r = oci_config_parse(json, len, &c, err, sizeof(err));
        if (r < 0)
                return fail("%s", r == -EINVAL ? err : strerror(-r));
        if (c.asked) {
                r = connect_or_fail(a, c.id, &bus);
                if (r == 0)
                        r = size_tasks(a, bus, c.id, &c.request);
                if (r != 0)
                        return r;
                asked_for(&c.request, what, sizeof(what));
                r = sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "CheckCgroup", &error,
                                       &reply, "stt", c.cgroup, c.request.runtime_us, c.request.period_us);
                if (r < 0)
                        return call_failed(a, c.id, what, &error, r);
                r = sd_bus_message_read(reply, "bss", &ok, &name, &message);
                if (r < 0)
                        return fail("container %.12s: hcbsd's answer to CheckCgroup is not (bss): %s", c.id,
                                    strerror(-r));
                if (!ok)
                        return fail("container %.12s: hcbsd refused %s: %s", c.id, what, message);
        }
        r = hcbs_write_all(STDOUT_FILENO, json, len);
        return r < 0 ? fail("cannot write the OCI config back: %s", strerror(-r)) : 0;
}

static int do_reserve(const Args *a, OciState *s) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char proc[64], file[4096], what[128];
        HcbsContainerRequest *q = &s->request;
        _cleanup_free_ char *cgroup = NULL;
        char *text = NULL;
        int r;

        if (s->pid <= 0)
                return fail("container %.12s: the OCI state has no pid: run as a createRuntime hook", s->id);
        snprintf(proc, sizeof(proc), "/proc/%d/cgroup", (int) s->pid);
        r = read_file(proc, 65536, &text);
        if (r >= 0)
                r = oci_cgroup_from_proc(text, &cgroup);
        free(text);
        if (r < 0)
                return fail("container %.12s: cannot read the cgroup v2 path of process %d: %s", s->id, (int) s->pid,
                            strerror(-r));
        r = connect_or_fail(a, s->id, &bus);
        if (r == 0)
                r = size_tasks(a, bus, s->id, q);
        if (r != 0)
                return r;
        r = sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "ReserveCgroup", &error,
                               NULL, "stta{sv}", cgroup, q->runtime_us, q->period_us, 3, "policy", "s", q->policy,
                               "priority", "i", (int32_t) q->priority, "pid", "u", (uint32_t) s->pid);
        if (r < 0)
                return call_failed(a, s->id, asked_for(q, what, sizeof(what)), &error, r);
        /*
         * What release needs once the process (and with it /proc/PID/cgroup) is
         * gone. Without it the container must not run: it stops, and hcbsd gives
         * the reservation back with its scope.
         */
        r = save_state(a, s->id, cgroup, file, sizeof(file));
        if (r < 0)
                return fail("container %.12s: cannot record its reservation for the release in %s: %s", s->id,
                            r == -ENAMETOOLONG ? a->state_dir : file, strerror(-r));
        return 0;
}

static int do_release(const Args *a, const OciState *s) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char file[4096], *cgroup = NULL;
        int r;

        if (state_path(a, s->id, file, sizeof(file)) < 0)
                return fail("container %.12s: --state-dir is too long", s->id);
        r = read_file(file, 8192, &cgroup);
        if (r == -ENOENT)
                return 0; /* reserve never succeeded: nothing to give back */
        if (r < 0)
                return fail("container %.12s: cannot read %s: %s", s->id, file, strerror(-r));
        if (!*cgroup || cgroup[strlen(cgroup) - 1] != '\n' || strchr(cgroup, '\n') != cgroup + strlen(cgroup) - 1) {
                free(cgroup);
                return fail("container %.12s: %s is not one line this hook wrote; nothing released (hcbsd gives "
                            "the reservation back with the container's scope)", s->id, file);
        }
        cgroup[strlen(cgroup) - 1] = '\0';
        r = bus_connect(a, &bus);
        if (r >= 0)
                r = sd_bus_call_method(bus, HCBS_BUS_NAME, HCBS_MANAGER_PATH, HCBS_MANAGER_IFACE, "ReleaseCgroup", &error, NULL, "sa{sv}",
                                       cgroup, 0);
        free(cgroup);
        if (r < 0 && sd_bus_error_has_names(&error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                (void) unlink(file); /* a restarted hcbsd gives back what no running scope holds */
                return 0;
        }
        if (r < 0)
                return call_failed(a, s->id, "the release", &error, r);
        (void) unlink(file);
        return 0;
}

int main(int argc, char **argv) {
        _cleanup_free_ char *json = NULL;
        _cleanup_(oci_state_done) OciState s = {};
        bool check;
        char err[512];
        size_t len;
        Args a;
        int r;

        r = parse_args(argc, argv, &a);
        if (r != 0)
                return r;
        check = strcmp(a.stage, "check") == 0;
        r = read_all(STDIN_FILENO, check ? OCI_CONFIG_MAX : OCI_STATE_MAX, &json, &len);
        if (r < 0)
                return fail("cannot read the OCI %s on stdin: %s", check ? "config" : "state", strerror(-r));
        if (check)
                return do_check(&a, json, len);
        r = oci_state_parse(json, len, &s, err, sizeof(err));
        if (r < 0)
                return fail("%s", r == -EINVAL ? err : strerror(-r));
        if (strcmp(a.stage, "release") == 0)
                return do_release(&a, &s);
        if (!s.asked)
                return 0; /* hooks.d's "when" did not filter: a container that did not ask is left alone */
        return do_reserve(&a, &s);
}
