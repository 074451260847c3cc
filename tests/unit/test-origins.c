/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The origins table: pid-indexed look-ups, an entry per live process,
 * and the dead forgotten as calls come (a bounded number of /proc reads
 * a call) or all at once at load. Real processes: this one and children
 * it forks and reaps.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "origins.h"
#include "process.h"

static char tmpdir[64];

static void setup(void) {
        strcpy(tmpdir, "/tmp/hcbsd-test-origins.XXXXXX");
        cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        cr_assert_eq(nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

TestSuite(origins, .init = setup, .fini = teardown);

/* A child that waits to be killed (or for this process to exit). */
static pid_t child(void) {
        pid_t pid = fork();

        cr_assert_geq(pid, 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed test's worker takes its children with it */
                pause();
                _exit(0);
        }
        return pid;
}

static void reap(pid_t pid) {
        cr_assert_eq(kill(pid, SIGKILL), 0);
        cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

Test(origins, record_lookup_forget) {
        Origins o = {};
        pid_t kids[40];

        cr_assert_eq(origins_record(&o, getpid(), "user.slice"), 0);
        cr_assert_eq(origins_record(&o, getpid(), "elsewhere"), 0, "an entry is kept, not replaced");
        cr_assert_str_eq(origins_lookup(&o, getpid()), "user.slice");
        for (size_t i = 0; i < ELEMENTSOF(kids); i++) {
                char cg[32];
                kids[i] = child();
                snprintf(cg, sizeof(cg), "kid%zu", i);
                cr_assert_eq(origins_record(&o, kids[i], cg), 0);
        }
        cr_assert_eq(o.n, 1 + ELEMENTSOF(kids));
        for (size_t i = 0; i < ELEMENTSOF(kids); i += 2)
                origins_forget(&o, kids[i]);
        for (size_t i = 0; i < ELEMENTSOF(kids); i++) {
                char cg[32];
                snprintf(cg, sizeof(cg), "kid%zu", i);
                if (i % 2)
                        cr_assert_str_eq(origins_lookup(&o, kids[i]), cg);
                else /* forgotten: a child of this process goes where this process came from */
                        cr_assert_str_eq(origins_lookup(&o, kids[i]), "user.slice", "kid%zu forgotten", i);
        }
        cr_assert_str_eq(origins_lookup(&o, getpid()), "user.slice", "moved entries are still found");
        for (size_t i = 0; i < ELEMENTSOF(kids); i++)
                reap(kids[i]);
        origins_done(&o);
}

Test(origins, the_dead_go_a_few_at_a_time) {
        Origins o = {};
        pid_t kids[3 * ORIGINS_PRUNE_PER_CALL];

        cr_assert_eq(origins_record(&o, getpid(), "user.slice"), 0);
        for (size_t i = 0; i < ELEMENTSOF(kids); i++) {
                kids[i] = child();
                cr_assert_eq(origins_record(&o, kids[i], "x"), 0);
        }
        for (size_t i = 0; i < ELEMENTSOF(kids); i++)
                reap(kids[i]);
        origins_prune_some(&o, ORIGINS_PRUNE_PER_CALL);
        cr_assert_geq(o.n, 1 + ELEMENTSOF(kids) - ORIGINS_PRUNE_PER_CALL, "one call looks at no more than its share");
        for (int call = 0; call < 8; call++)
                origins_prune_some(&o, ORIGINS_PRUNE_PER_CALL);
        cr_assert_eq(o.n, 1, "calls went round the table");
        cr_assert_str_eq(origins_lookup(&o, getpid()), "user.slice");
        origins_done(&o);
}

Test(origins, saved_loaded_and_pruned) {
        Origins o = {}, back = {};
        char err[256];
        pid_t kid = child();

        cr_assert_eq(origins_record(&o, getpid(), "a/b"), 0);
        cr_assert_eq(origins_record(&o, kid, "c"), 0);
        cr_assert_eq(origins_save(&o, tmpdir), 0);
        reap(kid);
        cr_assert_eq(origins_load(&back, tmpdir, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(back.n, 1, "the dead child is pruned at load");
        cr_assert_str_eq(origins_lookup(&back, getpid()), "a/b");
        origins_done(&o);
        origins_done(&back);
}
