/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-bus.h"
#include "ctl-cmdline.h"
#include "ctl-getopt.h"
#include "ctl-policy.h"
#include "ctl-verbs.h"
#include "macro.h"

/*
 * attach, detach, run: the verbs that move processes.
 *
 * run must never let COMMAND execute outside its group: the child blocks on
 * a pipe until the parent's Attach() has returned, and is killed unheard if
 * the attach is refused.
 */

/* Parses PIDs into a new array (caller frees). */
static int parse_pids(const char *verb, char **args, int n, uint32_t **ret) {
        uint32_t *pids = calloc((size_t) n, sizeof(uint32_t));
        int r;

        if (!pids)
                return ctl_fail_errno(-ENOMEM, "cannot allocate");
        for (int i = 0; i < n; i++) {
                r = ctl_parse_pid(verb, args[i], &pids[i]);
                if (r != CTL_EXIT_OK) {
                        free(pids);
                        return r;
                }
        }
        *ret = pids;
        return CTL_EXIT_OK;
}

/* Attach(group, pids, policy). */
static int call_attach(Ctl *ctl, const char *group, const uint32_t *pids, size_t n, const CtlPolicy *pol) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        int r;

        r = ctl_new_manager_call(ctl, "Attach", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", group);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'u', pids, n * sizeof(uint32_t));
        if (r >= 0)
                r = ctl_policy_append(m, pol);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        return ctl_call(ctl, m, NULL);
}

static const struct option attach_options[] = {
        { "fifo", required_argument, NULL, CTL_ARG_FIFO },
        { "rr", required_argument, NULL, CTL_ARG_RR },
        { "other", no_argument, NULL, CTL_ARG_OTHER },
        {},
};

int verb_attach(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_free_ uint32_t *pids = NULL;
        CtlPolicy pol = {};
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, attach_options, ctl_policy_option, &pol, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = ctl_expect_args(argv[0], p.npos, 2, -1);
        if (r == CTL_EXIT_OK)
                r = parse_pids(argv[0], p.pos + 1, p.npos - 1, &pids);
        if (r == CTL_EXIT_OK)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        return call_attach(ctl, p.pos[0], pids, (size_t) p.npos - 1, &pol);
}

int verb_detach(Ctl *ctl, int argc, char *argv[]) {
        _cleanup_msg_ sd_bus_message *m = NULL;
        _cleanup_free_ uint32_t *pids = NULL;
        CtlParsed p;
        int r;

        r = ctl_parse_plain_verb(ctl, argc, argv, 1, -1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        r = parse_pids(argv[0], p.pos, p.npos, &pids);
        if (r == CTL_EXIT_OK)
                r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        r = ctl_new_manager_call(ctl, "Detach", &m);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'u', pids, (size_t) p.npos * sizeof(uint32_t));
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 0);
        if (r < 0)
                return ctl_fail_errno(r, "cannot build the request");
        return ctl_call(ctl, m, NULL);
}

/* The child of run: waits for the go byte, then becomes COMMAND. Never returns. */
static _Noreturn void run_child(int gate, char **command) {
        char go;
        ssize_t n;

        do
                n = read(gate, &go, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                _exit(127); /* the parent went away without releasing us */
        execvp(command[0], command);
        fprintf(stderr, "hcbsctl: cannot execute '%s': %s\n", command[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

static volatile sig_atomic_t run_child_pid;

static void forward_signal(int sig) {
        if (run_child_pid > 0)
                (void) kill((pid_t) run_child_pid, sig);
}

/* Forwards SIGTERM/SIGHUP to the child; the terminal's SIGINT/SIGQUIT reach it directly. */
static void run_setup_signals(pid_t child) {
        struct sigaction fwd = { .sa_handler = forward_signal };
        struct sigaction ign = { .sa_handler = SIG_IGN };

        run_child_pid = child;
        sigemptyset(&fwd.sa_mask);
        (void) sigaction(SIGTERM, &fwd, NULL);
        (void) sigaction(SIGHUP, &fwd, NULL);
        (void) sigaction(SIGINT, &ign, NULL);
        (void) sigaction(SIGQUIT, &ign, NULL);
}

/* Waits for the child; returns its exit status, or 128+N if killed by signal N. */
static int run_wait(pid_t child) {
        int status;

        while (waitpid(child, &status, 0) < 0)
                if (errno != EINTR)
                        return ctl_fail(CTL_EXIT_REFUSED, "cannot wait for the command: %s", strerror(errno));
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
}

static void run_abort_child(pid_t child) {
        (void) kill(child, SIGKILL);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* Forks the gated child, attaches it, releases it, and waits. */
static int run_command(Ctl *ctl, const char *group, char **command, const CtlPolicy *pol) {
        int gate[2];
        uint32_t pid;
        pid_t child;
        int r;

        if (pipe2(gate, O_CLOEXEC) < 0)
                return ctl_fail_errno(-errno, "cannot create a pipe");
        fflush(NULL);
        child = fork();
        if (child < 0) {
                r = -errno;
                close(gate[0]);
                close(gate[1]);
                return ctl_fail_errno(r, "cannot fork");
        }
        if (child == 0) {
                close(gate[1]);
                run_child(gate[0], command);
        }
        close(gate[0]);
        pid = (uint32_t) child;
        r = call_attach(ctl, group, &pid, 1, pol);
        if (r != CTL_EXIT_OK) {
                run_abort_child(child);
                close(gate[1]);
                return r;
        }
        run_setup_signals(child);
        if (write(gate[1], "x", 1) != 1) {
                r = ctl_fail_errno(-errno, "cannot release the command");
                run_abort_child(child);
                close(gate[1]);
                return r;
        }
        close(gate[1]);
        return run_wait(child);
}

static const struct option run_options[] = {
        { "fifo", required_argument, NULL, CTL_ARG_FIFO },
        { "rr", required_argument, NULL, CTL_ARG_RR },
        {},
};

int verb_run(Ctl *ctl, int argc, char *argv[]) {
        CtlPolicy pol = {};
        CtlParsed p;
        int r;

        r = ctl_parse_verb(ctl, argc, argv, run_options, ctl_policy_option, &pol, 1, &p);
        if (r != CTL_EXIT_OK || p.help)
                return r;
        if (p.npos < 1)
                return ctl_fail(CTL_EXIT_USAGE, "run: missing GROUP (see 'hcbsctl run --help')");
        if (p.nrest < 1)
                return ctl_fail(CTL_EXIT_USAGE, "run: missing COMMAND after '--' (see 'hcbsctl run --help')");
        r = ctl_connect(ctl);
        if (r != CTL_EXIT_OK)
                return r;
        return run_command(ctl, p.pos[0], p.rest, &pol);
}
